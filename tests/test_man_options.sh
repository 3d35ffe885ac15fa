#!/bin/bash
# test_man_options.sh BINARY MANDIR — every option that `BINARY --help`
# prints (long and short, subcommand options included), every subcommand
# and every exit status is documented in man/kgmem-diagnose.1.scd, and every
# cause of DESIGN §2a in man/kgmem-rules.5.scd. When scdoc is installed the
# pages must also compile.
set -u
bin=$1 mandir=$2
page=$mandir/kgmem-diagnose.1.scd rules=$mandir/kgmem-rules.5.scd
fail=0 n=0
check() { # what, pattern (fixed string), file
	n=$((n + 1))
	if grep -qF -- "$2" "$3"; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1: '$2' missing from $(basename "$3")"
		fail=1
	fi
}
help=$("$bin" --help) || { echo "not ok 1 - $bin --help failed"; echo 1..1; exit 1; }
longs=$(printf '%s\n' "$help" | grep -oE -- '--[a-z][a-z-]+' | sort -u)
[ -n "$longs" ] || { echo "not ok 1 - no long options in --help"; echo 1..1; exit 1; }
for o in $longs; do check "long option $o" "*$o*" "$page"; done
for o in $(printf '%s\n' "$help" | grep -oE -- '(^|[ ,])-[a-zA-Z]([ ,]|$)' | tr -d ' ,' | sort -u); do
	check "short option $o" "*$o*" "$page"
done
# `run` has its own --help
for o in $("$bin" run --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do check "run option $o" "*$o*" "$page"; done
for c in snapshot calc explain rules run; do check "command $c" "*kgmem-diagnose $c*" "$page"; done
# every subcommand's own options, from its --help (short ones in brackets too)
for c in snapshot calc explain rules; do
	sub=$("$bin" $c --help 2>&1)
	for o in $(printf '%s\n' "$sub" | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u); do
		check "$c option $o" "*$o*" "$page"
	done
	for o in $(printf '%s\n' "$sub" | grep -oE -- '(^|[ ,[])-[a-zA-Z]([] ,]|$)' | tr -d ' ,[]' | sort -u); do
		check "$c option $o" "*$o*" "$page"
	done
done
for s in 0 1 2 3; do check "exit status $s" "*$s*" "$page"; done
for e in NO_COLOR FORCE_COLOR CLICOLOR_FORCE CI KGMEM_RULES_PATH PYTORCH_CUDA_ALLOC_CONF; do check "environment $e" "*$e*" "$page"; done
for f in text json jsonl markdown github sarif; do check "format $f" "*$f*" "$page"; done
# the vocabularies (include/model/vocab/*.def, one word a line): every cause has
# its entry in kgmem-rules(5); every family, device type and phase is
# listed in both pages
words() { sed -n 's/^KG_[A-Z]*([A-Z0-9_]*, "\([^"]*\)".*/\1/p' "$mandir/../include/vocab/$1.def"; }
for c in $(words category); do
	[ "$c" = none ] || check "cause $c" "*$c*" "$rules"
done
for v in family device phase; do
	for w in $(words $v); do
		esc=$(printf '%s' "$w" | sed 's/_/\\_/g')
		check "$v $w in kgmem-diagnose(1)" "$w" "$page"
		check "$v $w in kgmem-rules(5)" "$esc" "$rules"
	done
done
for c in list show check facts; do check "rules $c" "*rules $c*" "$page"; done
# every fact in the registry (lib/model/facts.c, `rules facts`) is in kgmem-rules(5)
for f in $("$bin" rules facts | awk '{print $1}'); do
	esc=$(printf '%s' "$f" | sed 's/_/\\_/g; s/\*/\\*/g')
	check "fact $f" "*$esc*" "$rules"
done
if command -v scdoc >/dev/null; then
	for p in "$page" "$rules"; do
		n=$((n + 1))
		if out=$(scdoc < "$p" 2>&1 >/dev/null); then echo "ok $n - scdoc compiles $(basename "$p")"
		else echo "not ok $n - scdoc: $out"; fail=1; fi
	done
fi
echo "1..$n"
exit $fail

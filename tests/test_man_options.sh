#!/bin/bash
# test_man_options.sh BINARY MANDIR — every option that `BINARY --help`
# prints (long and short, subcommand options included), every subcommand
# and every exit status is documented in man/kgmem-diagnose.1.scd, and every
# cause (include/vocab/category.def) in man/kgmem-rules.5.scd. Every
# option of the diagnosis and of `run` is in the option tables of
# doc/reference.md (which README.md links). An
# option whose help lists its values ("never (default), info, warning,
# error") gets the same values everywhere: the binary accepts each and
# names exactly those when refusing another, its man page entry names each
# and its row in doc/reference.md (main and run) has each (test_completion.sh checks
# that the shells offer exactly those). When scdoc is installed the pages must
# also compile.
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
# --- the option tables (doc/reference.md, linked from README.md): every main and run option
readme=$mandir/../doc/reference.md
n=$((n + 1))
if grep -qF '](doc/reference.md)' "$mandir/../README.md"; then echo "ok $n - README.md links doc/reference.md"
else echo "not ok $n - README.md does not link doc/reference.md"; fail=1; fi
for o in $( { printf '%s\n' "$help"; "$bin" run --help; } | sed -n '/^Options:/,/^$/p' | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
	check "reference option $o" "\`$o" "$readme"
done

# --- enumerated values: help, binary, man page, README and completions agree
. "$(dirname "$0")/help_values.sh"
# man_entry OPTION [ANCHORS]: the man page paragraph of OPTION, up to the
# next blank line; the first one after the lines holding each of ANCHORS
# ("A|B": a line with A, then one with B) when given
man_entry() {
	awk -v o="*$1*" -v from="${2:-}" '
		BEGIN { na = from == "" ? 0 : split(from, a, "|"); k = 1 }
		k <= na { if (index($0, a[k])) k++; next }
		!on && $0 ~ /^[\t]*\*-/ && index($0, o) { on = 1 }
		on && /^[\t]*$/ { exit }
		on { print }' "$page"
}
sorted() { printf '%s\n' "$@" | LC_ALL=C sort | tr '\n' ' '; }
enum_check() { # where, help text, option, man FROM, readme row pattern, command...
	local where=$1 help=$2 o=$3 from=$4 rowpat=$5
	shift 5
	local vals
	vals=$(help_values "$help" "$o")
	n=$((n + 1))
	if [ -z "$vals" ]; then
		echo "not ok $n - $where $o: no values in its --help entry"; fail=1; return
	fi
	echo "ok $n - $where $o lists $(echo $vals)"
	local entry err
	entry=$(man_entry "$o" "$from")
	for v in $vals; do
		n=$((n + 1))
		if printf '%s\n' "$entry" | grep -qw -- "$v"; then echo "ok $n - $where $o $v in its man page entry"
		else echo "not ok $n - $where $o $v missing from its man page entry"; fail=1; fi
		n=$((n + 1))
		"$@" "$o" "$v" >/dev/null 2>&1
		if [ $? != 2 ]; then echo "ok $n - $where $o $v is accepted"
		else echo "not ok $n - $where $o $v is refused (exit 2)"; fail=1; fi
		if [ -n "$rowpat" ]; then
			n=$((n + 1))
			if grep -E -- "$rowpat" "$readme" | grep -qw -- "$v"; then echo "ok $n - $where $o $v in the reference's row"
			else echo "not ok $n - $where $o $v missing from the reference's row"; fail=1; fi
		fi
	done
	err=$("$@" "$o" no-such-value 2>&1 >/dev/null)
	local named
	named=$(printf '%s\n' "$err" | grep -oE '\([a-z0-9, ]+\)' | head -1 | tr -d '()' | sed 's/, /\n/g')
	n=$((n + 1))
	if [ "$(sorted $named)" = "$vals " ]; then echo "ok $n - $where $o: a bad value is refused naming the same values"
	else echo "not ok $n - $where $o: refused naming '$(echo $named)', help lists '$(echo $vals)'"; fail=1; fi
}
runhelp=$("$bin" run --help)
empty=$(mktemp); trap 'rm -f "$empty"' EXIT
# the main command: each value with an empty log (nothing to diagnose)
main_cmd() { "$bin" "$@" "$empty"; }
run_cmd() { "$bin" run "$@" -- true; }
snap_cmd() { "$bin" snapshot "$@" "$empty"; }
enum_check main "$help" --format "# OPTIONS" '^\| `-f`, `--format' main_cmd
enum_check main "$help" --fail-on "# OPTIONS" '^\| `--fail-on' main_cmd
enum_check main "$help" --color "# OPTIONS" '^\| `--color' main_cmd
enum_check run "$runhelp" --format "# COMMANDS|*kgmem-diagnose run*" '^\| `-f`, `--format FORMAT` \| stderr' run_cmd
enum_check run "$runhelp" --fail-on "# COMMANDS|*kgmem-diagnose run*" '^\| `--fail-on LEVEL` \| exit 1 when CMD' run_cmd
enum_check snapshot "$("$bin" snapshot --help 2>&1)" --format "# COMMANDS|*snapshot* [" "" snap_cmd
for s in 0 1 2 3; do check "exit status $s" "*$s*" "$page"; done
for e in NO_COLOR FORCE_COLOR CLICOLOR_FORCE CI KGMEM_RULES_PATH PYTORCH_CUDA_ALLOC_CONF; do check "environment $e" "*$e*" "$page"; done
for f in text json jsonl markdown github sarif; do check "format $f" "*$f*" "$page"; done
# the vocabularies (include/model/vocab/*.def, one word a line): every cause has
# its entry in kgmem-rules(5); every family, device type, phase and job
# mode is listed in both pages
vocab=$mandir/../include/model/vocab
words() { sed -n 's/^KG_[A-Z]*([A-Z0-9_]*, "\([^"]*\)".*/\1/p' "$vocab/$1.def"; }
# a vocabulary that cannot be read fails (the layout move left this loop
# reading nothing, so it checked nothing)
for v in category family device phase mode; do
	n=$((n + 1))
	if [ -n "$(words $v)" ]; then echo "ok $n - vocabulary $v read from $vocab"
	else echo "not ok $n - vocabulary $v: no words in $vocab/$v.def"; fail=1; fi
done
for c in $(words category); do
	[ "$c" = none ] || check "cause $c" "*$c*" "$rules"
done
for v in family device phase mode; do
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

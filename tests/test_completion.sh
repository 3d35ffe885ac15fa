#!/bin/bash
# test_completion.sh COMPLETIONS_DIR BINARY — drives each shell's own
# completion engine on the files in COMPLETIONS_DIR:
#  bash  (kgmem-diagnose.bash) as bash would: sets COMP_WORDS / COMP_CWORD,
#        calls the completion function, checks COMPREPLY; every case twice,
#        standalone and with bash-completion's library loaded when installed;
#  zsh   (_kgmem-diagnose) through compinit on a pseudo-terminal
#        (tests/zsh_complete.zsh: a Tab per line, compadd's matches caught);
#  fish  (kgmem-diagnose.fish) through `complete -C`.
# The cases every shell shares: formats, levels and colours (exactly the
# values each option's --help entry lists), subcommands, calculators,
# rule ids for `rules show` and fact names for --set (from a stand-in
# kgmem-diagnose on PATH, from a failing one, which must give nothing, and
# from BINARY itself: its `rules list` and `rules facts`), and, for each
# subcommand, exactly the long options its --help gives (plus --help; the
# --colour spelling of --color aside). TAP SKIP when zsh or fish is missing.
set -u
compdir=$(cd "$1" && pwd)
bin=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
here=$(cd "$(dirname "$0")" && pwd)
n=0 fail=0
# the values each shell must offer: what --help lists (help_values.sh)
. "$here/help_values.sh"
main_help=$("$bin" --help) run_help=$("$bin" run --help) snap_help=$("$bin" snapshot --help 2>&1)
v_format=$(help_values "$main_help" --format) v_fail_on=$(help_values "$main_help" --fail-on)
v_color=$(help_values "$main_help" --color) v_run_format=$(help_values "$run_help" --format)
v_run_fail_on=$(help_values "$run_help" --fail-on) v_snap_format=$(help_values "$snap_help" --format)
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); echo "not ok $n - $*"; fail=1; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/bad" "$tmp/real" "$tmp/work/my-rules" "$tmp/work/runs"
ln -s "$bin" "$tmp/real/kgmem-diagnose"
cat > "$tmp/bin/kgmem-diagnose" <<'EOF'
#!/bin/sh
if [ "$1 $2" = "rules list" ]; then
	echo "fragmentation.reserved-unallocated  error    Cached memory could have served the request"
	echo "fragmentation.snapshot-largest-block error   Largest free block smaller than the request"
	echo "capacity.shortfall                  error    A real shortfall"
fi
if [ "$1 $2" = "rules facts" ]; then
	echo "dataset.entities                         count   entities in the dataset"
	echo "dataset.relations                        count   relations in the dataset"
	echo "oom.requested                            bytes   the request that failed"
fi
EOF
printf '#!/bin/sh\necho "kgmem-diagnose: rules is not available" >&2\nexit 2\n' > "$tmp/bad/kgmem-diagnose"
printf '#!/bin/sh\n' > "$tmp/bin/kgtrainfake"
chmod +x "$tmp/bin/kgmem-diagnose" "$tmp/bad/kgmem-diagnose" "$tmp/bin/kgtrainfake"
touch "$tmp/work/train.log" "$tmp/work/train.log.gz" "$tmp/work/cfg.yaml" "$tmp/work/notes.txt"

# expect_via COMPLETER LABEL LINE WANT: COMPLETER LINE prints the sorted
# candidates on one line; they must equal WANT.
expect_via() {
	local got
	got=$($1 "$3")
	if [[ $got == "$4" ]]; then ok "[$2] '$3' -> '$4'"
	else notok "[$2] '$3': got '$got', want '$4'"; fi
}

# complete "WORD WORD ... CUR" -> sorted COMPREPLY, one line
run_cases() {
	local mode=$1
	cd "$tmp/work" || exit 1
	source "$compdir/kgmem-diagnose.bash"
	comp() {
		local line=$1
		# shellcheck disable=SC2206
		COMP_WORDS=($line)
		[[ $line == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE=$line COMP_POINT=${#line}
		COMPREPLY=()
		_kgmem_diagnose kgmem-diagnose "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" 2> "$tmp/stderr"
		printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//'
	}
	expect() { expect_via comp "$mode" "$1" "$2"; }
	expect "kgmem-diagnose --fo" "--format"
	expect "kgmem-diagnose --format " "$v_format"
	expect "kgmem-diagnose snapshot --format " "$v_snap_format"
	expect "kgmem-diagnose --stdin" "--stdin-filename"
	expect "kgmem-diagnose --lab" "--label"
	expect "kgmem-diagnose --out" "--output"
	expect "kgmem-diagnose --verb" "--verbose"
	expect "kgmem-diagnose -f s" "sarif"
	expect "kgmem-diagnose --fail-on w" "warning"
	expect "kgmem-diagnose --fail-on " "$v_fail_on"
	expect "kgmem-diagnose --color " "$v_color"
	expect "kgmem-diagnose --colour a" "always auto"
	expect "kgmem-diagnose --no-p" "--no-progress"
	expect "kgmem-diagnose sn" "snapshot"
	expect "kgmem-diagnose tr" "train.log train.log.gz"
	expect "kgmem-diagnose --diff tr" "train.log train.log.gz"
	expect "kgmem-diagnose -c " "cfg.yaml my-rules runs"
	expect "kgmem-diagnose --rules " "my-rules runs"
	expect "kgmem-diagnose rules " "check facts list show"
	expect "kgmem-diagnose rules sh" "show"
	PATH=$tmp/bin:$PATH expect "kgmem-diagnose rules show frag" \
		"fragmentation.reserved-unallocated fragmentation.snapshot-largest-block"
	PATH=$tmp/bin:$PATH expect "kgmem-diagnose rules show " \
		"capacity.shortfall fragmentation.reserved-unallocated fragmentation.snapshot-largest-block"
	PATH=$tmp/bad:$PATH expect "kgmem-diagnose rules show " ""
	if [[ -s $tmp/stderr ]]; then notok "[$mode] failing 'rules list' writes to the terminal"
	else ok "[$mode] failing 'rules list' stays quiet"; fi
	expect "kgmem-diagnose rules show x " ""
	expect "kgmem-diagnose calc --bu" "--budget"
	expect "kgmem-diagnose calc ad" "adam"
	expect "kgmem-diagnose calc k" "kv-cache"
	PATH=$tmp/bin:$PATH expect "kgmem-diagnose --set data" "dataset.entities= dataset.relations="
	PATH=$tmp/bin:$PATH expect "kgmem-diagnose -s oom." "oom.requested="
	expect "kgmem-diagnose explain --c" "--config"
	expect "kgmem-diagnose ru" "rules run runs"
	expect "kgmem-diagnose run --sn" "--snapshot-on-oom"
	expect "kgmem-diagnose run --rep" "--report"
	expect "kgmem-diagnose run " "--"
	expect "kgmem-diagnose run --snapshot-on-oom " "my-rules runs"
	expect "kgmem-diagnose run --fail-on e" "error"
	expect "kgmem-diagnose run --label job=1 --report r.json --sn" "--snapshot-on-oom"
	PATH=$tmp/bin:$PATH expect "kgmem-diagnose run -- kgtrainf" "kgtrainfake"
	PATH=$tmp/bin:$PATH expect "kgmem-diagnose run --log x.log kgtrainf" "kgtrainfake"
	expect "kgmem-diagnose run -- python tr" "train.log train.log.gz"
	expect "kgmem-diagnose run -- python --fo" ""
}

(run_cases standalone) > "$tmp/out1"
cat "$tmp/out1"
grep -q '^not ok' "$tmp/out1" && fail=1
n=$((n + $(grep -c '^ok\|^not ok' "$tmp/out1")))

bc=/usr/share/bash-completion/bash_completion
if [[ -r $bc ]]; then
	# shellcheck disable=SC1090
	(source "$bc" >/dev/null 2>&1; run_cases bash-completion) > "$tmp/out2"
	sed "s/^\(not \)\{0,1\}ok [0-9]*/&/" "$tmp/out2" | awk -v base=$n '
		/^ok|^not ok/ { k++; sub(/ok [0-9]+/, "ok " base + k) } { print }'
	grep -q '^not ok' "$tmp/out2" && fail=1
	n=$((n + $(grep -c '^ok\|^not ok' "$tmp/out2")))
else
	skip "bash-completion library cases" "bash-completion not installed"
fi

# ---- the cases every shell shares -----------------------------------------
# The long options of each subcommand, from its --help (one line, sorted).
longs() { grep -oE -- '--[a-z0-9][a-z0-9-]+' | { cat; echo --help; } | LC_ALL=C sort -u | tr '\n' ' ' | sed 's/ $//'; }
calc_help=$("$bin" calc --help)
# the "Options:" section where there is one (the main usage also names
# subcommands' options)
options() { sed -n '/^Options:/,/^$/p'; }
opts_main=$("$bin" --help | options | longs)
opts_snapshot=$("$bin" snapshot --help | options | longs)
opts_calc_expr=$(printf '%s\n' "$calc_help" | sed '/calc full-ranking/,$d' | longs)
opts_calc_named=$(printf '%s\n' "$calc_help" | sed -n '/calc full-ranking/,/^$/p' | longs)
opts_explain=$("$bin" explain --help | longs)
opts_rules=$("$bin" rules --help | longs)
opts_run=$("$bin" run --help | options | longs)
real_ids=$("$bin" rules list | awk 'NF && $1 !~ /^#/ { print $1 }' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')
real_facts=$("$bin" rules facts | awk 'NF { print $1 "=" }' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')
for v in opts_main opts_snapshot opts_calc_expr opts_calc_named opts_explain opts_rules opts_run real_ids real_facts v_format v_fail_on v_color v_run_format v_run_fail_on v_snap_format; do
	[[ -n ${!v} && ${!v} != --help ]] || { notok "could not read $v from $bin"; }
done

# Each case: "PATHDIR|LINE|WANT"; PATHDIR is put first on PATH (stub,
# bad, real or -). A LINE ending in "--" compares only the long options
# offered (not "--" itself nor --colour).
cases=(
	"-|kgmem-diagnose --format |$v_format"
	"-|kgmem-diagnose --fo|--format"
	"-|kgmem-diagnose -f s|sarif"
	"-|kgmem-diagnose snapshot --format |$v_snap_format"
	"-|kgmem-diagnose --fail-on |$v_fail_on"
	"-|kgmem-diagnose --color |$v_color"
	"-|kgmem-diagnose sn|snapshot"
	"-|kgmem-diagnose rules |check facts list show"
	"-|kgmem-diagnose rules sh|show"
	"-|kgmem-diagnose calc a|activations adam alloc attention"
	"-|kgmem-diagnose calc k|kv-cache"
	"-|kgmem-diagnose calc |activations adam alloc attention full-ranking kv-cache logits negatives"
	"-|kgmem-diagnose run --fail-on |$v_run_fail_on"
	"-|kgmem-diagnose run --format |$v_run_format"
	"-|kgmem-diagnose run --snap|--snapshot-on-oom"
	"-|kgmem-diagnose explain --dtype bf|bfloat16"
	"stub|kgmem-diagnose rules show frag|fragmentation.reserved-unallocated fragmentation.snapshot-largest-block"
	"stub|kgmem-diagnose rules show |capacity.shortfall fragmentation.reserved-unallocated fragmentation.snapshot-largest-block"
	"stub|kgmem-diagnose --set data|dataset.entities= dataset.relations="
	"stub|kgmem-diagnose -s oom.|oom.requested="
	"bad|kgmem-diagnose rules show |"
	"real|kgmem-diagnose rules show |$real_ids"
	"real|kgmem-diagnose --set |$real_facts"
	"-|kgmem-diagnose --|$opts_main"
	"-|kgmem-diagnose snapshot --|$opts_snapshot"
	"-|kgmem-diagnose calc 2x3 --|$opts_calc_expr"
	"-|kgmem-diagnose calc adam --|$opts_calc_named"
	"-|kgmem-diagnose calc alloc 1GiB --|$opts_calc_named"
	"-|kgmem-diagnose explain 1GiB --|$opts_explain"
	"-|kgmem-diagnose rules list --|$opts_rules"
	"-|kgmem-diagnose run --|$opts_run"
	"-|kgmem-diagnose run --label job=1 --|$opts_run"
)
pathdir() { case $1 in stub) echo "$tmp/bin:" ;; bad) echo "$tmp/bad:" ;; real) echo "$tmp/real:" ;; *) echo "" ;; esac; }
# check SHELL LINE WANT GOT
check_case() {
	local got=$4
	if [[ $2 == *-- ]]; then
		got=$(tr ' ' '\n' <<< "$got" | grep -E '^--[a-z0-9]' | grep -vx -- --colour | LC_ALL=C sort -u | tr '\n' ' ' | sed 's/ $//')
	fi
	if [[ $got == "$3" ]]; then ok "[$1] '$2' -> '$3'"
	else notok "[$1] '$2': got '$got', want '$3'"; fi
}

# bash: the shared cases, standalone
bcomp() {
	(cd "$tmp/work" && PATH=$(pathdir "$1")$PATH bash -c '
		source "$1/kgmem-diagnose.bash"
		line=$2
		COMP_WORDS=($line)
		[[ $line == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE=$line COMP_POINT=${#line}
		COMPREPLY=()
		_kgmem_diagnose kgmem-diagnose "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" 2>/dev/null
		printf "%s\n" "${COMPREPLY[@]}"' _ "$compdir" "$2") | LC_ALL=C sort -u | grep . | tr '\n' ' ' | sed 's/ $//'
}
for c in "${cases[@]}"; do
	IFS='|' read -r pd line want <<< "$c"
	check_case bash "$line" "$want" "$(bcomp "$pd" "$line")"
done

if command -v zsh >/dev/null; then
	if zsh -n "$compdir/_kgmem-diagnose" 2> "$tmp/err"; then ok "zsh -n _kgmem-diagnose"
	else notok "zsh -n: $(cat "$tmp/err")"; fi
	# one zsh per PATH set, every line of that set in it
	for pd in - stub bad real; do
		lines=() wants=()
		for c in "${cases[@]}"; do
			IFS='|' read -r p line want <<< "$c"
			[[ $p == "$pd" ]] || continue
			lines+=("$line") wants+=("$want")
		done
		(cd "$tmp/work" && PATH=$(pathdir "$pd")$PATH HOME=$tmp timeout 40 zsh -f "$here/zsh_complete.zsh" "$compdir" "${lines[@]}") > "$tmp/zsh.out" 2> "$tmp/err"
		rc=$?
		if ((rc != 0)) || [[ $(wc -l < "$tmp/zsh.out") -ne ${#lines[@]} ]]; then
			notok "zsh completion engine ($pd): exit $rc, $(wc -l < "$tmp/zsh.out") of ${#lines[@]} lines: $(head -c 300 "$tmp/err")"
			continue
		fi
		i=0
		while IFS= read -r got; do
			check_case zsh "${lines[i]}" "${wants[i]}" "$got"
			i=$((i + 1))
		done < "$tmp/zsh.out"
	done
else
	skip "zsh completion engine" "zsh not installed"
fi

if command -v fish >/dev/null; then
	if fish -n "$compdir/kgmem-diagnose.fish" 2> "$tmp/err"; then ok "fish -n kgmem-diagnose.fish"
	else notok "fish -n: $(cat "$tmp/err")"; fi
	fcomp() {
		(cd "$tmp/work" && PATH=$(pathdir "$1")$PATH HOME=$tmp fish --no-config -c \
			"source '$compdir/kgmem-diagnose.fish'; complete -C '$2'" 2>/dev/null) |
			cut -f1 | LC_ALL=C sort -u | tr '\n' ' ' | sed 's/ $//'
	}
	for c in "${cases[@]}"; do
		IFS='|' read -r pd line want <<< "$c"
		check_case fish "$line" "$want" "$(fcomp "$pd" "$line")"
	done
	# fish only: run's command and its arguments
	fexpect() { expect_via "fcomp stub" fish "$1" "$2"; }
	fexpect "kgmem-diagnose run -- kgtrainf" "kgtrainfake"
	fexpect "kgmem-diagnose run --log x.log -- kgtrainf" "kgtrainfake"
	fexpect "kgmem-diagnose run -- kgtrainfake tr" "train.log train.log.gz"
else
	skip "fish completion engine" "fish not installed"
fi
echo "1..$n"
exit $fail

#!/bin/bash
# test_completion_bash.sh COMPLETIONS_DIR — drives the bash completion
# (completions/kgmem-diagnose.bash) as bash would: sets COMP_WORDS /
# COMP_CWORD, calls the completion function, checks COMPREPLY. Runs every
# case twice: standalone, and with bash-completion's library loaded when it
# is installed. Rule ids for `rules show` come from a stand-in
# kgmem-diagnose on PATH that prints a `rules list`; a failing `rules list`
# must give no ids and no noise. Then `zsh -n` and `fish -n` on the zsh and
# fish files, and fish's own completion engine on a few cases (TAP SKIP when
# the shell is not installed).
set -u
compdir=$(cd "$1" && pwd)
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); echo "not ok $n - $*"; fail=1; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/bad" "$tmp/work/my-rules" "$tmp/work/runs"
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
	got=$("$1" "$3")
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
	expect "kgmem-diagnose --format " "github json jsonl markdown sarif text"
	expect "kgmem-diagnose snapshot --format " "json text"
	expect "kgmem-diagnose --stdin" "--stdin-filename"
	expect "kgmem-diagnose --lab" "--label"
	expect "kgmem-diagnose --out" "--output"
	expect "kgmem-diagnose --verb" "--verbose"
	expect "kgmem-diagnose -f s" "sarif"
	expect "kgmem-diagnose --fail-on w" "warning"
	expect "kgmem-diagnose --fail-on " "error info never warning"
	expect "kgmem-diagnose --color " "always auto never"
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

if command -v zsh >/dev/null; then
	if zsh -n "$compdir/_kgmem-diagnose" 2> "$tmp/err"; then ok "zsh -n _kgmem-diagnose"
	else notok "zsh -n: $(cat "$tmp/err")"; fi
else
	skip "zsh -n _kgmem-diagnose" "zsh not installed"
fi
if command -v fish >/dev/null; then
	if fish -n "$compdir/kgmem-diagnose.fish" 2> "$tmp/err"; then ok "fish -n kgmem-diagnose.fish"
	else notok "fish -n: $(cat "$tmp/err")"; fi
	fcomp() {
		(cd "$tmp/work" && PATH=$tmp/bin:$PATH HOME=$tmp fish --no-config -c \
			"source '$compdir/kgmem-diagnose.fish'; complete -C '$1'" 2>/dev/null) |
			cut -f1 | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//'
	}
	fexpect() { expect_via fcomp fish "$1" "$2"; }
	fexpect "kgmem-diagnose --format " "github json jsonl markdown sarif text"
	fexpect "kgmem-diagnose snapshot --format " "json text"
	fexpect "kgmem-diagnose --fail-on " "error info never warning"
	fexpect "kgmem-diagnose rules " "check facts list show"
	fexpect "kgmem-diagnose rules show c" "capacity.shortfall"
	fexpect "kgmem-diagnose run --fail-on " "error info never warning"
	fexpect "kgmem-diagnose run --snap" "--snapshot-on-oom"
	fexpect "kgmem-diagnose run -- kgtrainf" "kgtrainfake"
	fexpect "kgmem-diagnose run --log x.log -- kgtrainf" "kgtrainfake"
	fexpect "kgmem-diagnose run -- kgtrainfake tr" "train.log train.log.gz"
	fexpect "kgmem-diagnose calc a" "activations adam alloc attention"
	fexpect "kgmem-diagnose --set data" "dataset.entities= dataset.relations="
else
	skip "fish -n kgmem-diagnose.fish" "fish not installed"
fi
echo "1..$n"
exit $fail

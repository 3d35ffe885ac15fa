#!/usr/bin/env bash
# Rule files from the command line (issue 34): every malformed file of
# testdata/rules-bad/ through `rules check FILE` and `-r FILE` exits 3
# with its FILE:LINE:COL (one line for -r), so under a sanitizer build
# with leak detection a leak on an error path fails here (.ci/run's clang
# stage runs this suite with ASAN_OPTIONS=detect_leaks=1); a repeated key
# is refused, not merged; and KGMEM_RULES_PATH is a search path before the
# installed rules (kgmem-diagnose(1) ENVIRONMENT). Prints TAP.
# usage: test_rule_files.sh EXE SOURCE_ROOT
set -u
exe=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$2" && pwd)
. "$(dirname "$0")/tap.sh"
unset KGMEM_RULES_PATH

log=$root/testdata/logs/seed-001-rotate-eval.log
cfg=$root/testdata/configs/seed001-rotate-wn18rr.yaml

# --- malformed rule files: exit 3, located, nothing else on stdout
for f in "$root"/testdata/rules-bad/*.yaml; do
	b=${f##*/}
	"$exe" rules check "$f" >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "rules check $b → exit 3, $b:LINE:COL first" \
		"[ $rc = 3 ] && [ ! -s $tmp/o ] && head -1 $tmp/e | grep -q '^$f:[0-9][0-9]*:[0-9][0-9]*: ' && tail -1 $tmp/e | grep -q 'problems\? found$'" \
		"rc=$rc $(head -c 600 "$tmp/e")"
	"$exe" -r "$f" "$log" >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "-r $b → exit 3, one line naming $b:LINE:COL, no report" \
		"[ $rc = 3 ] && [ ! -s $tmp/o ] && [ \$(wc -l <$tmp/e) = 1 ] && grep -q '$f:[0-9][0-9]*:[0-9][0-9]*: ' $tmp/e" \
		"rc=$rc $(head -c 600 "$tmp/e")"
done
# a directory of them: every file's problems, then the count
"$exe" rules check "$root/testdata/rules-bad" >"$tmp/o" 2>"$tmp/e"; rc=$?
nfiles=$(ls "$root"/testdata/rules-bad/*.yaml | wc -l)
nnamed=$(grep -o '^[^:]*\.yaml' "$tmp/e" | sort -u | wc -l)
check "rules check on the directory names every bad file (exit 3)" "[ $rc = 3 ] && [ $nnamed = $nfiles ]" "rc=$rc $nnamed of $nfiles"
# issue 34 (N12): two messages of one rule are not run together
"$exe" -r "$root/testdata/rules-bad/repeated-key.yaml" -v "$log" >"$tmp/o" 2>&1
check "a repeated key is refused, the two messages never printed as one" \
	"grep -q \"repeated-key.yaml:7:3: duplicate key 'when' (first at line 5)\" $tmp/o && ! grep -q 'first.*second' $tmp/o" "$(head -3 "$tmp/o")"

# --- KGMEM_RULES_PATH (issue 34, N1): directories searched before the
# installed rules; the installed set stays
mkdir -p "$tmp/mine" "$tmp/empty" "$tmp/first" "$tmp/second" "$tmp/ver" "$tmp/keys"
cat >"$tmp/mine/user.yaml" <<'E'
- id: capacity.user-rule
  title: A user's own rule
  category: capacity
  severity: info
  when: oom.requested > 0
  message: the user's rule saw {oom.requested}
E
for d in first second; do
	sed "s/A user's own rule/the $d directory's rule/" "$tmp/mine/user.yaml" >"$tmp/$d/user.yaml"
done
"$exe" -q "$log" >"$tmp/want" 2>&1
"$exe" rules list >"$tmp/list" 2>&1
nshipped=$(wc -l <"$tmp/list")
KGMEM_RULES_PATH=$tmp/mine "$exe" -q "$log" >"$tmp/o" 2>&1; rc=$?
check "one user rule: the shipped rules still diagnose (same verdict)" "[ $rc = 0 ] && cmp -s $tmp/o $tmp/want" "$(cat "$tmp/o")"
KGMEM_RULES_PATH=$tmp/mine "$exe" -v "$log" >"$tmp/o" 2>&1
check "one user rule: it fires beside the shipped ones" "grep -q \"the user's rule saw 19.99 GiB\" $tmp/o"
KGMEM_RULES_PATH=$tmp/mine "$exe" rules list >"$tmp/o" 2>&1
check "rules list: the shipped rules and the user's" "[ \$(wc -l <$tmp/o) = $((nshipped + 1)) ] && grep -q '^capacity.user-rule ' $tmp/o" "$(wc -l <"$tmp/o") lines"
KGMEM_RULES_PATH=$tmp/empty:$tmp/mine "$exe" rules list >"$tmp/o" 2>&1
check "the second entry is read too" "grep -q '^capacity.user-rule ' $tmp/o"
KGMEM_RULES_PATH=$tmp/first:$tmp/second "$exe" rules show capacity.user-rule >"$tmp/o" 2>&1
check "the same id in two entries: the first entry's wins" "grep -q \"the first directory's rule\" $tmp/o" "$(head -3 "$tmp/o")"
KGMEM_RULES_PATH=$tmp/first "$exe" rules show capacity.user-rule --rules "$tmp/second" >"$tmp/o" 2>&1
check "--rules wins over KGMEM_RULES_PATH" "grep -q \"the second directory's rule\" $tmp/o" "$(head -3 "$tmp/o")"
KGMEM_RULES_PATH=$root/testdata/rules-extra "$exe" rules show cascade.after-oom >"$tmp/o" 2>&1
check "a rule with a shipped id replaces the shipped one" "grep -q 'Replaced cascade rule' $tmp/o"
KGMEM_RULES_PATH=$tmp/mine "$exe" --config "$cfg" "$log" >"$tmp/o" 2>&1; rc=$?
check "--config with KGMEM_RULES_PATH: keys.yaml from the installed rules (exit 0, the config's key)" \
	"[ $rc = 0 ] && grep -q 'set data.test_bs: 64' $tmp/o" "rc=$rc $(head -3 "$tmp/o")"
sed 's/keys: \[test_bs, /keys: [/; s/insert: test_bs/insert: mine_bs/' "$root/rules/keys.yaml" >"$tmp/keys/keys.yaml"
KGMEM_RULES_PATH=$tmp/mine:$tmp/keys "$exe" --config "$cfg" "$log" >"$tmp/o" 2>&1; rc=$?
check "an entry's own keys.yaml is used instead" "[ $rc = 0 ] && ! grep -q 'data.test_bs' $tmp/o" "rc=$rc $(head -3 "$tmp/o")"
mkdir "$tmp/priors"
sed '/^eval-blowup:/{n;s/prior: .*/prior: 0.0001/;}' "$root/rules/priors.yaml" >"$tmp/priors/priors.yaml"
KGMEM_RULES_PATH=$tmp/empty:$tmp/priors "$exe" -q "$log" >"$tmp/o" 2>&1; rc=$?
check "an entry's own priors.yaml is used instead (eval-blowup made rare: no longer the cause)" \
	"[ $rc = 0 ] && grep -q 'error\[eval-blowup' $tmp/want && grep -q 'error\[' $tmp/o && ! grep -q 'error\[eval-blowup' $tmp/o" "rc=$rc $(cat "$tmp/o")"
for p in ':' '::' ':::' ":$tmp/mine" "$tmp/mine::" "::$tmp/mine:"; do
	KGMEM_RULES_PATH=$p "$exe" -q "$log" >"$tmp/o" 2>&1; rc=$?
	check "KGMEM_RULES_PATH='${p//$tmp/T}': empty entries ignored (exit 0, same verdict)" \
		"[ $rc = 0 ] && cmp -s $tmp/o $tmp/want" "rc=$rc $(cat "$tmp/o")"
done
"$exe" --version | grep '^rules ' >"$tmp/v0"
KGMEM_RULES_PATH=$tmp/mine "$exe" --version | grep '^rules ' >"$tmp/o"
check "--version: the installed rules' VERSION when the entries have none" "cmp -s $tmp/o $tmp/v0 && ! grep -q unknown $tmp/o" "$(cat "$tmp/o")"
echo 9.9.9-mine >"$tmp/ver/VERSION"
KGMEM_RULES_PATH=$tmp/mine:$tmp/ver "$exe" --version | grep '^rules ' >"$tmp/o"
check "--version: an entry's own VERSION" "grep -q '^rules 9.9.9-mine ($tmp/ver)' $tmp/o" "$(cat "$tmp/o")"
KGMEM_RULES_PATH=$tmp/no-such-rules:$tmp/mine "$exe" -q "$log" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "a missing entry is an error naming it (exit 3)" "[ $rc = 3 ] && grep -q 'no-such-rules' $tmp/e && [ ! -s $tmp/o ]" "rc=$rc $(cat "$tmp/e")"

echo "1..$n"
[ $failed = 0 ]

#!/usr/bin/env bash
# Rule files from the command line (issue 34): every malformed file of
# testdata/rules-bad/ through `rules check FILE` and `-r FILE` exits 3
# with its FILE:LINE:COL (one line for -r), so under a sanitizer build
# with leak detection a leak on an error path fails here (.ci/run's clang
# stage runs this suite with ASAN_OPTIONS=detect_leaks=1); a repeated key
# is refused, not merged. Prints TAP.
# usage: test_rule_files.sh EXE SOURCE_ROOT
set -u
exe=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$2" && pwd)
. "$(dirname "$0")/tap.sh"
unset KGMEM_RULES_PATH

log=$root/testdata/logs/seed-001-rotate-eval.log

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

echo "1..$n"
[ $failed = 0 ]

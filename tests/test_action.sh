#!/bin/bash
# test_action.sh EXE SOURCE_ROOT [--build] — the GitHub Action's steps
# (action.yml runs contrib/github/action.sh) in a shell with the GitHub
# environment variables set: a temporary workspace, step summary, GITHUB_ENV
# and GITHUB_OUTPUT files. With --build, the build step also builds the tool
# from SOURCE_ROOT into a temporary directory (a full meson build; .ci/run's
# packaging stage), else it is given EXE. Prints TAP.
set -u
exe=$(realpath "$1") root=$(realpath "$2") full=${3:-}
. "$(dirname "$0")/tap.sh"

ws=$tmp/workspace
mkdir -p "$ws/logs"
cp "$root/testdata/logs/real-mr-0010-rank1-linear.log" "$ws/logs/rank1.log"
cp "$root/testdata/logs/clean-training.log" "$ws/logs/clean.log"
cp "$root/testdata/logs/real-pt2-0027-fifteen-processes.log" "$ws/logs/pt2.log"
cp "$root/testdata/logs/seed-001-rotate-eval-with-config.log" "$ws/eval.log"
cp "$root/testdata/configs/seed001-rotate-wn18rr.yaml" "$ws/train.yaml"
action=$root/contrib/github/action.sh

# the composite action's steps are this script's two subcommands
steps=$(grep -o 'contrib/github/action.sh" [a-z]*' "$root/action.yml" | tr '\n' ' ')
check "action.yml: a composite action whose steps run action.sh build, then diagnose" \
	'grep -q "using: composite" "$root/action.yml" && [ "$steps" = "contrib/github/action.sh\" build contrib/github/action.sh\" diagnose " ]' "$steps"
if /usr/bin/python3 -c 'import yaml' 2>/dev/null; then
	check "action.yml parses as YAML, with inputs logs, fail-on and args" '/usr/bin/python3 -c "
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
assert d[\"runs\"][\"using\"] == \"composite\"
assert set(d[\"inputs\"]) == {\"logs\", \"fail-on\", \"args\"}, d[\"inputs\"]
assert d[\"inputs\"][\"fail-on\"][\"default\"] == \"error\"
assert all(s[\"shell\"] == \"bash\" for s in d[\"runs\"][\"steps\"])
" "$root/action.yml"'
else
	ok "action.yml parses as YAML # SKIP no PyYAML"
fi

# run one step: step SUBCOMMAND [VAR=VALUE...]; sets $rc
step() {
	local sub=$1; shift
	: > "$tmp/summary"; : > "$tmp/env"; : > "$tmp/output"
	env -i PATH="$PATH" HOME="$tmp" GITHUB_ACTIONS=true GITHUB_WORKSPACE="$ws" \
		GITHUB_STEP_SUMMARY="$tmp/summary" GITHUB_ENV="$tmp/env" GITHUB_OUTPUT="$tmp/output" \
		GITHUB_ACTION_PATH="$root" RUNNER_TEMP="$tmp" "$@" \
		bash "$action" "$sub" > "$tmp/out" 2> "$tmp/err"
	rc=$?
}

if [[ $full == --build ]]; then
	step build KGMEM_BUILD_DIR="$tmp/build"
	bin=$(sed -n 's/^KGMEM_DIAGNOSE_BIN=//p' "$tmp/env")
	check "build: builds the tool and exports KGMEM_DIAGNOSE_BIN" \
		'[ $rc = 0 ] && [ "$bin" = "$tmp/build/kgmem-diagnose" ] && [ -x "$bin" ]' "$(tail -5 "$tmp/err")"
	check "build: the built binary runs (--version)" '"$tmp/build/kgmem-diagnose" --version >/dev/null'
	exe=$bin
else
	step build KGMEM_DIAGNOSE_BIN="$exe"
	check "build: an existing KGMEM_DIAGNOSE_BIN is used, nothing built" \
		'[ $rc = 0 ] && [ ! -e "$tmp/kgmem-diagnose-build" ] && [ ! -s "$tmp/env" ]'
fi

step diagnose KGMEM_DIAGNOSE_BIN="$exe" INPUT_LOGS="logs/rank1.log" INPUT_FAIL_ON=error
check "diagnose: an OOM log fails the step (exit 1) at fail-on error" '[ $rc = 1 ]'
check "diagnose: an ::error annotation on the log's OOM line" \
	'grep -q "^::error file=logs/rank1.log,line=3," "$tmp/out"'
check "diagnose: the Markdown report is appended to \$GITHUB_STEP_SUMMARY" \
	'grep -q capacity "$tmp/summary" && cmp -s "$tmp/summary" <(cd "$ws" && "$exe" --no-progress --format markdown -- logs/rank1.log)'
check "diagnose: incidents=1 in \$GITHUB_OUTPUT" 'grep -qx incidents=1 "$tmp/output"'

step diagnose KGMEM_DIAGNOSE_BIN="$exe" INPUT_LOGS="logs/clean.log" INPUT_FAIL_ON=error
check "diagnose: a clean log passes (exit 0), incidents=0" \
	'[ $rc = 0 ] && [ "$(cat "$tmp/output")" = incidents=0 ]'

step diagnose KGMEM_DIAGNOSE_BIN="$exe" INPUT_LOGS="logs/r*.log  logs/p*.log" INPUT_FAIL_ON=never
want=$(cd "$ws" && "$exe" --format jsonl logs/rank1.log logs/pt2.log | wc -l)
check "diagnose: globs expand in the workspace; fail-on never passes (exit 0)" \
	'[ $rc = 0 ] && [ "$(cat "$tmp/output")" = "incidents=$want" ] && grep -q "^::error file=logs/pt2.log" "$tmp/out"'

step diagnose KGMEM_DIAGNOSE_BIN="$exe" INPUT_LOGS="eval.log" INPUT_ARGS="--config train.yaml"
check "diagnose: args reach the tool (--config: the action names the config's own key)" \
	'[ $rc = 1 ] && grep -q data.test_bs "$tmp/summary" && grep -q data.test_bs "$tmp/out"'

step diagnose KGMEM_DIAGNOSE_BIN="$exe" INPUT_LOGS="logs/rank1.log" INPUT_FAIL_ON=fatal
check "diagnose: an unknown fail-on level is an ::error and exit 2" \
	'[ $rc = 2 ] && grep -q "^::error.*fail-on" "$tmp/out"'

step diagnose KGMEM_DIAGNOSE_BIN="$exe" INPUT_LOGS="logs/missing.log"
check "diagnose: a missing log exits 3, naming it, no summary written" \
	'[ $rc = 3 ] && grep -q logs/missing.log "$tmp/err" && [ ! -s "$tmp/summary" ]'

step diagnose INPUT_LOGS="logs/rank1.log"
check "diagnose: without a built binary, an ::error and exit 2" \
	'[ $rc = 2 ] && grep -q "^::error.*build step" "$tmp/out"'

echo "1..$n"
[ $failed = 0 ]

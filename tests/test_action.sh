#!/bin/bash
# test_action.sh EXE SOURCE_ROOT [--build] — the GitHub Action (action.yml
# runs contrib/github/action.sh key, build and diagnose) in a shell with
# the GitHub environment variables set: a temporary workspace, step
# summary, GITHUB_ENV and GITHUB_OUTPUT files; README's workflow example
# run as GitHub would run it (its `with:` through action.yml's env
# mapping). With --build, the build step also builds the self-contained
# tool from SOURCE_ROOT into a temporary prefix (a full meson build;
# .ci/run's packaging stage) and finds it there, as restored from the
# cache, the next time; else it is given EXE. Prints TAP.
set -u
exe=$(realpath "$1") root=$(realpath "$2") full=${3:-}
. "$(dirname "$0")/tap.sh"
PY=/usr/bin/python3

ws=$tmp/workspace
mkdir -p "$ws/logs" "$ws/configs"
cp "$root/testdata/logs/real-mr-0010-rank1-linear.log" "$ws/logs/rank1.log"
cp "$root/testdata/logs/clean-training.log" "$ws/logs/clean.log"
cp "$root/testdata/logs/real-pt2-0027-fifteen-processes.log" "$ws/logs/pt2.log"
cp "$root/testdata/logs/seed-001-rotate-eval-with-config.log" "$ws/eval.log"
cp "$root/testdata/configs/seed001-rotate-wn18rr.yaml" "$ws/train.yaml"
cp "$root/testdata/configs/seed001-rotate-wn18rr.yaml" "$ws/my cfg.yaml"
action=$root/contrib/github/action.sh

# the composite action's steps run this script's subcommands
steps=$(grep -o 'contrib/github/action.sh" [a-z]*' "$root/action.yml" | tr '\n' ' ')
check "action.yml: a composite action whose steps run action.sh key, build, then diagnose" \
	'grep -q "using: composite" "$root/action.yml" && [ "$steps" = "contrib/github/action.sh\" key contrib/github/action.sh\" build contrib/github/action.sh\" diagnose " ]' "$steps"
if $PY -c 'import yaml' 2>/dev/null; then
	r=$($PY - "$root/action.yml" 2>&1 <<'PY'
import re, sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
assert d["runs"]["using"] == "composite"
assert set(d["inputs"]) == {"logs", "config", "fail-on", "args", "sarif-file"}, d["inputs"]
assert d["inputs"]["fail-on"]["default"] == "error"
assert set(d["outputs"]) == {"incidents", "cause", "confidence", "sarif-file"}, d["outputs"]
steps = d["runs"]["steps"]
ids = [s.get("id") for s in steps]
assert ids == ["key", "restore", None, None, "diagnose"], ids
for s in steps:
    if "uses" in s:  # every action pinned by a full commit SHA
        assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", s["uses"]), s["uses"]
    else:
        assert s["shell"] == "bash", s
restore, save = steps[1], steps[3]
assert restore["uses"].startswith("actions/cache/restore@") and save["uses"].startswith("actions/cache/save@")
assert restore["with"] == save["with"] and "steps.key.outputs.key" in restore["with"]["key"]
assert "runner.temp" in restore["with"]["path"] and "cache-hit != 'true'" in save["if"]
assert steps[2]["env"]["KGMEM_PREFIX"] == restore["with"]["path"], steps[2]
for k, v in steps[4]["env"].items():  # INPUT_X: ${{ inputs.x }}, every input
    m = re.fullmatch(r"\$\{\{ inputs\.([\w-]+) \}\}", v)
    assert m and m.group(1) in d["inputs"] and k == "INPUT_" + m.group(1).upper().replace("-", "_"), (k, v)
assert len(steps[4]["env"]) == len(d["inputs"])
for k, o in d["outputs"].items():
    assert o["value"] == "${{ steps.diagnose.outputs.%s }}" % k, o
print("ok")
PY
)
	check "action.yml: inputs logs, config, fail-on, args, sarif-file; outputs cause, confidence, incidents, sarif-file; a cache restored and saved around the build; every action pinned by commit" \
		'[ "$r" = ok ]' "$r"
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
output() { sed -n "s/^$1=//p" "$tmp/output"; }

# --- key: names the runner's OS release and architecture; any source change changes it
step key
k1=$(output key)
. /etc/os-release
check "key: kgmem-diagnose-OS-RELEASE-ARCH-HASH in \$GITHUB_OUTPUT" \
	'[ $rc = 0 ] && [[ $k1 =~ ^kgmem-diagnose-$ID-${VERSION_ID:-}-$(uname -m)-[0-9a-f]{16}$ ]]' "$k1 $(cat "$tmp/err")"
mkdir "$tmp/src"
(cd "$root" && cp -r meson.build meson_options.txt src lib include rules hooks man completions python "$tmp/src/")
step key GITHUB_ACTION_PATH="$tmp/src"
k2=$(output key)
echo "/* changed */" >> "$tmp/src/src/main.c"
step key GITHUB_ACTION_PATH="$tmp/src"
k3=$(output key)
check "key: the same sources give the same key; a changed source file another" \
	'[ "$k1" = "$k2" ] && [ "$k2" != "$k3" ]' "$k1 $k2 $k3"
rm -rf "$tmp/src"

# --- build: an existing binary or cached build is used, nothing installed or built
mkdir -p "$tmp/shims"
for c in apt-get sudo meson ninja; do
	printf '#!/bin/sh\necho "%s $*" >> "%s/called"\nexit 1\n' "$c" "$tmp" > "$tmp/shims/$c"
	chmod +x "$tmp/shims/$c"
done
step build KGMEM_DIAGNOSE_BIN="$exe" PATH="$tmp/shims:$PATH"
check "build: an existing KGMEM_DIAGNOSE_BIN is used, nothing built" \
	'[ $rc = 0 ] && [ ! -e "$tmp/kgmem-diagnose-build" ] && [ ! -s "$tmp/env" ] && [ ! -e "$tmp/called" ]'
mkdir -p "$tmp/cached/bin"
cp "$exe" "$tmp/cached/bin/kgmem-diagnose"
step build KGMEM_PREFIX="$tmp/cached" PATH="$tmp/shims:$PATH"
check "build: a build restored from the cache is used: no apt-get, no meson, KGMEM_DIAGNOSE_BIN exported" \
	'[ $rc = 0 ] && [ ! -e "$tmp/called" ] && grep -qx "KGMEM_DIAGNOSE_BIN=$tmp/cached/bin/kgmem-diagnose" "$tmp/env"' \
	"$(cat "$tmp/out" "$tmp/err" "$tmp/called" 2>/dev/null)"
rm -rf "$tmp/cached" "$tmp/called"

if [[ $full == --build ]]; then
	t0=$(date +%s)
	step build KGMEM_PREFIX="$tmp/prefix" KGMEM_BUILD_DIR="$tmp/build"
	bin=$(sed -n 's/^KGMEM_DIAGNOSE_BIN=//p' "$tmp/env")
	check "build: builds the self-contained tool into the prefix and exports KGMEM_DIAGNOSE_BIN ($(($(date +%s) - t0)) s)" \
		'[ $rc = 0 ] && [ "$bin" = "$tmp/prefix/bin/kgmem-diagnose" ] && [ -x "$bin" ]' "$(tail -5 "$tmp/err")"
	outside=$(ldd "$bin" 2>&1 | awk '$3 ~ /^\// {print $1, $3} $1 ~ /^\// {print $1} / not found/ {print "MISSING", $1}' |
		grep -v "$tmp/prefix/" |
		grep -Ev '^(libc\.so\.6|libm\.so\.6|/lib64/ld-linux-[-a-z0-9_]*\.so\.[0-9]|/lib/ld-linux-[-a-z0-9_]*\.so\.[0-9])( |$)')
	check "build: the binary needs nothing outside the prefix but libc, libm and the loader (ldd)" \
		'[ -z "$outside" ]' "$(ldd "$bin" 2>&1 | tr '\n' ';')"
	check "build: the built binary runs with LD_LIBRARY_PATH pointing nowhere and finds its rules" \
		'LD_LIBRARY_PATH=/nonexistent "$bin" --version | grep -q "^rules .*($tmp/prefix/share/kgmem-diagnose/rules)"'
	step build KGMEM_PREFIX="$tmp/prefix" KGMEM_BUILD_DIR="$tmp/build-again" PATH="$tmp/shims:$PATH"
	check "build: the next run finds the prefix (as the cache restores it) and builds nothing" \
		'[ $rc = 0 ] && [ ! -e "$tmp/called" ] && [ ! -e "$tmp/build-again" ] && grep -q "cached build" "$tmp/out"'
	exe=$bin
fi

# --- diagnose
step diagnose KGMEM_DIAGNOSE_BIN="$exe" INPUT_LOGS="logs/rank1.log" INPUT_FAIL_ON=error
check "diagnose: an OOM log fails the step (exit 1) at fail-on error" '[ $rc = 1 ]'
check "diagnose: an ::error annotation on the log's OOM line" \
	'grep -q "^::error file=logs/rank1.log,line=3," "$tmp/out"'
check "diagnose: the Markdown report is appended to \$GITHUB_STEP_SUMMARY" \
	'grep -q capacity "$tmp/summary" && cmp -s "$tmp/summary" <(cd "$ws" && "$exe" --no-progress --format markdown -- logs/rank1.log)'
check "diagnose: incidents=1, cause=capacity, confidence=low (the CLI's verdict) in \$GITHUB_OUTPUT" \
	'[ "$(output incidents)" = 1 ] && [ "$(output cause)" = capacity ] && [ "$(output confidence)" = low ] &&
	 "$exe" -q "$ws/logs/rank1.log" | grep -q "error\[capacity, low\]"' "$(cat "$tmp/output")"
sarif=$(output sarif-file)
check "diagnose: the SARIF report is written to \$RUNNER_TEMP and named in sarif-file" \
	'[ "$sarif" = "$tmp/kgmem-diagnose.sarif" ] && $PY -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d[\"version\"] == \"2.1.0\" and len(d[\"runs\"][0][\"results\"]) >= 1
assert d[\"runs\"][0][\"results\"][0][\"locations\"][0][\"physicalLocation\"][\"artifactLocation\"][\"uri\"] == \"logs/rank1.log\"
" "$sarif"' "$(cat "$tmp/output")"

step diagnose KGMEM_DIAGNOSE_BIN="$exe" INPUT_LOGS="logs/clean.log" INPUT_FAIL_ON=error
check "diagnose: a clean log passes (exit 0): incidents=0, cause and confidence empty" \
	'[ $rc = 0 ] && [ "$(output incidents)" = 0 ] && grep -qx "cause=" "$tmp/output" && grep -qx "confidence=" "$tmp/output"' \
	"$(cat "$tmp/output")"

step diagnose KGMEM_DIAGNOSE_BIN="$exe" INPUT_LOGS="logs/r*.log  logs/p*.log" INPUT_FAIL_ON=never
want=$(cd "$ws" && "$exe" --format jsonl logs/rank1.log logs/pt2.log | wc -l)
check "diagnose: globs expand in the workspace; fail-on never passes (exit 0)" \
	'[ $rc = 0 ] && [ "$(output incidents)" = "$want" ] && grep -q "^::error file=logs/pt2.log" "$tmp/out"'

# issue 34 N3: the block form, one path a line, is read to its last line
step diagnose KGMEM_DIAGNOSE_BIN="$exe" INPUT_LOGS=$'logs/rank1.log\nlogs/pt2.log\neval.log\n' INPUT_FAIL_ON=never
want=$(cd "$ws" && "$exe" --format jsonl logs/rank1.log logs/pt2.log eval.log | wc -l)
check "diagnose: logs as a | block, one path a line: every line is diagnosed (incidents=$want)" \
	'[ $rc = 0 ] && [ "$(output incidents)" = "$want" ] && grep -q "^::error file=eval.log" "$tmp/out" && grep -q "^::error file=logs/pt2.log" "$tmp/out"' \
	"$(cat "$tmp/output")"
step diagnose KGMEM_DIAGNOSE_BIN="$exe" INPUT_LOGS=$'\n  logs/rank1.log\n' INPUT_FAIL_ON=error
check "diagnose: a block that starts with an empty line still names its log" \
	'[ $rc = 1 ] && [ "$(output incidents)" = 1 ]' "$(cat "$tmp/out" "$tmp/output")"

step diagnose KGMEM_DIAGNOSE_BIN="$exe" INPUT_LOGS="eval.log" INPUT_ARGS="--config train.yaml"
check "diagnose: args reach the tool (--config: the action names the config's own key)" \
	'[ $rc = 1 ] && grep -q data.test_bs "$tmp/summary" && grep -q data.test_bs "$tmp/out"'
step diagnose KGMEM_DIAGNOSE_BIN="$exe" INPUT_LOGS="eval.log" INPUT_CONFIG="'my cfg.yaml'"
check "diagnose: the config input, a name with a space quoted" \
	'[ $rc = 1 ] && grep -q data.test_bs "$tmp/summary" && [ "$(output cause)" = eval-blowup ]' "$(cat "$tmp/out" "$tmp/err")"

# issue 34 N14: args apply to the diagnosis only; values with spaces pass
step diagnose KGMEM_DIAGNOSE_BIN="$exe" INPUT_LOGS="eval.log" INPUT_FAIL_ON=never \
	INPUT_ARGS='--config "my cfg.yaml" --label '\''x=$(touch PWNED)'\'''
check "diagnose: args with a quoted value holding a space (--config \"my cfg.yaml\"); nothing in them is expanded" \
	'[ $rc = 0 ] && grep -q data.test_bs "$tmp/summary" && [ "$(output incidents)" = 1 ] && [ ! -e "$ws/PWNED" ]' \
	"$(cat "$tmp/out" "$tmp/err")"
step diagnose KGMEM_DIAGNOSE_BIN="$exe" INPUT_LOGS="logs/rank1.log" INPUT_FAIL_ON=never INPUT_ARGS="--fail-on error"
check "diagnose: args --fail-on is the fail-on input's: an ::error saying so, exit 2, nothing run" \
	'[ $rc = 2 ] && grep -q "^::error.*--fail-on.*fail-on input" "$tmp/out" && [ ! -s "$tmp/summary" ]' "$(cat "$tmp/out")"
step diagnose KGMEM_DIAGNOSE_BIN="$exe" INPUT_LOGS="logs/rank1.log" INPUT_ARGS="-o report.txt"
check "diagnose: args -o (the outputs are the action's own): an ::error, exit 2, no file written" \
	'[ $rc = 2 ] && grep -q "^::error.*-o" "$tmp/out" && [ ! -e "$ws/report.txt" ]' "$(cat "$tmp/out")"
step diagnose KGMEM_DIAGNOSE_BIN="$exe" INPUT_LOGS="logs/rank1.log" INPUT_ARGS='--config "unclosed'
check "diagnose: an unmatched quote in args: an ::error naming it, exit 2" \
	'[ $rc = 2 ] && grep -q "^::error.*args: unmatched quote" "$tmp/out"' "$(cat "$tmp/out")"

step diagnose KGMEM_DIAGNOSE_BIN="$exe" INPUT_LOGS="logs/rank1.log" INPUT_FAIL_ON=fatal
check "diagnose: an unknown fail-on level is an ::error and exit 2" \
	'[ $rc = 2 ] && grep -q "^::error.*fail-on" "$tmp/out"'

step diagnose KGMEM_DIAGNOSE_BIN="$exe" INPUT_LOGS="logs/missing.log"
check "diagnose: a missing log exits 3, naming it, no summary written" \
	'[ $rc = 3 ] && grep -q logs/missing.log "$tmp/err" && [ ! -s "$tmp/summary" ]'

step diagnose INPUT_LOGS="logs/rank1.log"
check "diagnose: without a built binary, an ::error and exit 2" \
	'[ $rc = 2 ] && grep -q "^::error.*build step" "$tmp/out"'

# --- README's workflow example, as a GitHub user would run it: the step
# that uses this action after a failed training step, its inputs through
# action.yml's env mapping, its outputs read by the SARIF upload
if $PY -c 'import yaml' 2>/dev/null; then
	mkdir -p "$tmp/ex"
	ex=$($PY - "$root/README.md" "$root/action.yml" "$tmp/ex" 2>&1 <<'PY'
import os, re, sys, yaml
readme, action, outdir = sys.argv[1:4]
act = yaml.safe_load(open(action))
blocks = [yaml.safe_load(b) for b in re.findall(r"^```yaml\n(.*?)^```", open(readme).read(), re.S | re.M)
          if "kgmem-diagnose/kgmem-diagnose@" in b]
assert blocks, "no README example uses the action"
def steps(doc):
    if isinstance(doc, list):
        return doc
    return [s for j in doc["jobs"].values() for s in j["steps"]]
found = []
for doc in blocks:
    ss = steps(doc)
    for k, s in enumerate(ss):
        u = s.get("uses", "")
        if u and not u.startswith("kgmem-diagnose/kgmem-diagnose@"):
            assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", u), "not pinned by commit: " + u
        if not u.startswith("kgmem-diagnose/kgmem-diagnose@"):
            continue
        ref = u.split("@", 1)[1]
        assert re.fullmatch(r"[0-9a-f]{40}|<commit>", ref), "our action pinned by a commit: " + ref
        assert re.search(r"\b(failure|always)\(\)", s.get("if", "")), "no if: failure()/always(): %r" % s
        assert set(s.get("with", {})) <= set(act["inputs"]), s["with"]
        found.append((doc, ss, k, s))
assert any("failure()" in s["if"] for _, _, _, s in found), "no example runs after a failed step"
assert any("always()" in s["if"] for _, _, _, s in found), "no gate example (always())"
# the full example: a failed-step run whose SARIF is uploaded
doc, ss, k, s = next(f for f in found if isinstance(f[0], dict))
assert ss[k - 1].get("run") and "failure()" in s["if"], "the action follows the training step"
up = [t for t in ss[k + 1:] if t.get("uses", "").startswith("github/codeql-action/upload-sarif@")]
assert up and up[0]["with"]["sarif_file"] == "${{ steps.%s.outputs.sarif-file }}" % s["id"], up
assert "failure()" in up[0]["if"] or "always()" in up[0]["if"], up[0]
perms = next(iter(doc["jobs"].values())).get("permissions", {})
assert perms.get("security-events") == "write", perms
for t in ss[k + 1:]:  # every output a later step reads exists
    for o in re.findall(r"steps\.%s\.outputs\.([\w-]+)" % s["id"], yaml.safe_dump(t)):
        assert o in act["outputs"], o
# the environment GitHub gives the diagnose step: action.yml's env with
# ${{ inputs.x }} the example's with: or the input's default
env = {}
for key, v in act["runs"]["steps"][-1]["env"].items():
    name = re.fullmatch(r"\$\{\{ inputs\.([\w-]+) \}\}", v).group(1)
    env[key] = str(s.get("with", {}).get(name, act["inputs"][name].get("default", "")))
with open(os.path.join(outdir, "env"), "w") as f:
    for key, v in env.items():
        f.write("%s=%s\0" % (key, v))
print("ok", s["id"])
PY
)
	check "README's workflow example: every action pinned by commit; the action runs if: failure() (and as a gate, always()); its inputs exist; upload-sarif reads its sarif-file output" \
		'[[ $ex = "ok "* ]]' "$ex"
	# the workspace the example names: train.log, logs/*.log.gz, configs/train.yaml
	cp "$root/testdata/logs/seed-001-rotate-eval-with-config.log" "$ws/train.log"
	gzip -c "$root/testdata/logs/real-mr-0010-rank1-linear.log" > "$ws/logs/rank1.log.gz"
	cp "$root/testdata/configs/seed001-rotate-wn18rr.yaml" "$ws/configs/train.yaml"
	mapfile -d '' -t exenv < "$tmp/ex/env"
	step diagnose KGMEM_DIAGNOSE_BIN="$exe" "${exenv[@]}"
	want=$(cd "$ws" && "$exe" --format jsonl --config configs/train.yaml train.log logs/rank1.log.gz | wc -l)
	check "README's example run: exit 0 (fail-on never), both logs diagnosed (incidents=$want), cause eval-blowup in the config's key, SARIF written" \
		'[ $rc = 0 ] && [ "$(output incidents)" = "$want" ] && [ "$want" = 2 ] && [ "$(output cause)" = eval-blowup ] &&
		 grep -q data.test_bs "$tmp/summary" && [ -s "$(output sarif-file)" ]' "$(cat "$tmp/output" "$tmp/err")"
else
	ok "README's workflow example # SKIP no PyYAML"
fi

echo "1..$n"
[ $failed = 0 ]

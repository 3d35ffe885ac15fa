#!/usr/bin/env bash
# Outputs that pipelines and CI accept (issue 16): SARIF of a log read from
# standard input validates against the OASIS SARIF 2.1.0 schema and every
# result has a location (--stdin-filename names it); --format jsonl parses
# line by line with its input and --label metadata; -o FILE; colour forced
# by FORCE_COLOR / CLICOLOR_FORCE and refused by NO_COLOR. Prints TAP.
# usage: test_pipelines.sh EXE SOURCE_ROOT [FAULTINJ_SO]
# The schema checks need python3-jsonschema (Debian python3-jsonschema);
# without it they are reported as skipped.
set -u
exe=$1
root=$2
faultinj=${3:-}  # tests/faultinj.c built as a shared module (LD_PRELOAD)
. "$(dirname "$0")/tap.sh"
unset NO_COLOR FORCE_COLOR CLICOLOR_FORCE CI

log=$root/testdata/logs/seed-004-hpo-parallel.log
schema=$root/testdata/sarif/sarif-schema-2.1.0.json

# --- SARIF from standard input
sarif_check() { # what, file, expected uri
	if ! python3 -c 'import jsonschema' 2>/dev/null; then
		n=$((n + 1)); echo "ok $n - $1 # SKIP python3-jsonschema is not installed"; return
	fi
	local msg
	if msg=$(python3 - "$schema" "$2" "$3" <<'PY' 2>&1
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
v = jsonschema.validators.validator_for(schema)(schema)
errs = ["/".join(map(str, e.path)) + ": " + e.message for e in v.iter_errors(doc)]
results = doc["runs"][0]["results"]
if not results:
    errs.append("no results")
for r in results:
    locs = r.get("locations") or []
    uris = [l["physicalLocation"]["artifactLocation"]["uri"] for l in locs]
    if uris != [sys.argv[3]]:
        errs.append("result %s: locations %s" % (r["ruleId"], uris))
    elif locs[0]["physicalLocation"]["region"]["startLine"] != 6:
        errs.append("result %s: not line 6" % r["ruleId"])
if errs:
    print("\n".join(errs[:5]))
    sys.exit(1)
PY
	); then ok "$1"; else notok "$1" "$msg"; fi
}
"$exe" -f sarif --stdin-filename x.log <"$log" >"$tmp/named.sarif"
sarif_check "cat x.log | -f sarif --stdin-filename x.log: valid SARIF 2.1.0, every result at x.log:6" "$tmp/named.sarif" x.log
"$exe" -f sarif <"$log" >"$tmp/anon.sarif"
sarif_check "SARIF from stdin without a name: still valid, every result located at \"stdin\"" "$tmp/anon.sarif" stdin
check "... and a notification says how to name it" "grep -q 'stdin-filename' $tmp/anon.sarif"

# --- the name everywhere else
"$exe" -q --stdin-filename x.log <"$log" >"$tmp/o"
check "--stdin-filename names the text headline" "grep -q '^x.log:6: error\[' $tmp/o" "$(cat $tmp/o)"
"$exe" -f github --stdin-filename x.log <"$log" >"$tmp/o"
check "--stdin-filename names GitHub annotations" "[ \"\$(grep -c '^::error file=x.log,line=6,' $tmp/o)\" = \"\$(grep -c '^::error' $tmp/o)\" ] && grep -q '^::error' $tmp/o"
"$exe" -f json --stdin-filename x.log <"$log" >"$tmp/o"
check "--stdin-filename names the JSON input and location" \
	"python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d[\"inputs\"][0][\"path\"] == \"x.log\" and d[\"incidents\"][0][\"location\"][\"path\"] == \"x.log\"))' $tmp/o"
"$exe" --stdin-filename x.log "$log" >"$tmp/o"
check "--stdin-filename leaves a named file's path alone" "grep -q '^$log:6: ' $tmp/o"
"$exe" --stdin-filename '' "$log" >"$tmp/o" 2>"$tmp/e"
check "an empty --stdin-filename is a usage error" "[ \$? = 2 ]"

# --- JSON Lines
"$exe" -f jsonl --label job=train-42 --label cluster=a100 --label job=train-43 "$log" \
	"$root/testdata/logs/real-mr-0010-rank1-linear.log" "$root/testdata/logs/clean-training.log" >"$tmp/o"
if msg=$(python3 - "$tmp/o" "$log" <<'PY' 2>&1
import json, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
assert lines[-1] == "", "output ends with a newline"
recs = [json.loads(l) for l in lines[:-1]]
assert len(recs) == 2, "%d lines, want one per incident (2)" % len(recs)
for r in recs:
    assert r["schema"] == "kgmem-diagnose/1"
    assert r["labels"] == {"job": "train-43", "cluster": "a100"}, r["labels"]
    assert r["input"]["path"] == r["location"]["path"], r["input"]
    assert r["input"]["kind"] == "log"
    assert r["severity"] == "error" and r["cause"], r
assert recs[0]["input"]["path"] == sys.argv[2]
assert recs[0]["cause"] == "parallelism" and recs[1]["rank"] == 1
PY
); then ok "--format jsonl: one JSON object a line per incident, with its input and labels"; else notok "--format jsonl parses line by line" "$msg"; fi
"$exe" -f jsonl "$root/testdata/logs/clean-training.log" >"$tmp/o"
check "--format jsonl prints nothing without an incident" "[ ! -s $tmp/o ]"
# what README and man page offer instead for jobs checked clean: run
# --report FILE --label appends one line per run, incidents or not
"$exe" run --report "$tmp/runs.jsonl" --label job=clean-1 -- true
"$exe" run --report "$tmp/runs.jsonl" --label job=oom-2 -- sh -c 'cat "$1" >&2; exit 1' sh "$log" 2>/dev/null
check "run --report --label: one line per run, a clean run's with summary.incidents 0" \
	"python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; sys.exit(not ([x[\"run\"][\"labels\"][\"job\"] for x in r] == [\"clean-1\", \"oom-2\"] and r[0][\"summary\"][\"incidents\"] == 0 and r[1][\"summary\"][\"incidents\"] >= 1))' $tmp/runs.jsonl" \
	"$(head -c 300 $tmp/runs.jsonl)"
for bad in novalue =x; do
	"$exe" -f jsonl --label "$bad" "$log" >"$tmp/o" 2>"$tmp/e"
	check "--label '$bad' is a usage error" "[ \$? = 2 ] && grep -q 'KEY=VALUE' $tmp/e"
done

# --- the README's fleet example (## Into the log pipeline), as written there
sed -n '/<!-- jsonl-example/,/^```$/p' "$root/README.md" | sed '1,2d;$d' >"$tmp/example.sh"
mkdir -p "$tmp/job" "$tmp/bin"
ln -s "$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")" "$tmp/bin/kgmem-diagnose"
cp "$log" "$tmp/job/slurm-4242.out"
(cd "$tmp/job" && SLURM_JOB_ID=4242 USER=alice KGMEM_JSONL=$tmp/job/oom.jsonl PATH=$tmp/bin:$PATH bash -e "$tmp/example.sh")
check "the README's jsonl example runs and appends one labelled line per incident" \
	"[ -s $tmp/example.sh ] && python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; sys.exit(not (len(r) == 1 and r[0][\"labels\"][\"job\"] == \"4242\" and r[0][\"labels\"][\"user\"] == \"alice\" and r[0][\"labels\"][\"node\"] and r[0][\"location\"][\"path\"] == \"slurm-4242.out\"))' $tmp/job/oom.jsonl" \
	"$(cat $tmp/example.sh; cat $tmp/job/oom.jsonl 2>&1 | head -c 300)"

# the README's Kubernetes example: the program's output passes through,
# then one labelled line per incident; the exit status is the program's
sed -n '/<!-- jsonl-k8s-example/,/^```$/p' "$root/README.md" | sed '1,2d;$d' >"$tmp/k8s.sh"
mkdir -p "$tmp/k8s"
printf '#!/bin/sh\ncat "%s"\nexit 1\n' "$(cd "$(dirname "$log")" && pwd)/$(basename "$log")" >"$tmp/bin/python"
chmod +x "$tmp/bin/python"
(cd "$tmp/k8s" && POD_NAME=train-x7 TMPDIR=$tmp/k8s PATH=$tmp/bin:$PATH bash "$tmp/k8s.sh") >"$tmp/k8s.out" 2>"$tmp/k8s.err"
rc=$?
check "the README's Kubernetes example passes the output through, adds a labelled line, keeps the status" \
	"[ -s $tmp/k8s.sh ] && [ $rc = 1 ] && head -n \$(wc -l < $log) $tmp/k8s.out | cmp -s - $log && tail -n +\$((\$(wc -l < $log) + 1)) $tmp/k8s.out | python3 -c 'import json,sys; r=[json.loads(l) for l in sys.stdin]; sys.exit(not (len(r) == 1 and r[0][\"labels\"] == {\"pod\": \"train-x7\", \"job\": \"train\"}))'" \
	"rc=$rc $(cat $tmp/k8s.sh $tmp/k8s.err; tail -c 300 $tmp/k8s.out)"

# --- -o FILE
"$exe" "$log" >"$tmp/want"
"$exe" -o "$tmp/report.txt" "$log" >"$tmp/o"; rc=$?
check "-o FILE writes the report there and nothing on stdout" "[ $rc = 0 ] && [ ! -s $tmp/o ] && cmp -s $tmp/want $tmp/report.txt"
"$exe" --output "$tmp/r.json" -f json "$log"
check "--output FILE with -f json writes valid JSON" "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' $tmp/r.json"
"$exe" -o "$tmp/no/such/dir/r.txt" "$log" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "-o into a missing directory exits 3 naming the file" "[ $rc = 3 ] && grep -q 'no/such/dir/r.txt' $tmp/e" "rc=$rc $(cat $tmp/e)"
# issue 26: the path once, not "r.txt: r.txt: cannot …"; the same for --svg
check "-o: a write error names the path once" "[ \$(grep -o 'no/such/dir/r.txt' $tmp/e | wc -l) = 1 ]" "$(cat $tmp/e)"
"$exe" --svg "$tmp/no/such/dir/m.svg" "$log" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "--svg: a write error names the path once" "[ $rc = 3 ] && [ \$(grep -o 'no/such/dir/m.svg' $tmp/e | wc -l) = 1 ]" "rc=$rc $(cat $tmp/e)"

# issue 26: -o FILE goes through the output writer --svg uses: what FILE is
# stays what it is (a FIFO, a device, a symlink, a hard link, its mode and
# owner), /dev/stdout is standard output
mkfifo "$tmp/fifo"
timeout 20 cat "$tmp/fifo" >"$tmp/fifo.out" & catpid=$!  # (a FIFO replaced by a file would keep it waiting)
"$exe" -o "$tmp/fifo" "$log" >"$tmp/o" 2>"$tmp/e"; rc=$?
wait $catpid
check "-o FIFO writes into the FIFO and leaves it a FIFO" "[ $rc = 0 ] && [ -p $tmp/fifo ] && cmp -s $tmp/want $tmp/fifo.out" "rc=$rc $(cat $tmp/e) $(ls -l $tmp/fifo)"
echo old >"$tmp/target.txt"; ln -s target.txt "$tmp/link.txt"
"$exe" -o "$tmp/link.txt" "$log" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "-o SYMLINK writes the target and leaves the link" "[ $rc = 0 ] && [ -L $tmp/link.txt ] && cmp -s $tmp/want $tmp/target.txt" "rc=$rc $(ls -l $tmp/link.txt)"
echo old >"$tmp/h1.txt"; ln "$tmp/h1.txt" "$tmp/h2.txt"
"$exe" -o "$tmp/h1.txt" "$log" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "-o on a hard-linked file: both names see the report" "[ $rc = 0 ] && [ \$(stat -c %h $tmp/h2.txt) = 2 ] && cmp -s $tmp/want $tmp/h2.txt" "rc=$rc"
echo old >"$tmp/mode.txt"; chmod 600 "$tmp/mode.txt"
if [ "$(id -u)" = 0 ]; then chown 65534:65534 "$tmp/mode.txt"; fi
before=$(stat -c '%a %u %g' "$tmp/mode.txt")
"$exe" -o "$tmp/mode.txt" "$log" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "-o keeps the file's mode, owner and group" "[ $rc = 0 ] && [ \"\$(stat -c '%a %u %g' $tmp/mode.txt)\" = '$before' ] && cmp -s $tmp/want $tmp/mode.txt" "rc=$rc $before -> $(stat -c '%a %u %g' $tmp/mode.txt)"
# (as root the old code renamed a regular file over the machine's
# /dev/stdout: the fault shim fails any rename onto it, so a regression
# fails here instead)
guard() { ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
	KGMEM_FAULT=rename:1:fail:/dev/std LD_PRELOAD="$faultinj" "$@"; }
guard "$exe" -o /dev/stdout "$log" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "-o /dev/stdout writes standard output" "[ -n '$faultinj' ] && [ $rc = 0 ] && cmp -s $tmp/want $tmp/o" "rc=$rc $(cat $tmp/e)"
guard "$exe" -o /dev/stdout "$log" 2>"$tmp/e" | cat >"$tmp/o"; rc=${PIPESTATUS[0]}
check "-o /dev/stdout into a pipe" "[ $rc = 0 ] && cmp -s $tmp/want $tmp/o" "rc=$rc $(cat $tmp/e)"
if mknod "$tmp/null" c 1 3 2>/dev/null; then
	"$exe" -o "$tmp/null" "$log" >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "-o CHARDEV (a null device made by mknod) stays a character device" "[ $rc = 0 ] && [ -c $tmp/null ] && [ ! -s $tmp/o ]" "rc=$rc $(ls -l $tmp/null)"
else
	ok "-o CHARDEV # SKIP mknod needs root (CAP_MKNOD)"
fi

# --- colour: FORCE_COLOR / CLICOLOR_FORCE on a pipe, NO_COLOR first
esc=$(printf '\033')
FORCE_COLOR=1 "$exe" -q "$log" >"$tmp/o"
check "FORCE_COLOR=1 colours a pipe" "grep -q '$esc\\[' $tmp/o"
CLICOLOR_FORCE=1 "$exe" -q "$log" >"$tmp/o"
check "CLICOLOR_FORCE=1 colours a pipe" "grep -q '$esc\\[' $tmp/o"
FORCE_COLOR=0 "$exe" -q "$log" >"$tmp/o"
check "FORCE_COLOR=0 does not" "! grep -q '$esc\\[' $tmp/o"
NO_COLOR=1 FORCE_COLOR=1 "$exe" -q "$log" >"$tmp/o"
check "NO_COLOR wins over FORCE_COLOR" "! grep -q '$esc\\[' $tmp/o"
FORCE_COLOR=1 "$exe" -q --color never "$log" >"$tmp/o"
check "--color never wins over FORCE_COLOR" "! grep -q '$esc\\[' $tmp/o"

echo "1..$n"
[ $failed = 0 ]

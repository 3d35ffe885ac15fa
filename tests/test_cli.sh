#!/usr/bin/env bash
# Command-line behaviour: exit statuses (DESIGN §1), garbage in (exit 3 with
# one line naming the file), stdin and gzip giving the same incidents, long
# lines, NUL bytes, CRLF and invalid UTF-8. Prints TAP.
# usage: test_cli.sh EXE SOURCE_ROOT
set -u
exe=$1
root=$2
. "$(dirname "$0")/tap.sh"

log=$root/testdata/logs/real-mr-0010-rank1-linear.log

# --- exit statuses and usage
"$exe" --help >"$tmp/out" 2>&1; check "--help exits 0" "[ $? = 0 ]"
check "--help names every subcommand" "grep -q 'snapshot' $tmp/out && grep -q 'explain' $tmp/out && grep -q 'rules list' $tmp/out"
"$exe" --version >"$tmp/out" 2>&1; check "--version exits 0 and names the version" "[ $? = 0 ] && grep -q '^kgmem-diagnose [0-9]' $tmp/out"
"$exe" --bogus >"$tmp/out" 2>&1; check "unknown option exits 2" "[ $? = 2 ] && grep -q \"unknown option '--bogus'\" $tmp/out"
# counts with K/M/B/T suffixes
"$exe" calc adam --params 7B >"$tmp/out" 2>&1; rc=$?
"$exe" calc adam --params 7000000000 >"$tmp/want" 2>&1
check "calc adam --params 7B is 7,000,000,000 parameters" "[ $rc = 0 ] && cmp -s $tmp/out $tmp/want && grep -q '= 104.31 GiB' $tmp/out" "$(cat $tmp/out)"
"$exe" calc logits --batch 8 --seq 2k --vocab 128K >"$tmp/out" 2>&1; rc=$?
"$exe" calc logits --batch 8 --seq 2000 --vocab 128000 >"$tmp/want" 2>&1
check "lower-case and K suffixes on other counts" "[ $rc = 0 ] && cmp -s $tmp/out $tmp/want"
"$exe" calc adam --params 7X >"$tmp/out" 2>&1
check "an unknown suffix is a usage error naming the suffixes" "[ $? = 2 ] && grep -q 'K, M, B or T' $tmp/out"

# did you mean: a mistyped subcommand or long option is a usage error
# naming the nearest one; a word that is a file is read as one
"$exe" snapshto x.pickle >"$tmp/out" 2>&1; check "a mistyped subcommand suggests the nearest" "[ $? = 2 ] && grep -q \"unknown command 'snapshto'; did you mean 'snapshot'?\" $tmp/out" "$(cat $tmp/out)"
"$exe" rule list >"$tmp/out" 2>&1; check "'rule' suggests 'rules'" "[ $? = 2 ] && grep -q \"did you mean 'rules'\" $tmp/out"
"$exe" --formt json "$log" >"$tmp/out" 2>&1; check "a mistyped long option suggests the nearest" "[ $? = 2 ] && grep -q \"unknown option '--formt'; did you mean '--format'?\" $tmp/out" "$(cat $tmp/out)"
"$exe" --verbsoe "$log" >"$tmp/out" 2>&1; check "a swapped pair of letters is one edit" "[ $? = 2 ] && grep -q \"did you mean '--verbose'\" $tmp/out"
cp "$log" "$tmp/rules2"; absexe=$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")
(cd "$tmp" && "$absexe" rules2 >"$tmp/out" 2>&1); check "a file named like a subcommand is read" "[ $? = 0 ] && grep -q '^rules2:3: error: ' $tmp/out" "$(head -2 $tmp/out)"
"$exe" --format yaml "$log" >"$tmp/out" 2>&1; check "bad --format exits 2" "[ $? = 2 ]"
"$exe" --fail-on sometimes "$log" >"$tmp/out" 2>&1; check "bad --fail-on exits 2" "[ $? = 2 ]"
"$exe" --set novalue "$log" >"$tmp/out" 2>&1; check "--set without = exits 2" "[ $? = 2 ]"
"$exe" --config >"$tmp/out" 2>&1; check "missing option argument exits 2" "[ $? = 2 ] && grep -q 'needs an argument' $tmp/out"
"$exe" "$log" >"$tmp/out" 2>&1; check "an OOM with --fail-on never (default) exits 0" "[ $? = 0 ]"
"$exe" --fail-on error "$log" >"$tmp/out" 2>&1; check "an OOM with --fail-on error exits 1" "[ $? = 1 ]"
"$exe" --fail-on error "$root/testdata/logs/clean-training.log" >"$tmp/out" 2>&1; check "a clean log with --fail-on error exits 0" "[ $? = 0 ]"

# --- garbage in: exit 3, one line on stderr naming the file
one_line_3() { # name file
	"$exe" "$2" >"$tmp/o" 2>"$tmp/e"; local rc=$?
	if [ $rc = 3 ] && [ "$(wc -l <"$tmp/e")" = 1 ] && grep -qF -- "$2" "$tmp/e" && [ ! -s "$tmp/o" ]; then
		ok "$1 → exit 3, one line naming the file"
	else
		notok "$1 → exit 3, one line naming the file" "rc=$rc stderr=$(head -c 300 "$tmp/e")"
	fi
}
head -c 4096 /dev/urandom >"$tmp/random.bin"; one_line_3 "binary file" "$tmp/random.bin"
: >"$tmp/empty.log"; one_line_3 "empty file" "$tmp/empty.log"
mkdir "$tmp/dir"; one_line_3 "directory" "$tmp/dir"
one_line_3 "missing file" "$tmp/does-not-exist.log"
printf 'PK\003\004rest of a zip' >"$tmp/model.pt"; one_line_3 "torch.save zip archive" "$tmp/model.pt"
head -c 4096 /dev/zero >"$tmp/zeros"; one_line_3 "NUL bytes only" "$tmp/zeros"
# regression: random bytes behind a '{' were taken for JSON and read whole
{ printf '{'; head -c 200000 /dev/urandom; } >"$tmp/brace.bin"; one_line_3 "random bytes starting with {" "$tmp/brace.bin"
if [ "$(id -u)" != 0 ]; then
	cp "$log" "$tmp/unreadable.log"; chmod 000 "$tmp/unreadable.log"; one_line_3 "unreadable file" "$tmp/unreadable.log"
else
	ok "unreadable file # SKIP running as root"
fi
python3 - "$tmp/big.log" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(60000):
        f.write("step %d loss %.4f lr 0.0003 tokens/s 41234.5 mem 3.21GB\n" % (i, 1.0 / (i + 1)))
    f.write(open("/dev/stdin").read() if False else "")
PY
cat "$log" >>"$tmp/big.log"
gzip -c "$tmp/big.log" | head -c 20000 >"$tmp/trunc.log.gz"
"$exe" "$tmp/trunc.log.gz" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "truncated gzip → exit 3 naming the file" "[ $rc = 3 ] && grep -q 'trunc.log.gz: truncated gzip' $tmp/e" "rc=$rc $(cat $tmp/e)"

# --- the same incidents from a file, stdin and gzip
"$exe" --format json "$log" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps(d["incidents"]))' | sed 's#"path": "[^"]*"#"path": X#g' >"$tmp/a"
"$exe" --format json - <"$log" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps(d["incidents"]))' | sed 's#"path": "[^"]*"#"path": X#g' >"$tmp/b"
gzip -c "$log" >"$tmp/crash.log.gz"
"$exe" --format json "$tmp/crash.log.gz" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps(d["incidents"]))' | sed 's#"path": "[^"]*"#"path": X#g' >"$tmp/c"
check "stdin gives the same incidents as the file" "cmp -s $tmp/a $tmp/b && [ -s $tmp/a ] && grep -q requested_bytes $tmp/a"
check "gzip gives the same incidents as the file" "cmp -s $tmp/a $tmp/c"
cat "$log" | "$exe" --format json >"$tmp/o"; check "no FILE reads stdin" "grep -q '\"path\":.*<stdin>' $tmp/o"
gzip -c "$tmp/big.log" >"$tmp/big.log.gz"
"$exe" --format json "$tmp/big.log.gz" | python3 -c 'import json,sys; d=json.load(sys.stdin); i=d["incidents"]; print(len(i), i[0]["location"]["line"], i[0]["rank"], d["inputs"][0]["gzip"])' >"$tmp/o"
check "gzip log: incident found at its line after 60000 lines" "[ \"\$(cat $tmp/o)\" = '1 60003 1 True' ]" "$(cat $tmp/o)"

# --- awkward text: CRLF, NUL bytes, invalid UTF-8, a line over 1 MiB, ANSI colours
sed 's/$/\r/' "$log" >"$tmp/crlf.log"
"$exe" --format json "$tmp/crlf.log" | python3 -c 'import json,sys; d=json.load(sys.stdin); i=d["incidents"][0]; print(i["memory"]["requested_bytes"], i["frames"][-1]["code"])' >"$tmp/o"
check "CRLF line endings" "grep -q '^20971520 return F.linear(input, self.weight, self.bias)$' $tmp/o" "$(cat $tmp/o)"
{ printf 'noise \000\000 with NULs and \377\376 bad bytes\n'; cat "$log"; printf '\377\n'; } >"$tmp/nul.log"
"$exe" --format json "$tmp/nul.log" >"$tmp/o" 2>&1; rc=$?
check "NUL bytes and invalid UTF-8 are read as text" "[ $rc = 0 ] && python3 -c 'import json,sys; d=json.load(open(\"$tmp/o\")); assert len(d[\"incidents\"])==1'"
python3 -c 'import sys; sys.stdout.write("step 7 memory " + "x" * (3 << 20) + "\n" + "y" * (6 << 20) + "\n")' >"$tmp/long.log"; cat "$log" >>"$tmp/long.log"
"$exe" --format json "$tmp/long.log" >"$tmp/o" 2>&1; rc=$?
check "lines of 3 and 6 MiB are cut for matching, with a note, and the OOM after them is found" \
	"[ $rc = 0 ] && python3 -c 'import json; d=json.load(open(\"$tmp/o\")); assert len(d[\"incidents\"])==1 and d[\"incidents\"][0][\"location\"][\"line\"]==5, d[\"incidents\"]; assert \"2 lines longer than\" in d[\"notes\"][0], d[\"notes\"]'" "$(head -c 400 $tmp/o)"
{ printf '\033[1;31m'; cat "$log"; printf '\033[0m\n'; } >"$tmp/ansi.log"
"$exe" --format json "$tmp/ansi.log" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["incidents"][0]["rank"])' >"$tmp/o"
check "ANSI colour codes are stripped" "[ \"\$(cat $tmp/o)\" = 1 ]"

# --- colour: never on a pipe, always on request, NO_COLOR wins over auto
"$exe" "$log" >"$tmp/o"; check "no colour when stdout is not a terminal" "! grep -q $'\033' $tmp/o"
"$exe" --color always "$log" >"$tmp/o"; check "--color always" "grep -q $'\033' $tmp/o"
NO_COLOR=1 "$exe" --color auto "$log" >"$tmp/o"; check "NO_COLOR" "! grep -q $'\033' $tmp/o"

# --- config patches: --diff prints, --apply writes atomically with a backup
cfg=$root/testdata/configs/seed001-rotate-wn18rr.yaml
seed=$root/testdata/logs/seed-001-rotate-eval.log
cp "$cfg" "$tmp/cfg.yaml"; chmod 640 "$tmp/cfg.yaml"
"$exe" --config "$tmp/cfg.yaml" "$seed" >"$tmp/o" 2>&1
check "no --diff/--apply: the config is not touched" "cmp -s $cfg $tmp/cfg.yaml && [ ! -e $tmp/cfg.yaml.orig ]"
"$exe" --diff --config "$tmp/cfg.yaml" "$seed" >"$tmp/o" 2>&1
check "--diff prints a unified diff of test_bs only" "grep -q '^-  test_bs: 128 ' $tmp/o && grep -q '^+  test_bs: 64 ' $tmp/o && [ \$(grep -c '^[-+] ' $tmp/o) = 2 ] && cmp -s $cfg $tmp/cfg.yaml" "$(grep '^[-+@]' $tmp/o)"
"$exe" --apply --config "$tmp/cfg.yaml" "$seed" >"$tmp/o" 2>&1; rc=$?
check "--apply writes the change and keeps .orig" "[ $rc = 0 ] && cmp -s $cfg $tmp/cfg.yaml.orig && grep -q '^  test_bs: 64 ' $tmp/cfg.yaml && grep -q '# full ranking' $tmp/cfg.yaml"
check "--apply keeps the file mode" "[ \$(stat -c %a $tmp/cfg.yaml) = 640 ]"
"$exe" --format json --config "$tmp/cfg.yaml" "$seed" >"$tmp/o" 2>&1
check "after --apply nothing is left to change" "python3 -c 'import json; d=json.load(open(\"$tmp/o\")); assert d[\"patches\"]==[], d[\"patches\"]'"
printf 'data:\n  test_bs: [1, 2\n' >"$tmp/bad.yaml"
"$exe" --config "$tmp/bad.yaml" "$seed" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "invalid YAML config → exit 3 naming file and line" "[ $rc = 3 ] && grep -q 'bad.yaml:[0-9]' $tmp/e" "rc=$rc $(cat $tmp/e)"

# --- CI formats on a complete log (seed 004): GitHub workflow commands
seed4=$root/testdata/logs/seed-004-hpo-parallel.log
"$exe" --format github --fail-on error "$seed4" >"$tmp/o" 2>&1; rc=$?
check "--format github on seed 004: ::error for the parallel jobs on line 6, exit 1" \
	"[ $rc = 1 ] && grep -q '^::error file=.*seed-004-hpo-parallel.log,line=6,title=.*parallelism.in-process-jobs.*::' $tmp/o && grep -q '^::notice .*line=6.*fragmentation.minor' $tmp/o" "$(head -c 600 $tmp/o)"
check "github messages carry no raw newline (escaped as %0A)" "! grep -v '^::' $tmp/o | grep -q 'expandable_segments' "
"$exe" --format sarif "$seed4" | python3 -c 'import json,sys; d=json.load(sys.stdin); r=d["runs"][0]["results"]; assert d["version"]=="2.1.0" and any(x["ruleId"]=="parallelism.in-process-jobs" for x in r)' 2>"$tmp/e"
check "--format sarif on seed 004 names the parallel-jobs rule" "[ $? = 0 ]" "$(cat $tmp/e)"
"$exe" --format markdown "$seed4" >"$tmp/o"
check "--format markdown on seed 004 has a summary table" "grep -q '^|' $tmp/o && grep -q 'parallelism' $tmp/o"

# --- past the first 4,096 reading lines the scan samples readings and leaves
# their literals out between samples; OOMs there (also on a line that starts
# with a reading) keep their line numbers and steps
python3 - "$tmp/readings.log" >"$tmp/want" <<'PY'
import sys
out, want = [], []
oom = "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB total capacity; 1.00 GiB already allocated; 1.50 GiB free; 2.00 GiB reserved in total by PyTorch)"
for i in range(9000):
    out.append("step %d | loss 0.5" % i)
    out.append("Memory: %.2fGB allocated, %.2fGB reserved" % (1 + i / 9000, 2 + i / 9000))
    if i in (4500, 7000):
        out.append(oom)
        want.append((len(out), i))
    if i == 8000:
        out.append("Memory: 1.90GB allocated; " + oom)
        want.append((len(out), i))
open(sys.argv[1], "w").write("\n".join(out) + "\n")
print(" ".join("%d:%d" % w for w in want))
PY
"$exe" --format json "$tmp/readings.log" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join("%d:%s" % (i["location"]["line"], i["step"]) for i in d["incidents"]))' >"$tmp/o"
check "OOMs among 9,000 reading lines: every one, with its line and step" "[ -s $tmp/o ] && cmp -s $tmp/o $tmp/want" "got $(cat $tmp/o), want $(cat $tmp/want)"

# --- progress: never on a pipe unless forced; forced prints on stderr only
"$exe" --progress "$log" >"$tmp/o" 2>"$tmp/e"; rc=$?
"$exe" "$log" >"$tmp/o2" 2>/dev/null
check "--progress leaves stdout unchanged" "[ $rc = 0 ] && cmp -s $tmp/o $tmp/o2"
"$exe" --no-progress "$log" >/dev/null 2>"$tmp/e"
check "--no-progress prints nothing on stderr" "[ ! -s $tmp/e ]"

# --- wrapping: to the terminal's width on a terminal, never on a pipe
# (script(1), from bsdutils, gives the command a terminal 60 columns wide)
seed1=$root/testdata/logs/seed-001-rotate-eval.log
"$exe" --color never "$seed1" >"$tmp/o"
check "piped, the text report is not wrapped" "awk 'length > 100 { long = 1 } END { exit !long }' $tmp/o"
if script -qec "stty cols 60; '$exe' --color never '$seed1'" /dev/null >"$tmp/tty" 2>&1; then
	tr -d '\r' <"$tmp/tty" >"$tmp/t"
	check "on a terminal 60 columns wide, no line is wider" \
		"python3 -c 'import sys; sys.exit(max(len(l) for l in open(sys.argv[1], encoding=\"utf-8\").read().splitlines()) > 60)' $tmp/t" "$(head -5 $tmp/t)"
	check "wrapping keeps every word" "[ \"\$(tr -s ' \n' '  ' <$tmp/t)\" = \"\$(tr -s ' \n' '  ' <$tmp/o)\" ]"
else
	notok "script(1) gives a terminal" "$(head -3 $tmp/tty)"
fi
# --- verdict first: -q one line; --verbose every finding; the summary by cause
"$exe" -q "$seed1" >"$tmp/o"
check "-q prints the verdict line only" "[ \"\$(wc -l <$tmp/o)\" = 1 ] && grep -q '\[eval-blowup, medium confidence\]\$' $tmp/o"
"$exe" -v "$seed1" >"$tmp/o"
check "-v prints every finding and the frame" "grep -q '\[eval-blowup.eval-phase\]' $tmp/o && grep -q '= at /home/user/kgmed/models/rotate.py:97' $tmp/o"
"$exe" "$seed1" "$root/testdata/logs/real-tf-0004-two-root-errors.log" "$log" >"$tmp/o"
check "the summary counts incidents by severity and cause" \
	"grep -qx '3 incidents: 3 errors; by cause: 1 eval-blowup, 1 undetermined, 1 capacity; rank 1 failed first (--verbose for every finding)' $tmp/o" "$(tail -1 $tmp/o)"

echo "1..$n"
[ $failed = 0 ]

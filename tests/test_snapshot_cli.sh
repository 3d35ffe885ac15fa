#!/bin/sh
# `kgmem-diagnose snapshot` end to end: text and JSON views of a real
# snapshot, and the one-line error with exit status 3 for a hostile pickle.
# Usage: test_snapshot_cli.sh PATH/TO/kgmem-diagnose (run from the source root)
exe=$1
fail=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi; }

"$exe" snapshot testdata/snapshots/cs336-transformer-fullstep.pickle >"$tmp/out.txt" 2>"$tmp/err.txt"
check "text view exits 0" "[ $? -eq 0 ]"
check "text view shows the fragmentation line" "grep -q 'fragmentation: 98.3%' '$tmp/out.txt'"
check "text view shows the phase at the peak" "grep -q 'phase at the peak: Optimizer.step#AdamW.step' '$tmp/out.txt'"
check "text view shows a top site" "grep -q 'optimizers.py:82 in step' '$tmp/out.txt'"

"$exe" snapshot --format json testdata/snapshots/eor-nn-counterfactuals.pickle >"$tmp/out.json"
check "json view exits 0" "[ $? -eq 0 ]"
check "json has the schema and the largest free block" \
  "grep -q '\"schema\":[[:space:]]*\"kgmem-diagnose/1\"' '$tmp/out.json' && grep -q '\"largest_free_block_bytes\":[[:space:]]*20971520' '$tmp/out.json'"

printf '\200\004\225\035\000\000\000\000\000\000\000\214\005posix\224\214\006system\224\223\224.' >"$tmp/evil4.pickle"
"$exe" snapshot "$tmp/evil4.pickle" >/dev/null 2>"$tmp/err.txt"
rc=$?
check "STACK_GLOBAL pickle: exit 3" "[ $rc -eq 3 ]"
check "STACK_GLOBAL pickle: one line naming file, byte and opcode" \
  "[ \$(wc -l <'$tmp/err.txt') -eq 1 ] && grep -q '^kgmem-diagnose: $tmp/evil4.pickle: byte 28: refusing pickle opcode STACK_GLOBAL' '$tmp/err.txt'"

head -c 100000 testdata/snapshots/eor-nn-counterfactuals.pickle >"$tmp/cut.pickle"
"$exe" snapshot "$tmp/cut.pickle" >/dev/null 2>"$tmp/err.txt"
rc=$?
check "truncated pickle: exit 3 with a byte offset" "[ $rc -eq 3 ] && grep -q ': byte [0-9]*: truncated pickle' '$tmp/err.txt'"

"$exe" snapshot --format yaml x >/dev/null 2>&1
check "unknown format: exit 2" "[ $? -eq 2 ]"
echo "1..$n"
exit $fail

#!/usr/bin/env bash
# Multi-line states stay bounded (issue 15): a torchelastic "Root Cause
# (first observed failure):" block whose rank line the scanner does not
# recognise (a prefix before each line, like srun --label's "0: "; here
# one no envelope decoder knows, "@@ ") must close a few
# lines below its header. While a block is open every line is processed
# in full, which also stops the sampling of memory readings, so a block
# left open changes the report: the log with the unclosed block must give
# the report of the same log with the header reworded (paths and sizes
# aside). Generated logs, no timing. Prints TAP.
# usage: test_scan_bounds.sh EXE
set -u
exe=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# gen HEADER FILE: the block, 40 lines without readings, 6,000 steps with
# a growing reading each, then one OOM
gen() {
	awk -v hdr="$1" 'BEGIN {
		print "@@ " hdr
		print "@@ [0]:"
		print "@@   host      : node1"
		print "@@   rank      : 3 (local_rank: 3)"
		print "@@   exitcode  : 1 (pid: 99)"
		for (i = 0; i < 40; i++) print "@@ waiting for workers " i
		for (i = 0; i < 6000; i++) {
			printf "step %d | loss 1.0\n", i
			printf "Memory: %.2fGB allocated\n", 1 + i * 0.001
		}
		print "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB total capacity; 12.00 GiB already allocated; 1.00 GiB free; 13.00 GiB reserved in total by PyTorch)"
	}' > "$2"
}
gen "Root Cause (first observed failure):" "$tmp/open.log"
gen "Root-cause report follows" "$tmp/plain.log"
strip() { sed -e 's/open\.log/X.log/; s/plain\.log/X.log/; /"bytes":/d' "$1"; }
"$exe" --format json "$tmp/open.log" > "$tmp/open.json"
"$exe" --format json "$tmp/plain.log" > "$tmp/plain.json"
echo "1..1"
if diff <(strip "$tmp/open.json") <(strip "$tmp/plain.json") > "$tmp/diff"; then
	echo "ok 1 - an unclosed root-cause block closes: same report as without it"
else
	echo "not ok 1 - an unclosed root-cause block closes: same report as without it"
	sed 's/^/#   /' "$tmp/diff" | head -20
fi

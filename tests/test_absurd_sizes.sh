#!/usr/bin/env bash
# Absurd sizes (issue 26): a value no double-to-int64 conversion can hold is
# saturated (kg_clamp_i64) or unknown, never INT64_MIN, a negative byte
# count or "?" where the input states a size. Under the clang UBSan build
# (.ci/run, -fsanitize=float-cast-overflow) the same runs also prove no
# conversion overflows. Prints TAP.
# usage: test_absurd_sizes.sh EXE SOURCE_ROOT
set -u
exe=$1
d=$2/testdata/absurd
. "$(dirname "$0")/tap.sh"

# 1. "Process 101553 has 99999999999999999999.19 GiB" (the budget's byte
# conversion): that process's size is unknown, the others still add up
"$exe" -v "$d/process-1e20-gib.log" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "Process … has 10^20 GiB: exit 0, no negative byte count anywhere" \
	"[ $rc = 0 ] && ! grep -qE -- '-[0-9]+ bytes|-[0-9.]+ [KMG]iB' $tmp/o" "rc=$rc $(grep -E -- '-[0-9]+ bytes' $tmp/o | head -2) $(head -c 300 $tmp/e)"
"$exe" -f json "$d/process-1e20-gib.log" >"$tmp/j" 2>"$tmp/e"; rc=$?
check "… its size is unknown (null), the other processes' memory is positive" \
	"[ $rc = 0 ] && python3 -c 'import json,sys; i = json.load(open(sys.argv[1]))[\"incidents\"][0]; p = [x for x in i[\"memory\"][\"other_processes\"] if x[\"pid\"] == 101553]; sys.exit(not (len(p) == 1 and p[0][\"in_use_bytes\"] is None and i[\"budget\"][\"other_processes\"] > 0))' $tmp/j" \
	"rc=$rc $(head -c 300 $tmp/e)"

# 2. a memory_summary() row with 10^26 MiB (the summary reader, the text
# report's size formatting): saturated at 2^63-1 bytes, not "?"
"$exe" "$d/summary-1e26-mib.log" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "memory_summary() with 10^26 MiB allocated: the size saturates (8589934592.00 GiB), not '?'" \
	"[ $rc = 0 ] && grep -q 'memory_summary: 8589934592.00 GiB allocated (peak 13.99 GiB), 14.24 GiB reserved' $tmp/o" "rc=$rc $(grep memory_summary $tmp/o) $(head -c 300 $tmp/e)"

# 3. {"num_ooms": 1e30} and byte counters of 1e30 (the snapshot reader)
"$exe" snapshot "$d/memory-stats-num-ooms-1e30.json" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "memory_stats with num_ooms 1e30: saturated at 9223372036854775807, not negative" \
	"[ $rc = 0 ] && grep -qE '^  num_ooms +9223372036854775807\$' $tmp/o && grep -qE '^  allocated_bytes.all.current +8589934592.00 GiB' $tmp/o && ! grep -q -- '-9223372036854775808' $tmp/o" \
	"rc=$rc $(cat $tmp/o $tmp/e | head -8)"
"$exe" "$d/memory-stats-num-ooms-1e30.json" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "… and in the report: sizes, not '?'" \
	"[ $rc = 0 ] && grep -q 'memory_stats: 8589934592.00 GiB allocated (peak ?), 8589934592.00 GiB reserved' $tmp/o" "rc=$rc $(cat $tmp/o $tmp/e | head -4)"

echo "1..$n"
[ $failed = 0 ]

#!/usr/bin/env bash
# Long fuzzing runs: every harness (or the ones named) for MINUTES each,
# JOBS harnesses at a time, with a persistent corpus under CORPUS_DIR
# (default ~/.cache/kgmem-fuzz; never committed) seeded from testdata.
# Builds BUILD_FUZZ (default build-fuzz) with clang if needed. Findings
# land in CORPUS_DIR/artifacts/<harness>-crash-…; replay one with
#   build-fuzz/tests/fuzz/fuzz_<harness> FILE
# -n prints the harnesses that would run, one a line, and runs nothing.
# usage: tests/fuzz/long-run.sh [-n] [-m MINUTES] [-j JOBS] [HARNESS…]
set -eu
cd "$(dirname "$0")/../.."
minutes=10 jobs=$(nproc) dry=
while getopts nm:j: o; do
	case $o in
	n) dry=1 ;;
	m) minutes=$OPTARG ;;
	j) jobs=$OPTARG ;;
	*) echo "usage: $0 [-n] [-m MINUTES] [-j JOBS] [HARNESS…]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
dir=${CORPUS_DIR:-$HOME/.cache/kgmem-fuzz}
bd=${BUILD_FUZZ:-build-fuzz}
if [ -z "$dry" ]; then
	if [ ! -d "$bd" ]; then
		CC=clang meson setup "$bd" -Dfuzz=true -Dbuildtype=debugoptimized >/dev/null
	fi
	ninja -C "$bd" >/dev/null
fi
harnesses=("$@")
if [ ${#harnesses[@]} = 0 ]; then
	for f in "$bd"/tests/fuzz/fuzz_*; do
		# the harness programs, not their fuzz_*.p object folders
		[ -f "$f" ] && [ -x "$f" ] && harnesses+=("${f##*/fuzz_}")
	done
fi
if [ -n "$dry" ]; then
	printf '%s\n' "${harnesses[@]}"
	exit 0
fi
python3 tests/fuzz/seeds.py . "$dir/seeds" >/dev/null
mkdir -p "$dir/artifacts" "$dir/logs"
run_one() {
	local h=$1 dict=()
	mkdir -p "$dir/corpus/$h" "$dir/seeds/$h"
	[ -f "tests/fuzz/$h.dict" ] && dict=(-dict="tests/fuzz/$h.dict")
	[ "$h" = logscan ] && dict=(-dict=tests/fuzz/oom.dict)
	local rc=0
	"$bd"/tests/fuzz/fuzz_"$h" "${dict[@]}" -max_total_time=$((minutes * 60)) \
		-timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
		-artifact_prefix="$dir/artifacts/$h-" "$dir/corpus/$h" "$dir/seeds/$h" \
		>"$dir/logs/$h.log" 2>&1 || rc=$?
	printf '%-10s rc=%d %s\n' "$h" "$rc" "$(grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$dir/logs/$h.log" | tail -1)"
	return $rc
}
fail=0
running=0
for h in "${harnesses[@]}"; do
	run_one "$h" &
	running=$((running + 1))
	if [ $running -ge "$jobs" ]; then
		wait -n || fail=1
		running=$((running - 1))
	fi
done
while [ $running -gt 0 ]; do
	wait -n || fail=1
	running=$((running - 1))
done
ls "$dir/artifacts" | sed 's/^/finding: /'
exit $fail

#!/bin/sh
# Fixed costs (a 10-line log, a loop of 2,000 of them, a 10 MB log) and the
# unclosed root-cause block, against grep -F and cat in the same run
# (bench/README.md "Start-up and bounded states").
# usage: bench/startup/run.sh [BUILD_DIR [BASE_BUILD_DIR]]
#        (BASE_BUILD_DIR: e.g. a build of main, run in the same rounds)
# env:   RUNS (default 9), LOOP (2000); LOGS="a.log b.log" also compares on
#        those existing logs (e.g. bench/log's, kept with BENCH_DIR), and
#        ONLY_LOGS=1 runs just those
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
exec python3 "$root/bench/startup/bench.py" "$build/kgmem-diagnose" "$root" \
	--runs "${RUNS:-9}" --loop "${LOOP:-2000}" ${2:+--base "$2/kgmem-diagnose"} \
	$(for l in ${LOGS:-}; do printf -- '--log %s ' "$l"; done) ${ONLY_LOGS:+--only-logs}

#!/bin/sh
# Every benchmark, one after the other (bench/README.md): the log scan
# beside cat, grep -F and rg --no-mmap on 300 MB and 1.1 GB logs from two
# generators, no OOM and one OOM per MB (bench/log/run.sh); start-up, a loop
# of small logs and the unclosed root-cause block (bench/startup/run.sh);
# the snapshot reader against CPython `pickle.load` (bench/snapshot/run.sh,
# ~400 MB snapshot); and the `run` wrapper's CPU time against a child
# printing 1 GB (bench/run/run.sh). Each generates its inputs in a
# temporary directory and deletes them.
# usage: bench/run.sh [BUILD_DIR]      (default: build)
# env:   RUNS (default 5), KGMEM_SIMD (caps the scanner's vector path),
#        BENCH_DIR (keep and reuse the generated logs)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
echo "== log scan"
KGMEM="$build/kgmem-diagnose" "$root/bench/log/run.sh"
echo
echo "== start-up, small logs, unclosed root-cause block"
RUNS="${RUNS:-9}" "$root/bench/startup/run.sh" "$build"
echo
echo "== snapshot reader"
"$root/bench/snapshot/run.sh" "$build" 400 "${RUNS:-5}"
echo
echo "== run wrapper"
KGMEM="$build/kgmem-diagnose" RUNS="${RUNS:-3}" "$root/bench/run/run.sh" || true

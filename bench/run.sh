#!/bin/sh
# Every benchmark, one after the other (bench/README.md): the log scan
# against `grep -c` (bench/log/run.sh, 1.1 GB log, no OOM and 1,000 OOMs)
# and the snapshot reader against CPython `pickle.load`
# (bench/snapshot/run.sh, ~400 MB snapshot), and the `run` wrapper's CPU
# time against a child printing 1 GB (bench/run/run.sh). Each generates its inputs in
# a temporary directory and deletes them.
# usage: bench/run.sh [BUILD_DIR]      (default: build)
# env:   RUNS (default 5), KGMEM_SIMD (caps the scanner's vector path)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
echo "== log scan"
KGMEM="$build/kgmem-diagnose" "$root/bench/log/run.sh"
echo
echo "== snapshot reader"
"$root/bench/snapshot/run.sh" "$build" 400 "${RUNS:-5}"
echo
echo "== run wrapper"
KGMEM="$build/kgmem-diagnose" RUNS="${RUNS:-3}" "$root/bench/run/run.sh" || true

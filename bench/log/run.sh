#!/usr/bin/env bash
# Log-scan benchmark: kgmem-diagnose vs `grep -c 'out of memory'` on a
# generated training log (bench/README.md).
# usage: bench/log/run.sh [SIZE_MB [N_OOMS]]   (defaults: 1100 MB, 1000 OOMs)
# env:   KGMEM=path/to/kgmem-diagnose (default build/kgmem-diagnose),
#        RUNS=5, BENCH_DIR=DIR to keep the generated logs there and reuse them.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
size=${1:-1100}
ooms=${2:-1000}
exe=${KGMEM:-$root/build/kgmem-diagnose}
if [ ! -x "$exe" ]; then
	echo "run.sh: $exe not built (meson setup build && ninja -C build)" >&2
	exit 2
fi
keep=()
[ -n "${BENCH_DIR:-}" ] && keep=(--dir "$BENCH_DIR" --keep)
exec python3 "$root/bench/log/bench.py" "$exe" "$root" "$size" "$ooms" --runs "${RUNS:-5}" "${keep[@]}"

#!/usr/bin/env bash
# Log-scan benchmark: kgmem-diagnose beside cat, grep -F and rg --no-mmap
# on logs from two generators (bench/README.md).
# usage: bench/log/run.sh [SIZE_MB...]   (default: 300 1100; PER_MB OOMs per MB
#                                         in the second log of each size)
# env:   KGMEM=path/to/kgmem-diagnose (default build/kgmem-diagnose),
#        BASE=path/to/another/kgmem-diagnose (run in the same rounds),
#        RUNS=5, PER_MB=1, GENS=genlog,genmixed,
#        BENCH_DIR=DIR to keep the generated logs there and reuse them.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
sizes=$(IFS=,; echo "${*:-300,1100}")
exe=${KGMEM:-$root/build/kgmem-diagnose}
if [ ! -x "$exe" ]; then
	echo "run.sh: $exe not built (meson setup build && ninja -C build)" >&2
	exit 2
fi
extra=()
[ -n "${BENCH_DIR:-}" ] && extra+=(--dir "$BENCH_DIR" --keep)
[ -n "${BASE:-}" ] && extra+=(--base "$BASE")
exec python3 "$root/bench/log/bench.py" "$exe" "$root" --sizes "$sizes" --per-mb "${PER_MB:-1}" \
	--gens "${GENS:-genlog,genmixed}" --runs "${RUNS:-5}" "${extra[@]}"

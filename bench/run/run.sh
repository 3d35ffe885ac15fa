#!/bin/sh
# `kgmem-diagnose run` overhead (bench/README.md): the wrapper's own CPU
# time against its child's, for a child that prints SIZE_MB of training-log
# lines with print() (the issue-17 target: below 5 %) into a pipe and into a
# regular file (as a Slurm --output file), and for the same text
# written by cat(1) in large writes (the per-byte cost alone).
# usage: bench/run/run.sh [SIZE_MB]       (default 1024)
# env:   KGMEM=path/to/kgmem-diagnose (default build/kgmem-diagnose), RUNS=3
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
exe=${KGMEM:-$root/build/kgmem-diagnose}
if [ ! -x "$exe" ]; then
	echo "run.sh: $exe not built (meson setup build && ninja -C build)" >&2
	exit 2
fi
rc=0
python3 "$root/bench/run/measure.py" "$exe" "${1:-1024}" "${RUNS:-3}" python || rc=$?
python3 "$root/bench/run/measure.py" "$exe" "${1:-1024}" "${RUNS:-3}" python-file || rc=$?
python3 "$root/bench/run/measure.py" "$exe" "${1:-1024}" "${RUNS:-3}" cat || true
exit $rc

#!/usr/bin/env bash
# The log scanner's prefilter on aarch64: NEON path against scalar path
# (bench/README.md, "aarch64"). Generates a training log with no OOM and one
# with N_OOMS real messages (bench/log/genlog.py), then runs
# `kgmem-diagnose --format json LOG` with KGMEM_SIMD=scalar and
# KGMEM_SIMD=neon alternately, RUNS times each, and prints each path's
# median CPU time (user + system, GNU time) and their ratio; the two paths'
# JSON must be byte-identical (exit status 1 if not).
# On an aarch64 machine the binary runs as it is; elsewhere under
# qemu-aarch64-static: emulated numbers are only indicative (qemu turns
# each NEON instruction into several host instructions or a helper call,
# so the gap is smaller than on hardware).
# usage: bench/aarch64/run.sh [BUILD_DIR [SIZE_MB [N_OOMS]]]
#        (defaults: build-aarch64 from .ci/aarch64, 100 MB, 100 OOMs)
# env:   RUNS (default 5), BENCH_DIR=DIR to keep the logs there and reuse them
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-aarch64}
size=${2:-100}
ooms=${3:-100}
runs=${RUNS:-5}
exe=$build/kgmem-diagnose
if [ ! -x "$exe" ]; then
	echo "run.sh: $exe not built (.ci/aarch64 builds build-aarch64)" >&2
	exit 2
fi
if [ ! -x /usr/bin/time ]; then
	echo "run.sh: needs GNU time (apt package time)" >&2
	exit 2
fi
run=("$exe")
how=native
if [ "$(uname -m)" != aarch64 ]; then
	run=(qemu-aarch64-static "$exe")
	how="qemu-user ($(qemu-aarch64-static --version | head -1)) on $(uname -m): indicative only"
fi
if [ -n "${BENCH_DIR:-}" ]; then
	dir=$BENCH_DIR
	mkdir -p "$dir"
else
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
fi
cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
echo "machine: ${cpu:-unknown}, $(nproc) CPUs; $how; runs: $runs each, alternating"
status=0
for n in 0 "$ooms"; do
	log=$dir/train-${size}MB-${n}oom.log
	[ -s "$log" ] || python3 "$root/bench/log/genlog.py" "$log" "$size" "$n" \
		"$root/testdata/corpus/dev.jsonl" >/dev/null
	cat "$log" >/dev/null # page cache
	: >"$dir/times"
	for _ in $(seq "$runs"); do
		for p in scalar neon; do
			KGMEM_SIMD=$p /usr/bin/time -q -f "$p %U %S" -a -o "$dir/times" \
				"${run[@]}" --format json "$log" >"$dir/out-$p.json" || true
		done
	done
	if ! cmp -s "$dir/out-scalar.json" "$dir/out-neon.json"; then
		echo "$log: the scalar and NEON paths' JSON differ"
		status=1
	fi
	python3 - "$dir/times" "$log" "$size" "$n" <<'PY'
import statistics, sys
cpu = {}
for line in open(sys.argv[1]):
    p, u, s = line.split()
    cpu.setdefault(p, []).append(float(u) + float(s))
m = {p: statistics.median(v) for p, v in cpu.items()}
print("%s MiB, %s OOMs: scalar %.2f s, NEON %.2f s CPU (medians of %d): NEON %.2fx faster; %.0f -> %.0f MiB/s"
      % (sys.argv[3], sys.argv[4], m["scalar"], m["neon"], len(cpu["neon"]), m["scalar"] / m["neon"],
         float(sys.argv[3]) / m["scalar"], float(sys.argv[3]) / m["neon"]))
PY
done
exit $status

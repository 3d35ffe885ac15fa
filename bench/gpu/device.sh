#!/bin/bash
# One pass of every GPU check on a lent GPU machine (no compiler needed
# there): the bench/gpu cases through `kgmem-diagnose run` (their logs,
# snapshots and reports land in testdata/gpu/CASE/) and the Python ways in
# (bench/gpu/python_hooks.sh). The binary and its four shared libraries are
# carried in BIN_DIR (default .devbin: kgmem-diagnose, lib/*.so*), made here
# with:  mkdir -p .devbin/lib && cp build/kgmem-diagnose .devbin/ &&
#        cp -L $(ldd build/kgmem-diagnose | awk '/pcre2|cjson|yaml|libz/{print $3}') .devbin/lib/
# Results are packed into $OUT/gpu.tgz after every case (so a run cut short
# still returns what it made). usage: bench/gpu/device.sh [CASE...]
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BIN_DIR:-$root/.devbin}
out=${OUT:-/tmp}
export LD_LIBRARY_PATH=$bin/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export KGMEM=$bin/kgmem-diagnose KGMEM_RULES_PATH=$root/rules PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
"$KGMEM" --version | head -1
pack() { tar -czf "$out/gpu.tgz" -C "$root/testdata" gpu 2>/dev/null; }
for c in ${*:-capacity_batch eval_blowup fragmentation cap_fraction checkpoint_load two_procs leak jax_oom cupy_oom smi_table generate_batch shm_worker}; do
	s=$(date +%s)
	timeout 90 sh "$root/bench/gpu/run.sh" "$c"
	echo "  ($c: $(( $(date +%s) - s )) s)"
	pack
done
mkdir -p "$root/testdata/gpu/python-hooks"
EVIDENCE=$root/testdata/gpu/python-hooks timeout 200 bash "$root/bench/gpu/python_hooks.sh" \
	> "$root/testdata/gpu/python-hooks/output.txt" 2>&1
echo "python hooks: exit $?"; tail -40 "$root/testdata/gpu/python-hooks/output.txt"
pack

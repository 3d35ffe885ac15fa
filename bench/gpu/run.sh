#!/bin/sh
# Real OOMs on a real GPU through `kgmem-diagnose run` (issue 17, item 6).
# Each case's log, allocator snapshot(s) and JSON report go to
# testdata/gpu/CASE/ (log.txt, kgmem-oom-*.pickle, report.json), to be
# committed with the GPU named in log.txt; they then serve as inputs that
# need no GPU. Without a CUDA GPU every case exits 77 and nothing is written.
# usage: bench/gpu/run.sh [CASE...]   (default: every case)
# env:   KGMEM=path/to/kgmem-diagnose (default build/kgmem-diagnose),
#        PYTHON=python3
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
exe=${KGMEM:-$root/build/kgmem-diagnose}
py=${PYTHON:-python3}
cases=${*:-eval_blowup fragmentation two_procs leak checkpoint_load capacity_batch cap_fraction jax_oom cupy_oom smi_table generate_batch shm_worker}
rc=0
for c in $cases; do
	out=$root/testdata/gpu/$c
	mkdir -p "$out"
	rm -f "$out"/kgmem-oom-*.pickle
	(cd "$root/bench/gpu" && "$exe" run --log "$out/log.txt" --report "$out/report.json" \
		--snapshot-on-oom "$out" -- "$py" "$c.py" > /dev/null 2> "$out/diagnosis.txt")
	st=$?
	if [ "$st" = 77 ]; then
		echo "$c: skipped ($(tail -n1 "$out/log.txt"))"
		rm -rf "$out"
		continue
	fi
	echo "$c: exit $st; $(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print("%d incident(s), causes %s, %d snapshot(s), GPU evidence %s" % (
    d["summary"]["incidents"], sorted({i.get("cause") for i in d["incidents"]}),
    len(d["snapshots"]), [e["gpu"]["available"] for e in d["run"]["readings"]]))' "$out/report.json")"
	[ "$st" = 0 ] && rc=1  # every case must end in an OOM
done
rmdir "$root/testdata/gpu" 2>/dev/null
exit $rc

#!/bin/sh
# Runs bench/gpu/host_kill.py under `kgmem-diagnose run` (bench/gpu/run.sh)
# with this process's memory cgroup (v2) capped at MEM (default 3G) and no
# swap, so the kernel's OOM killer ends it for host RAM as a scheduler's
# limit would (Slurm, Kubernetes); the cap is lifted afterwards. Needs root
# and the memory controller in the process's own cgroup, as on the lent GPU
# machine (moving a process into a child cgroup failed there: I/O error);
# exits 77, saying why, where it cannot cap. usage: bench/gpu/cgroup_kill.sh
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cg=/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup)
if ! [ -w "$cg/memory.max" ] || ! echo "${MEM:-3G}" > "$cg/memory.max" 2>/dev/null; then
	echo "cgroup_kill: cannot cap $cg/memory.max here" >&2
	exit 77
fi
echo 0 > "$cg/memory.swap.max" 2>/dev/null
echo "cgroup $cg: memory.max $(cat "$cg/memory.max")"
sh "$root/bench/gpu/run.sh" host_kill
st=$?
echo max > "$cg/memory.max"
echo max > "$cg/memory.swap.max" 2>/dev/null
echo "memory.events: $(tr '\n' ' ' < "$cg/memory.events")"
exit $st

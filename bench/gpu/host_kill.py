"""Host RAM runs out while a model loads (issue 31 item 9: `run`'s cgroup
reading): the job's memory cgroup is capped (bench/gpu/cgroup_kill.sh,
memory.max 3 GiB) and the program reads checkpoint shards into host
memory, printing a progress line per shard as transformers does, until
the kernel's OOM killer ends it. Nothing is printed at the kill: the log
stops mid-load, and only the cgroup's memory.events (oom_kill) and the
exit by SIGKILL tell what happened."""
import sys

from common import cuda_or_skip

torch, free, total = cuda_or_skip()
shards = 16
held = []
for i in range(1, shards + 1):
    t = torch.empty(256 << 20, dtype=torch.uint8)  # 256 MiB a shard, in host RAM
    t.fill_(i)                                      # touched: resident
    held.append(t)
    print("Loading checkpoint shards: %3d%% | %d/%d" % (100 * i // shards, i, shards), flush=True)
print("loaded %d shards" % len(held), file=sys.stderr)

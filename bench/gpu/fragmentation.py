"""Fragmentation: the caching allocator holds much reserved-but-unallocated
memory in blocks smaller than the request (expandable_segments off)."""
from common import cuda_or_skip

torch, free, total = cuda_or_skip()
mib = 2**20
keep, drop = [], []
# alternate 60 MiB and 40 MiB blocks up to ~85 % of free, then free the 40s
n = int(free * 0.85 / (100 * mib))
for i in range(n):
    keep.append(torch.empty(60 * mib, dtype=torch.uint8, device="cuda"))
    drop.append(torch.empty(40 * mib, dtype=torch.uint8, device="cuda"))
    if i % 10 == 0:
        print("step %d allocated %.2f GiB reserved %.2f GiB" % (
            i, torch.cuda.memory_allocated() / 2**30, torch.cuda.memory_reserved() / 2**30), flush=True)
del drop
print("freed %d blocks of 40 MiB: %.2f GiB reserved but unallocated" % (
    n, (torch.cuda.memory_reserved() - torch.cuda.memory_allocated()) / 2**30), flush=True)
big = torch.empty(200 * mib, dtype=torch.uint8, device="cuda")  # no 200 MiB gap: OOM

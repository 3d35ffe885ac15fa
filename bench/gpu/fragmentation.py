"""Fragmentation: the caching allocator holds much reserved-but-unallocated
memory in gaps smaller than the request (expandable_segments off).
Requests under 10 MiB share 20 MiB segments of the large pool (c10
CUDACachingAllocator kLargeBuffer), so freeing every other 8 MiB tensor
leaves half of each segment free but the segments still in use: neither
empty_cache() nor the allocator's own retry can return them, and a large
request finds no gap."""
from common import cuda_or_skip

torch, free, total = cuda_or_skip()
mib = 2**20
keep, drop = [], []
n = int(free * 0.90 / (20 * mib))                     # 20 MiB segments up to 90 % of free
for i in range(n):
    keep.append(torch.empty(8 * mib, dtype=torch.uint8, device="cuda"))
    drop.append(torch.empty(8 * mib, dtype=torch.uint8, device="cuda"))
    if i % 500 == 0:
        print("step %d allocated %.2f GiB reserved %.2f GiB" % (
            i, torch.cuda.memory_allocated() / 2**30, torch.cuda.memory_reserved() / 2**30), flush=True)
del drop
print("freed %d tensors of 8 MiB: %.2f GiB reserved but unallocated" % (
    n, (torch.cuda.memory_reserved() - torch.cuda.memory_allocated()) / 2**30), flush=True)
free_now, _ = torch.cuda.mem_get_info()
big = torch.empty(int(free_now + 0.2 * total), dtype=torch.uint8, device="cuda")  # OOM

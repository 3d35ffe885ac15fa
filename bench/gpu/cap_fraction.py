"""A cap: torch.cuda.set_per_process_memory_fraction(0.25) limits this
process to a quarter of the device; a request that fits the device but
not the cap fails with the cap in the message."""
from common import cuda_or_skip

torch, free, total = cuda_or_skip()
torch.cuda.set_per_process_memory_fraction(0.25)
print("set_per_process_memory_fraction(0.25)", flush=True)
a = torch.empty(int(total * 0.15), dtype=torch.uint8, device="cuda")
b = torch.empty(int(total * 0.15), dtype=torch.uint8, device="cuda")  # OOM: over the cap

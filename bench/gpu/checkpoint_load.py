"""A checkpoint loaded onto the GPU: torch.load(map_location="cuda") of a
state dict while the model already sits on the device doubles its memory."""
import os
import tempfile

from common import cuda_or_skip

torch, free, total = cuda_or_skip()
n = int(free * 0.15 / 4)                              # parameters: 15 % of free
model = torch.nn.ParameterList([torch.nn.Parameter(torch.zeros(n // 8, device="cuda")) for _ in range(8)])
# the rest of the job's state (optimizer, other models): 75 % of free, not saved
others = torch.empty(int(free * 0.75), dtype=torch.uint8, device="cuda")
tmp = "/dev/shm" if os.path.isdir("/dev/shm") else None   # a RAM disk: a fast save
path = os.path.join(tempfile.mkdtemp(dir=tmp), "checkpoint.pt")
torch.save({k: v.detach().cpu() for k, v in model.state_dict().items()}, path)
print("saved checkpoint %s (%.2f GiB)" % (path, os.path.getsize(path) / 2**30), flush=True)
print("resuming from checkpoint", flush=True)
state = torch.load(path, map_location="cuda")         # OOM: a second copy on the GPU
model.load_state_dict(state)

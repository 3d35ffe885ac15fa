"""A checkpoint loaded onto the GPU: torch.load(map_location="cuda") of a
state dict while the model already sits on the device doubles its memory."""
import os
import tempfile

from common import cuda_or_skip

torch, free, total = cuda_or_skip()
n = int(free * 0.55 / 4)                              # parameters: 55 % of free
model = torch.nn.ParameterList([torch.nn.Parameter(torch.zeros(n // 8, device="cuda")) for _ in range(8)])
path = os.path.join(tempfile.mkdtemp(), "checkpoint.pt")
torch.save({k: v.detach().cpu() for k, v in model.state_dict().items()}, path)
print("saved checkpoint %s (%.2f GiB)" % (path, os.path.getsize(path) / 2**30), flush=True)
print("resuming from checkpoint", flush=True)
state = torch.load(path, map_location="cuda")         # OOM: a second copy on the GPU
model.load_state_dict(state)

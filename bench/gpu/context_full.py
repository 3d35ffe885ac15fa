"""A job that starts on a GPU another process has already filled (issue 31
item 9: `run`'s NVML reading against a bare message): a process outside
this job (bench/gpu/hog.py, started before it: a notebook kernel, an
earlier run left alive) holds all but ~64 MiB of the device, and this
job's first CUDA call cannot even create its context. PyTorch's message
then carries no figures; only `run`'s process list at the failure shows
whose memory it is. Exits 77 (skip) without torch or CUDA."""
import sys

try:
    import torch
except ImportError:
    print("skip: torch not installed", file=sys.stderr)
    sys.exit(77)
print("torch %s; starting the job on cuda:0" % torch.__version__, flush=True)
x = torch.zeros(1024, 1024, device="cuda")  # the CUDA context is made here
print("step 1 | loss %.4f" % x.sum().item(), flush=True)

"""Shared set-up of the bench/gpu cases: exits 77 (skip) without a CUDA
GPU, prints the facts a training log would (device, capacity, step lines)
so the diagnosis has the context a real job gives it."""
import os
import sys


def cuda_or_skip():
    try:
        import torch
    except ImportError:
        print("skip: torch not installed", file=sys.stderr)
        sys.exit(77)
    if not torch.cuda.is_available():
        print("skip: no CUDA GPU (torch %s)" % torch.__version__, file=sys.stderr)
        sys.exit(77)
    free, total = torch.cuda.mem_get_info()
    print("torch %s, CUDA %s, %s: %.2f GiB total, %.2f GiB free"
          % (torch.__version__, torch.version.cuda, torch.cuda.get_device_name(0),
             total / 2**30, free / 2**30), flush=True)
    print("PYTORCH_CUDA_ALLOC_CONF=%s" % os.environ.get("PYTORCH_CUDA_ALLOC_CONF", ""), flush=True)
    return torch, free, total

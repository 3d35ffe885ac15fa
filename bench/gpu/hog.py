"""Holds all but HOG_LEAVE_MIB (default 64) MiB of GPU 0 until killed: the
other process for bench/gpu/context_full.py, started outside the job
(`python3 bench/gpu/hog.py & sleep 15; bench/gpu/run.sh context_full`)."""
import os
import time

import torch

free, total = torch.cuda.mem_get_info()
leave = int(os.environ.get("HOG_LEAVE_MIB", "64")) << 20
x = torch.empty(max(free - leave, 0), dtype=torch.uint8, device="cuda")
print("hog: holding %.2f GiB of %.2f GiB" % (x.numel() / 2**30, total / 2**30), flush=True)
time.sleep(600)

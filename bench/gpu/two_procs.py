"""Two processes on one GPU: a second process (an orphaned eval job) holds
60 % of the device; this one then needs 60 %. The message lists the other
process; run's NVML evidence names it."""
import subprocess
import sys
import time

from common import cuda_or_skip

torch, free, total = cuda_or_skip()
hog = subprocess.Popen([sys.executable, "-c", """
import sys, time, torch
x = torch.empty(int(%d * 0.6), dtype=torch.uint8, device="cuda")
print("other process holds %%.2f GiB" %% (x.numel() / 2**30), flush=True)
time.sleep(120)
""" % free], stdout=sys.stdout)
time.sleep(15)  # let it allocate (CUDA context start-up)
try:
    for step in range(1, 4):
        print("step %d" % step, flush=True)
    x = torch.empty(int(free * 0.6), dtype=torch.uint8, device="cuda")  # OOM
finally:
    hog.kill()

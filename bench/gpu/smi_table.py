"""A real nvidia-smi table in the log (issue 31 item 3): another process (a
forgotten notebook kernel) holds 70 % of the GPU; this job's OOM handler
prints `nvidia-smi` before it re-raises, as people do when they paste an
error into an issue. The log then holds the driver's own table (both
processes, their PIDs and MiB) beside PyTorch's message."""
import subprocess
import sys
import time

from common import cuda_or_skip

torch, free, total = cuda_or_skip()
hog = subprocess.Popen([sys.executable, "-c", """
import time, torch
free, total = torch.cuda.mem_get_info()
x = torch.empty(int(free * 0.7), dtype=torch.uint8, device="cuda")
print("notebook kernel holds %.2f GiB" % (x.numel() / 2**30), flush=True)
time.sleep(120)
"""], stdout=sys.stdout)
time.sleep(15)  # its CUDA context and allocation
try:
    for step in range(1, 4):
        print("step %d | loss 1.%d" % (step, step), flush=True)
    free_now, _ = torch.cuda.mem_get_info()
    x = torch.empty(int(free_now * 1.2), dtype=torch.uint8, device="cuda")  # OOM
except torch.cuda.OutOfMemoryError:
    out = subprocess.run(["nvidia-smi"], capture_output=True, text=True).stdout
    print(out, file=sys.stderr, flush=True)
    raise
finally:
    hog.kill()

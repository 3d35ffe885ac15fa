"""Runs `kgmem-diagnose run -- python3 child.py MB` with stdout and stderr to
/dev/null and prints the wrapper's own CPU time against its child's.

The wrapper is reaped with waitid(WNOWAIT) first, so /proc/PID/stat of the
zombie still holds utime+stime (the wrapper itself) and cutime+cstime (the
child it waited for), in clock ticks: one run gives both, on the same
output path. usage: measure.py KGMEM MB RUNS [python|python-file|cat]

python (default): child.py prints MB megabytes with print(), as a training
script does (8 KiB writes into the pipe: one wake-up of the wrapper per
write); python-file: the same child with stdout and stderr on one regular file (as
a Slurm --output file: CMD writes into it directly, the wrapper reads it
every 100 ms); cat: the same text, pre-generated, written by cat(1) in 128 KiB
writes, which leaves the wrapper's per-byte cost (pass-through, capture,
prefilter) with few wake-ups."""
import os
import subprocess
import sys

import tempfile

kgmem, mb, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
mode = sys.argv[4] if len(sys.argv) > 4 else "python"
child = os.path.join(os.path.dirname(os.path.abspath(__file__)), "child.py")
cmd = [sys.executable, child, str(mb)]
text = None
if mode == "cat":
    fd, text = tempfile.mkstemp(prefix="kgmem-bench-run.")
    with os.fdopen(fd, "wb") as f:
        subprocess.run(cmd, stdout=f, stderr=subprocess.DEVNULL, check=True)
    cmd = ["cat", text]
hz = os.sysconf("SC_CLK_TCK")
best = None
for r in range(runs):
    if mode == "python-file":
        fd, outname = tempfile.mkstemp(prefix="kgmem-bench-out.")
        null = os.fdopen(fd, "wb")
    else:
        outname, null = None, open(os.devnull, "wb")
    with null:
        p = subprocess.Popen([kgmem, "run", "--"] + cmd,
                             stdout=null, stderr=null)
    os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
    with open("/proc/%d/stat" % p.pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    p.wait()
    if outname:
        os.unlink(outname)
    # fields[0] is field 3 (state): utime=14, stime=15, cutime=16, cstime=17
    own = (int(fields[11]) + int(fields[12])) / hz
    kid = (int(fields[13]) + int(fields[14])) / hz
    share = own / kid * 100 if kid else float("inf")
    print("run %d: child printed %d MB in %.2f s CPU; wrapper %.2f s CPU (%.1f %%)"
          % (r + 1, mb, kid, own, share))
    if best is None or share < best[2]:
        best = (kid, own, share)
if text:
    os.unlink(text)
print("%s child, best of %d: wrapper's added CPU time %.1f %% of the child's (%.2f s of %.2f s); target < 5 %%"
      % (mode, runs, best[2], best[1], best[0]))
sys.exit(0 if best[2] < 5 else 1)

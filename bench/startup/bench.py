#!/usr/bin/env python3
"""Fixed costs and bounded states (issue 15): kgmem-diagnose against
`grep -F 'out of memory'` and `cat` in the same run, interleaved.

  bench.py EXE ROOT [--runs N] [--loop N] [--dir DIR] [--base EXE2]

Cases (inputs generated in a temp dir, deleted afterwards):
  small     a 10-line log, one process each
  loop      LOOP (default 2000) distinct 10-line logs, one process each,
            timed as a whole loop (the fleet case: one run per job)
  10mb      a 10 MB log from bench/log/genlog.py, no OOM
  rootcause 60 MB of step lines after a torchelastic "Root Cause" block
            whose lines carry srun --label's "0: " (the scanner does not
            recognise its rank line); "plain" is the same log with the
            header reworded. The first must be within 10 % of the second.
Each case runs every command once per round, RUNS rounds, order rotated;
prints medians and the ratios to grep and cat.
"""
import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("exe")
ap.add_argument("root")
ap.add_argument("--runs", type=int, default=9)
ap.add_argument("--loop", type=int, default=2000)
ap.add_argument("--dir")
ap.add_argument("--log", action="append", default=[],
                help="also compare on this existing log (e.g. bench/log's, kept with BENCH_DIR); repeatable")
ap.add_argument("--only-logs", action="store_true", help="skip the generated cases")
ap.add_argument("--base", help="a second kgmem-diagnose (e.g. a build of main) run in the same rounds")
a = ap.parse_args()

tmp = a.dir or tempfile.mkdtemp(prefix="kgstart-")
os.makedirs(tmp, exist_ok=True)
DEVNULL = subprocess.DEVNULL


def small_log(path, i):
    with open(path, "w") as f:
        for j in range(10):
            f.write("2026-11-21 10:00:%02d INFO step %d | loss %.4f | lr 3e-4 | job %d\n"
                    % (j, 100 * i + j, 2.0 / (j + 1), i))


def root_cause_log(path, header, size_mb):
    rng = random.Random(3)
    with open(path, "w") as f:
        for l in (header, "[0]:", "  time      : 2026-11-21_10:00:00",
                  "  host      : node1", "  rank      : 3 (local_rank: 3)",
                  "  exitcode  : 1 (pid: 99)", "=" * 60):
            f.write("0: " + l + "\n")
        n = 0
        target = size_mb << 20
        while n < target:
            l = "0: step %d | loss %.4f | lr 3e-4 | tokens/s %d | grad_norm %.3f\n" % (
                n, rng.random(), rng.randrange(10000, 20000), rng.random())
            f.write(l)
            n += len(l)


def run_once(argv):
    """One process; its output to a pipe we drain (cat's to /dev/null:
    draining 60 MB through Python would time Python)."""
    out = DEVNULL if argv[0] == "cat" else subprocess.PIPE
    t = time.perf_counter()
    subprocess.run(argv, stdout=out, stderr=DEVNULL)
    return time.perf_counter() - t


def loop_once(script):
    """A shell loop over the small logs (one process per log, as a fleet
    runs the tool once per job); the shell's own cost is in both sides."""
    t = time.perf_counter()
    subprocess.run(["sh", "-c", script, "sh"] + logs, stdout=DEVNULL, stderr=DEVNULL)
    return time.perf_counter() - t


def compare(name, cmds, timer):
    """cmds: list of (label, arg); runs all RUNS times, rotating the order."""
    times = {label: [] for label, _ in cmds}
    for r in range(a.runs):
        k = r % len(cmds)
        for label, arg in cmds[k:] + cmds[:k]:
            times[label].append(timer(arg))
    med = {label: statistics.median(v) for label, v in times.items()}
    base_g, base_c = med.get("grep -F"), med.get("cat")
    for label, _ in cmds:
        ratio = ""
        if base_g:
            ratio += "  %.2fx grep" % (med[label] / base_g)
        if base_c:
            ratio += "  %.2fx cat" % (med[label] / base_c)
        print("%-10s %-22s %9.4f s%s" % (name, label, med[label], ratio), flush=True)
    return med


exe = a.exe
pat = "out of memory"


def kg(label, argv_of):
    """The tool's entries: EXE, and --base when given."""
    out = [(label, argv_of(exe))]
    if a.base:
        out.append((label.replace("kgmem-diagnose", "base").replace("kgmem", "base"), argv_of(a.base)))
    return out

try:
    for lg in a.log:
        subprocess.run(["cat", lg], stdout=DEVNULL)
        compare(os.path.basename(lg).replace(".log", ""), kg("kgmem-diagnose", lambda e: [e, "--format", "json", lg]) +
                [("grep -F", ["grep", "-F", pat, lg]), ("cat", ["cat", lg])], run_once)
    if a.only_logs:
        sys.exit(0)
    s = os.path.join(tmp, "small.log")
    small_log(s, 0)
    m = compare("small", kg("kgmem-diagnose", lambda e: [e, s]) + [ ("grep -F", ["grep", "-F", pat, s]),
                          ("cat", ["cat", s])], run_once)
    r = m["kgmem-diagnose"] / m["grep -F"]
    print("small      kgmem/grep = %.2f (target <= 1.50: %s)" % (r, "met" if r <= 1.5 else "NOT met"))

    logs = []
    for i in range(a.loop):
        p = os.path.join(tmp, "s%05d.log" % i)
        small_log(p, i)
        logs.append(p)
    m = compare("loop%d" % a.loop, kg("kgmem-diagnose", lambda e: 'for f; do "%s" "$f"; done' % e) + [
                                    ("grep -F", 'for f; do grep -F "%s" "$f"; done' % pat)],
                loop_once)
    r = m["kgmem-diagnose"] / m["grep -F"]
    print("loop%-6d kgmem/grep = %.2f (target <= 1.50: %s)" % (a.loop, r, "met" if r <= 1.5 else "NOT met"))

    big = os.path.join(tmp, "10mb.log")
    subprocess.run([sys.executable, os.path.join(a.root, "bench/log/genlog.py"), big, "10", "0",
                    os.path.join(a.root, "testdata/corpus/dev.jsonl")], check=True, stdout=DEVNULL)
    compare("10mb", kg("kgmem-diagnose", lambda e: [e, big]) + [ ("grep -F", ["grep", "-F", pat, big]),
                     ("cat", ["cat", big])], run_once)

    rc = os.path.join(tmp, "rootcause.log")
    plain = os.path.join(tmp, "plain.log")
    root_cause_log(rc, "Root Cause (first observed failure):", 60)
    root_cause_log(plain, "Root-cause report follows", 60)
    for p in (rc, plain):
        subprocess.run(["cat", p], stdout=DEVNULL)
    m = compare("rootcause", kg("kgmem (open block)", lambda e: [e, rc]) +
                    kg("kgmem (no block)", lambda e: [e, plain]) + [("grep -F", ["grep", "-F", pat, rc]), ("cat", ["cat", rc])], run_once)
    r = m["kgmem (open block)"] / m["kgmem (no block)"]
    print("rootcause  open/none = %.2f (target <= 1.10: %s)" % (r, "met" if r <= 1.10 else "NOT met"))
    if a.base:
        print("rootcause  base open/none = %.2f" % (m["base (open block)"] / m["base (no block)"]))
finally:
    if not a.dir:
        shutil.rmtree(tmp, ignore_errors=True)

#!/usr/bin/env python3
"""Log-scan benchmark driver (see bench/README.md): generates the logs, runs
kgmem-diagnose beside `cat`, `grep -F` and `rg --no-mmap` in the same
rounds, prints medians, CPU time, peak RSS and ratios, checks issue 15's
targets and that the tool finds exactly the planted incidents.

  bench.py EXE ROOT [--sizes 300,1100] [--per-mb 1] [--gens genlog,genmixed]
           [--runs R] [--dir DIR] [--keep] [--base EXE2]

For every generator (bench/log/genlog.py, the project's; bench/log/
genmixed.py, an independent one: multi-rank torchrun output with tqdm
carriage returns, JSON Lines, NCCL spam, rank prefixes and long lines) and
every size, two logs: one with no OOM and one with PER_MB OOMs per MB.
Each is read once to warm the page cache; then every command runs once per
round, RUNS rounds, the order rotated each round:

  kgmem-diagnose --format json FILE   (to a pipe)
  cat FILE                            (to /dev/null: the read() floor)
  grep -F 'out of memory' FILE        (to a pipe: GNU grep stops at the
                                       first match when its output is
                                       /dev/null)
  rg --no-mmap -F 'out of memory' FILE (to a pipe; skipped if rg is absent)
  --base EXE2 --format json FILE      (optional: e.g. a build of main)

Wall time is time.perf_counter() around the child; CPU time (user + system)
from wait4's rusage of the wrapper (GNU time, the apt package `time`, or
without it a minimal Python parent) and what it waited for; peak RSS from
GNU time's %M, or the Python parent's wait4 (an upper bound).
Exit status 1 when an incident count is wrong or the tool fails.
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("exe")
ap.add_argument("root")
ap.add_argument("--sizes", default="300,1100", help="log sizes in MB, comma-separated")
ap.add_argument("--per-mb", type=float, default=1.0, help="OOMs per MB in the second log of each size")
ap.add_argument("--gens", default="genlog,genmixed", help="generators: genlog, genmixed")
ap.add_argument("--runs", type=int, default=5)
ap.add_argument("--dir", default=None, help="where the logs go (default: a new temp dir, removed after)")
ap.add_argument("--keep", action="store_true", help="reuse logs already in --dir and keep them")
ap.add_argument("--base", help="a second kgmem-diagnose run in the same rounds")
a = ap.parse_args()

here = os.path.dirname(os.path.abspath(__file__))
corpus = os.path.join(a.root, "testdata", "corpus", "dev.jsonl")
NOT_OOM_FAMILIES = {"memory_summary"}   # tables, not incidents
NOT_OOM_IDS = {"oth-0005"}              # DeepSpeed cache-flush warning
PAT = "out of memory"
RG = shutil.which("rg")

GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None
# ru_maxrss survives execve, so the child must be forked from a small process:
# GNU time, else a minimal Python parent (an upper bound: the interpreter's
# own ~9 MiB is included).
SPAWN = [sys.executable, "-S", "-c",
         "import os,sys\npid=os.fork()\nif pid==0: os.execvp(sys.argv[2],sys.argv[2:])\n"
         "_,st,ru=os.wait4(pid,0)\nopen(sys.argv[1],'w').write('0 %f %f %d\\n'%(ru.ru_utime,ru.ru_stime,ru.ru_maxrss))\n"
         "sys.exit(os.waitstatus_to_exitcode(st))"]


def run(argv, devnull=False):
    """Runs argv; returns (wall s, user+sys s, peak RSS KiB, exit status, stdout).
    CPU time is the rusage of the wrapper and what it waited for (GNU time
    prints only hundredths), read with wait4 in microseconds."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        wrap = ([GNU_TIME, "-q", "-f", "%e %U %S %M", "-o", tf.name] if GNU_TIME else SPAWN + [tf.name])
        t0 = time.perf_counter()
        p = subprocess.Popen(wrap + argv, stdout=subprocess.DEVNULL if devnull else subprocess.PIPE)
        out = p.stdout.read() if p.stdout else b""
        _, st, ru = os.wait4(p.pid, 0)
        dt = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(st)
        if p.stdout:
            p.stdout.close()
        f = open(tf.name).read().split()
    return dt, ru.ru_utime + ru.ru_stime, int(f[-1]), p.returncode, out


def incidents(exe, path):
    _, _, _, rc, out = run([exe, "--format", "json", path])
    try:
        return len(json.loads(out)["incidents"]), rc
    except (ValueError, KeyError):
        return None, rc


def pick_records(tmp):
    """Corpus records that give exactly one incident on their own (so the
    planted count is the expected count)."""
    recs = [json.loads(l) for l in open(corpus, encoding="utf-8") if l.strip()]
    recs = [r for r in recs if r["family"] not in NOT_OOM_FAMILIES and r["id"] not in NOT_OOM_IDS]
    good, bad = [], []
    for r in recs:
        p = os.path.join(tmp, "rec.log")
        with open(p, "w", encoding="utf-8") as f:
            f.write(r["text"] + "\n")
        n, _ = incidents(a.exe, p)
        (good if n == 1 else bad).append((r["id"], n))
    if bad:
        print("# records left out (not exactly one incident alone): %s"
              % ", ".join("%s=%s" % b for b in bad), file=sys.stderr)
    return [g[0] for g in good] or [r["id"] for r in recs]


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def version(argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        return "?"


def generate(gen, path, size, n, ids):
    if gen == "genlog":
        argv = [sys.executable, os.path.join(here, "genlog.py"), path, str(size), str(n), corpus,
                "--records", ",".join(ids)]
    else:
        argv = [sys.executable, os.path.join(here, "genmixed.py"), path, str(size), str(n)]
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)


tmp = a.dir or tempfile.mkdtemp(prefix="kgmem-bench-")
os.makedirs(tmp, exist_ok=True)
status = 0
try:
    gens = [g for g in a.gens.split(",") if g]
    ids = pick_records(tmp) if "genlog" in gens else []
    print("machine: %s, %d CPUs (nproc), %s; %s; %s; LC_ALL=%s LANG=%s" % (
        cpu_model(), os.cpu_count(), platform.platform(), version(["grep", "--version"]),
        version([RG, "--version"]) if RG else "rg: not installed",
        os.environ.get("LC_ALL", ""), os.environ.get("LANG", "")))
    print("exe: %s%s; runs: %d rounds, order rotated, warm cache; CPU and RSS by %s; KGMEM_SIMD=%s" % (
        a.exe, "; base: " + a.base if a.base else "", a.runs,
        "GNU time" if GNU_TIME else "a Python wait4 parent (RSS an upper bound)",
        os.environ.get("KGMEM_SIMD", "(auto)")))
    print("ratios are of median wall times (cpu: of median user + system times)\n")
    for gen in gens:
        for size in [float(s) for s in a.sizes.split(",") if s]:
            for n_ooms in (0, int(round(size * a.per_mb))):
                path = os.path.join(tmp, "%s-%gMB-%doom.log" % (gen, size, n_ooms))
                if not (a.keep and os.path.exists(path)):
                    generate(gen, path, size, n_ooms, ids)
                with open(path, "rb") as f:            # warm the page cache
                    while f.read(1 << 24):
                        pass
                cmds = [("kgmem", [a.exe, "--format", "json", path], False)]
                if a.base:
                    cmds.append(("base", [a.base, "--format", "json", path], False))
                cmds.append(("cat", ["cat", path], True))
                cmds.append(("grep -F", ["grep", "-F", PAT, path], False))
                if RG:
                    cmds.append(("rg --no-mmap", [RG, "--no-mmap", "-F", PAT, path], False))
                res = {c[0]: [] for c in cmds}
                for r in range(a.runs):
                    k = r % len(cmds)
                    for label, argv, devnull in cmds[k:] + cmds[:k]:
                        dt, cpu, rss, rc, _ = run(argv, devnull)
                        if label in ("kgmem", "base") and rc not in (0, 1):
                            print("%s exited %d on %s" % (label, rc, path), file=sys.stderr)
                            status = 1
                        res[label].append((dt, cpu, rss))
                med = {l: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v),
                           max(x[2] for x in v)) for l, v in res.items()}
                sz = os.path.getsize(path)
                print("%s, %.2f GB, %d OOMs" % (gen, sz / 1e9, n_ooms))
                for l, _, _ in cmds:
                    w, c, m = med[l]
                    rat = "  ".join("%.2fx %s" % (w / med[b][0], b.split()[0]) for b in ("cat", "grep -F", "rg --no-mmap")
                                    if b in med and b != l)
                    if l != "cat":
                        rat += "  (cpu %.2fx cat)" % (c / med["cat"][1])
                    print("  %-13s wall %7.3f s  cpu %7.3f s  rss %6.1f MiB  %s" % (l, w, c, m / 1024, rat))
                w = med["kgmem"][0]
                tgt = 1.5 if n_ooms == 0 else 2.0
                checks = ["<= %.1fx cat: %s" % (tgt, "met" if w <= tgt * med["cat"][0] else "NOT met")]
                if RG:
                    checks.append("faster than rg --no-mmap: %s" % ("met" if w < med["rg --no-mmap"][0] else "NOT met"))
                checks.append("RSS <= 16 MiB: %s" % ("met" if med["kgmem"][2] <= 16 * 1024 else "NOT met"))
                found, _ = incidents(a.exe, path)
                ok = found == n_ooms
                checks.append("incidents %s of %d: %s" % (found, n_ooms, "ok" if ok else "WRONG"))
                print("  targets: " + "; ".join(checks) + "; %.0f MB/s" % (sz / w / 1e6), flush=True)
                if not ok:
                    status = 1
                if not a.keep and not a.dir:
                    os.unlink(path)
finally:
    if not a.keep and not a.dir:
        shutil.rmtree(tmp, ignore_errors=True)
sys.exit(status)

#!/usr/bin/env python3
"""Log-scan benchmark driver (see bench/README.md): generates the logs, runs
kgmem-diagnose and the grep baseline alternately, prints medians, peak RSS
and ratios, and checks that the tool finds exactly the planted incidents.

  bench.py EXE ROOT SIZE_MB N_OOMS [--runs R] [--dir DIR] [--keep]

Two logs of SIZE_MB each are measured: one with no OOM and one with N_OOMS
real OOM messages. Each is read once to warm the page cache, then the tool
(`EXE --format json FILE`) and the baseline (`grep -c 'out of memory' FILE`)
run alternately R times. Wall time is time.perf_counter() around the child;
peak RSS is the child's ru_maxrss from wait4() — the number GNU time's %M
prints. Both write to a pipe (GNU grep stops at the first match when its
output is /dev/null). Exit status 1 when the incident count is wrong.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("exe")
ap.add_argument("root")
ap.add_argument("size_mb", type=float)
ap.add_argument("n_ooms", type=int)
ap.add_argument("--runs", type=int, default=5)
ap.add_argument("--dir", default=None, help="where the logs go (default: a new temp dir, removed after)")
ap.add_argument("--keep", action="store_true", help="reuse logs already in --dir and keep them")
a = ap.parse_args()

here = os.path.dirname(os.path.abspath(__file__))
corpus = os.path.join(a.root, "testdata", "corpus", "dev.jsonl")
NOT_OOM_FAMILIES = {"memory_summary"}   # tables, not incidents
NOT_OOM_IDS = {"oth-0005"}              # DeepSpeed cache-flush warning


GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None
# ru_maxrss survives execve, so the child must be forked from a small process:
# GNU time (apt package `time`), else a minimal Python parent (an upper bound:
# the Python interpreter's own ~9 MiB is included).
SPAWN = [sys.executable, "-S", "-c",
         "import os,sys\npid=os.fork()\nif pid==0: os.execvp(sys.argv[2],sys.argv[2:])\n"
         "_,st,ru=os.wait4(pid,0)\nopen(sys.argv[1],'w').write('0 %d\\n'%ru.ru_maxrss)\n"
         "sys.exit(os.waitstatus_to_exitcode(st))"]


def run(argv, stdout=subprocess.PIPE):
    """Runs argv; returns (seconds, peak RSS in KiB, exit status, stdout bytes).
    stdout is a pipe, never /dev/null: GNU grep notices /dev/null and stops
    at the first match, as -q does."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        wrap = ([GNU_TIME, "-q", "-f", "%e %M", "-o", tf.name] if GNU_TIME else SPAWN + [tf.name])
        t0 = time.perf_counter()
        p = subprocess.run(wrap + argv, stdout=stdout)
        dt = time.perf_counter() - t0
        fields = open(tf.name).read().split()
    return dt, int(fields[-1]), p.returncode, p.stdout or b""


def incidents(path):
    _, _, rc, out = run([a.exe, "--format", "json", path], stdout=subprocess.PIPE)
    try:
        return len(json.loads(out)["incidents"]), rc
    except (ValueError, KeyError):
        return None, rc


def pick_records(tmp):
    """Corpus records that give exactly one incident on their own (so the
    planted count is the expected count). Until the grammars exist no record
    does; then every OOM record is used and the check reports the miss."""
    recs = [json.loads(l) for l in open(corpus, encoding="utf-8") if l.strip()]
    recs = [r for r in recs if r["family"] not in NOT_OOM_FAMILIES and r["id"] not in NOT_OOM_IDS]
    good, bad = [], []
    for r in recs:
        p = os.path.join(tmp, "rec.log")
        with open(p, "w", encoding="utf-8") as f:
            f.write(r["text"] + "\n")
        n, _ = incidents(p)
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


def fmt_rss(kib):
    return "%.1f MiB" % (kib / 1024)


tmp = a.dir or tempfile.mkdtemp(prefix="kgmem-bench-")
os.makedirs(tmp, exist_ok=True)
status = 0
try:
    ids = pick_records(tmp)
    print("machine: %s, %d CPUs (nproc), %s; grep: %s; LC_ALL=%s LANG=%s" % (
        cpu_model(), os.cpu_count(), platform.platform(),
        subprocess.run(["grep", "--version"], capture_output=True, text=True).stdout.splitlines()[0],
        os.environ.get("LC_ALL", ""), os.environ.get("LANG", "")))
    flags = set()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    except OSError:
        pass
    best = ("avx512vbmi" if {"avx512vbmi", "avx512bw"} <= flags else "avx2" if "avx2" in flags
            else "ssse3" if {"ssse3", "popcnt"} <= flags else "scalar")
    print("exe: %s; runs: %d each, alternating, warm cache; RSS by %s; prefilter path: %s" % (
        a.exe, a.runs, "GNU time %M" if GNU_TIME else "a Python wait4 parent (upper bound)",
        os.environ.get("KGMEM_SIMD") or "auto (%s here)" % best))
    print()
    print("%-22s %10s %10s %8s %12s %12s" % ("log", "kgmem s", "grep s", "ratio", "kgmem RSS", "grep RSS"))
    for n_ooms in (0, a.n_ooms):
        path = os.path.join(tmp, "train-%gMB-%doom.log" % (a.size_mb, n_ooms))
        if not (a.keep and os.path.exists(path)):
            subprocess.run([sys.executable, os.path.join(here, "genlog.py"), path, str(a.size_mb),
                            str(n_ooms), corpus, "--records", ",".join(ids)],
                           check=True, stdout=subprocess.DEVNULL)
        with open(path, "rb") as f:            # warm the page cache
            while f.read(1 << 24):
                pass
        tk, tg, rk, rg = [], [], [], []
        for _ in range(a.runs):
            dt, rss, rc, _ = run([a.exe, "--format", "json", path])
            if rc not in (0, 1):
                print("kgmem-diagnose exited %d on %s" % (rc, path), file=sys.stderr)
                status = 1
            tk.append(dt)
            rk.append(rss)
            dt, rss, _, _ = run(["grep", "-c", "out of memory", path])
            tg.append(dt)
            rg.append(rss)
        mk, mg = statistics.median(tk), statistics.median(tg)
        size = os.path.getsize(path)
        print("%-22s %10.3f %10.3f %7.2fx %12s %12s" % (
            "%.2f GB, %d OOMs" % (size / 1e9, n_ooms), mk, mg, mk / mg, fmt_rss(max(rk)), fmt_rss(max(rg))))
        target = 1.5 if n_ooms == 0 else 2.0
        found, rc = incidents(path)
        ok = found == n_ooms
        print("    target ≤%.1fx grep: %s; peak RSS ≤16 MiB: %s; incidents found %s of %d: %s; %.0f MB/s" % (
            target, "met" if mk / mg <= target else "NOT met",
            "met" if max(rk) <= 16 * 1024 else "NOT met", found, n_ooms,
            "ok" if ok else "WRONG", size / mk / 1e6))
        if not ok:
            status = 1
        if not a.keep and not a.dir:
            os.unlink(path)
finally:
    if not a.keep and not a.dir:
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)
sys.exit(status)

#!/usr/bin/env python3
"""test_json_doc.py EXE NVML_DIR ROOT — every key the JSON reporters emit is
documented in the JSON SCHEMA section of man/kgmem-diagnose.1.scd.

Collects the key paths of `EXE --format json` on every golden log
(ROOT/testdata/logs, with its .args), fail-on, repro and multi input and
allocator snapshot (ROOT/testdata/snapshots), of `EXE --format jsonl --label ...` on a log, of
`EXE snapshot --format json`, and of a `run --report` (with the fake NVML
library in NVML_DIR, so the GPU reading's devices and processes appear).
Each key must appear as *key* in the section. The children of maps whose
keys are data (a remedy's env/set/keys, labels, PyTorch's memory_stats()
and allocator settings as read, trace action counts) are not keys of the
schema; the map itself must be documented. Prints TAP.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

# maps keyed by data, not by the schema (path patterns, "[]" for arrays)
DATA_MAPS = (
    "incidents[].findings[].remedies[].env",
    "incidents[].findings[].remedies[].set",
    "incidents[].findings[].remedies[].keys",
    "labels",
    "run.labels",
    "snapshots[].stats",
    "snapshots[].allocator_settings",
    "snapshots[].devices[].trace.actions",
)

n = 0
failed = 0


def tap(ok, what, detail=None):
    global n, failed
    n += 1
    print(f"{'ok' if ok else 'not ok'} {n} - {what}")
    if not ok:
        failed = 1
        for line in str(detail or "").splitlines()[:20]:
            print(f"# {line}")


def walk(v, path, src, paths):
    if isinstance(v, dict):
        if path in DATA_MAPS:
            return
        for k, x in v.items():
            p = f"{path}.{k}" if path else k
            paths.setdefault(p, src)
            walk(x, p, src, paths)
    elif isinstance(v, list):
        for x in v:
            walk(x, path + "[]", src, paths)


def main():
    exe, nvml, root = sys.argv[1:4]
    paths = {}

    def collect(args, src, lines=False, env=None):
        r = subprocess.run([exe] + args, capture_output=True, text=True, env=env)
        docs = r.stdout.splitlines() if lines else [r.stdout]
        for d in docs:
            try:
                walk(json.loads(d), "", src, paths)
            except ValueError:
                tap(False, f"{src}: output parses as JSON", r.stdout[:500] + r.stderr[:500])

    logs = os.path.join(root, "testdata", "logs")
    for f in sorted(os.listdir(logs)):
        if not (f.endswith(".log") or f.endswith(".log.gz")):
            continue
        p = os.path.join(logs, f)
        extra = []
        if os.path.exists(p + ".args"):
            with open(p + ".args", encoding="utf-8") as a:
                extra = [x for x in a.read().split() if x not in ("--apply",)]
        # .args name paths relative to ROOT
        extra = [os.path.join(root, x) if x.startswith("testdata/") else x for x in extra]
        collect(["--format", "json"] + extra + [p], f)
    # the other real and written logs: every message family, repaired
    # fields (alloc_conf), multi-file directories
    for sub in ("fail-on", "repro", "multi"):
        d = os.path.join(root, "testdata", sub)
        for f in sorted(os.listdir(d)):
            collect(["--format", "json", os.path.join(d, f)], f"{sub}/{f}")
    snaps = os.path.join(root, "testdata", "snapshots")
    for f in sorted(os.listdir(snaps)):
        if f.endswith(".pickle"):
            collect(["--format", "json", os.path.join(snaps, f)], f)
            collect(["snapshot", "--format", "json", os.path.join(snaps, f)], "snapshot " + f)
    log = os.path.join(logs, "real-mr-0010-rank1-linear.log")
    collect(["--format", "jsonl", "--label", "job=1", log], "jsonl", lines=True)
    with tempfile.TemporaryDirectory() as tmp:
        rep = os.path.join(tmp, "r.json")
        env = dict(os.environ, LD_LIBRARY_PATH=nvml, FAKE_NVML_PID="1")
        r = subprocess.run([exe, "run", "--report", rep, "--label", "job=1", "--", "sh", "-c",
                            'cat "$1" >&2; exit 1', "sh", log],
                           capture_output=True, text=True, env=env)
        try:
            with open(rep, encoding="utf-8") as f:
                for line in f:
                    walk(json.loads(line), "", "run --report", paths)
        except (OSError, ValueError) as e:
            tap(False, "run --report wrote a JSON report", f"{e}\n{r.stderr[-500:]}")
    tap(any(p.startswith("run.readings[].gpu.devices[]") for p in paths),
        "the run report has a GPU reading with devices (fake NVML)", sorted(paths)[:50])

    with open(os.path.join(root, "man", "kgmem-diagnose.1.scd"), encoding="utf-8") as f:
        page = f.read()
    m = re.search(r"^# JSON SCHEMA\n(.*?)^# ", page, re.S | re.M)
    section = m.group(1) if m else ""
    tap(bool(section), "man/kgmem-diagnose.1.scd has a JSON SCHEMA section")
    # scdoc escapes underscores in bold text
    documented = set(re.findall(r"\*([A-Za-z0-9_\\]+)(?:\[\])?\*", section))
    documented = {d.replace("\\_", "_") for d in documented}
    for name in sorted({p.rsplit(".", 1)[-1].removesuffix("[]") for p in paths}):
        where = sorted(p for p in paths if p.rsplit(".", 1)[-1].removesuffix("[]") == name)
        tap(name in documented, f"JSON key '{name}' is in the JSON SCHEMA section",
            f"emitted as {', '.join(where[:4])} (first seen in {paths[where[0]]})")
    print(f"1..{n}")
    return failed


if __name__ == "__main__":
    sys.exit(main())

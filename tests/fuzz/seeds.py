#!/usr/bin/env python3
"""Builds the libFuzzer seed corpora from testdata/ into OUTDIR/<harness>/
(never committed: they are derived, and a fuzzing run grows them).

  seeds.py SOURCE_ROOT OUTDIR

  logscan    every testdata/logs/*.log (first 64 KiB), each dev-corpus record
             as a log, and a gzip of two of them
  oom        each dev-corpus record text, cut to 16 KiB (KG_OOM_WINDOW_BYTES),
             and each of its lines that names memory
  units      every printed size found in the corpus ("20.00 MiB", "1.97GiB",
             "7406166528 bytes", "3.39GiB (3640655872B)")
  traceback  every block of frame lines (CPython `File "…", line N, in f`,
             IPython `----> 12 code`, VS Code `path.py:N`) in the corpus
  rules      every shipped rule file and those of testdata/rules-bad and
             testdata/rules-extra, whole
"""
import gzip
import json
import os
import re
import sys

root, out = sys.argv[1], sys.argv[2]
logs_dir = os.path.join(root, "testdata", "logs")
corpus = [json.loads(l) for l in open(os.path.join(root, "testdata", "corpus", "dev.jsonl"), encoding="utf-8") if l.strip()]
logs = sorted(os.path.join(logs_dir, f) for f in os.listdir(logs_dir) if f.endswith(".log"))
seed_dir = os.path.join(root, "testdata", "seeds")
seeds = sorted(os.path.join(seed_dir, f) for f in os.listdir(seed_dir)) if os.path.isdir(seed_dir) else []


def put(harness, name, data):
    d = os.path.join(out, harness)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


texts = [r["text"] for r in corpus]
for path in logs + seeds:
    with open(path, "rb") as f:
        put("logscan", os.path.basename(path), f.read(65536))
for r in corpus:
    put("logscan", r["id"] + ".log", r["text"] + "\n")
    put("oom", r["id"], r["text"].encode()[:16384])
    for i, line in enumerate(r["text"].splitlines()):
        if re.search(r"(?i)memory|alloc|OOM|exhausted", line):
            put("oom", "%s-l%d" % (r["id"], i), line)
for path in logs[:2]:
    with open(path, "rb") as f:
        put("logscan", os.path.basename(path) + ".gz", gzip.compress(f.read(65536), mtime=0))

size_re = re.compile(r"\d+(?:\.\d+)?\s?(?:bytes|byte|B|[KMGTP]i?B|[KMGTPk])\b")
sizes = set()
for t in texts + [open(p, encoding="utf-8", errors="replace").read(65536) for p in logs]:
    sizes.update(m.group(0) for m in size_re.finditer(t))
for i, s in enumerate(sorted(sizes)):
    put("units", "s%03d" % i, s)
for i, s in enumerate(["0", "1024", "20.00 MiB", "1.97GiB", "37252902.99 GiB", "8 EiB", " 3 KB ", "9223372036854775807 bytes"]):
    put("units", "h%02d" % i, s)

frame_re = re.compile(r'^\s*(File "|.*\.py:\d+|.*\.py in |-+> *\d+|<ipython-input)')
for src_i, t in enumerate(texts + [open(p, encoding="utf-8", errors="replace").read() for p in logs]):
    block = []
    k = 0
    for line in t.splitlines() + [""]:
        if frame_re.match(line) or (block and line.startswith("    ")):
            block.append(line)
            continue
        if block:
            put("traceback", "t%03d-%02d" % (src_i, k), "\n".join(block[:80]) + "\n")
            k += 1
            block = []
# expr: every `when:` and `{…}` placeholder of the shipped rules
rules_dir = os.path.join(root, "rules")
k = 0
for fn in sorted(os.listdir(rules_dir)) if os.path.isdir(rules_dir) else []:
    if not fn.endswith(".yaml"):
        continue
    text = open(os.path.join(rules_dir, fn), encoding="utf-8").read()
    for m in re.finditer(r"when: >-?\n((?:    .*\n)+)|when: (.+)\n|\{([^{}\n]+)\}", text):
        expr = " ".join((m.group(1) or m.group(2) or m.group(3)).split())
        put("expr", "e%04d" % k, expr)
        k += 1
# rules: the shipped rule files and testdata's good and bad ones, whole
for sub in ("rules", "testdata/rules-bad", "testdata/rules-extra"):
    d = os.path.join(root, sub)
    for fn in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        if fn.endswith(".yaml"):
            with open(os.path.join(d, fn), "rb") as f:
                put("rules", sub.replace("/", "-") + "-" + fn, f.read())
# config: the test configs
cfg_dir = os.path.join(root, "testdata", "configs")
for fn in sorted(os.listdir(cfg_dir)) if os.path.isdir(cfg_dir) else []:
    with open(os.path.join(cfg_dir, fn), "rb") as f:
        put("config", fn, f.read())
# snapshot: the test snapshots (pickles cut to 256 KiB: the fuzzer's inputs
# stay small), gzip of one, memory_summary tables from the corpus as text
snap_dir = os.path.join(root, "testdata", "snapshots")
for fn in sorted(os.listdir(snap_dir)) if os.path.isdir(snap_dir) else []:
    with open(os.path.join(snap_dir, fn), "rb") as f:
        data = f.read(262144)
    put("snapshot", fn, data)
for r in corpus:
    if r["family"] == "memory_summary":
        put("snapshot", r["id"] + ".txt", r["text"])
        put("summary", r["id"], r["text"])
put("snapshot", "stats.json", '{"allocated_bytes.all.current": 1024, "reserved_bytes.all.peak": 2097152, "num_ooms": 1}')
put("snapshot", "segments.json", '[{"device": 0, "address": 0, "total_size": 2097152, "allocated_size": 512, "active_size": 512, "requested_size": 500, "stream": 0, "segment_type": "small", "blocks": [{"size": 512, "requested_size": 500, "state": "active_allocated"}, {"size": 2096640, "state": "inactive"}]}]')
# pipeline: each test log alone and followed by each test config (the
# harness splits at its separator line; see fuzz_pipeline.c)
sep = b"\n--- kgmem-fuzz config ---\n"
cfgs = [open(os.path.join(cfg_dir, fn), "rb").read() for fn in sorted(os.listdir(cfg_dir))] if os.path.isdir(cfg_dir) else []
for i, lp in enumerate(logs):
    with open(lp, "rb") as f:
        log = f.read(65536)
    put("pipeline", "l%02d" % i, log)
    for j, cfg in enumerate(cfgs):
        if (i + j) % 3 == 0:
            put("pipeline", "l%02d-c%02d" % (i, j), log + sep + cfg)
print("seeds:", {h: len(os.listdir(os.path.join(out, h))) for h in sorted(os.listdir(out))})

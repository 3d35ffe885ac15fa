#!/usr/bin/env python3
"""The scanner's two tiers (issue 30; lib/read/logscan.c, HEAD_FULL): past the
log's first 256 KiB only the OOM triggers (and root-cause blocks, memory_summary
tables, one reading probe per MiB) are looked for; the context is read in
full near each OOM and in the head. These tests put the same block deep in a
long training log and check that the incident reads as it does alone, so
nothing the diagnosis needs is lost to the tiers. Generated logs, no timing.

usage: test_tiers.py EXE     (prints TAP)
"""
import json
import os
import subprocess
import sys
import tempfile

EXE = sys.argv[1]
N = 0


def tap(ok, name, detail=None):
    global N
    N += 1
    print(("ok %d - %s" if ok else "not ok %d - %s") % (N, name))
    if not ok and detail is not None:
        for line in str(detail).splitlines()[:40]:
            print("# " + line)


def filler(first, n, reading=None):
    """n training-log lines from step `first`: no trigger, no context word
    the tiers could trip on; every 50th a memory reading when asked."""
    out = []
    for i in range(first, first + n):
        out.append("2024-11-20 14:%02d:%02d | step %d | loss %.4f | lr 3.0e-04 | tokens/s 51234"
                   % (i // 60 % 60, i % 60, i, 2.0 / (1 + i % 97)))
        if reading and i % 50 == 0:
            out.append(reading(i))
    return out


def run(path, *args):
    p = subprocess.run([EXE, "--format", "json", *args, path], capture_output=True, timeout=120)
    return json.loads(p.stdout)


def essentials(inc):
    """What the context gives an incident (not where it is in the file)."""
    keys = ("kind", "family", "rank", "phase", "phase_source", "cause", "confidence",
            "memory", "alloc_conf")
    d = {k: inc.get(k) for k in keys}
    if d["alloc_conf"]:
        d["alloc_conf"] = dict(d["alloc_conf"], line=None)
    d["frames"] = [(f.get("function"), f.get("file")) for f in inc.get("frames") or []]
    d["followups"] = [f.get("kind") for f in inc.get("followups") or []]
    return d


OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
       "capacity of 23.65 GiB of which 1.06 GiB is free. Including non-PyTorch memory, this process "
       "has 22.58 GiB memory in use. Of the allocated memory 20.11 GiB is allocated by PyTorch, and "
       "1.97 GiB is reserved by PyTorch but unallocated.")


def traceback(depth):
    lines = ["Traceback (most recent call last):",
             '  File "/work/train.py", line 210, in <module>',
             "    main()",
             '  File "/work/train.py", line 180, in main',
             "    trainer.fit(model, train_loader)"]
    for k in range(depth):
        lines += ['  File "/work/model/block_%d.py", line %d, in forward' % (k, 10 + k),
                  "    h = self.layers[%d](h) + self.residual(h)  # %s" % (k, "x" * 40)]
    lines += ['  File "/usr/lib/python3/dist-packages/torch/nn/functional.py", line 1888, in softmax',
              "    ret = input.softmax(dim)",
              OOM]
    return lines


def compare(tmp, name, block, before=40000, after=2000, extra=None):
    """The block alone and the block after `before` filler lines (with
    `after` more after it): same incident."""
    small = os.path.join(tmp, name + "-small.log")
    big = os.path.join(tmp, name + "-big.log")
    with open(small, "w") as f:
        f.write("\n".join(block) + "\n")
    with open(big, "w") as f:
        f.write("\n".join(filler(0, before) + block + filler(before, after)) + "\n")
    size = os.path.getsize(big)
    a, b = run(small), run(big)
    ia, ib = a["incidents"], b["incidents"]
    ok = len(ia) == 1 and len(ib) == 1 and essentials(ia[0]) == essentials(ib[0])
    tap(ok and size > (2 << 20), "%s: the block %s MiB into the log reads as it does alone" %
        (name, size >> 20), json.dumps({"alone": [essentials(i) for i in ia],
                                        "deep": [essentials(i) for i in ib]}, indent=1))
    return ib


def run_raw(path, *args, stdin=False):
    if stdin:
        with open(path, "rb") as f:
            p = subprocess.run([EXE, "--format", "json", *args, "-"], stdin=f, capture_output=True, timeout=120)
    else:
        p = subprocess.run([EXE, "--format", "json", *args, path], capture_output=True, timeout=120)
    return p.returncode, p.stdout


# The head read lazily (logscan.c: lazy_start): a single log's first 256 KiB
# is read in full only once an OOM follows it, from the bytes the reader
# keeps (or a copy, once the reader moves on). --svg reads it eagerly, as
# before (its chart draws the head's readings), so the two must give the
# same report byte for byte wherever the OOM is, whatever lies between.
# The head holds what the diagnosis reads there: a batch banner, a model
# and a card, a config echo, nvidia-smi's process rows, memory readings.
HEAD = ["$ python train.py --model_name_or_path meta-llama/Llama-2-7b-hf --per_device_train_batch_size 16 --bf16",
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
        "loading config from configs/llama7b.yaml",
        "***** Running training *****", "  Num examples = 100000",
        "  Instantaneous batch size per device = 16",
        "  Gradient Accumulation steps = 1",
        "|    0   N/A  N/A     32317      C   python                           3700MiB |",
        "|    0   N/A  N/A     34873      C   python                          14000MiB |",
        "| 27%   40C    P2    45W / 180W |  22980MiB / 24564MiB |      0%      Default |"]


def lazy_log(path, head_lines, between, tail, reading_every=0, upto=300 << 10):
    """HEAD, then filler with readings (every `reading_every` steps; 0:
    none) to `upto` bytes, then `between` more filler lines, then tail."""
    rd = (lambda i: "Memory: %.2fGB allocated, %.2fGB reserved" % (3 + i * 0.001, 4 + i * 0.001)) \
        if reading_every else None
    lines = list(head_lines)
    step = 0
    size = sum(len(x) + 1 for x in lines)
    while size < upto:
        lines += filler(step, 1, reading=rd)
        size += len(lines[-1]) + 1 + (len(lines[-2]) + 1 if rd and step % reading_every == 0 else 0)
        step += 1
    lines += filler(step, between, reading=rd)
    with open(path, "w") as f:
        f.write("\n".join(lines + tail) + "\n")


LAZY_CASES = [
    # (where the OOM is, head, filler lines after the head, tail,
    #  readings every N steps, stdin, incidents[, filler up to this byte])
    ("in the head", HEAD + traceback(2), 0, [], 50, False, 1),
    ("1 KiB past the head: the lines before it are the head's", HEAD, 0, traceback(2), 50, False, 1,
     (256 << 10) + 1024),
    ("below a line with a reading word, no reading, and the platform (probed first)",
     HEAD + ["Linux version 5.15.90.1-microsoft-standard-WSL2 (gcc 11.2.0)"], 0,
     ["Memory check under WSL2: pinned host memory is limited"] + filler(900000, 3000) +
     ["RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"], 0, False, 1,
     (256 << 10) + 100),
    ("just past the head", HEAD, 10, traceback(2), 50, False, 1),
    ("1.5 MiB below, readings probed between", HEAD, 20000, traceback(2), 50, False, 1),
    ("5 MiB below (a buffer sized to the file: the head copied)", HEAD, 65000, traceback(2), 50, False, 1),
    ("6 MiB below (the reader moved on past the head, left in place)", HEAD, 90000, traceback(2), 50, False, 1),
    ("6 MiB below, from a pipe", HEAD, 90000, traceback(2), 50, True, 1),
    ("1.5 MiB below, no readings anywhere", HEAD, 20000, traceback(1), 0, False, 1),
    ("below a reading line that holds none", HEAD, 20000,
     ["Memory usage report follows"] + filler(900000, 3000) + traceback(1), 50, False, 1),
    ("below a root-cause block", HEAD, 20000,
     ["Root Cause (first observed failure):", "[0]:", "  rank      : 3 (local_rank: 3)"] +
     filler(900000, 3000) + traceback(1), 50, False, 1),
    ("below a warning's traceback in the head", HEAD + ["Traceback (most recent call last):",
                                                         '  File "/work/x.py", line 3, in <module>',
                                                         "    warn()", "UserWarning: deprecated"],
     20000, traceback(1), 50, False, 1),
    ("nowhere", HEAD, 20000, [], 50, False, 0),
]


with tempfile.TemporaryDirectory() as tmp:
    print("1..%d" % (9 + len(LAZY_CASES)))
    # 1. the frames and the phase they give (validate: eval)
    inc = compare(tmp, "traceback", traceback(3))
    tap(inc and any("fit(" in (f.get("code") or "") for f in inc[0].get("frames") or []),
        "traceback: the frames read near the OOM, the outermost included", inc and inc[0].get("frames"))

    # 2. a traceback longer than the window before the OOM (32 KiB) is
    # followed back to its header: the outermost frames (validate) are kept
    compare(tmp, "deep-traceback", traceback(400))

    # 3. follow-ups after the OOM (near after it)
    compare(tmp, "followup", traceback(2) + [
        "[W CUDAGuardImpl.h:46] Warning: CUDA warning: an illegal memory access was encountered",
        "RuntimeError: CUDA error: an illegal memory access was encountered"])

    # 4. the allocator setting echoed a few lines before the OOM
    compare(tmp, "alloc-conf", ["PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
                                "starting validation"] + traceback(1))

    # 5. readings in the middle of a long log only (none in the head, none
    # near the OOM): tier 1's probes read them, and their growth (a leak:
    # +2 MiB per step) is evidence
    log = os.path.join(tmp, "leak.log")
    lines = (filler(0, 15000) +
             filler(15000, 80000, reading=lambda i: "Memory: %.2fGB allocated" % (4 + i * 0.002)) +
             filler(95000, 1000))
    with open(log, "w") as f:
        f.write("\n".join(lines + traceback(1)) + "\n")
    d = run(log)
    inc = d["incidents"]
    ev = json.dumps(inc[0].get("differential") if inc else None)
    tap(len(inc) == 1 and os.path.getsize(log) > (4 << 20) and "leak" in ev and
        ("grew" in ev.lower() or "growth" in ev.lower()),
        "readings only in the middle of %d MiB: their growth is evidence" % (os.path.getsize(log) >> 20),
        ev[:2000])

    # 6. a batch setting in the head (HF Trainer's banner) is read for an
    # OOM far below it
    log = os.path.join(tmp, "head.log")
    banner = ["***** Running training *****", "  Num examples = 100000",
              "  Instantaneous batch size per device = 16",
              "  Gradient Accumulation steps = 1"]
    with open(log, "w") as f:
        f.write("\n".join(banner + filler(0, 40000) + traceback(1)) + "\n")
    d = run(log)
    txt = json.dumps(d["incidents"][0].get("action") if d["incidents"] else None)
    tap("16" in txt and "8" in txt, "the head's batch (16) is used for an OOM 3 MiB below it", txt)

    # 7. a memory_summary() table far from any OOM is still a snapshot
    log = os.path.join(tmp, "summary.log")
    table = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "logs",
                              "mixed-summary-then-oom.log")).read().split("\n")
    table = [x for x in table if x.startswith("|")]
    with open(log, "w") as f:
        f.write("\n".join(filler(0, 20000) + table + filler(20000, 20000)) + "\n")
    d = run(log)
    tap(len(d["snapshots"]) == 1 and not d["incidents"],
        "a memory_summary table 1.5 MiB in, no OOM: read", json.dumps(d["snapshots"])[:500])

    # 8. torchelastic's root-cause block at the end of a long log gives
    # the rank that failed first
    log = os.path.join(tmp, "rootcause.log")
    rc = ["Root Cause (first observed failure):", "[0]:", "  time      : 2024-11-20_14:37:16",
          "  host      : node1", "  rank      : 3 (local_rank: 3)", "  exitcode  : 1 (pid: 4242)"]
    with open(log, "w") as f:
        f.write("\n".join(["[rank3]: " + x for x in traceback(1)] + filler(0, 40000) + rc) + "\n")
    d = run(log, "--format", "json")
    inc = d["incidents"]
    tap(len(inc) == 1 and inc[0].get("rank") == 3 and
        any("first" in n.lower() or "root" in n.lower() for n in d["notes"] + [json.dumps(inc[0])]),
        "a root-cause block 3 MiB after the OOM is read", json.dumps({"notes": d["notes"]}))

    # 10... the head read lazily gives the eager read's report
    for name, head, between, tail, every, stdin, want, *upto in LAZY_CASES:
        log = os.path.join(tmp, "lazy.log")
        lazy_log(log, head, between, tail, every, *upto)
        lazy = run_raw(log, stdin=stdin)
        eager = run_raw(log, "--svg", os.path.join(tmp, "lazy.svg"), stdin=stdin)
        n = len(json.loads(lazy[1])["incidents"]) if lazy[1] else -1
        tap(lazy == eager and n == want,
            "the head read lazily, OOM %s (%d KiB log, %d incidents): the eager report" %
            (name, os.path.getsize(log) >> 10, n),
            "lazy rc %d, eager rc %d\n%s" % (lazy[0], eager[0],
                                              "\n".join(l for l in __import__("difflib").unified_diff(
                                                  lazy[1].decode().splitlines(), eager[1].decode().splitlines(),
                                                  lineterm="", n=1))[:3000]))

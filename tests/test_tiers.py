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


with tempfile.TemporaryDirectory() as tmp:
    print("1..9")
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

#!/usr/bin/env python3
"""Envelope tests (issue 13): the same OOM log wrapped as it really arrives
(Docker json-file, JSON Lines of a log shipper, journalctl -o json and
short-iso, Kubernetes CRI with a line split into `P` pieces, Slurm
`srun --label`, UTF-16 LE/BE with a BOM) must give the same JSON incidents
(kind, message, memory, frames, phase, device, step) as the plain log,
and the envelopes that carry a time stamp put it on the incident.
  test_envelopes.py EXE LOGDIR
Prints TAP."""
import json
import os
import subprocess
import sys
import tempfile

exe, logdir = sys.argv[1], sys.argv[2]
LOGS = ["real-mr-0010-rank1-linear.log", "seed-003-backward.log", "real-mr-0003-rank3-filelock.log",
        "seed-001-rotate-eval.log", "real-pt1-0007-vscode-frames.log",
        "oneline-traceback-eval.log"]
KEYS = ["kind", "family", "framework", "device", "step", "epoch", "phase",
        "phase_source", "memory", "tensor", "status", "message", "frames", "cause"]
n = failed = 0


def tap(ok, what, detail=""):
    global n, failed
    n += 1
    print(("ok" if ok else "not ok"), n, "-", what)
    if not ok:
        failed += 1
        for line in str(detail).splitlines()[:20]:
            print("#  ", line)


def incidents(path):
    p = subprocess.run([exe, "--format", "json", path], capture_output=True, timeout=60)
    if p.returncode != 0:
        return None, p.stderr.decode(errors="replace")
    d = json.loads(p.stdout)
    return [{k: i.get(k) for k in KEYS} | {"rank": i.get("rank"), "line": i["location"]["line"],
                                            "time": i.get("time")}
            for i in d["incidents"]], d


TS = "2025-01-01T00:00:%02d.123456789Z"


def wrap(kind, lines):
    out = []
    for k, l in enumerate(lines):
        ts = TS % (k % 60)
        if kind == "docker":
            out.append(json.dumps({"log": l + "\n", "stream": "stderr", "time": ts}))
        elif kind == "jsonl":
            out.append(json.dumps({"timestamp": ts, "level": "info", "message": l}))
        elif kind == "journal-json":
            out.append(json.dumps({"__REALTIME_TIMESTAMP": "1735689600000000", "_PID": "42",
                                   "MESSAGE": l}))
        elif kind == "journal":
            out.append("2025-01-01T00:00:00+0000 node7 python[4242]: " + l)
        elif kind == "cri":
            if len(l) > 60:
                # split like containerd does for long lines: P pieces, then F
                pieces = [l[i:i + 40] for i in range(0, len(l), 40)]
                for p in pieces[:-1]:
                    out.append(ts + " stderr P " + p)
                out.append(ts + " stderr F " + pieces[-1])
            else:
                out.append(ts + " stderr F " + l)
        elif kind == "slurm":
            out.append("0: " + l)
    return "\n".join(out) + "\n"


with tempfile.TemporaryDirectory() as tmp:
    for name in LOGS:
        src = os.path.join(logdir, name)
        with open(src, encoding="utf-8", errors="surrogateescape") as f:
            lines = f.read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        want, _ = incidents(src)
        for kind in ["docker", "jsonl", "journal-json", "journal", "cri", "slurm",
                     "utf16le", "utf16be"]:
            path = os.path.join(tmp, name + "." + kind)
            if kind.startswith("utf16"):
                text = "\n".join(lines) + "\n"
                enc = "utf-16-le" if kind == "utf16le" else "utf-16-be"
                data = "\ufeff".encode(enc) + text.encode(enc, errors="replace")
            else:
                data = wrap(kind, lines).encode("utf-8", errors="surrogateescape")
            with open(path, "wb") as f:
                f.write(data)
            got, d = incidents(path)
            if got is None:
                tap(False, f"{name} as {kind}: exit 0", d)
                continue
            w = [dict(i) for i in want]
            g = [dict(i) for i in got]
            # the envelope's time stamp is kept on the incident
            # (the others keep the plain log's own, if it has them)
            timed = kind in ("docker", "jsonl", "journal-json", "journal", "cri")
            tap(len(g) > 0 and all(i["time"] is not None if timed else i["time"] == j["time"]
                                   for i, j in zip(g, w)),
                f"{name} as {kind}: incidents keep the {'envelope' if timed else 'log'}'s time stamp",
                [i["time"] for i in g])
            for i in w + g:
                i.pop("time")
            # one labelled line is not enough to call a log Slurm's
            labelled = kind != "slurm" or len(lines) >= 2
            if kind == "slurm" and labelled:
                # the label is the rank where the log had none
                for a, b in zip(w, g):
                    if a["rank"] is None:
                        a["rank"] = 0
            if kind == "cri":
                # joined P pieces keep the line number of their F piece
                for a in w + g:
                    a.pop("line")
            tap(w == g, f"{name} as {kind}: same incidents as the plain log",
                json.dumps({"want": w, "got": g}, indent=1)[:3000])
            tap(any("read as" in x for x in d["notes"]) == labelled,
                f"{name} as {kind}: a note says how it was read", d["notes"])

# srun --label lines decoded straight into the scanner's buffer (envelope.c
# slurm_direct): lines longer than the 64 KiB the scanner reads at a time
# when it cuts an over-long line, one longer than the decoder's 4 MiB (it
# passes through undecoded), CRLF endings, bare labels, blank lines and an
# OOM on a last line without '\n' give the incidents of the same text with
# the labels already rewritten to `[rankN]: `.
with tempfile.TemporaryDirectory() as tmp:
    oom = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %d.00 GiB. GPU 0 has a "
           "total capacity of 79.15 GiB of which 1.06 GiB is free.")
    labelled, plain = [], []
    for i in range(600):  # under 16 MiB in all
        r, k = i % 16, i % 9
        if k == 0 and i > 100:  # the head (sniffed) is short lines
            body = "x" * (70000 + 997 * i % 60000)
        elif k == 1:
            body = ""
        else:
            body = "step %d | loss: 0.5" % i  # (a value YAML rejects)
        if k == 3:
            labelled.append(""), plain.append("")
            continue
        # (padded labels only past the head: source.c takes a head of
        # `N: value` lines with some indented as a YAML config)
        labelled.append(("  %d: %s\r" if k == 2 and i > 100 else "%d: %s") % (r, body))
        plain.append("[rank%d]: %s" % (r, body))
        if i in (200, 450):
            labelled.append("%d: %s" % (r, oom % (i // 100)))
            plain.append("[rank%d]: %s" % (r, oom % (i // 100)))
        if i == 300:
            labelled.append("5: " + "y" * (5 << 20))
            plain.append("5: " + "y" * (5 << 20))
    labelled.append("7: " + oom % 4)
    plain.append("[rank7]: " + oom % 4)
    a, b = os.path.join(tmp, "labelled.log"), os.path.join(tmp, "plain.log")
    with open(a, "w", newline="") as f:
        f.write("\n".join(labelled))
    with open(b, "w", newline="") as f:
        f.write("\n".join(plain))
    got, d = incidents(a)
    want, _ = incidents(b)
    tap(got is not None and want is not None and len(want) == 3 and got == want
        and any("read as" in x for x in d["notes"]),
        "srun --label with long, over-long, CRLF and bare lines: the incidents of the rewritten text",
        json.dumps({"want": want, "got": got}))

# A log with srun labels alone is read as it is and the scanner strips each
# label (logscan.c strip_line), not decoded first: the incidents must be
# those of the decoder's rewrite (`[rank<task>]: <text>`, one trailing '\r'
# dropped), also for a traceback whose lines start with a tab or blanks
# after the label, lines with an escape sequence before the label (no
# label then), a NUL after it and unlabelled lines among labelled ones.
import re
LABEL = re.compile(r"^ {0,8}([0-9]{1,6}):( |$)")


def decoded(line):
    m = LABEL.match(line)
    if not m:
        return line
    rest = line[m.end():]
    if rest.endswith("\r"):
        rest = rest[:-1]
    return "[rank%d]: %s" % (int(m.group(1)), rest)


with tempfile.TemporaryDirectory() as tmp:
    for name in ["seed-001-rotate-eval.log", "real-pt1-0007-vscode-frames.log", "seed-003-backward.log"]:
        with open(os.path.join(logdir, name), encoding="utf-8", errors="surrogateescape") as f:
            lines = f.read().split("\n")
        labelled = []
        for i, l in enumerate(lines):
            r = (i * 7) % 12
            form = ["%d: %s", "%d: \t%s", " %d: %s\r", "%d: %s", "\x1b[0m%d: %s", "%d: \x00%s", "%d:  %s"][i % 7]
            labelled.append(l if i % 11 == 5 else form % (r, l))
        plain = [decoded(l) for l in labelled]
        a, b = os.path.join(tmp, name + ".labelled"), os.path.join(tmp, name + ".plain")
        with open(a, "w", newline="", encoding="utf-8", errors="surrogateescape") as f:
            f.write("\n".join(labelled))
        with open(b, "w", newline="", encoding="utf-8", errors="surrogateescape") as f:
            f.write("\n".join(plain))
        got, d = incidents(a)
        want, _ = incidents(b)
        tap(got is not None and want is not None and len(want) >= 1 and got == want
            and any("srun --label" in x for x in d["notes"]),
            f"{name} with srun labels read as it is: the incidents of the decoded text",
            json.dumps({"want": want, "got": got})[:3000])

print(f"1..{n}")
sys.exit(1 if failed else 0)

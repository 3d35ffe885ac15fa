#!/usr/bin/env python3
"""test_wrapped.py EXE TESTDATA — logs a terminal hard-wrapped (issue 24).

A log copied from a terminal keeps the terminal's breaks: every line longer
than the width W is cut at exactly W columns, mid-word, and goes on at
column 0 of the next row. testdata/wrap/nemos-345.log (JAX's XLA BFC lines
and XlaRuntimeError from a public thread, unwrapped) is cut here at several
widths as a terminal would; each cut log must give the incidents of the
unwrapped one (kind, family, framework, severity, request), each at the
physical line where its message starts, and say that it joined lines; so
must a copy whose rows are padded with blanks to the width (a copy of the
screen's cells). Logs whose longest lines are real lines must not be
joined. Prints TAP."""
import json
import os
import subprocess
import sys
import tempfile

from tap import check, done

exe, testdata = sys.argv[1], sys.argv[2]
env = dict(os.environ, LC_ALL="C.UTF-8")


def run(args, text=None):
    p = subprocess.run([exe] + args, input=text, capture_output=True, env=env, timeout=60)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def fold(lines, width):
    """Cuts each line as a terminal of `width` columns shows it (ASCII)."""
    out, starts = [], []
    for line in lines:
        starts.append(len(out) + 1)
        if not line:
            out.append("")
        for i in range(0, len(line), width):
            out.append(line[i:i + width])
    return out, starts


def incidents(path):
    rc, out = run(["--format", "json", path])
    doc = json.loads(out)
    keys = []
    for inc in doc["incidents"]:
        keys.append((inc["kind"], inc["family"], inc["framework"], inc["severity"],
                     inc["memory"]["requested_bytes"], inc["location"]["line"]))
    return keys, doc["notes"]


tmp = tempfile.mkdtemp()
orig_path = os.path.join(testdata, "wrap", "nemos-345.log")
orig = open(orig_path).read().split("\n")[:-1]
want, notes = incidents(orig_path)
check(len(want) == 3 and not any("wrapped" in n for n in notes),
      "the unwrapped log: 3 incidents, nothing joined", want)

# a copy of the screen's cells (tmux capture-pane, a console's select-all)
# also pads every row with blanks to the width, the cut rows as well as the
# rows whose line ended (issue 31)
for width, pad in ((80, False), (100, False), (120, False), (137, False), (100, True), (137, True)):
    folded, starts = fold(orig, width)
    if pad:
        folded = [row + " " * (width - len(row)) for row in folded]
    how = "cut at %d columns%s" % (width, ", rows padded with blanks" if pad else "")
    path = os.path.join(tmp, "%s%d.log" % ("p" if pad else "w", width))
    with open(path, "w") as f:
        f.write("\n".join(folded) + "\n")
    got, notes = incidents(path)
    # the same incidents, each at the physical line its message starts on
    mapped = [k[:5] + (starts[k[5] - 1],) for k in want]
    check(got == mapped, "%s: the incidents of the unwrapped log at their physical lines" % how,
          "got %s\nwant %s" % (got, mapped))
    check(any("hard-wrapped at %d columns%s" % (width, ", rows padded with blanks" if pad else " (") in n
              for n in notes), "%s: a note says the lines were joined" % how, str(notes))
    rc, _ = run(["--fail-on", "error", path])
    check(rc == 1, "%s: --fail-on error exits 1" % how, rc)

# padded rows of a log no one wrapped (every line shorter than the width):
# nothing is joined
short = [l for l in orig if len(l) < 95][:40]
path = os.path.join(tmp, "p-short.log")
with open(path, "w") as f:
    f.write("\n".join(l + " " * (100 - len(l)) for l in short) + "\n")
_, notes = incidents(path)
check(not any("wrapped" in n for n in notes), "rows padded to 100 columns, none cut: nothing joined", str(notes))

# a trigger cut in two by the wrap: "Out of mem" | "ory while trying …"
msg = "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 7406166528 bytes."
cut = msg.index("Out of memory") + len("Out of mem")
pad = "x" * (80 - cut)
lines = ["step 1 loss 2.0", "I1121 " + "w" * 90, pad + msg, "step 2"]
folded, starts = fold(lines, 80)
check(folded[starts[2] - 1].endswith("Out of mem"), "the wrap cuts the trigger literal", folded[starts[2] - 1])
path = os.path.join(tmp, "cut-trigger.log")
with open(path, "w") as f:
    f.write("\n".join(folded) + "\n")
got, _ = incidents(path)
check([(k[1], k[4], k[5]) for k in got] == [("jax", 7406166528, starts[2])],
      "a trigger cut by the wrap is found, with its request and line", got)

# the longest lines are real lines: two of exactly 80 columns, each followed
# by a line that starts a record of its own; a table whose rows are all the
# longest; a message wrapped at word ends behind "# " (a writer's wrap)
real = [
    "2024-11-20 14:37:10 INFO step 100 loss 2.3100 lr 0.000300 grad_norm 1.2 tokens/s 4000",
    "2024-11-20 14:37:11 INFO step 200 loss 2.2000 lr 0.000300 grad_norm 1.1 tokens/s 4001",
    "2024-11-20 14:37:12 INFO evaluating",
    "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 23.65 GiB total capacity)",
]
for label, text in [
    ("two real lines of the same length before time-stamped lines", real[:1] + real[1:2] + real[2:]),
    ("a table whose rows are all the longest",
     ["|" + "-" * 78 + "|", "| name | value " + " " * 63 + "|", "| mem  | 1.0 GiB" + " " * 62 + "|",
      "|" + "-" * 78 + "|", real[3]]),
    ("a message wrapped at word ends behind '# '",
     ["# RuntimeError: CUDA out of memory. Tried to allocate 36.00 MiB (GPU 0; 7.93 GiB total capacity; 130.35 MiB already",
      "# allocated; 47.06 MiB free; 188.00 MiB reserved in total by PyTorch) If reserved memory is >> allocated memory try",
      "# setting max_split_size_mb to avoid fragmentation."]),
]:
    path = os.path.join(tmp, "real.log")
    with open(path, "w") as f:
        f.write("\n".join(text) + "\n")
    got, notes = incidents(path)
    check(not any("wrapped" in n for n in notes) and len(got) == 1,
          "not joined: %s (one incident, no note)" % label, (got, notes))
done()

#!/usr/bin/env python3
"""What the reports print, checked on every real input the repository has
(issue 24): the logs of testdata/logs (with their .args), the messages of
the dev corpus and of the cause cases.

  report_lines.py EXE LOGDIR CORPUS.jsonl [CASES.jsonl ...]

For each input:
  help      every `help:` line of the text report (plain and --verbose) is
            an instruction: at least 8 words, and a digit, a setting
            (NAME=VALUE or key: value) or code (`backticks` or a call's
            parentheses) in it; undetermined incidents included.
  compare   every comparison printed between two sizes (A > B, A < B,
            A ≤ B, A ≥ B, in text, --verbose, markdown and github output)
            is true of the sizes as printed; a side that is a sum
            (A + B) or a multiple (2 × A) is computed first.
  width     on a 100-column terminal the first line of each incident shows
            its cause and confidence (error[CAUSE, CONFIDENCE]: or
            error[undetermined]:) within column 100, and no line is wider
            than 100 columns (display width, not bytes).

Prints TAP; a failure lists the offending lines.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden import run, run_tty  # noqa: E402
from tap import check, done  # noqa: E402

UNITS = {"B": 1, "bytes": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30,
         "TiB": 1 << 40, "PiB": 1 << 50, "EiB": 1 << 60,
         "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}
SIZE = r"(?:(\d+(?:\.\d+)?)\s*(×|% of)\s*)?(\d[\d,]*(?:\.\d+)?)\s?(B|bytes|KiB|MiB|GiB|TiB|PiB|EiB|KB|MB|GB|TB)\b"
SIZE_RE = re.compile(SIZE)
OPS = {">": lambda a, b: a > b, "<": lambda a, b: a < b,
       "≥": lambda a, b: a >= b, "≤": lambda a, b: a <= b,
       ">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b}
OP_RE = re.compile(r"\s(>=|<=|>|<|≥|≤)\s")
# a side of a comparison ends at these (another comparison, a clause)
BOUNDARY = re.compile(r"[;:=,(){}\[\]]|\s(?:>=|<=|>|<|≥|≤)\s|\s(?:and|but|or|so|yet|then|if|when)\s")

def side_value(text, left):
    """The size a comparison's side states: the sizes of a sum added, a
    multiple multiplied; the one nearest the operator otherwise. None when
    the side has no size."""
    sizes = list(SIZE_RE.finditer(text))
    if not sizes:
        return None

    def value(m):
        v = float(m.group(3).replace(",", "")) * UNITS[m.group(4)]
        if m.group(1):
            v *= float(m.group(1)) / (100 if m.group(2) == "% of" else 1)
        return v
    if "+" in text and not re.search(r"[−-]\s", text):
        return sum(value(m) for m in sizes)
    return value(sizes[-1] if left else sizes[0])


def comparisons(text):
    """(claim, ok) for each size comparison in text."""
    out = []
    for line in text.splitlines():
        for m in OP_RE.finditer(line):
            # the left side: back to the previous boundary
            before = line[:m.start()]
            cut = [b.end() for b in BOUNDARY.finditer(before)]
            left = before[cut[-1] if cut else 0:]
            after = line[m.end():]
            b = BOUNDARY.search(after)
            right = after[:b.start() if b else len(after)]
            a, c = side_value(left, True), side_value(right, False)
            if a is None or c is None:
                continue
            claim = f"{left.strip()} {m.group(1)} {right.strip()}"
            out.append((claim, OPS[m.group(1)](a, c), line))
    return out


def is_instruction(text):
    words = text.split()
    return len(words) >= 8 and bool(
        re.search(r"\d", text) or re.search(r"\b[A-Z][A-Z0-9_]+=\S", text) or
        re.search(r"\b[\w.]+: \S", text) or "`" in text or re.search(r"\w\([^)]*\)", text))


def width(s):
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 0
               if unicodedata.combining(ch) else 1 for ch in s)


def inputs(logdir, jsonls, tmp):
    """(name, args) for every input."""
    for name in sorted(os.listdir(logdir)):
        if not (name.endswith(".log") or name.endswith(".log.gz")):
            continue
        path = os.path.relpath(os.path.join(logdir, name))
        extra = []
        if os.path.exists(path + ".args"):
            with open(path + ".args", encoding="utf-8") as f:
                extra = [a for a in f.read().split() if a not in ("--diff", "--apply")]
        yield name, extra + [path]
    # a path wider than the terminal: the headline is broken inside it (by
    # characters, no line wider than the terminal)
    longdir = os.path.join(tmp, "runs", "x" * 90)
    os.makedirs(longdir, exist_ok=True)
    longlog = os.path.join(longdir, "a-log-name-long-enough-to-pass-the-terminal-width.log")
    with open(os.path.join(logdir, "real-mr-0010-rank1-linear.log"), "rb") as f, \
            open(longlog, "wb") as t:
        t.write(f.read())
    yield "long path", [longlog]
    for jl in jsonls:
        with open(jl, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                rec = json.loads(line)
                p = os.path.join(tmp, rec["id"] + ".log")
                with open(p, "w", encoding="utf-8") as t:
                    t.write(rec["text"] + "\n")
                yield rec["id"], [p]


def github_text(out):
    """The annotations' messages, their %-escapes undone."""
    text = []
    for line in out.splitlines():
        if line.startswith("::"):
            msg = line.split("::", 2)[-1]
            text.append(msg.replace("%0A", "\n").replace("%0D", "").replace("%25", "%"))
        else:
            text.append(line)
    return "\n".join(text)


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    exe, logdir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    jsonls = [os.path.abspath(j) for j in sys.argv[3:]]
    # the logs' .args name files from the repository's root
    os.chdir(os.path.dirname(os.path.dirname(logdir)))
    with tempfile.TemporaryDirectory() as tmp:
        bad_help, bad_cmp, bad_width, bad_diff = [], [], [], []
        ncmp = nhelp = ndiff = 0
        for name, args in inputs(logdir, jsonls, tmp):
            outs = {}
            for fmt, extra in (("text", []), ("verbose", ["--verbose"]),
                               ("markdown", ["--format", "markdown"]),
                               ("github", ["--format", "github"])):
                rc, out, err = run(exe, ["--color", "never"] + extra + args)
                outs[fmt] = github_text(out) if fmt == "github" else \
                    out.replace("**", "").replace("`", "") if fmt == "markdown" else out
            for fmt in ("text", "verbose"):
                for line in outs[fmt].splitlines():
                    if line.lstrip().startswith("help:"):
                        nhelp += 1
                        h = line.split("help:", 1)[1].strip()
                        if not is_instruction(h):
                            bad_help.append(f"{name} ({fmt}): {line.strip()}")
            # the differential line: most probable first, ruled-out last;
            # "to tell" names the first; "other" (what the causes no
            # evidence names share) closes the live ones
            lines = outs["text"].splitlines()
            for i, line in enumerate(lines):
                m = re.match(r"\s*= differential: (.*)", line)
                if not m:
                    continue
                ndiff += 1
                items = m.group(1).split(" · ")
                others = [k for k, x in enumerate(items) if x.startswith("other ")]
                live_end = len([x for x in items if not x.endswith("ruled out")])
                if others and others != [live_end - 1]:
                    bad_diff.append(f"{name}: 'other' is not the last live item: {line.strip()}")
                items = [x for x in items if not x.startswith("other ")]
                ps = [float(x.split()[1].lstrip("<")) for x in items if not x.endswith("ruled out")]
                live = [not x.endswith("ruled out") for x in items]
                nxt = lines[i + 1] if i + 1 < len(lines) else ""
                tell = re.match(r"\s*= to tell: (\S+) would need", nxt)
                if ps != sorted(ps, reverse=True) or live != sorted(live, reverse=True) or \
                        (tell and tell.group(1) != items[0].split()[0]):
                    bad_diff.append(f"{name}: {line.strip()}  /  {nxt.strip()}")
            for fmt, out in outs.items():
                for claim, ok, line in comparisons(out):
                    ncmp += 1
                    if not ok:
                        bad_cmp.append(f"{name} ({fmt}): {claim}    [{line.strip()}]")
            tty = run_tty(exe, ["--color", "never"] + args, cols=100).splitlines()
            for i, line in enumerate(tty):
                if width(line) > 100:
                    bad_width.append(f"{name}: line {i + 1} is {width(line)} columns: {line}")
                m = re.match(r"\S.*?:\d*:? ?(error|warning|note)(\[[^\]]*\]):", line)
                if m and m.end(2) > 100:
                    bad_width.append(f"{name}: line {i + 1}: the verdict ends at column {m.end(2)}")
            heads = [l for l in tty if re.search(r": (error|warning|note)\[", l)]
            plain_heads = [l for l in outs["text"].splitlines()
                           if re.search(r"^\S.*: (error|warning|note)(\[|: )", l)]
            if len(heads) != len(plain_heads):
                bad_width.append(f"{name}: {len(plain_heads)} headlines, {len(heads)} with the verdict "
                                 "before the message within 100 columns")
        check(not bad_help, f"every help: line is an instruction (8+ words with a number, setting or code): "
            f"{nhelp - len(bad_help)}/{nhelp}", "\n".join(bad_help))
        check(not bad_cmp, f"every printed comparison between sizes is true: {ncmp - len(bad_cmp)}/{ncmp}",
            "\n".join(bad_cmp[:40]))
        check(not bad_diff, f"the differential lists the most probable first, ruled-out last, and "
            f"'to tell' names the first: {ndiff - len(bad_diff)}/{ndiff}", "\n".join(bad_diff[:20]))
        # a terminal that reports no size: COLUMNS gives the width (else no wrap)
        seed = [os.path.join(logdir, "seed-001-rotate-eval.log")]
        env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
        nowrap = run_tty(exe, ["--color", "never"] + seed, cols=0, env=env).splitlines()
        at60 = run_tty(exe, ["--color", "never"] + seed, cols=0, env=dict(env, COLUMNS="60")).splitlines()
        sized = run_tty(exe, ["--color", "never"] + seed, cols=100, env=dict(env, COLUMNS="60")).splitlines()
        check(max(map(width, nowrap)) > 100 and max(map(width, at60)) <= 60 and len(at60) > len(nowrap) and
              max(map(width, sized)) <= 100 and max(map(width, sized)) > 60,
              "a terminal without a size wraps at COLUMNS (60), none without it; a sized one at its size",
              f"widest: {max(map(width, nowrap))} without COLUMNS, {max(map(width, at60))} with 60, "
              f"{max(map(width, sized))} on a 100-column terminal with COLUMNS=60")
        check(not bad_width, "at 100 columns the verdict is within the first 100 columns and no line is wider",
            "\n".join(bad_width[:40]))
    done()


if __name__ == "__main__":
    sys.exit(main())

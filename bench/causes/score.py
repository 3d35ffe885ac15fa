#!/usr/bin/env python3
"""Scores kgmem-diagnose's diagnosis on real OOM reports with a known cause.

Usage: score.py [--bin PATH] [--cases FILE.jsonl] [--old N] [--verbose] [--pinned FILE]

Each record (testdata/cases/dev-causes.jsonl, copied from
shared/cases/dev-causes.jsonl; fields in testdata/SOURCES.md) holds the error
text as the reporter posted it and the cause its thread settled. The text is
piped to `kgmem-diagnose --format json -`; the tool's cause is the first
incident's non-null cause (as the project's before-stop check reads it).
Prints right / wrong / undetermined, wrong at each confidence, and the
confusion matrix (rows: the thread's cause, columns: the tool's), and the
reliability table (DIAGNOSIS §9): for each confidence level the answers
given at it, how many are right and the share right, and the undetermined
count and share; over all records, the first N (--old, default 58: the
records of the first round, in file order) and the rest.

With --pinned FILE (lines "ID CAUSE"), runs as a TAP test instead: every
pinned record must be right, and no record may be wrong at high confidence.
"""
import argparse
import collections
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def diagnose(binary, text):
    try:
        out = subprocess.run([binary, "--format", "json", "-"], input=text.encode(),
                             capture_output=True, timeout=20).stdout
        incs = json.loads(out).get("incidents") or []
    except (subprocess.TimeoutExpired, ValueError):
        return None, None, "error"
    got = next((i for i in incs if i.get("cause")), None)
    if got is None:
        return None, None, "none" if not incs else "undetermined"
    return got["cause"], got.get("confidence"), "ok"


LEVELS = ("high", "medium", "low")


def reliability(results, old):
    """Prints answered / right / % right per level and undetermined, for all
    records, the first `old` and the rest."""
    splits = [("all %d" % len(results), results)]
    if 0 < old < len(results):
        splits += [("old %d" % old, results[:old]), ("new %d" % (len(results) - old), results[old:])]
    def pct(k, n):
        return "%3.0f %%" % (100.0 * k / n) if n else "    -"
    print("\nreliability (answered at each level, right, % right; undetermined)")
    print("%-13s" % "" + "".join("| %-24s" % name for name, _ in splits))
    print("%-13s" % "level" + "| answered  right  % right " * len(splits))
    for lv in LEVELS:
        row = "%-13s" % lv
        for _, rs in splits:
            ans = [x for x in rs if x[1] is not None and x[2] == lv]
            ok = sum(1 for r, cause, _, _ in ans if cause == r["cause"])
            row += "| %8d  %5d  %7s " % (len(ans), ok, pct(ok, len(ans)))
        print(row)
    row = "%-13s" % "undetermined"
    for _, rs in splits:
        u = sum(1 for x in rs if x[1] is None)
        row += "| %8d  %5s  %7s " % (u, "", pct(u, len(rs)))
    print(row)
    print("(levels with fewer than 5 answers are not judged)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "kgmem-diagnose"))
    ap.add_argument("--cases", default=os.path.join(ROOT, "testdata", "cases", "dev-causes.jsonl"))
    ap.add_argument("--old", type=int, default=58,
                    help="the first N records are the old set (default 58)")
    ap.add_argument("--pinned")
    ap.add_argument("--verbose", "-v", action="store_true")
    a = ap.parse_args()
    records = [json.loads(l) for l in open(a.cases, encoding="utf-8") if l.strip()]
    results = []
    for r in records:
        cause, conf, status = diagnose(a.bin, r["text"])
        results.append((r, cause, conf, status))

    if a.pinned:
        pinned = [l.split() for l in open(a.pinned, encoding="utf-8")
                  if l.strip() and not l.startswith("#")]
        by_id = {r["id"]: (cause, conf) for r, cause, conf, _ in results}
        n = len(pinned) + 1
        print("1..%d" % n)
        bad = 0
        for k, (rid, want) in enumerate(pinned, 1):
            got = by_id.get(rid, (None, None))
            ok = got[0] == want
            bad += not ok
            print("%sok %d - %s: %s (got %s, %s)" % ("" if ok else "not ", k, rid, want, got[0], got[1]))
        hi = [r["id"] for r, cause, conf, _ in results
              if cause and cause != r["cause"] and conf == "high"]
        print("%sok %d - no record wrong at high confidence%s" %
              ("not " if hi else "", n, (": " + " ".join(hi)) if hi else ""))
        return 1 if bad or hi else 0

    right = wrong = undet = 0
    wrong_at = collections.Counter()
    matrix = collections.defaultdict(collections.Counter)
    for r, cause, conf, status in results:
        truth = r["cause"]
        if cause is None:
            undet += 1
            matrix[truth]["(none)"] += 1
            mark = "undetermined" if status == "undetermined" else "no incident" if status == "none" else "ERROR"
        elif cause == truth:
            right += 1
            matrix[truth][cause] += 1
            mark = "right"
        else:
            wrong += 1
            wrong_at[conf] += 1
            matrix[truth][cause] += 1
            mark = "WRONG"
        if a.verbose:
            print("%-12s %-16s %-16s %-7s %s" % (r["id"], truth, cause or "-", conf or "-", mark))
    n = len(results)
    print("cases: %d (%s)" % (n, os.path.relpath(a.cases)))
    print("right: %d (%.0f %%)  wrong: %d (%.0f %%)  undetermined: %d (%.0f %%)" %
          (right, 100.0 * right / n, wrong, 100.0 * wrong / n, undet, 100.0 * undet / n))
    print("wrong at confidence: high %d, medium %d, low %d" %
          (wrong_at["high"], wrong_at["medium"], wrong_at["low"]))
    reliability(results, a.old)
    causes = sorted({r["cause"] for r, *_ in results} | {c for _, c, _, _ in results if c})
    cols = causes + ["(none)"]
    w = max(len(c) for c in cols) + 1
    print("\nconfusion (rows: the thread's cause; columns: the tool's)")
    print(" " * w + "".join(c[:6].rjust(7) for c in cols))
    for t in causes:
        if sum(matrix[t].values()) == 0:
            continue
        print(t.ljust(w) + "".join((str(matrix[t][c]) if matrix[t][c] else ".").rjust(7) for c in cols))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.exit(0)

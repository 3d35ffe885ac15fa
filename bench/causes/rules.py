#!/usr/bin/env python3
"""How reliable each rule's evidence is on real cases (DIAGNOSIS §9: the
strengths are measured, not wished).

Usage: rules.py [--bin PATH] [--cases FILE.jsonl] [--first N] [--from N]

Pipes each record's text (testdata/cases/dev-causes.jsonl by default)
through `kgmem-diagnose --format json -`, takes the findings of its first
incident, and for every rule that fired as evidence *for* a cause prints how
often that cause is the one the thread settled: fired, right, share right,
by strength; then the same per strength level (a level's items should be
right about as often as its likelihood ratio claims: decisive ×100 ≈ 99 %
against an even prior, strong ×20 ≈ 95 %, weak ×2.5 ≈ 70 %), counting each
record's strongest item per cause once. --first N / --from N keep records
by their number (dcause-NNNN), so a rule can be measured on the records it
was built on and apart on the ones it never saw.
"""
import argparse
import collections
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ORDER = {"decisive": 3, "strong": 2, "weak": 1}


def findings(binary, text):
    out = subprocess.run([binary, "--format", "json", "-"], input=text.encode(),
                         capture_output=True, timeout=20).stdout
    try:
        incs = json.loads(out).get("incidents") or []
    except ValueError:
        return []
    return incs[0].get("findings") or [] if incs else []


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "kgmem-diagnose"))
    ap.add_argument("--cases", default=os.path.join(ROOT, "testdata", "cases", "dev-causes.jsonl"))
    ap.add_argument("--first", type=int, default=0, help="only records numbered at most N")
    ap.add_argument("--from", dest="start", type=int, default=0, help="only records numbered at least N")
    a = ap.parse_args()

    per_rule = collections.defaultdict(lambda: [0, 0, None, None])
    per_level = collections.defaultdict(lambda: [0, 0])
    n = 0
    for line in open(a.cases):
        r = json.loads(line)
        num = int(r["id"].split("-")[1])
        if (a.first and num > a.first) or num < a.start:
            continue
        n += 1
        best = {}
        for f in findings(a.bin, r["text"]):
            cause, strength = f.get("supports"), f.get("strength")
            if not cause or cause == "none" or strength not in ORDER:
                continue
            s = per_rule[f["rule"]]
            s[0] += 1
            s[1] += cause == r["cause"]
            s[2], s[3] = cause, strength
            if ORDER[strength] > ORDER.get(best.get(cause), 0):
                best[cause] = strength
        for cause, strength in best.items():
            per_level[strength][0] += 1
            per_level[strength][1] += cause == r["cause"]
    print("records: %d" % n)
    print("%-46s %-16s %-9s %5s %5s %6s" % ("rule", "supports", "strength", "fired", "right", "share"))
    for rule, (k, ok, cause, strength) in sorted(per_rule.items(), key=lambda x: (-ORDER[x[1][3]], x[0])):
        print("%-46s %-16s %-9s %5d %5d %5.0f %%" % (rule, cause, strength, k, ok, 100.0 * ok / k))
    print("\nstrongest item per record and cause")
    for lv in ("decisive", "strong", "weak"):
        k, ok = per_level[lv]
        print("%-9s %4d items, %4d right (%s)" % (lv, k, ok, "%.0f %%" % (100.0 * ok / k) if k else "-"))


if __name__ == "__main__":
    main()

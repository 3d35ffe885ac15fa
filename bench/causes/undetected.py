#!/usr/bin/env python3
"""Lists the dev cases whose text yields no incident.

Usage: undetected.py [--bin PATH] [--cases FILE.jsonl] [--text]

Each record's text is piped to `kgmem-diagnose --format json -` (as
score.py does); a record with no incident is printed with its id, its
settled cause and, with --text, the text itself, so each can be read and
judged: does it hold an OOM a person would call one?
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def incidents(binary, text):
    out = subprocess.run([binary, "--format", "json", "-"], input=text.encode(),
                         capture_output=True, timeout=20).stdout
    return json.loads(out).get("incidents") or []


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "kgmem-diagnose"))
    ap.add_argument("--cases", default=os.path.join(ROOT, "testdata", "cases", "dev-causes.jsonl"))
    ap.add_argument("--text", action="store_true", help="print each text too")
    a = ap.parse_args()
    n = 0
    for line in open(a.cases, encoding="utf-8"):
        if not line.strip():
            continue
        r = json.loads(line)
        if incidents(a.bin, r["text"]):
            continue
        n += 1
        print("%s %s %s" % (r["id"], r["cause"], r["source"]))
        if a.text:
            print("    " + r["text"].replace("\n", "\n    ") + "\n")
    print("%d without an incident" % n)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.exit(0)

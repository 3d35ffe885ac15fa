#!/usr/bin/env python3
"""test_readme_map.py SOURCE_ROOT — README.md's architecture map matches the
tree: every top-level folder, every lib/*.c and cli/*.[ch] has its line
(one line each), every header in include/ belongs to a listed module
(include/<module>.h) or is named, and every path the map names exists."""
import glob
import os
import re
import sys

from tap import check, done

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")


readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
m = re.search(r"^## Architecture map\n(.*?)^## ", readme, re.S | re.M)
check(m is not None, "README.md has an '## Architecture map' section")
section = m.group(1) if m else ""
rows = [l for l in section.split("\n") if l.startswith("| ") and not l.startswith("| step ")]
named = {}  # path -> how many rows name it
for row in rows:
    cells = row.split(" | ")
    if len(cells) < 3:
        continue
    for p in re.findall(r"`([^`]+)`", cells[1]):
        named[p] = named.get(p, 0) + 1
check(len(rows) > 20, "the map has its rows (%d)" % len(rows))

folders = sorted(d for d in os.listdir(root)
                 if os.path.isdir(os.path.join(root, d)) and not d.startswith("."))
tracked = os.popen("git -C '%s' ls-files 2>/dev/null" % root).read().split()
if tracked:  # only the folders git knows (not build directories)
    folders = [d for d in folders if any(t.startswith(d + "/") for t in tracked)]
else:
    folders = [d for d in folders if not d.startswith("build")]
for d in folders:
    check(named.get(d + "/", 0) == 1, "folder %s/ has one line" % d)

modules = sorted(glob.glob(os.path.join(root, "lib", "*.c")) + glob.glob(os.path.join(root, "cli", "*.[ch]")))
for f in modules:
    rel = os.path.relpath(f, root)
    check(named.get(rel, 0) == 1, "%s has one line" % rel, "named %d times" % named.get(rel, 0))

for h in sorted(glob.glob(os.path.join(root, "include", "*.h"))):
    rel = os.path.relpath(h, root)
    mod = "lib/" + os.path.basename(h)[:-2] + ".c"
    check(rel in named or mod in named, "%s belongs to a module in the map" % rel)

for p in sorted(named):
    check(bool(glob.glob(os.path.join(root, p.rstrip("/")))), "the map's %s exists" % p)

# data flow: the pipeline, then inputs, parsers, facts, rules, patches, reports
order = [r for r in ("lib/diagnose.c", "lib/source.c", "lib/logscan.c", "lib/oom.c", "lib/facts.c",
                     "lib/rules.c", "lib/patch.c", "lib/report.c") if r in named]
pos = [next(i for i, row in enumerate(rows) if "`%s`" % r in row) for r in order]
check(pos == sorted(pos), "modules in data-flow order: " + " → ".join(order))

done()

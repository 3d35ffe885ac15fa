#!/usr/bin/env python3
"""test_readme_map.py SOURCE_ROOT — the architecture map (doc/architecture.md,
which README.md links: one hop from it) matches the tree: every top-level folder, every stage folder lib/<stage>/, every
lib/<stage>/*.c and src/*.[ch] has its line (one line each), every header in
include/<stage>/ belongs to a listed module (include/<stage>/<module>.h) or
is named, every path the map names exists, and the stages come in data-flow
order, each module under its own stage's line."""
import glob
import os
import re
import sys

from tap import check, done

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")


readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
check("](doc/architecture.md)" in readme, "README.md links the map, doc/architecture.md")
mapdoc = open(os.path.join(root, "doc", "architecture.md"), encoding="utf-8").read()
m = re.search(r"^## Architecture map\n(.*?)(?=^## |\Z)", mapdoc, re.S | re.M)
check(m is not None, "doc/architecture.md has an '## Architecture map' section")
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

STAGES = ["model", "read", "diagnose", "report", "run"]  # tests/test_layout.py
stage_dirs = sorted(d for d in glob.glob(os.path.join(root, "lib", "*")) if os.path.isdir(d))
check(len(stage_dirs) == len(STAGES), "lib/ has the stage folders (%d)" % len(stage_dirs))
for d in stage_dirs:
    rel = os.path.relpath(d, root) + "/"
    check(named.get(rel, 0) == 1, "stage %s has one line" % rel, "named %d times" % named.get(rel, 0))

modules = sorted(glob.glob(os.path.join(root, "lib", "*", "*.c")) + glob.glob(os.path.join(root, "src", "*.[ch]")))
for f in modules:
    rel = os.path.relpath(f, root)
    check(named.get(rel, 0) == 1, "%s has one line" % rel, "named %d times" % named.get(rel, 0))

for h in sorted(glob.glob(os.path.join(root, "include", "*", "*.h"))):
    rel = os.path.relpath(h, root)
    mod = "lib/" + os.path.relpath(h, os.path.join(root, "include"))[:-2] + ".c"
    check(rel in named or mod in named, "%s belongs to a module in the map" % rel)

for p in sorted(named):
    check(bool(glob.glob(os.path.join(root, p.rstrip("/")))), "the map's %s exists" % p)

# data flow: the stages lowest first, each module under its own stage's
# line and before the next stage's
def row_of(path):
    return next((i for i, row in enumerate(rows) if "`%s`" % path in row.split(" | ")[1]), -1)


stage_rows = [row_of("lib/%s/" % s) for s in STAGES]
check(-1 not in stage_rows and stage_rows == sorted(stage_rows),
      "stages in data-flow order: " + " → ".join(STAGES), "rows %s" % stage_rows)
for f in sorted(glob.glob(os.path.join(root, "lib", "*", "*.c"))):
    rel = os.path.relpath(f, root)
    s = rel.split("/")[1]
    if s not in STAGES or -1 in stage_rows:
        continue
    k = STAGES.index(s)
    lo, hi = stage_rows[k], stage_rows[k + 1] if k + 1 < len(STAGES) else len(rows)
    check(lo < row_of(rel) < hi, "%s is listed under lib/%s/" % (rel, s))

done()

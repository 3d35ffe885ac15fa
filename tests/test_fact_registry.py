#!/usr/bin/env python3
"""test_fact_registry.py EXE SOURCE_ROOT — every fact the library sets is
registered (lib/model/facts.c, `kgmem-diagnose rules facts`), so rules can use it
and `rules check` accepts it. Finds the string literals passed as the name
of a fact to the setters in lib/*/*.c and checks each against the registry
(an exact name, or a "prefix.*" family). Prints TAP."""
import glob
import os
import re
import subprocess
import sys

exe, root = sys.argv[1], sys.argv[2]
out = subprocess.run([exe, "rules", "facts"], capture_output=True, text=True).stdout
exact, prefixes = set(), []
for line in out.splitlines():
    name = line.split()[0]
    if name.endswith(".*"):
        prefixes.append(name[:-1])
    else:
        exact.add(name)

SETTERS = re.compile(r'\b(kg_facts_set_(?:bytes|num|interval|str)|fact_(?:exact|bytes|num|stat)|put)'
                     r'\(\s*[a-z_>-]+\s*,\s*"([a-z_][a-z0-9_.]*)"')
n = 0
bad = 0
for path in sorted(glob.glob(os.path.join(root, "lib", "*", "*.c"))):
    text = open(path, encoding="utf-8").read()
    for m in SETTERS.finditer(text):
        name = m.group(2)
        ok = name in exact or any(name.startswith(p) for p in prefixes)
        n += 1
        line = text.count("\n", 0, m.start()) + 1
        print("%sok %d - %s:%d: %s is registered" % ("" if ok else "not ", n,
              os.path.relpath(path, root), line, name))
        bad += not ok
print("%sok %d - found the setters (%d names)" % ("" if n >= 50 else "not ", n + 1, n))
print("1..%d" % (n + 1))
sys.exit(1 if bad or n < 50 else 0)

#!/usr/bin/env python3
"""test_cjson_scope.py SOURCE_ROOT — cJSON is the format of the JSON readers
and reporters only, never the internal data model (issue 11): results
(incidents, snapshots, patches) are C structs, and no other file of lib/,
src/ or include/ names a cJSON type or function."""
import glob
import os
import re
import sys

from tap import check, done

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")

ALLOWED = {
    # readers: pickle and JSON input decoded into a value tree, and the
    # snapshot reader that walks that tree into kg_snapshot
    "lib/read/pickle.c", "include/read/pickle.h", "lib/read/snapshot.c", "include/read/snapshot.h",
    # log envelopes: JSON Lines (Docker json-file, journalctl -o json, log
    # shippers) decoded line by line; sniffing one JSON document's keys
    "lib/read/envelope.c", "lib/read/source.c",
    # reporters: JSON (kgmem-diagnose/1, snapshots[]) and SARIF
    "lib/report/report_json.c", "include/report/report.h", "lib/report/report_sarif.c", "include/report/report_ci.h",
    # --version names the library's version
    "src/main.c",
}

files = sorted(glob.glob(os.path.join(root, "lib", "*", "*.c")) + glob.glob(os.path.join(root, "src", "*.[ch]")) +
               glob.glob(os.path.join(root, "include", "*", "*.h")))
check(len(files) > 30, "C sources found (%d)" % len(files))
for path in files:
    rel = os.path.relpath(path, root)
    lines = [i + 1 for i, l in enumerate(open(path, encoding="utf-8")) if re.search(r"\bcJSON", l)]
    if rel in ALLOWED:
        continue
    check(not lines, "%s: no cJSON" % rel, "lines %s" % ", ".join(map(str, lines[:10])))
done()

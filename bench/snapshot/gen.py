#!/usr/bin/env python3
"""Writes a large allocator snapshot by repeating a real trace.

usage: gen.py SRC.pickle OUT.pickle TARGET_MB

The segments of SRC are kept; device_traces[0] is SRC's trace repeated until
the file reaches about TARGET_MB, each repetition with fresh entry dicts and
fresh frame lists (shared frame dicts), as _dump_snapshot writes them, with
time_us shifted. Written with pickle protocol 4 (the CPython 3.8-3.13 default).
"""
import pickle
import sys

src, out, target_mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
with open(src, "rb") as f:
    data = pickle.load(f)
trace = data["device_traces"][0]
fresh = [dict(e, frames=list(e["frames"])) if "frames" in e else dict(e) for e in trace]
one = len(pickle.dumps(fresh, protocol=4))
reps = max(1, int(target_mb * 1e6 / one))
entries = []
for r in range(reps):
    for e in trace:
        d = dict(e)
        if "frames" in d:
            d["frames"] = list(d["frames"])
        if "time_us" in d:
            d["time_us"] += r * 10_000_000
        entries.append(d)
data["device_traces"][0] = entries
with open(out, "wb") as f:
    pickle.dump(data, f, protocol=4)
print(f"{out}: {reps} repetitions, {len(entries)} trace entries")

#!/usr/bin/env python3
"""Test oracle for the snapshot metrics (DESIGN §5), independent of the C code.

Loads each allocator snapshot with the standard pickle module (trusted test
inputs only: testdata/snapshots/*.pickle) and computes every metric of the
`snapshots[]` object literally from the definitions, writing
testdata/snapshots/NAME.expected.json (without "path"). Run once when the
inputs or the definitions change:

    python3 tests/snapshot_reference.py testdata/snapshots/*.pickle

tests/test_snapshot.c compares kgmem-diagnose's objects with these files.
"""
import json
import pickle
import sys

MiB = 1 << 20
BUCKETS = [0, 1 * MiB, 2 * MiB, 20 * MiB, 100 * MiB, 1 << 30]


def user_frame(fn):
    return (fn.endswith(".py") and "site-packages" not in fn and "dist-packages" not in fn
            and "/torch/" not in fn and not fn.startswith("torch/"))


def block_frames(b):
    if "frames" in b:
        return b["frames"]
    if b.get("history"):
        return b["history"][0].get("frames", [])
    return []


def block_requested(b):
    if "requested_size" in b:
        return b["requested_size"]
    if b.get("history") and "real_size" in b["history"][0]:
        return b["history"][0]["real_size"]
    return b["size"]


def site_of(b):
    frames = block_frames(b) or []
    pick = next((f for f in frames if user_frame(f.get("filename", ""))), None)
    if pick is None:
        pick = next((f for f in frames if f.get("filename", "").endswith(".py")), None)
    if pick is None:
        return ("<unknown>", None, None)
    return (pick.get("filename", ""), pick.get("line"), pick.get("name"))


def replay(entries, final, plus, minus):
    """Start at final - sum(plus) + sum(minus), apply in order; the maximum
    reached, and the index of the entry that first reached it (None: start)."""
    start = final - sum(e.get("size", 0) for e in entries if e["action"] in plus) \
        + sum(e.get("size", 0) for e in entries if e["action"] in minus)
    cur = best = start
    at = None
    for i, e in enumerate(entries):
        if e["action"] in plus:
            cur += e.get("size", 0)
        elif e["action"] in minus:
            cur -= e.get("size", 0)
        if cur > best:
            best, at = cur, i
    return best, at


def annotation_at(anns, device, t):
    stack = []
    for a in anns:
        if "device" in a and a["device"] != device:
            continue
        if a.get("time_us") is None or a["time_us"] > t:
            continue
        if a.get("stage") == "START":
            stack.append(a["name"])
        elif a.get("stage") == "END" and a["name"] in stack:
            del stack[len(stack) - 1 - stack[::-1].index(a["name"])]
    return stack[-1] if stack else None


def device_object(dev, segs, entries, anns):
    blocks = [b for s in segs for b in s["blocks"]]
    alloc = [b for b in blocks if b["state"] == "active_allocated"]
    inactive = [b["size"] for b in blocks if b["state"] == "inactive"]
    o = {
        "device": dev,
        "segments": len(segs),
        "segments_large": sum(s.get("segment_type") == "large" for s in segs),
        "segments_small": sum(s.get("segment_type") == "small" for s in segs),
        "segments_expandable": sum(s.get("is_expandable") is True for s in segs),
        "blocks": len(blocks),
        "reserved_bytes": sum(s["total_size"] for s in segs),
        "allocated_bytes": sum(b["size"] for b in alloc),
        "active_bytes": sum(b["size"] for b in blocks
                            if b["state"] in ("active_allocated", "active_pending_free")),
        "requested_bytes": sum(block_requested(b) for b in alloc),
        "inactive_bytes": sum(inactive),
        "largest_free_block_bytes": max(inactive, default=0),
    }
    o["fragmentation"] = (1 - o["largest_free_block_bytes"] / o["inactive_bytes"]
                          if o["inactive_bytes"] else 0.0)
    hist = []
    for k, lo in enumerate(BUCKETS):
        hi = BUCKETS[k + 1] if k + 1 < len(BUCKETS) else None
        inb = [x for x in inactive if x >= lo and (hi is None or x < hi)]
        hist.append({"min_bytes": lo, "max_bytes": hi, "blocks": len(inb), "bytes": sum(inb)})
    o["free_blocks"] = hist

    actions = {}
    for e in entries:
        actions[e["action"]] = actions.get(e["action"], 0) + 1
    peak_req, at = replay(entries, o["requested_bytes"], {"alloc"}, {"free_completed"})
    peak_res, _ = replay(entries, o["reserved_bytes"], {"segment_alloc", "segment_map"},
                         {"segment_free", "segment_unmap"})
    t = entries[at].get("time_us") if at is not None else None
    o["trace"] = {
        "entries": len(entries),
        "actions": actions,
        "peak_requested_bytes": peak_req,
        "peak_reserved_bytes": peak_res,
        "peak_time_us": t,
        "peak_annotation": annotation_at(anns, dev, t) if t is not None else None,
        "oom": [{"size_bytes": e.get("size"), "device_free_bytes": e.get("device_free")}
                for e in entries if e["action"] == "oom"],
    }
    sites = {}
    for b in alloc:
        key = site_of(b)
        s = sites.setdefault(key, [0, 0])
        s[0] += b["size"]
        s[1] += 1
    ranked = sorted(sites.items(), key=lambda kv: (-kv[1][0], -kv[1][1], kv[0][0],
                                                   kv[0][1] if kv[0][1] is not None else -1,
                                                   kv[0][2] or ""))
    o["top_sites"] = [{"file": f, "line": l, "function": fn, "bytes": by, "blocks": n}
                      for (f, l, fn), (by, n) in ranked[:10]]
    return o


def snapshot_object(data):
    if isinstance(data, list):
        data = {"segments": data, "device_traces": []}
    segs = data.get("segments", [])
    traces = data.get("device_traces", [])
    devs = sorted({s.get("device", 0) for s in segs} | {d for d, t in enumerate(traces) if t})
    anns = data.get("external_annotations", [])
    return {
        "kind": "snapshot",
        "allocator_settings": data.get("allocator_settings"),
        "devices": [device_object(d, [s for s in segs if s.get("device", 0) == d],
                                  traces[d] if d < len(traces) else [], anns) for d in devs],
    }


def main(paths):
    for p in paths:
        with open(p, "rb") as f:
            data = pickle.load(f)
        out = p.rsplit(".", 1)[0] + ".expected.json"
        with open(out, "w") as f:
            json.dump(snapshot_object(data), f, indent=1)
            f.write("\n")
        print(out)


if __name__ == "__main__":
    main(sys.argv[1:])

#!/usr/bin/env python3
"""Writes small synthetic snapshots exercising what the real ones lack:
protocols 2, 3 and 5, two devices, expandable segments, pending-free
blocks, OOM entries, nested annotations, shared frame lists (memo),
integers beyond 64 bits in fields the metrics do not use, int dict keys,
and a 2.0-era block with "history". Run once:

    python3 tests/make_snapshot_fixtures.py testdata/snapshots
then python3 tests/snapshot_reference.py testdata/snapshots/synthetic-*.pickle
"""
import pickle
import sys

MiB = 1 << 20


def frames(*names):
    return [{"name": n, "filename": f, "line": l} for (n, f, l) in names]


def build():
    user = frames(("forward", "/site/lib/python3.11/site-packages/torch/nn/modules/linear.py", 116),
                  ("forward", "/work/model.py", 42), ("main", "/work/train.py", 7))
    cpp = frames(("c10::alloc", "??", 0))
    only_lib = frames(("empty", "/usr/lib/python3/dist-packages/torch/_tensor.py", 9))
    empty = []
    segs = [
        {"device": 0, "address": 1 << 40, "total_size": 20 * MiB, "stream": 2 ** 70,
         "segment_type": "large", "segment_pool_id": (0, 0), "is_expandable": False, "frames": empty,
         "blocks": [
             {"address": 1 << 40, "size": 8 * MiB, "requested_size": 8 * MiB - 100,
              "state": "active_allocated", "frames": user},
             {"address": (1 << 40) + 8 * MiB, "size": 4 * MiB, "requested_size": 0,
              "state": "inactive", "frames": empty},
             {"address": (1 << 40) + 12 * MiB, "size": 6 * MiB, "requested_size": 6 * MiB,
              "state": "active_pending_free", "frames": user},
             {"address": (1 << 40) + 18 * MiB, "size": 2 * MiB, "requested_size": 2 * MiB,
              "state": "active_allocated", "frames": only_lib},
         ]},
        {"device": 0, "address": 1 << 41, "total_size": 2 * MiB, "stream": 0,
         "segment_type": "small", "segment_pool_id": (0, 0), "is_expandable": False, "frames": empty,
         "blocks": [
             {"address": 1 << 41, "size": 512, "requested_size": 4, "state": "active_allocated",
              "frames": cpp},
             {"address": (1 << 41) + 512, "size": 2 * MiB - 512, "requested_size": 0,
              "state": "inactive", "frames": empty},
         ]},
        {"device": 1, "address": 1 << 42, "total_size": 64 * MiB, "stream": 0,
         "segment_type": "large", "segment_pool_id": (1, 3), "is_expandable": True, "frames": user,
         "blocks": [
             {"address": 1 << 42, "size": 40 * MiB, "history": [{"addr": 1 << 42, "real_size": 39 * MiB,
                                                                 "frames": user}],
              "state": "active_allocated"},
             {"address": (1 << 42) + 40 * MiB, "size": 24 * MiB, "state": "inactive"},
         ]},
    ]
    t0 = 1_700_000_000_000_000
    tr0 = [
        {"action": "segment_alloc", "addr": 1 << 40, "size": 20 * MiB, "stream": 0, "time_us": t0, "frames": user},
        {"action": "alloc", "addr": 1 << 40, "size": 8 * MiB - 100, "stream": 0, "time_us": t0 + 1, "frames": user},
        {"action": "alloc", "addr": 1 << 41, "size": 10 * MiB, "stream": 0, "time_us": t0 + 5, "frames": user},
        {"action": "free_requested", "addr": 1 << 41, "size": 10 * MiB, "stream": 0, "time_us": t0 + 6, "frames": cpp},
        {"action": "free_completed", "addr": 1 << 41, "size": 10 * MiB, "stream": 0, "time_us": t0 + 7, "frames": cpp},
        {"action": "oom", "device_free": 3 * MiB, "size": 30 * MiB, "stream": 0, "time_us": t0 + 8, "frames": user},
        {"action": "segment_alloc", "addr": 1 << 41, "size": 2 * MiB, "stream": 0, "time_us": t0 + 9, "frames": empty},
        {"action": "alloc", "addr": 1 << 41, "size": 4, "stream": 0, "time_us": t0 + 10},
    ]
    tr1 = [
        {"action": "segment_map", "addr": 1 << 42, "size": 64 * MiB, "stream": 0, "time_us": t0 + 2, "frames": user},
        {"action": "segment_unmap", "addr": 1 << 42, "size": 32 * MiB, "stream": 0, "time_us": t0 + 3, "frames": user},
        {"action": "segment_map", "addr": 1 << 42, "size": 32 * MiB, "stream": 0, "time_us": t0 + 4, "frames": user},
        {"action": "alloc", "addr": 1 << 42, "size": 39 * MiB, "stream": 0, "time_us": t0 + 6, "frames": user},
    ]
    anns = [
        {"stage": "START", "name": "Optimizer.step#SGD.step", "device": 0, "time_us": t0 + 2},
        {"stage": "START", "name": "inner", "device": 0, "time_us": t0 + 3},
        {"stage": "END", "name": "inner", "device": 0, "time_us": t0 + 4},
        {"stage": "START", "name": "other-device", "device": 1, "time_us": t0 + 4},
    ]
    settings = {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True", "max_split_size": -1,
                "garbage_collection_threshold": 0.6, "expandable_segments": True,
                "roundup_power2_divisions": {"1": 0, "2": 4}, "huge": -(2 ** 80), 7: "int key"}
    return {"segments": segs, "device_traces": [tr0, tr1, []], "allocator_settings": settings,
            "external_annotations": anns}


if __name__ == "__main__":
    out = sys.argv[1]
    data = build()
    for proto in (2, 3, 5):
        with open(f"{out}/synthetic-p{proto}.pickle", "wb") as f:
            pickle.dump(data, f, protocol=proto)

/* snapshot.h — allocator snapshots (`torch.cuda.memory._dump_snapshot()`,
 * pickle or the same dict as JSON), `torch.cuda.memory_stats()` JSON and
 * `memory_summary()` tables, turned into the `snapshots[]` objects of
 * DESIGN §4–§5 and into facts for the rules.
 *
 * Object shapes (all sizes integers in bytes):
 *   {"path", "kind": "snapshot", "allocator_settings": {…}|null,
 *    "devices": [{"device", "segments", "segments_large", "segments_small",
 *      "segments_expandable", "blocks", "reserved_bytes", "allocated_bytes",
 *      "active_bytes", "requested_bytes", "inactive_bytes",
 *      "largest_free_block_bytes", "fragmentation",
 *      "free_blocks": [{"min_bytes", "max_bytes"|null, "blocks", "bytes"}],
 *      "trace": {"entries", "actions": {action: count},
 *        "peak_requested_bytes", "peak_reserved_bytes",
 *        "peak_time_us"|null, "peak_annotation"|null,
 *        "oom": [{"size_bytes", "device_free_bytes"}]},
 *      "top_sites": [{"file", "line", "function", "bytes", "blocks"}]}]}
 *   {"path", "kind": "memory_stats"|"memory_summary", "device"?: N,
 *    "stats": {"allocated_bytes.all.current": N, …, "num_ooms": N, …}}
 * Every definition is DESIGN §5's, applied literally; see snapshot.c. */
#ifndef KG_SNAPSHOT_H
#define KG_SNAPSHOT_H

#include <stdio.h>
#include "facts.h"
#include "source.h"
#include "util.h"

struct cJSON;

/* Reads one snapshot-like input: kind KG_KIND_PICKLE (streamed; memory far
 * below the file size), KG_KIND_JSON (snapshot dict, bare segment list, or
 * memory_stats flat/nested), KG_KIND_SUMMARY (a memory_summary() table).
 * Returns the object above with "path" = src->name, or NULL with err (byte
 * offset or line filled where it applies). */
struct cJSON *kg_snapshot_load(kg_source *src, kg_kind kind, kg_error *err);

/* kg_snapshot_load with flags. KG_SNAP_SERIES adds, per snapshot device,
 * two keys for pictures (src/svg.c), absent otherwise so reports stay small:
 *   "trace": {…, "series": {"x": "entry", "entries_per_point": N,
 *     "points": [[entry, requested_bytes, reserved_bytes], …] (at most 2001:
 *       entry 0 is the replay's start, each later point is the maximum over
 *       a bucket of entries, placed at its last entry, 1-based),
 *     "peak_entry": N|null (entry of trace.peak_requested_bytes),
 *     "oom_entries": [N, …] (entries of the `oom` actions, at most 1000)}}
 *   "segment_map": [{"address", "total_size", "segment_type",
 *     "runs": [[bytes, "active_allocated"|"active_pending_free"|"inactive"
 *       |"unknown"|"mixed"], …]}, …] (the 200 largest segments, largest
 *     first; neighbouring blocks of one state merged, at most 256 runs).
 * Memory: O(devices × 2000) beyond kg_snapshot_load. */
#define KG_SNAP_SERIES 1u
struct cJSON *kg_snapshot_load_ex(kg_source *src, kg_kind kind, unsigned flags, kg_error *err);

/* Removes the KG_SNAP_SERIES keys from a snapshots[] object (in place). */
void kg_snapshot_strip_detail(struct cJSON *snap);

/* Same for an already decoded snapshot or memory_stats value (a cJSON tree
 * as pickle.load or json.load would give it). Does not take ownership. */
struct cJSON *kg_snapshot_from_value(const struct cJSON *root, const char *path, kg_error *err);

/* Adds facts from a snapshots[] object (prov = its path): for snapshots, the
 * device with the most reserved bytes gives snapshot.reserved, .allocated,
 * .active, .requested, .inactive, .largest_free_block, .fragmentation,
 * .segments, .peak_requested, .peak_reserved, .oom_requested, .peak_phase;
 * allocator_settings give alloc_conf.expandable_segments,
 * alloc_conf.max_split_size, alloc_conf.garbage_collection_threshold,
 * alloc_conf.setting. memory_stats / memory_summary give snapshot.allocated,
 * .reserved, .active, .requested, .inactive_split (".all.current"),
 * snapshot.peak_allocated, .peak_reserved (".all.peak"), snapshot.num_ooms,
 * snapshot.num_alloc_retries. */
void kg_snapshot_facts(const struct cJSON *snap, kg_facts *facts);

/* Readable view of one snapshots[] object: summary table, fragmentation
 * line, free-block histogram, top sites (or the stats table). */
void kg_snapshot_text(const struct cJSON *snap, FILE *out);

#endif

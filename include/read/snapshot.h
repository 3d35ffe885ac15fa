/* snapshot.h — allocator snapshots (`torch.cuda.memory._dump_snapshot()`,
 * pickle or the same dict as JSON), `torch.cuda.memory_stats()` JSON and
 * `memory_summary()` tables, read into the snapshot document
 * (model/snapshot.h) and into facts for the rules. Every size is an integer
 * count of bytes; every definition is DESIGN §5's, applied literally; see
 * snapshot.c. */
#ifndef KG_READ_SNAPSHOT_H
#define KG_READ_SNAPSHOT_H

#include <stdio.h>
#include "model/facts.h"
#include "model/snapshot.h"
#include "read/source.h"
#include "model/util.h"

struct cJSON;

/* Reads one snapshot-like input: kind KG_KIND_PICKLE (streamed; memory far
 * below the file size), KG_KIND_JSON (snapshot dict, bare segment list, or
 * memory_stats flat/nested), KG_KIND_SUMMARY (a memory_summary() table).
 * Returns a malloc'd kg_snapshot with path = src->name (release with
 * kg_snapshot_free), or NULL with err (byte offset or line filled
 * where it applies). */
kg_snapshot *kg_snapshot_load(kg_source *src, kg_kind kind, kg_error *err);

/* kg_snapshot_load with flags. KG_SNAP_SERIES fills, per snapshot device,
 * the trace series and the segment map (has_series, has_segment_map) for
 * pictures (lib/report/svg.c); reports leave them out. Memory: O(devices × 2000)
 * beyond kg_snapshot_load. */
#define KG_SNAP_SERIES 1u
kg_snapshot *kg_snapshot_load_ex(kg_source *src, kg_kind kind, unsigned flags, kg_error *err);


/* Same for an already decoded snapshot or memory_stats value (a cJSON tree
 * as pickle.load or json.load would give it: the readers' form). Does not
 * take ownership of root. */
kg_snapshot *kg_snapshot_from_value(const struct cJSON *root, const char *path, kg_error *err);

/* Adds facts from a snapshot (prov = its path): for snapshots, the
 * device with the most reserved bytes gives snapshot.reserved, .allocated,
 * .active, .requested, .inactive, .largest_free_block, .fragmentation,
 * .segments, .peak_requested, .peak_reserved, .oom_requested, .peak_phase;
 * allocator_settings give alloc_conf.expandable_segments,
 * alloc_conf.max_split_size, alloc_conf.garbage_collection_threshold,
 * alloc_conf.setting. memory_stats / memory_summary give snapshot.allocated,
 * .reserved, .active, .requested, .inactive_split (".all.current"),
 * snapshot.peak_allocated, .peak_reserved (".all.peak"), snapshot.num_ooms,
 * snapshot.num_alloc_retries. */
void kg_snapshot_facts(const kg_snapshot *snap, kg_facts *facts);

#endif

/* snapshot.h — the snapshot document: what an allocator snapshot
 * (`torch.cuda.memory._dump_snapshot()`), `torch.cuda.memory_stats()` or a
 * `memory_summary()` table says, typed (the `snapshots[]` objects of DESIGN
 * §4–§5, which report_json.c writes with the same names). Every size is an
 * integer count of bytes; every definition is DESIGN §5's, applied
 * literally. The readers are read/snapshot.h and read/summary.h. */
#ifndef KG_MODEL_SNAPSHOT_H
#define KG_MODEL_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/util.h"

#define KG_SNAP_NBUCKETS 6  /* free-block histogram: < 1 MiB, < 2 MiB, < 20 MiB,
                               < 100 MiB, < 1 GiB, >= 1 GiB */

/* One bucket of the inactive-block histogram. */
typedef struct kg_free_bucket {
	int64_t min_bytes, max_bytes;  /* [min, max); max KG_NONE: open */
	int64_t blocks, bytes;
} kg_free_bucket;

/* Live (active_allocated) blocks grouped by the allocating frame (DESIGN §5
 * top_sites: the innermost user .py frame, else the innermost .py frame). */
typedef struct kg_alloc_site {
	char *file;                    /* "<unknown>" when no frame */
	int64_t line;                  /* KG_NONE when not known */
	char *function;                /* or NULL */
	int64_t bytes, blocks;
} kg_alloc_site;

typedef struct kg_action_count {
	char *action;                  /* trace action: alloc, free_requested, … */
	int64_t count;
} kg_action_count;

/* An `oom` action of the trace. */
typedef struct kg_trace_oom {
	int64_t size_bytes;            /* KG_NONE when the entry has no size */
	int64_t device_free_bytes;     /* KG_NONE when absent */
} kg_trace_oom;

/* One point of the downsampled replay (KG_SNAP_SERIES). */
typedef struct kg_series_point {
	int64_t entry;                 /* 0 = the start; else the bucket's last entry, 1-based */
	int64_t requested_bytes, reserved_bytes;  /* maxima over the bucket */
} kg_series_point;

/* A segment of the segment map (KG_SNAP_SERIES): its blocks as runs of one
 * state, in address order. */
typedef struct kg_segment_run {
	int64_t bytes;
	const char *state;  /* active_allocated, active_pending_free, inactive,
	                       unknown, or mixed (the rest past the run limit);
	                       static */
} kg_segment_run;

typedef struct kg_segment_view {
	int64_t address;               /* KG_NONE when absent */
	int64_t total_size;
	char *segment_type;            /* large, small, or unknown */
	kg_segment_run *runs;
	size_t nruns;
} kg_segment_view;

/* The trace replay of one device (DESIGN §5). */
typedef struct kg_snapshot_trace {
	int64_t entries;
	kg_action_count *actions;      /* in order of first appearance */
	size_t nactions;
	int64_t peak_requested_bytes, peak_reserved_bytes;
	int64_t peak_time_us;          /* KG_NONE without a peak */
	char *peak_annotation;         /* innermost external annotation at the
	                                  peak, or NULL */
	kg_trace_oom *oom;
	size_t noom;
	/* KG_SNAP_SERIES only (has_series): the replay downsampled to at most
	 * 2001 points, the entry of the requested peak (KG_NONE: none) and the
	 * entries of the oom actions (at most 1000) */
	bool has_series;
	int64_t entries_per_point;
	kg_series_point *points;
	size_t npoints;
	int64_t peak_entry;
	int64_t *oom_entries;
	size_t noom_entries;
} kg_snapshot_trace;

typedef struct kg_snapshot_device {
	int64_t device;
	int64_t segments, segments_large, segments_small, segments_expandable, blocks;
	int64_t reserved_bytes, allocated_bytes, active_bytes, requested_bytes, inactive_bytes;
	int64_t largest_free_block_bytes;
	double fragmentation;          /* 1 − largest free block / inactive; 0 without inactive */
	kg_free_bucket free_blocks[KG_SNAP_NBUCKETS];
	kg_snapshot_trace trace;
	/* KG_SNAP_SERIES only (has_segment_map): the 4096 largest segments,
	 * largest first; the segments past them (nsegment_rest of them) summed
	 * into segment_rest: total_size their Σ total_size, runs their block
	 * bytes by state (active_allocated, active_pending_free, inactive,
	 * unknown; states with no bytes left out), address KG_NONE,
	 * segment_type NULL */
	bool has_segment_map;
	kg_segment_view *segment_map;
	size_t nsegment_map;
	kg_segment_view segment_rest;
	size_t nsegment_rest;
	kg_alloc_site *top_sites;      /* at most 10, most bytes first */
	size_t ntop_sites;
} kg_snapshot_device;

/* A number the allocator settings state (number or bool in the input). */
typedef struct kg_setting {
	bool set, is_bool;
	double value;                  /* a bool as 0 or 1 */
} kg_setting;

/* One memory_stats() key, flattened ("allocated_bytes.all.current"). */
typedef struct kg_stat {
	char *name;
	double value;
} kg_stat;

enum kg_snapshot_kind { KG_SNAPSHOT, KG_MEMORY_STATS, KG_MEMORY_SUMMARY };

typedef struct kg_snapshot {
	char *path;                    /* the input's display name */
	enum kg_snapshot_kind kind;
	/* KG_SNAPSHOT */
	char *allocator_settings;      /* the input's allocator_settings dict as
	                                  compact JSON text, or NULL; the JSON
	                                  report echoes it */
	char *alloc_conf;              /* its PYTORCH_CUDA_ALLOC_CONF, or NULL */
	kg_setting expandable_segments, max_split_size, garbage_collection_threshold;
	kg_snapshot_device *devices;   /* by device index */
	size_t ndevices;
	/* KG_MEMORY_STATS, KG_MEMORY_SUMMARY */
	int64_t device;                /* memory_summary's device, KG_NONE when
	                                  not printed (memory_stats: KG_NONE) */
	kg_stat *stats;                /* in input order */
	size_t nstats;
} kg_snapshot;

/* An empty snapshot of that kind (device KG_NONE), path copied ("-" for
 * NULL); malloc'd. */
kg_snapshot *kg_snapshot_new(const char *path, enum kg_snapshot_kind kind);

/* "snapshot", "memory_stats", "memory_summary": JSON `kind`, inputs[].kind. */
const char *kg_snapshot_kind_name(enum kg_snapshot_kind k);

/* The stat called name (the first), or NULL. */
const kg_stat *kg_snapshot_stat(const kg_snapshot *s, const char *name);

/* Appends stat name = value; with replace, an existing stat of that name
 * is removed first (so the new one is last). */
void kg_snapshot_add_stat(kg_snapshot *s, const char *name, double value, bool replace);

/* Frees s and all it owns; NULL is a no-op. */
void kg_snapshot_free(kg_snapshot *s);

/* Drops the KG_SNAP_SERIES detail of a snapshot (in place). */
void kg_snapshot_strip_detail(kg_snapshot *snap);

#endif

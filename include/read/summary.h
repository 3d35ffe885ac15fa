/* summary.h — `torch.cuda.memory_summary()` tables (formats.md §2;
 * torch/cuda/memory.py): every era — 2.x binary units with integer
 * truncation ("14324 MiB" = 14324 × 2^20, the lower bound of what it
 * means), pre-2.0 "KB/MB/GB" (also powers of 1024), abbreviated tables
 * without pool sub-rows, old tables without "Requested memory" or oversize
 * rows, and tables pasted on one line with literal "\n" — normalized into the
 * torch.cuda.memory_stats() key space (DESIGN §5). */
#ifndef KG_SUMMARY_H
#define KG_SUMMARY_H

#include <stddef.h>
#include "model/snapshot.h"
#include "model/util.h"

/* Parses the table in text[0..n) (lines may carry a log prefix before the
 * first '|'). Returns a malloc'd kg_snapshot of kind KG_MEMORY_SUMMARY
 * (release with kg_snapshot_free) with path, device (KG_NONE when
 * the table does not print it) and stats ("allocated_bytes.all.current":
 * bytes, …, "allocation.large_pool.peak": count, …, "num_ooms",
 * "num_alloc_retries"; a row seen twice keeps its last values): row labels map to stats (Allocated memory →
 * allocated_bytes, Active memory → active_bytes, Requested memory →
 * requested_bytes, GPU reserved memory → reserved_bytes, Non-releasable
 * memory → inactive_split_bytes, Allocations → allocation, Active allocs →
 * active, GPU reserved segments → segment, Non-releasable allocs →
 * inactive_split, Oversize allocations → oversize_allocations, Oversize GPU
 * segments → oversize_segments), sub-rows to large_pool/small_pool (main row
 * all), columns to current/peak/allocated/freed; count cells with K/M are
 * ×1000/×10^6 (lower bounds). NULL with err (line number) when no metric
 * row is found or a cell is malformed. */
kg_snapshot *kg_summary_parse(const char *text, size_t n, const char *path, kg_error *err);

#endif

/* svg.h — `--svg FILE`: a self-contained SVG picture of memory over time.
 *
 * For each allocator snapshot device loaded with KG_SNAP_SERIES (see
 * snapshot.h): requested ("allocated") and reserved bytes over the trace
 * replay of DESIGN §5 (x = trace entry), the peak of requested bytes and
 * every `oom` entry marked, then a segment map (the 200 largest segments,
 * largest first, packed in rows, width proportional to bytes) coloured by
 * block state: active_allocated, active_pending_free, inactive.
 * For each log with memory readings (logfacts.h): each reading kind
 * (allocated, reserved, max allocated, max reserved) over steps when every
 * reading has a step, else over epochs, else over reading index, with each
 * OOM incident of that log marked at the last reading before its line.
 * All text is XML-escaped; no external references (no fonts, no images). */
#ifndef KG_SVG_H
#define KG_SVG_H

#include <stddef.h>
#include "logfacts.h"
#include "report.h"
#include "util.h"

/* Builds the picture into a malloc'd, NUL-terminated string (caller frees).
 * lfs[i] holds the readings of the i-th log input; its incidents are
 * rep->incidents[logs_first[i] .. logs_first[i + 1]) (logs_first has
 * nlogs + 1 entries; may be NULL when nlogs is 0). Never fails. */
char *kg_svg_render(const kg_report *rep, const kg_log_facts *lfs, const size_t *logs_first,
		    size_t nlogs);

/* Renders as above and writes it to path with util.c kg_write_output:
 * "-" and /dev/stdout are standard output, /dev/fd/N that descriptor;
 * FIFOs, terminals and devices are written in place; a regular file is replaced atomically (symlinks
 * followed, mode, owner and group kept). Returns 0, or -1 with err
 * ("PATH: cannot write: …", a full disk included). */
int kg_svg_write(const kg_report *rep, const kg_log_facts *lfs, const size_t *logs_first,
		 size_t nlogs, const char *path, kg_error *err);

#endif

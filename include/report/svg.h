/* svg.h — `--svg FILE`: a self-contained SVG 1.1 picture of the case.
 *
 * Top to bottom (svg.c; class names let tests find each part):
 *  - the diagnosis as a caption (class "caption"): per incident (at most
 *    8) where it is, the text report's headline (report.h
 *    kg_incident_headline) and its verdict (kg_incident_verdict);
 *  - per incident whose capacity is known (at most 8), the budget of
 *    budget.h as a stacked bar (class "budget"): parts ("budget-part
 *    allocated|cached-unused|non-pytorch|other-processes|unaccounted|free")
 *    as wide as their bytes, in whole pixels, inside the capacity's frame
 *    ("budget-frame"), the failed request ("budget-request") under it from
 *    where free memory starts;
 *  - per allocator snapshot device loaded with KG_SNAP_SERIES
 *    (model/snapshot.h): requested and reserved bytes over the trace replay of
 *    DESIGN §5 (x = trace entry) with the peak and every `oom` entry
 *    marked (class "chart"), then the segment map (class "segment-map"):
 *    every segment, largest first, width ∝ bytes, blocks in address order
 *    coloured by state (active_allocated, active_pending_free, inactive),
 *    the segments narrower than 2 px summed into one underlined cell;
 *  - per log with memory readings (logfacts.h), one chart (class "chart")
 *    per run that printed an OOM of the log, or per run when it has none
 *    (at most 8, then a "runs-left" line): a run is the readings of one
 *    rank (the reading's line prefix) from a job's start, a new one
 *    beginning when the step (or epoch) goes back or after a fatal OOM on
 *    that rank; an incident belongs to the run open on its rank at its
 *    line. Each reading kind (allocated, reserved, max allocated, max
 *    reserved; at most 2001 points each, bucket maxima) over steps when
 *    every reading of the run has a step, else over epochs, else over
 *    reading number, the run's OOMs marked at their own step or epoch,
 *    else halfway after the last reading before their line.
 * A chart draws the device capacity its incidents state (class
 * "capacity"; a snapshot's chart only when an incident of the report on
 * that device states it, and says when none does), one legend entry per
 * series, byte ticks (class "ytick") at multiples of a power of two
 * labelled by kg_size_format (c10 format_size), count ticks (class
 * "xtick") at 1, 2 or 5 × 10^k. All text is XML-escaped; no external
 * references (no fonts, no images); the same report gives the same bytes. */
#ifndef KG_SVG_H
#define KG_SVG_H

#include <stddef.h>
#include "read/logfacts.h"
#include "report/report.h"
#include "model/util.h"

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

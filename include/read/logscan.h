/* logscan.h — the log scanner: streams a text log line by line (bounded
 * memory, lines over KG_MAX_LINE truncated for matching), strips noise
 * (ANSI, CI timestamps, logging and rank prefixes), finds OOM messages with
 * a literal prefilter before any regex, and attaches traceback frames and
 * context (step, epoch, phase, rank, echoed PYTORCH_CUDA_ALLOC_CONF,
 * follow-on errors). Identical copies of one OOM are folded into one
 * incident per rank. */
#ifndef KG_LOGSCAN_H
#define KG_LOGSCAN_H

#include <stddef.h>
#include <stdint.h>
#include "model/result.h"
#include "read/source.h"

#define KG_MAX_LINE (1u << 20)   /* 1 MiB: longer lines are cut for matching */
#define KG_MAX_INCIDENTS 2000    /* per input; more are counted in a note */

/* Scans one log input, appending incidents and notes to rep, and memory
 * readings and parallelism hints to lf (logfacts.h; may be NULL; with
 * lf->head_lazy, a log without an OOM leaves the head's out). Returns 0, or
 * -1 with err filled when the input cannot be read to the end (incidents
 * found before the fault stay in rep). */
struct kg_log_facts;
int kg_scan_log(kg_source *src, kg_report *rep, struct kg_log_facts *lf, kg_error *err);

/* The same for one log in several files read one after another (rotated
 * copies, oldest first: inputs.h), as one stream, so a traceback, the
 * step and the phase carry across a file boundary; a file not ending in a
 * newline ends its last line. The envelope is the first file's. Incidents
 * get the file and line they are in (follow-ups and allocator-config
 * lines count in their own file); on a read failure err->path names the
 * file. Returns as kg_scan_log. */
int kg_scan_logs(kg_source **srcs, size_t nsrc, kg_report *rep, struct kg_log_facts *lf, kg_error *err);

/* Removes noise prefixes from one line in place (ANSI escapes anywhere;
 * leading NUL bytes, what a crash or copytruncate hole leaves before the
 * text the writer went on with;
 * GitHub Actions and other timestamps, Python logging prefixes, `[rankN]:`,
 * `rank N:`, `[defaultN]:`, compose `svc-1  | `, `SUBPROCESS: `, a "# "
 * comment marker, a "> " Markdown quote marker) and
 * returns the new length. *rank is set when a rank prefix was seen, else
 * left alone. */
size_t kg_strip_noise(char *line, size_t n, int64_t *rank);

/* kg_strip_noise for a line of a log of Slurm `srun --label` lines alone,
 * which the scanner reads as it is (not through the envelope decoder): a
 * leading label `[spaces]<task>: ` (kg_envelope_slurm_label) comes off
 * with one trailing '\r' and sets *rank to the task; the result, length
 * and rank are those of kg_strip_noise on the decoder's rewrite of the
 * line (envelope.c: `[rank<task>]: <text>`). A line without a label is
 * stripped as kg_strip_noise strips it. */
size_t kg_strip_noise_labeled(char *line, size_t n, int64_t *rank);

struct kg_atoms;
/* The scanner's literal prefilter: a line in which none of these atoms
 * occurs is never parsed. Every trigger literal of kg_oom_candidate() must
 * be covered (tests/test_scanner.c checks it on the dev corpus). */
const struct kg_atoms *kg_scan_atoms(void);

#endif

/* report.h — the reporters: the incident's headline and verdict, and the
 * text and JSON reports of the result document (model/result.h). Field
 * names follow the JSON schema `kgmem-diagnose/1` (DESIGN §4). */
#ifndef KG_REPORT_H
#define KG_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "model/incident.h"
#include "model/result.h"

struct cJSON;

/* What kg_incident_headline adds to the family's words, request, device,
 * rank, phase, epoch and step (flags, or'ed). */
enum {
	KG_HEADLINE_MEMORY = 1, /* the message's other sizes, or its text */
	KG_HEADLINE_TIME = 2,   /* the line's time stamp (inc->time), last */
};

/* The incident's headline, one line, no newline (malloc'd; free it):
 *     CUDA out of memory (STATUS): tried to allocate 20.00 GiB on cuda:0
 *         (rank 1, during eval, epoch 3, step 1200, at 2024-11-20 14:37:16)
 * — the family's words (include/model/vocab/family.def), the status word, the
 * request, the device, then rank, phase, epoch and step, each only when
 * known. With KG_HEADLINE_MEMORY, the message's other sizes follow the
 * device ("; 1.2 GiB free of 79.1 GiB; … in use by this process; …
 * allocated, … reserved but unallocated; N processes listed"), or, when it
 * states no size, its text (at most 200 bytes). With KG_HEADLINE_TIME,
 * "at TIME" ends the parenthesis when the line had a time stamp (as
 * printed, RFC 3339 / ISO 8601). The text report's verdict (TIME) and the
 * CI formats' incident summary (MEMORY) are this line. */
char *kg_incident_headline(const kg_incident *inc, unsigned flags);

/* The incident's verdict in words (the SVG caption): "CAUSE, CONFIDENCE
 * confidence" (a cause without a confidence reads "low confidence"), or
 * "cause undetermined". Writes at most n bytes (NUL-terminated) into buf
 * and returns it. */
char *kg_incident_verdict(const kg_incident *inc, char *buf, size_t n);
/* The same, brief, as the text headline prints it after the severity,
 * "error[CAUSE, CONFIDENCE]:": "eval-blowup, high", or "undetermined". */
char *kg_incident_verdict_brief(const kg_incident *inc, char *buf, size_t n);

/* The incident's differential as one line (no newline; malloc'd), as
 * every format prints it after "differential: ": each hypothesis some
 * evidence names, most probable first, with its posterior probability
 * (two decimals, kg_prob_format) and, for the first, its confidence in
 * brackets ("eval-blowup 0.80 (medium)"), "open" for one an undetermined
 * incident leaves open; then "other P", what the causes no evidence names
 * share (1 less the probabilities as printed, so the line adds up to 1;
 * left out below 0.005); then the ruled-out ones ("fragmentation ruled
 * out"). NULL when the differential is empty. *top (when top is not
 * NULL) is the index in inc->differential of the first hypothesis. */
char *kg_differential_text(const kg_incident *inc, size_t *top);

/* The remedy titles a report listed for one incident (each remedy once). */
typedef struct kg_titles {
	const char *v[64];
	size_t n;
} kg_titles;
/* Whether title is not in t yet; records it (NULL: false, a remedy
 * without a title is not listed by it; past 64 titles new ones are not
 * recorded). */
bool kg_title_new(kg_titles *t, const char *title);

typedef struct kg_text_style {
	bool color;        /* ANSI colours (decided by --color / NO_COLOR / TTY) */
	bool quiet;        /* -q: the verdict line only */
	bool verbose;      /* --verbose: every finding, frame and note */
	int width;         /* wrap lines at this many columns (a terminal's
	                      width), 0 = never wrap */
	bool diff;         /* --diff / --apply: print the config patches */
	bool ascii;        /* ASCII bars and glyphs (kg_ascii_glyphs): the
	                      locale is not UTF-8 (kg_locale_utf8) */
} kg_text_style;

/* Text report, verdict first (DIAGNOSIS §6). Per incident: line 1
 * `FILE:LINE: SEVERITY: headline [cause, CONFIDENCE confidence]` (the
 * compiler convention editors and CI problem matchers parse); line 2 the
 * one action (`help:` the first remedy of the cause's first finding, its
 * config roles named by the user's own keys when a config is loaded);
 * then the budget as a bar with the request under it, the arithmetic, the
 * differential and the other remedies, each once. --verbose adds every
 * finding, the frame, phase and follow-ups; -q prints line 1 only. The
 * summary counts incidents by severity and by cause. */
void kg_report_text(const kg_report *r, FILE *out, const kg_text_style *style);

/* Prints TEXT (one logical line, no newline in it) and a newline, wrapped
 * as the text report wraps (kg_text_style.width): broken at spaces so no
 * piece is wider than WIDTH columns, continuing under the line's own
 * indent plus four; a word wider than that is broken by characters.
 * Columns count UTF-8 characters and skip ANSI colour sequences. WIDTH 0:
 * never wrapped. (The `snapshot` view's --width.) */
void kg_text_wrap(FILE *out, const char *text, int width);

/* JSON report (schema kgmem-diagnose/1), pretty-printed, newline-terminated. */
/* The same document on one line (no newline inside), newline-terminated:
 * one JSON Lines record (`run --report FILE --label …`). */
void kg_report_json_line(const kg_report *r, FILE *out);
void kg_report_json(const kg_report *r, FILE *out);
/* JSON Lines for log pipelines (--format jsonl): one line per incident,
 * in input order, each a complete object: "schema", "version", "input"
 * ({path, kind, bytes} of the input it came from), "labels" (an object of
 * the KEY=VALUE strings in labels, nlabels of them, the last one winning
 * for a repeated KEY; strings without '=' are skipped) and then every
 * field of that incident as in incidents[] of the JSON report. No output
 * for a report without incidents. Each line is newline-terminated and
 * holds no raw newline. */
void kg_report_jsonl(const kg_report *r, const char *const *labels, size_t nlabels, FILE *out);
/* The same document as a cJSON tree (caller frees with cJSON_Delete). */
struct cJSON *kg_report_to_json(const kg_report *r);
/* One snapshots[] object of that document (DESIGN §4–§5; the shapes are
 * the kg_snapshot fields, model/snapshot.h), as a cJSON tree. */
struct cJSON *kg_snapshot_to_json(const struct kg_snapshot *s);
/* The `snapshot --format json` document {schema, version, snapshots[]},
 * pretty-printed, newline-terminated. */
void kg_snapshots_json(struct kg_snapshot *const *v, size_t n, FILE *out);

#endif

/* report.h — the result of one run over a case (log, snapshot, config)
 * and the reporters that print it. Field names follow the JSON schema
 * `kgmem-diagnose/1` (DESIGN §4). */
#ifndef KG_REPORT_H
#define KG_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "incident.h"

struct cJSON;
struct kg_snapshot;
struct kg_run_info;

typedef struct kg_input {
	char *path;        /* as given on the command line; "-" for stdin */
	char *name;        /* display name used in locations ("<stdin>" for -) */
	const char *kind;  /* log, snapshot, memory_stats, memory_summary, config */
	int64_t bytes;     /* bytes read (decompressed for gzip) */
	bool gzip;
} kg_input;

/* One config patch planned from the remedies (lib/diagnose.c): JSON
 * `patches[]`. */
typedef struct kg_patch_result {
	char *path;        /* the config file, as named on the command line */
	char *diff;        /* unified diff (patch.h kg_patch_diff), never empty */
	bool applied;      /* written in place by --apply (the old text kept
	                      in PATH.orig) */
} kg_patch_result;

typedef struct kg_report {
	kg_input *inputs;
	size_t ninputs;
	kg_incident *incidents;
	size_t nincidents, incidents_cap;
	struct kg_snapshot **snapshots; /* snapshots, memory_stats and
	                                memory_summary inputs (snapshot.h), in
	                                input order; owned */
	size_t nsnapshots;
	kg_patch_result *patches;    /* in config order; owned */
	size_t npatches;
	int64_t first_failed_rank;   /* rank of the earliest incident with a
	                                rank, KG_NONE when no rank is known */
	int64_t root_cause_rank;     /* torchelastic "Root Cause (first observed
	                                failure)" rank, KG_NONE if absent */
	char *echoed_config;         /* first config path named in a log */
	char *echoed_config_where;   /* "crash.log:3" */
	char **notes;                /* warnings about the input (truncated
	                                lines, …), one line each */
	size_t nnotes;
	struct kg_run_info *run;     /* `run` subcommand: the run and its
	                                readings (runinfo.h), owned; NULL
	                                otherwise; printed as "run" */
} kg_report;

void kg_report_init(kg_report *r);
void kg_report_free(kg_report *r);
void kg_report_note(kg_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends a snapshot (taking ownership). */
void kg_report_add_snapshot(kg_report *r, struct kg_snapshot *s);
/* Appends a patch result (path and diff copied, applied false) and returns
 * it; the pointer is valid until the next kg_report_add_patch. */
kg_patch_result *kg_report_add_patch(kg_report *r, const char *path, const char *diff);

/* What kg_incident_headline adds to the family's words, request, device,
 * rank, phase, epoch and step (flags, or'ed). */
enum {
	KG_HEADLINE_MEMORY = 1, /* the message's other sizes, or its text */
	KG_HEADLINE_TIME = 2,   /* the line's time stamp (inc->time), last */
};

/* The incident's headline, one line, no newline (malloc'd; free it):
 *     CUDA out of memory (STATUS): tried to allocate 20.00 GiB on cuda:0
 *         (rank 1, during eval, epoch 3, step 1200, at 2024-11-20 14:37:16)
 * — the family's words (include/vocab/family.def), the status word, the
 * request, the device, then rank, phase, epoch and step, each only when
 * known. With KG_HEADLINE_MEMORY, the message's other sizes follow the
 * device ("; 1.2 GiB free of 79.1 GiB; … in use by this process; …
 * allocated, … reserved but unallocated; N processes listed"), or, when it
 * states no size, its text (at most 200 bytes). With KG_HEADLINE_TIME,
 * "at TIME" ends the parenthesis when the line had a time stamp (as
 * printed, RFC 3339 / ISO 8601). The text report's verdict (TIME) and the
 * CI formats' incident summary (MEMORY) are this line. */
char *kg_incident_headline(const kg_incident *inc, unsigned flags);

/* The incident's verdict as the text report prints it in brackets: "CAUSE,
 * CONFIDENCE confidence" (a cause without a confidence reads "low
 * confidence"), or "cause undetermined". Writes at most n bytes
 * (NUL-terminated) into buf and returns it. */
char *kg_incident_verdict(const kg_incident *inc, char *buf, size_t n);

/* Renames standard input ("<stdin>") to name everywhere the report shows
 * it: the inputs' display names and the incidents' paths (--stdin-filename,
 * so that SARIF locations, GitHub annotations and the text headline name
 * the file the log came from). name is copied. */
void kg_report_name_stdin(kg_report *r, const char *name);

/* Counts for "summary": incidents by their severity (kg_incident_severity
 * in incident.h; DIAGNOSIS §5), not findings. */
void kg_report_counts(const kg_report *r, int *errors, int *warnings, int *infos);

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
 * the kg_snapshot fields, snapshot.h), as a cJSON tree. */
struct cJSON *kg_snapshot_to_json(const struct kg_snapshot *s);
/* The `snapshot --format json` document {schema, version, snapshots[]},
 * pretty-printed, newline-terminated. */
void kg_snapshots_json(struct kg_snapshot *const *v, size_t n, FILE *out);

#endif

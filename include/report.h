/* report.h — the result of one run over a case (log, snapshot, config)
 * and the reporters that print it. Field names follow the JSON schema
 * `kgmem-diagnose/1` (DESIGN §4). */
#ifndef KG_REPORT_H
#define KG_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "incident.h"

struct cJSON;

typedef struct kg_input {
	char *path;        /* as given on the command line; "-" for stdin */
	char *name;        /* display name used in locations ("<stdin>" for -) */
	const char *kind;  /* log, snapshot, memory_stats, memory_summary, config */
	int64_t bytes;     /* bytes read (decompressed for gzip) */
	bool gzip;
} kg_input;

typedef struct kg_report {
	kg_input *inputs;
	size_t ninputs;
	kg_incident *incidents;
	size_t nincidents, incidents_cap;
	struct cJSON *snapshots;     /* array, DESIGN §5 objects; owned */
	struct cJSON *patches;       /* array of {path, diff}; owned */
	int64_t first_failed_rank;   /* rank of the earliest incident with a
	                                rank, KG_NONE when no rank is known */
	int64_t root_cause_rank;     /* torchelastic "Root Cause (first observed
	                                failure)" rank, KG_NONE if absent */
	char *echoed_config;         /* first config path named in a log */
	char *echoed_config_where;   /* "crash.log:3" */
	char **notes;                /* warnings about the input (truncated
	                                lines, …), one line each */
	size_t nnotes;
	struct cJSON *run;           /* `run` subcommand: the top-level "run"
	                                object (evidence.h), owned; NULL
	                                otherwise */
} kg_report;

void kg_report_init(kg_report *r);
void kg_report_free(kg_report *r);
void kg_report_note(kg_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "error", "warning", "info" (or "none"): the words of JSON `severity`,
 * SARIF levels map from them. */
const char *kg_severity_name(enum kg_severity s);

/* Most severe severity of an incident: its findings' maximum, or, before any
 * rule ran, error for kind "oom" and warning for "oom-warning". */
enum kg_severity kg_incident_severity(const kg_incident *inc);

/* Counts for "summary": incidents, errors, warnings, infos (one per
 * finding, or per incident when it has no findings). */
void kg_report_counts(const kg_report *r, int *errors, int *warnings, int *infos);

typedef struct kg_text_style {
	bool color;        /* ANSI colours (decided by --color / NO_COLOR / TTY) */
	bool quiet;        /* -q: headlines only */
	bool diff;         /* --diff / --apply: print the config patches */
} kg_text_style;

/* Text report: compiler convention `FILE:LINE: SEVERITY: message [rule]`
 * then indented `= evidence` and `help: remedy` lines. */
void kg_report_text(const kg_report *r, FILE *out, const kg_text_style *style);

/* JSON report (schema kgmem-diagnose/1), pretty-printed, newline-terminated. */
void kg_report_json(const kg_report *r, FILE *out);
/* The same document as a cJSON tree (caller frees with cJSON_Delete). */
struct cJSON *kg_report_to_json(const kg_report *r);

#endif

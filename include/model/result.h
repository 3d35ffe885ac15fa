/* result.h — the result document of one run over a case (log, snapshot,
 * config): inputs, incidents, snapshots, patches, notes and the wrapped
 * run, which every stage fills or reads and the reporters print. Field
 * names follow the JSON schema `kgmem-diagnose/1` (DESIGN §4). */
#ifndef KG_RESULT_H
#define KG_RESULT_H

#include <stdbool.h>
#include <stdio.h>
#include "model/incident.h"
#include "model/run.h"
#include "model/snapshot.h"

typedef struct kg_input {
	char *path;        /* as given on the command line; "-" for stdin */
	char *name;        /* display name used in locations ("<stdin>" for -) */
	const char *kind;  /* log, snapshot, memory_stats, memory_summary, config */
	int64_t bytes;     /* bytes read (decompressed for gzip) */
	bool gzip;
} kg_input;

/* One config patch planned from the remedies (lib/run/pipeline.c): JSON
 * `patches[]`. */
typedef struct kg_patch_result {
	char *path;        /* the config file, as named on the command line */
	char *diff;        /* unified diff (report/patch.h kg_patch_diff), never empty */
	bool applied;      /* written in place by --apply (the old text kept
	                      in PATH.orig) */
} kg_patch_result;

typedef struct kg_report {
	kg_input *inputs;
	size_t ninputs;
	kg_incident *incidents;
	size_t nincidents, incidents_cap;
	kg_snapshot **snapshots; /* snapshots, memory_stats and
	                                memory_summary inputs (snapshot.h), in
	                                input order; owned */
	size_t nsnapshots;
	kg_patch_result *patches;    /* in config order; owned */
	size_t npatches;
	size_t nconfigs;             /* training configs read (--config, a
	                                positional one, or one a log names) */
	int64_t first_failed_rank;   /* rank of the earliest incident with a
	                                rank, KG_NONE when no rank is known */
	int64_t root_cause_rank;     /* torchelastic "Root Cause (first observed
	                                failure)" rank, KG_NONE if absent */
	char *echoed_config;         /* first config path named in a log */
	char *echoed_config_where;   /* "crash.log:3" */
	char **notes;                /* warnings about the input (truncated
	                                lines, …), one line each */
	size_t nnotes;
	kg_run_info *run;     /* `run` subcommand: the run and its
	                                readings (model/run.h), owned; NULL
	                                otherwise; printed as "run" */
} kg_report;

void kg_report_init(kg_report *r);
void kg_report_free(kg_report *r);
void kg_report_note(kg_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends a snapshot (taking ownership). */
void kg_report_add_snapshot(kg_report *r, kg_snapshot *s);
/* Appends a patch result (path and diff copied, applied false) and returns
 * it; the pointer is valid until the next kg_report_add_patch. */
kg_patch_result *kg_report_add_patch(kg_report *r, const char *path, const char *diff);

/* Renames an input everywhere the report shows it: every input whose
 * display name is `from`, every incident and snapshot whose path is
 * `from` and every note that starts with "`from`:" get `to` (copied).
 * --stdin-filename renames "<stdin>", so that SARIF locations, GitHub
 * annotations and the text headline name the file the log came from;
 * `run` renames its capture file to "<output>" and each snapshot it read
 * through its open descriptor back to the snapshot's own path. */
void kg_report_rename_input(kg_report *r, const char *from, const char *to);

/* Counts for "summary": incidents by their severity (kg_incident_severity
 * in incident.h; DIAGNOSIS §5), not findings. */
void kg_report_counts(const kg_report *r, int *errors, int *warnings, int *infos);

#endif

/* pipeline.h — the main job: inputs in (logs, snapshots, configs), read,
 * diagnosed, patches planned, a kg_report out (DESIGN §2 data flow).
 * src/main.c only parses the command line and calls kg_diagnose(). */
#ifndef KG_PIPELINE_H
#define KG_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include "model/incident.h"
#include "model/result.h"
#include "model/util.h"

/* What kg_diagnose returns (library terms, 0 or negative, never an exit
 * status; src/main.c maps them to src/cli.h's exit statuses). */
enum kg_status {
	KG_STATUS_OK = 0,
	KG_STATUS_INPUT = -1,  /* an input, config, rule file or output could
	                          not be read or written */
	KG_STATUS_USAGE = -2,  /* a bad --set NAME=VALUE */
};

typedef struct kg_options {
	const char **configs;       /* --config FILE (repeatable) */
	size_t nconfigs;
	const char *format;         /* text, json, markdown, github, sarif */
	enum kg_severity fail_on;   /* KG_SEV_NONE = never */
	bool diff, apply;           /* --diff, --apply */
	const char **rules_dirs;    /* --rules DIR (repeatable) */
	size_t nrules_dirs;
	const char **sets;          /* --set NAME=VALUE (repeatable) */
	size_t nsets;
	int color;                  /* -1 auto, 0 never, 1 always */
	bool quiet;
	int progress;               /* 0 never, 1 always, 2 for inputs over
	                               64 MiB (the CLI decides from the
	                               terminal and CI) */
	const char *svg;            /* --svg FILE or NULL */
	const struct kg_run_info *run; /* `run`'s record of the wrapped command
	                               (model/run.h): its readings at the OOM are
	                               evidence (kg_facts_from_run), or NULL */
} kg_options;

/* Reads every input and fills rep. Returns KG_STATUS_OK, or the first
 * failure's status with err filled and err->path naming the input at fault
 * ("<stdin>" for "-", "--set", "rules", "--apply" or the --svg path); rep
 * then holds whatever was read before and after the fault. Never exits. */
enum kg_status kg_diagnose(const char *const *paths, size_t npaths, const kg_options *opt,
			   kg_report *rep, kg_error *err);

#endif

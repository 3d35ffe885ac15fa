/* diagnose.h — the main job: inputs in (logs, snapshots, configs), a
 * kg_report out (DESIGN §2 data flow). main.c only parses the command line
 * and calls kg_diagnose(). */
#ifndef KG_DIAGNOSE_H
#define KG_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>
#include "incident.h"
#include "report.h"
#include "util.h"

/* Exit statuses (DESIGN §1). */
enum {
	KG_EXIT_OK = 0,        /* no finding at or above --fail-on */
	KG_EXIT_FINDINGS = 1,  /* findings at or above --fail-on */
	KG_EXIT_USAGE = 2,     /* usage error */
	KG_EXIT_INPUT = 3,     /* unreadable or invalid input */
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
	int progress;               /* -1 auto, 0 never, 1 forced */
	const char *svg;            /* --svg FILE or NULL */
} kg_options;

/* Reads every input and fills rep. On invalid input returns KG_EXIT_INPUT
 * with err filled and *bad_path set to the display name of the input at
 * fault (rep then holds whatever was read before the fault); otherwise
 * returns 0. */
int kg_diagnose(const char *const *paths, size_t npaths, const kg_options *opt,
		kg_report *rep, kg_error *err, const char **bad_path);

#endif

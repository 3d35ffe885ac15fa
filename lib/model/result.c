/* result.c — the result document of one run (see include/model/result.h):
 * its container, notes, snapshots, patches and counts. */
#include "model/result.h"
#include "model/run.h"
#include "model/snapshot.h"
#include "model/util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void kg_report_init(kg_report *r)
{
	*r = (kg_report){0};
	r->first_failed_rank = KG_NONE;
	r->root_cause_rank = KG_NONE;
}

void kg_report_free(kg_report *r)
{
	for (size_t i = 0; i < r->ninputs; i++) {
		free(r->inputs[i].path);
		free(r->inputs[i].name);
	}
	free(r->inputs);
	for (size_t i = 0; i < r->nincidents; i++)
		kg_incident_free(&r->incidents[i]);
	free(r->incidents);
	free(r->echoed_config);
	free(r->echoed_config_where);
	for (size_t i = 0; i < r->nsnapshots; i++)
		kg_snapshot_free(r->snapshots[i]);
	free(r->snapshots);
	for (size_t i = 0; i < r->npatches; i++) {
		free(r->patches[i].path);
		free(r->patches[i].diff);
	}
	free(r->patches);
	kg_run_free(r->run);
	for (size_t i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	free(r->notes);
	*r = (kg_report){0};
}

void kg_report_note(kg_report *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = kg_vasprintf(fmt, ap);
	va_end(ap);
	r->notes = kg_realloc(r->notes, (r->nnotes + 1) * sizeof *r->notes);
	r->notes[r->nnotes++] = s;
}

void kg_report_add_snapshot(kg_report *r, kg_snapshot *s)
{
	r->snapshots = kg_realloc(r->snapshots, (r->nsnapshots + 1) * sizeof *r->snapshots);
	r->snapshots[r->nsnapshots++] = s;
}

kg_patch_result *kg_report_add_patch(kg_report *r, const char *path, const char *diff)
{
	r->patches = kg_realloc(r->patches, (r->npatches + 1) * sizeof *r->patches);
	kg_patch_result *p = &r->patches[r->npatches++];
	*p = (kg_patch_result){kg_strdup(path), kg_strdup(diff), false};
	return p;
}

void kg_report_counts(const kg_report *r, int *errors, int *warnings, int *infos)
{
	*errors = *warnings = *infos = 0;
	for (size_t i = 0; i < r->nincidents; i++) {
		enum kg_severity s = kg_incident_severity(&r->incidents[i]);
		*errors += s == KG_SEV_ERROR;
		*warnings += s == KG_SEV_WARNING;
		*infos += s == KG_SEV_INFO;
	}
}

void kg_report_rename_input(kg_report *r, const char *from, const char *to)
{
	for (size_t i = 0; i < r->ninputs; i++) {
		if (r->inputs[i].name && !strcmp(r->inputs[i].name, from)) {
			free(r->inputs[i].name);
			r->inputs[i].name = kg_strdup(to);
		}
	}
	for (size_t i = 0; i < r->nincidents; i++) {
		if (r->incidents[i].path && !strcmp(r->incidents[i].path, from)) {
			free(r->incidents[i].path);
			r->incidents[i].path = kg_strdup(to);
		}
	}
	for (size_t i = 0; i < r->nsnapshots; i++) {
		kg_snapshot *s = r->snapshots[i];
		if (s->path && !strcmp(s->path, from)) {
			free(s->path);
			s->path = kg_strdup(to);
		}
	}
	/* a note about the input starts with its name ("NAME:LINE: …",
	 * "NAME: read as …") */
	size_t fl = strlen(from);
	for (size_t i = 0; i < r->nnotes; i++) {
		if (!strncmp(r->notes[i], from, fl) && r->notes[i][fl] == ':') {
			char *n = kg_asprintf("%s%s", to, r->notes[i] + fl);
			free(r->notes[i]);
			r->notes[i] = n;
		}
	}
}

/* report.c — the report container (see include/report.h). */
#include "report.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void kg_report_init(kg_report *r)
{
	*r = (kg_report){0};
	r->first_failed_rank = KG_NONE;
	r->root_cause_rank = KG_NONE;
	r->snapshots = cJSON_CreateArray();
	r->patches = cJSON_CreateArray();
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
	cJSON_Delete(r->snapshots);
	cJSON_Delete(r->patches);
	cJSON_Delete(r->run);
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

const char *kg_severity_name(enum kg_severity s)
{
	switch (s) {
	case KG_SEV_ERROR: return "error";
	case KG_SEV_WARNING: return "warning";
	case KG_SEV_INFO: return "info";
	default: return "none";
	}
}

enum kg_severity kg_incident_severity(const kg_incident *inc)
{
	if (inc->nfindings) {
		enum kg_severity s = KG_SEV_NONE;
		for (size_t i = 0; i < inc->nfindings; i++)
			if (inc->findings[i].severity > s)
				s = inc->findings[i].severity;
		return s;
	}
	return inc->kind && inc->kind[0] == 'o' && inc->kind[3] == '-' ? KG_SEV_WARNING : KG_SEV_ERROR;
}

void kg_report_counts(const kg_report *r, int *errors, int *warnings, int *infos)
{
	*errors = *warnings = *infos = 0;
	for (size_t i = 0; i < r->nincidents; i++) {
		const kg_incident *inc = &r->incidents[i];
		if (inc->nfindings == 0) {
			enum kg_severity s = kg_incident_severity(inc);
			*errors += s == KG_SEV_ERROR;
			*warnings += s == KG_SEV_WARNING;
			continue;
		}
		for (size_t k = 0; k < inc->nfindings; k++) {
			*errors += inc->findings[k].severity == KG_SEV_ERROR;
			*warnings += inc->findings[k].severity == KG_SEV_WARNING;
			*infos += inc->findings[k].severity == KG_SEV_INFO;
		}
	}
}

/* report_github.c — --format github: GitHub Actions workflow commands
 * (docs.github.com, "Workflow commands for GitHub Actions": ::error,
 * ::warning, ::notice with file/line/title properties). Escaping follows
 * actions/toolkit packages/core/src/command.ts (escapeData,
 * escapeProperty), which is what the runner unescapes. */
#include "report/report_ci.h"
#include "model/util.h"

#include <stdlib.h>
#include <string.h>

static char *escape(const char *s, bool property)
{
	kg_buf b = {0};
	kg_buf_puts(&b, "");
	for (; s && *s; s++) {
		switch (*s) {
		case '%': kg_buf_puts(&b, "%25"); break;
		case '\r': kg_buf_puts(&b, "%0D"); break;
		case '\n': kg_buf_puts(&b, "%0A"); break;
		case ':':
			if (property) kg_buf_puts(&b, "%3A");
			else kg_buf_putc(&b, ':');
			break;
		case ',':
			if (property) kg_buf_puts(&b, "%2C");
			else kg_buf_putc(&b, ',');
			break;
		default: kg_buf_putc(&b, *s);
		}
	}
	return kg_buf_steal(&b);
}

char *kg_gh_escape_data(const char *s) { return escape(s, false); }
char *kg_gh_escape_property(const char *s) { return escape(s, true); }

static const char *command(enum kg_severity s)
{
	/* the workflow commands ::error and ::warning are our severity words */
	return s >= KG_SEV_WARNING ? kg_severity_name(s) : "notice";
}

void kg_report_github(const kg_report *r, FILE *out)
{
	for (size_t i = 0; i < r->nincidents; i++) {
		const kg_incident *inc = &r->incidents[i];
		fprintf(out, "::%s ", command(kg_incident_severity(inc)));
		const char *path = inc->path;
		if (path && *path && strcmp(path, "<stdin>") != 0 && strcmp(path, "-") != 0) {
			char *f = kg_gh_escape_property(path);
			fprintf(out, "file=%s,", f);
			free(f);
			if (inc->line > 0)
				fprintf(out, "line=%ld,", inc->line);
		}
		char verdict[96];
		char *head = kg_incident_headline(inc, KG_HEADLINE_TIME);
		char *title = kg_asprintf("%s [%s]", head, kg_incident_verdict(inc, verdict, sizeof verdict));
		char *t = kg_gh_escape_property(title);
		char *text = kg_ci_incident_text(inc);
		char *d = kg_gh_escape_data(text);
		fprintf(out, "title=%s::%s\n", t, d);
		free(head);
		free(title);
		free(t);
		free(text);
		free(d);
	}

	for (size_t i = 0; i < r->nnotes; i++) {
		char *d = kg_gh_escape_data(r->notes[i]);
		fprintf(out, "::notice title=kgmem-diagnose input note::%s\n", d);
		free(d);
	}
	int e, w, in;
	kg_report_counts(r, &e, &w, &in);
	fprintf(out, "kgmem-diagnose: %zu incident%s, %d error%s, %d warning%s, %d info%s\n",
		r->nincidents, r->nincidents == 1 ? "" : "s", e, e == 1 ? "" : "s",
		w, w == 1 ? "" : "s", in, in == 1 ? "" : "s");
}

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
	kg_ci_item *items;
	size_t n = kg_ci_items(r, &items);
	for (size_t i = 0; i < n; i++) {
		const kg_ci_item *it = &items[i];
		fprintf(out, "::%s ", command(it->severity));
		const char *path = it->inc->path;
		if (path && *path && strcmp(path, "<stdin>") != 0 && strcmp(path, "-") != 0) {
			char *f = kg_gh_escape_property(path);
			fprintf(out, "file=%s,", f);
			free(f);
			if (it->inc->line > 0)
				fprintf(out, "line=%ld,", it->inc->line);
		}
		char *title = kg_asprintf("%s [%s]", it->title, it->rule);
		char *t = kg_gh_escape_property(title);
		char *text = kg_ci_item_text(it);
		char *d = kg_gh_escape_data(text);
		fprintf(out, "title=%s::%s\n", t, d);
		free(title);
		free(t);
		free(text);
		free(d);
	}
	kg_ci_items_free(items, n);

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

/* report_ci.c — the view of a report the CI reporters share (see
 * include/report/report_ci.h): items, severity names, incident summaries. */
#include "report/report_ci.h"
#include "model/util.h"

#include <stdlib.h>
#include <string.h>

size_t kg_ci_items(const kg_report *r, kg_ci_item **out)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nincidents; i++)
		n += r->incidents[i].nfindings ? r->incidents[i].nfindings : 1;
	*out = NULL;
	if (n == 0)
		return 0;
	kg_ci_item *v = kg_calloc(n, sizeof *v);
	size_t k = 0;
	for (size_t i = 0; i < r->nincidents; i++) {
		const kg_incident *inc = &r->incidents[i];
		if (inc->nfindings == 0) {
			bool warn = inc->kind && strcmp(inc->kind, "oom-warning") == 0;
			bool unrecognized = inc->kind && strcmp(inc->kind, "oom-unrecognized") == 0;
			v[k++] = (kg_ci_item){
				.inc = inc,
				.severity = kg_incident_severity(inc),
				.rule = warn ? "oom-warning" : unrecognized ? "oom-unrecognized" : "oom",
				.title = warn ? "Allocator warning (retried)"
					 : unrecognized ? "Out-of-memory message this tool does not know" : "Out of memory",
				.message = kg_incident_headline(inc, KG_HEADLINE_MEMORY),
			};
			continue;
		}
		for (size_t f = 0; f < inc->nfindings; f++) {
			const kg_finding *fd = &inc->findings[f];
			v[k++] = (kg_ci_item){
				.inc = inc,
				.finding = fd,
				.severity = fd->severity,
				.rule = fd->rule ? fd->rule : "unknown",
				.title = fd->title ? fd->title : (fd->rule ? fd->rule : "finding"),
				.message = kg_strdup(fd->message && *fd->message ? fd->message
						     : fd->title ? fd->title : ""),
			};
		}
	}
	*out = v;
	return n;
}

void kg_ci_items_free(kg_ci_item *items, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(items[i].message);
	free(items);
}

char *kg_ci_remedy_line(const kg_remedy *rm)
{
	kg_buf b = {0};
	kg_buf_puts(&b, rm->title ? rm->title : "remedy");
	const char *sep = ": ";
	for (size_t i = 0; i < rm->nenv; i++) {
		kg_buf_printf(&b, "%s%s=%s", sep, rm->env_names[i], rm->env_values[i]);
		sep = "; ";
	}
	/* a role no config names is the tool's word: the code says it */
	for (size_t i = 0; rm->set_keys && i < rm->nset; i++) {
		if (!rm->set_keys[i])
			continue;
		kg_buf_printf(&b, "%sset %s = %s", sep, rm->set_keys[i], rm->set_values[i]);
		sep = "; ";
	}
	if (rm->code)
		kg_buf_printf(&b, "%s%s", sep, rm->code);
	if (rm->caveat)
		kg_buf_printf(&b, " (caveat: %s)", rm->caveat);
	return kg_buf_steal(&b);
}

char *kg_ci_item_text(const kg_ci_item *it)
{
	kg_buf b = {0};
	kg_buf_puts(&b, it->message);
	const kg_finding *f = it->finding;
	if (f) {
		for (size_t i = 0; i < f->nevidence; i++)
			kg_buf_printf(&b, "\n= %s", f->evidence[i]);
		for (size_t i = 0; i < f->nremedies; i++) {
			char *line = kg_ci_remedy_line(&f->remedies[i]);
			kg_buf_printf(&b, "\nhelp: %s", line);
			free(line);
		}
	}
	return kg_buf_steal(&b);
}

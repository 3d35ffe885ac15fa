/* report_ci.c — what the CI reporters share (see include/report/report_ci.h):
 * one verdict per incident, its text, the rule it stands under. */
#include "report/report_ci.h"
#include "model/util.h"

#include <stdlib.h>
#include <string.h>

const char *kg_ci_incident_rule(const kg_incident *inc, const kg_finding **finding)
{
	const kg_finding *f = kg_incident_cause_finding(inc);
	if (!f)
		f = kg_incident_action_finding(inc);
	if (finding)
		*finding = f && f->rule ? f : NULL;
	if (f && f->rule)
		return f->rule;
	return inc->kind ? inc->kind : "oom";
}

const char *kg_ci_kind_title(const kg_incident *inc)
{
	if (inc->kind && !strcmp(inc->kind, "oom-warning"))
		return "Allocator warning (retried)";
	if (inc->prose)
		return kg_vocab_index(&kg_families, inc->family) == KG_FAMILY_OOM_KILLER
			       ? "Kill the report tells in words (SIGKILL: the OOM killer)"
			       : "Out-of-memory failure the report tells in words";
	if (inc->kind && !strcmp(inc->kind, "oom-unrecognized"))
		return "Out-of-memory message this tool does not know";
	return "Out of memory";
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

/* Appends "\nhelp: REMEDY" for each remedy of f not listed yet in t. */
static void help_lines(kg_buf *b, const kg_finding *f, kg_titles *t)
{
	for (size_t i = 0; f && i < f->nremedies; i++) {
		const kg_remedy *rm = &f->remedies[i];
		if (!kg_title_new(t, rm->title))
			continue;
		char *line = kg_ci_remedy_line(rm);
		kg_buf_printf(b, "\nhelp: %s", line);
		free(line);
	}
}

char *kg_ci_incident_text(const kg_incident *inc)
{
	kg_buf b = {0};
	const kg_finding *cf = kg_incident_cause_finding(inc);
	const kg_finding *af = kg_incident_action_finding(inc);
	if (cf && cf->message && *cf->message) {
		kg_buf_puts(&b, cf->message);
	} else {
		char *h = kg_incident_headline(inc, KG_HEADLINE_MEMORY);
		kg_buf_puts(&b, h);
		free(h);
		if (af && af->message && *af->message)
			kg_buf_printf(&b, "\n%s", af->message);
	}
	/* the one action, in the text report's words (its line 2) */
	kg_titles t = {0};
	if (af && af->nremedies) {
		char *act = kg_remedy_instruction(&af->remedies[0]);
		kg_buf_printf(&b, "\nhelp: %s", act);
		free(act);
		kg_title_new(&t, af->remedies[0].title);
	}
	for (size_t i = 0; cf && i < cf->nevidence; i++)
		kg_buf_printf(&b, "\n= %s", cf->evidence[i]);
	char *d = kg_differential_text(inc, NULL);
	if (d)
		kg_buf_printf(&b, "\n= differential: %s", d);
	free(d);
	/* then the other remedies for the cause, each once */
	help_lines(&b, af, &t);
	for (size_t k = 0; inc->cause && k < inc->nfindings; k++) {
		const kg_finding *f = &inc->findings[k];
		if (f != af && kg_finding_supports(f, inc->cause))
			help_lines(&b, f, &t);
	}
	/* the other findings by title: the text report's --verbose has them */
	for (size_t k = 0; k < inc->nfindings; k++) {
		const kg_finding *f = &inc->findings[k];
		if (f == af || f == cf || kg_finding_supports(f, inc->cause))
			continue;
		kg_buf_printf(&b, "\nalso: %s [%s]", f->title ? f->title : "", f->rule ? f->rule : "");
	}
	return kg_buf_steal(&b);
}

/* report_markdown.c — --format markdown: a report to paste into a pull
 * request comment or $GITHUB_STEP_SUMMARY (GitHub-flavoured Markdown, GFM
 * spec 0.29: pipe tables, fenced code blocks, backslash escapes). Text from
 * logs never reaches Markdown unescaped: prose is backslash-escaped, log
 * text goes into code spans or fences longer than any backtick run in it. */
#include "report/report_ci.h"
#include "model/util.h"

#include <stdlib.h>
#include <string.h>

/* Longest run of c in s. */
static size_t longest_run(const char *s, char c)
{
	size_t best = 0, cur = 0;
	for (; s && *s; s++) {
		cur = *s == c ? cur + 1 : 0;
		if (cur > best)
			best = cur;
	}
	return best;
}

/* Inline prose: backslash-escapes GFM punctuation that could start markup
 * (and the table delimiter); newlines become spaces when in_cell. */
static void md_text(FILE *out, const char *s, bool in_cell)
{
	for (; s && *s; s++) {
		if (*s == '\r' && s[1] == '\n')
			continue;
		if (*s == '\n' || *s == '\r') {
			fputs(in_cell ? " " : "  \n", out);
			continue;
		}
		if (strchr("\\`*_[]<>|#~!&", *s))
			fputc('\\', out);
		fputc(*s, out);
	}
}

/* A code span: enough backticks to enclose s, padded when s starts or
 * ends with a backtick (GFM §6.1). Newlines become spaces. */
static void md_code(FILE *out, const char *s)
{
	size_t n = longest_run(s, '`') + 1;
	bool pad = s[0] == '`' || (s[0] && s[strlen(s) - 1] == '`');
	for (size_t i = 0; i < n; i++)
		fputc('`', out);
	if (pad)
		fputc(' ', out);
	for (; *s; s++)
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
	if (pad)
		fputc(' ', out);
	for (size_t i = 0; i < n; i++)
		fputc('`', out);
}

/* A code span inside a table cell: GFM splits cells on every unescaped
 * '|', even in code spans, so '|' is written as "\|". */
static void md_cell_code(FILE *out, const char *s)
{
	char *t = NULL;
	if (strchr(s, '|')) {
		kg_buf b = {0};
		for (const char *p = s; *p; p++) {
			if (*p == '|')
				kg_buf_putc(&b, '\\');
			kg_buf_putc(&b, *p);
		}
		t = kg_buf_steal(&b);
		s = t;
	}
	md_code(out, s);
	free(t);
}

/* A fenced block with an info string; the fence is longer than any
 * backtick run in the text (GFM §4.5). */
static void md_fence(FILE *out, const char *info, const char *text)
{
	size_t n = longest_run(text, '`') + 1;
	if (n < 3)
		n = 3;
	for (size_t i = 0; i < n; i++)
		fputc('`', out);
	fprintf(out, "%s\n%s", info, text);
	if (!*text || text[strlen(text) - 1] != '\n')
		fputc('\n', out);
	for (size_t i = 0; i < n; i++)
		fputc('`', out);
	fputs("\n\n", out);
}

static void cell_int(FILE *out, int64_t v)
{
	if (v == KG_NONE)
		fputs(" – |", out);
	else
		fprintf(out, " %lld |", (long long)v);
}

static void cell_size(FILE *out, kg_size s)
{
	char tmp[64];
	fprintf(out, " %s |", kg_size_known(s) ? kg_size_format(s.bytes, tmp, sizeof tmp) : "–");
}

static void location(FILE *out, const kg_incident *inc, bool in_cell)
{
	char *loc = inc->line > 0 ? kg_asprintf("%s:%ld", inc->path ? inc->path : "?", inc->line)
				  : kg_strdup(inc->path ? inc->path : "?");
	if (in_cell)
		md_cell_code(out, loc);
	else
		md_code(out, loc);
	free(loc);
}

static void table(FILE *out, const kg_report *r)
{
	fputs("| # | location | device | rank | step | phase | cause | severity | requested | free / total |\n"
	      "|--:|---|---|--:|--:|---|---|---|--:|---|\n", out);
	char a[64], b[64];
	for (size_t i = 0; i < r->nincidents; i++) {
		const kg_incident *inc = &r->incidents[i];
		fprintf(out, "| %d | ", inc->id);
		location(out, inc, true);
		fputs(" | ", out);
		if (inc->device_type && inc->device_index != KG_NONE)
			fprintf(out, "%s:%lld", inc->device_type, (long long)inc->device_index);
		else
			fputs(inc->device_type ? inc->device_type : "–", out);
		fputs(" |", out);
		cell_int(out, inc->rank);
		cell_int(out, inc->step);
		fprintf(out, " %s | ", inc->phase ? inc->phase : "–");
		if (inc->cause)
			fprintf(out, "**%s** (%s)", inc->cause,
				inc->confidence ? inc->confidence : kg_vocab_word(&kg_confidences, KG_CONFIDENCE_LOW));
		else
			fputs("undetermined", out);
		fprintf(out, " | %s |", kg_severity_name(kg_incident_severity(inc)));
		cell_size(out, inc->mem.requested);
		if (kg_size_known(inc->mem.free) && kg_size_known(inc->mem.total_capacity))
			fprintf(out, " %s / %s |\n",
				kg_size_format(inc->mem.free.bytes, a, sizeof a),
				kg_size_format(inc->mem.total_capacity.bytes, b, sizeof b));
		else
			fputs(" – |\n", out);
	}
	fputc('\n', out);
}

static void remedy(FILE *out, const kg_remedy *rm)
{
	fputs("    - ", out);
	md_text(out, rm->title ? rm->title : "remedy", false);
	const char *sep = ": ";
	for (size_t i = 0; i < rm->nenv; i++) {
		char *kv = kg_asprintf("%s=%s", rm->env_names[i], rm->env_values[i]);
		fputs(sep, out);
		md_code(out, kv);
		free(kv);
		sep = "; ";
	}
	/* a role no config names is the tool's word: the code says it */
	for (size_t i = 0; rm->set_keys && i < rm->nset; i++) {
		if (!rm->set_keys[i])
			continue;
		fprintf(out, "%sset ", sep);
		md_code(out, rm->set_keys[i]);
		fputs(" = ", out);
		md_code(out, rm->set_values[i]);
		sep = "; ";
	}
	if (rm->code) {
		fputs(sep, out);
		md_text(out, rm->code, false);
	}
	if (rm->caveat) {
		fputs(" _(caveat: ", out);
		md_text(out, rm->caveat, false);
		fputs(")_", out);
	}
	fputc('\n', out);
}

/* "- **SEVERITY** TITLE `RULE`", its message and evidence: one finding,
 * at the severity it is shown at (kg_finding_shown_severity). */
static void finding(FILE *out, const kg_incident *inc, const kg_finding *f)
{
	fprintf(out, "    - **%s** ", kg_severity_name(kg_finding_shown_severity(inc, f)));
	md_text(out, f->title ? f->title : "", false);
	fputs(" ", out);
	md_code(out, f->rule ? f->rule : "?");
	if (f->message && *f->message) {
		fputs(": ", out);
		md_text(out, f->message, false);
	}
	fputc('\n', out);
	for (size_t i = 0; i < f->nevidence; i++) {
		fputs("      - = ", out);
		md_text(out, f->evidence[i], false);
		fputc('\n', out);
	}
}

/* The remedies of f not listed yet in t, as list items. */
static void more_remedies(FILE *out, const kg_finding *f, kg_titles *t, bool *head)
{
	for (size_t i = 0; f && i < f->nremedies; i++) {
		const kg_remedy *rm = &f->remedies[i];
		if (!kg_title_new(t, rm->title))
			continue;
		if (!*head)
			fputs("- **Remedies** (the action first)\n", out);
		*head = true;
		remedy(out, rm);
	}
}

/* One incident, one section: the verdict in its heading, the message, the
 * one action, the cause's evidence, the differential, the remedies for
 * the cause in full (the action's first, with its settings as code and
 * its caveat), then every finding at the severity it is shown at. */
static void incident(FILE *out, const kg_incident *inc)
{
	char verdict[96];
	fprintf(out, "### Incident %d — ", inc->id);
	location(out, inc, false);
	fprintf(out, " — %s: %s\n\n", kg_severity_name(kg_incident_severity(inc)),
		kg_incident_verdict(inc, verdict, sizeof verdict));
	if (inc->message && *inc->message)
		md_fence(out, "text", inc->message);
	const kg_finding *cf = kg_incident_cause_finding(inc), *af = kg_incident_action_finding(inc);
	kg_titles t = {0};
	if (af && af->nremedies) {
		char *act = kg_remedy_instruction(&af->remedies[0]);
		fputs("**What to do:** ", out);
		md_text(out, act, false);
		fputs("\n\n", out);
		free(act);
	}
	for (size_t i = 0; cf && i < cf->nevidence; i++) {
		fputs("- = ", out);
		md_text(out, cf->evidence[i], false);
		fputc('\n', out);
	}
	char *d = kg_differential_text(inc, NULL);
	if (d) {
		fputs("- differential: ", out);
		md_text(out, d, false);
		fputc('\n', out);
		free(d);
	}
	bool head = false;
	more_remedies(out, af, &t, &head);
	for (size_t k = 0; inc->cause && k < inc->nfindings; k++)
		if (&inc->findings[k] != af && kg_finding_supports(&inc->findings[k], inc->cause))
			more_remedies(out, &inc->findings[k], &t, &head);
	if (inc->nfindings)
		fputs("- **Findings**\n", out);
	for (size_t k = 0; k < inc->nfindings; k++)
		finding(out, inc, &inc->findings[k]);
	for (size_t i = 0; i < inc->nfollowups; i++) {
		fprintf(out, "- followed by %s at line %ld (a consequence, not a cause): ",
			inc->followups[i].kind, inc->followups[i].line);
		md_code(out, inc->followups[i].text ? inc->followups[i].text : "");
		fputc('\n', out);
	}
	if (inc->duplicates > 0)
		fprintf(out, "- the same message was printed %d more time%s\n", inc->duplicates,
			inc->duplicates == 1 ? "" : "s");
	fputc('\n', out);
}

void kg_report_markdown(const kg_report *r, FILE *out)
{
	int e, w, in;
	kg_report_counts(r, &e, &w, &in);
	fprintf(out, "## kgmem-diagnose: %zu OOM incident%s — %d error%s, %d warning%s, %d info%s\n\n",
		r->nincidents, r->nincidents == 1 ? "" : "s", e, e == 1 ? "" : "s",
		w, w == 1 ? "" : "s", in, in == 1 ? "" : "s");
	if (r->ninputs) {
		fputs("Inputs:", out);
		for (size_t i = 0; i < r->ninputs; i++) {
			fputs(i ? ", " : " ", out);
			md_code(out, r->inputs[i].name ? r->inputs[i].name : "?");
			if (r->inputs[i].kind)
				fprintf(out, " (%s)", r->inputs[i].kind);
		}
		fputs("\n\n", out);
	}
	if (r->nincidents == 0)
		fputs("No out-of-memory incident found.\n\n", out);
	else
		table(out, r);
	if (r->root_cause_rank != KG_NONE)
		fprintf(out, "torchelastic names rank %lld as the root cause (first observed failure).\n\n",
			(long long)r->root_cause_rank);
	else if (r->first_failed_rank != KG_NONE)
		fprintf(out, "The earliest failure with a known rank is on rank %lld.\n\n",
			(long long)r->first_failed_rank);

	for (size_t i = 0; i < r->nincidents; i++)
		incident(out, &r->incidents[i]);

	if (r->npatches) {
		fputs("### Suggested config changes\n\n", out);
		for (size_t i = 0; i < r->npatches; i++) {
			md_code(out, r->patches[i].path);
			fputs(":\n\n", out);
			md_fence(out, "diff", r->patches[i].diff);
		}
	}
	if (r->nnotes) {
		fputs("### Notes on the input\n\n", out);
		for (size_t i = 0; i < r->nnotes; i++) {
			fputs("- ", out);
			md_text(out, r->notes[i], false);
			fputc('\n', out);
		}
		fputc('\n', out);
	}
}

/* test_rules_cases.c FILE.test... — the rule cases as data (tests/rules/,
 * format in tests/rules/README.md): facts in (as `--set NAME=VALUE`), the
 * rules that must fire, their findings and the incident's cause out, on
 * the shipped rule set ($KG_RULES, default rules/). One TAP line per
 * expected line, plus one per case that the findings are most severe
 * first. */
#include "model/facts.h"
#include "model/incident.h"
#include "diagnose/calcfacts.h"
#include "diagnose/rules.h"
#include "diagnose/differential.h"
#include "tap.h"
#include "cases.h"
#include "model/util.h"


static kg_ruleset *RS;

static const kg_finding *finding(const kg_incident *inc, const char *rule)
{
	for (size_t i = 0; i < inc->nfindings; i++)
		if (!strcmp(inc->findings[i].rule, rule))
			return &inc->findings[i];
	return NULL;
}

/* A finding of category cat that is evidence for it or advice (a
 * refutation does not count). */
static bool has_category(const kg_incident *inc, const char *cat)
{
	for (size_t i = 0; i < inc->nfindings; i++)
		if (!strcmp(inc->findings[i].category, cat) && !inc->findings[i].refutes)
			return true;
	return false;
}

/* Every remedy of every finding as text: titles, env values, set values,
 * code and caveats, one a line. */
static void all_remedies(const kg_incident *inc, kg_buf *b)
{
	for (size_t i = 0; i < inc->nfindings; i++)
		for (size_t k = 0; k < inc->findings[i].nremedies; k++) {
			const kg_remedy *r = &inc->findings[i].remedies[k];
			kg_buf_printf(b, "%s\n", r->title ? r->title : "");
			for (size_t e = 0; e < r->nenv; e++)
				kg_buf_printf(b, "%s=%s\n", r->env_names[e], r->env_values[e]);
			for (size_t s = 0; s < r->nset; s++)
				kg_buf_printf(b, "%s=%s\n", r->set_roles[s], r->set_values[s]);
			kg_buf_printf(b, "%s\n%s\n", r->code ? r->code : "", r->caveat ? r->caveat : "");
		}
}

/* The value of "ID FIELD" of finding f into b; false for an unknown field. */
static bool finding_field(const kg_finding *f, const char *field, kg_buf *b)
{
	size_t i;
	char rest[128];
	if (!strcmp(field, "severity"))
		kg_buf_puts(b, kg_severity_name(f->severity));
	else if (!strcmp(field, "supports"))
		kg_buf_puts(b, f->supports && !f->refutes ? f->supports : "null");
	else if (!strcmp(field, "refutes"))
		kg_buf_puts(b, f->supports && f->refutes ? f->supports : "null");
	else if (!strcmp(field, "strength"))
		kg_buf_puts(b, f->strength ? kg_strength_name(f->strength) : "null");
	else if (!strcmp(field, "category"))
		kg_buf_puts(b, f->category);
	else if (!strcmp(field, "title"))
		kg_buf_puts(b, f->title ? f->title : "null");
	else if (!strcmp(field, "message"))
		kg_buf_puts(b, f->message ? f->message : "null");
	else if (!strcmp(field, "evidence"))
		for (i = 0; i < f->nevidence; i++)
			kg_buf_printf(b, "%s\n", f->evidence[i]);
	else if (!strcmp(field, "evidence.length"))
		kg_buf_printf(b, "%zu", f->nevidence);
	else if (sscanf(field, "evidence[%zu]", &i) == 1)
		kg_buf_puts(b, i < f->nevidence ? f->evidence[i] : "(no such line)");
	else if (!strcmp(field, "remedies.length"))
		kg_buf_printf(b, "%zu", f->nremedies);
	else if (!strcmp(field, "remedies.caveat"))
		for (i = 0; i < f->nremedies; i++)
			kg_buf_printf(b, "%s\n", f->remedies[i].caveat ? f->remedies[i].caveat : "");
	else if (sscanf(field, "remedies[%zu].%127s", &i, rest) == 2) {
		const kg_remedy *r = i < f->nremedies ? &f->remedies[i] : NULL;
		if (!r)
			kg_buf_puts(b, "(no such remedy)");
		else if (!strcmp(rest, "env")) /* the value of its first variable */
			kg_buf_puts(b, r->nenv ? r->env_values[0] : "null");
		else if (!strcmp(rest, "env.length"))
			kg_buf_printf(b, "%zu", r->nenv);
		else if (!strcmp(rest, "caveat"))
			kg_buf_puts(b, r->caveat ? r->caveat : "null");
		else if (!strcmp(rest, "title"))
			kg_buf_puts(b, r->title ? r->title : "null");
		else if (!strcmp(rest, "instruction")) { /* the text report's help: line */
			char *act = kg_remedy_instruction(r);
			kg_buf_puts(b, act);
			free(act);
		} else
			return false;
	} else if (!strncmp(field, "set.", 4)) {
		const char *v = NULL;
		for (size_t k = 0; k < f->nremedies; k++)
			for (size_t s = 0; s < f->remedies[k].nset; s++)
				if (!v && !strcmp(f->remedies[k].set_roles[s], field + 4))
					v = f->remedies[k].set_values[s];
		kg_buf_puts(b, v ? v : "null");
	} else
		return false;
	return true;
}

/* One expectation line: KEY: VALUE (equal), KEY ~ TEXT (contains) or
 * KEY !~ TEXT (does not contain). */
static void expect(const kg_incident *inc, const char *where, const char *title, const char *line)
{
	const char *op, *p;
	size_t klen;
	if ((p = strstr(line, " !~ ")))
		op = "!~", klen = (size_t)(p - line), p += 4;
	else if ((p = strstr(line, " ~ ")))
		op = "~", klen = (size_t)(p - line), p += 3;
	else if ((p = strstr(line, ": ")))
		op = ":", klen = (size_t)(p - line), p += 2;
	else {
		TAP_OK(0, "%s: expected 'KEY: VALUE', 'KEY ~ TEXT' or 'KEY !~ TEXT', got '%s'", where, line);
		return;
	}
	char *key = kg_strndup(line, klen);
	const char *want = p;
	kg_buf got = {0};
	bool known = true;
	if (!strcmp(key, "fires")) {
		TAP_OK(finding(inc, want) != NULL, "%s: %s: %s fires", where, title, want);
		goto out;
	} else if (!strcmp(key, "silent")) {
		TAP_OK(finding(inc, want) == NULL, "%s: %s: %s stays silent", where, title, want);
		goto out;
	} else if (!strcmp(key, "category")) {
		TAP_OK(has_category(inc, want), "%s: %s: a finding of category %s", where, title, want);
		goto out;
	} else if (!strcmp(key, "no category")) {
		TAP_OK(!has_category(inc, want), "%s: %s: no finding of category %s", where, title, want);
		goto out;
	} else if (!strcmp(key, "cause")) {
		kg_buf_puts(&got, inc->cause ? inc->cause : "null");
	} else if (!strcmp(key, "confidence")) {
		kg_buf_puts(&got, inc->confidence ? inc->confidence : "null");
	} else if (!strcmp(key, "differential")) {
		/* "cause p, cause p, …" (p as the text report prints it; ruled
		 * out: "cause out") */
		for (size_t i = 0; i < inc->ndifferential; i++) {
			const kg_hypothesis *h = &inc->differential[i];
			if (h->ruled_out)
				kg_buf_printf(&got, "%s%s out", i ? ", " : "", h->cause);
			else
			{
				char pb[16];
				kg_buf_printf(&got, "%s%s %s", i ? ", " : "", h->cause,
					      kg_prob_format(h->p, pb, sizeof pb));
			}
		}
	} else if (!strcmp(key, "first")) {
		kg_buf_puts(&got, inc->nfindings ? inc->findings[0].rule : "null");
	} else if (!strcmp(key, "findings")) {
		kg_buf_printf(&got, "%zu", inc->nfindings);
	} else if (!strcmp(key, "remedies")) {
		all_remedies(inc, &got);
	} else {
		const char *sp = strchr(key, ' ');
		char *id = sp ? kg_strndup(key, (size_t)(sp - key)) : NULL;
		const kg_finding *f = id ? finding(inc, id) : NULL;
		if (!id)
			known = false;
		else if (!f)
			kg_buf_printf(&got, "(no finding %s)", id);
		else
			known = finding_field(f, sp + 1, &got);
		free(id);
	}
	if (!known) {
		TAP_OK(0, "%s: unknown key '%s'", where, key);
	} else {
		const char *g = got.data ? got.data : "";
		if (!strcmp(op, ":"))
			TAP_EQ_STR(g, want, "%s: %s: %s", where, title, key);
		else {
			bool has = strstr(g, want) != NULL;
			TAP_OK(has == (op[0] == '~'), "%s: %s: %s %s '%s'", where, title, key, op, want);
			if (has != (op[0] == '~'))
				printf("#   got \"%s\"\n", g);
		}
	}
out:
	kg_buf_free(&got);
	free(key);
}

/* "\n" in a fact value is a newline (frames.code joins lines). */
static char *unescape(const char *s)
{
	kg_buf b = {0};
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] == 'n') {
			kg_buf_putc(&b, '\n');
			s++;
		} else {
			kg_buf_putc(&b, *s);
		}
	}
	kg_buf_putc(&b, '\0');
	return kg_buf_steal(&b);
}

static void run(const tc_case *c)
{
	kg_incident inc;
	kg_incident_init(&inc);
	kg_facts facts = {0};
	char where[256];
	bool facts_ok = true;
	for (size_t i = 0; i < c->nin; i++) {
		kg_error err = {0};
		char *v = unescape(c->in[i]);
		if (kg_facts_set_arg(&facts, v, &err) < 0) {
			printf("# %s:%ld: %s\n", c->file, c->line, err.msg);
			facts_ok = false;
		}
		free(v);
	}
	TAP_OK(facts_ok, "%s:%ld: %s: the facts are accepted", c->file, c->line, c->title);
	/* the closed forms and the estimator, as a run evaluates them */
	kg_calc_facts(&facts);
	kg_rules_apply(RS, &inc, &facts);
	for (size_t i = 0; i < inc.nfindings; i++)
		printf("#   finding %s (%s, %s)\n", inc.findings[i].rule, inc.findings[i].category,
		       kg_severity_name(inc.findings[i].severity));
	for (size_t i = 0; i < c->nout; i++) {
		snprintf(where, sizeof where, "%s:%ld", c->file, c->out_lines[i]);
		expect(&inc, where, c->title, c->out[i]);
	}
	/* the cause's evidence first, then most severe first */
	bool sorted = true;
	for (size_t i = 1; i < inc.nfindings; i++) {
		const kg_finding *a = &inc.findings[i - 1], *b = &inc.findings[i];
		bool ca = inc.cause && a->supports == inc.cause && !a->refutes;
		bool cb = inc.cause && b->supports == inc.cause && !b->refutes;
		sorted &= ca > cb || (ca == cb && a->severity >= b->severity);
	}
	TAP_OK(sorted, "%s:%ld: %s: findings in order (the cause's evidence, then most severe first)",
	       c->file, c->line, c->title);
	kg_incident_free(&inc);
	kg_facts_free(&facts);
}

int main(int argc, char **argv)
{
	const char *rd = getenv("KG_RULES");
	const char *dirs[] = {rd ? rd : "rules"};
	kg_error err = {0};
	RS = kg_rules_load(dirs, 1, &err);
	TAP_OK(RS != NULL, "shipped rules load: %s", err.msg);
	if (!RS)
		return tap_done();
	tc_run_files(argc, argv, false, run);
	kg_rules_free(RS);
	return tap_done();
}

/* test_rules.c — the rules engine's API on files: the checker on bad rule
 * files (testdata/rules-bad/) and --rules overrides (testdata/rules-extra/).
 * The rule cases themselves (facts in, the rules that fire and the cause
 * out) are data: the .test files in tests/rules/, run by
 * test_rules_cases.c. */
#include "diagnose/rules.h"
#include "tap.h"
#include "model/util.h"

#include <stdlib.h>

static kg_ruleset *RS;
static char TD[1024], RULES[1024];

static char *check_output(const char *name)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/rules-bad/%s", TD, name);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	const char *paths[] = {path};
	int n = kg_rules_check(paths, 1, m);
	fclose(m);
	/* strip the directory from every line so the expectation is stable */
	char pre[1100];
	snprintf(pre, sizeof pre, "%s/", TD);
	kg_buf o = {0};
	kg_buf_puts(&o, "");
	for (const char *p = buf, *q; *p; p = q) {
		q = strstr(p, pre);
		if (!q) {
			kg_buf_puts(&o, p);
			break;
		}
		kg_buf_append(&o, p, (size_t)(q - p));
		q += strlen(pre);
	}
	free(buf);
	char *out = kg_buf_steal(&o);
	if (n != 1)
		printf("# %d problems\n", n);
	return out;
}

static void bad_rules(void)
{
	static const struct { const char *file, *want; } cases[] = {
		{"unknown-fact.yaml", "rules-bad/unknown-fact.yaml:5:37: when: unknown fact 'oom.requsted' (see 'kgmem-diagnose rules facts')\n"},
		{"yaml-syntax.yaml", "rules-bad/yaml-syntax.yaml:6:12: YAML syntax: mapping values are not allowed in this context\n"},
		{"expr-syntax.yaml", "rules-bad/expr-syntax.yaml:5:52: when: expected ')' to close the '(' opened 43 bytes earlier\n"},
		{"bad-regex.yaml", "rules-bad/bad-regex.yaml:5:47: when: bad regex: missing closing parenthesis\n"},
		{"unreachable-remedy.yaml", "rules-bad/unreachable-remedy.yaml:8:7: unreachable remedy: it has none of env, set or code, so it can never tell the user what to do\n"},
		{"never-fires.yaml", "rules-bad/never-fires.yaml:5:9: when: condition reads no fact and is never true: the rule can never fire\n"},
		{"template-fact.yaml", "rules-bad/template-fact.yaml:6:40: message: unknown fact 'oom.frees' (see 'kgmem-diagnose rules facts')\n"},
		{"remedy-when.yaml", "rules-bad/remedy-when.yaml:9:50: when: unknown fact 'oom.frees' (see 'kgmem-diagnose rules facts')\n"},
		/* issue 34 (N12): a repeated key is refused, not merged (two
		 * messages were run together); a template's error frees it */
		{"repeated-key.yaml", "rules-bad/repeated-key.yaml:7:3: duplicate key 'when' (first at line 5): give each key once\n"
				      "rules-bad/repeated-key.yaml:8:3: duplicate key 'message' (first at line 6): give each key once\n"},
		{"repeated-env.yaml", "rules-bad/repeated-env.yaml:11:9: duplicate key 'PYTORCH_CUDA_ALLOC_CONF' (first at line 10): give each key once\n"},
		{"template-brace.yaml", "rules-bad/template-brace.yaml:7:36: evidence: unmatched '}' (write '}}' for a literal brace)\n"},
		{"template-env.yaml", "rules-bad/template-env.yaml:10:79: env value: unknown fact 'oom.frees' (see 'kgmem-diagnose rules facts')\n"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *got = check_output(cases[i].file);
		TAP_EQ_STR(got, cases[i].want, "rules check rejects %s with file:line:col", cases[i].file);
		free(got);
	}
	const char *shipped[] = {RULES};
	TAP_EQ_I64(kg_rules_check(shipped, 1, stdout), 0, "the shipped rules pass rules check");
	kg_error err = {0};
	char bad[1200];
	snprintf(bad, sizeof bad, "%s/rules-bad", TD);
	const char *dirs[] = {bad};
	TAP_OK(kg_rules_load(dirs, 1, &err) == NULL && strstr(err.msg, "rules-bad/"),
	       "kg_rules_load fails with a located error: %s", err.msg);
}

static void overrides(void)
{
	char extra[1200];
	snprintf(extra, sizeof extra, "%s/rules-extra", TD);
	const char *dirs[] = {RULES, extra};
	kg_error err = {0};
	kg_ruleset *rs = kg_rules_load(dirs, 2, &err);
	TAP_OK(rs != NULL, "shipped + extra load: %s", err.msg);
	if (!rs)
		return;
	TAP_EQ_I64(kg_rules_count(rs), kg_rules_count(RS) + 1, "same id replaces, a new id adds");
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	TAP_EQ_I64(kg_rules_show(rs, "cascade.after-oom", m), 0, "show finds the rule");
	fclose(m);
	TAP_OK(strstr(buf, "Replaced cascade rule") && strstr(buf, "rules-extra/override.yaml:2"),
	       "the replacement, with its file:line");
	free(buf);
	kg_rules_free(rs);
}

int main(void)
{
	const char *td = getenv("KG_TESTDATA"), *rd = getenv("KG_RULES");
	snprintf(TD, sizeof TD, "%s", td ? td : "testdata");
	snprintf(RULES, sizeof RULES, "%s", rd ? rd : "rules");
	kg_error err = {0};
	const char *dirs[] = {RULES};
	RS = kg_rules_load(dirs, 1, &err);
	TAP_OK(RS != NULL, "shipped rules load: %s", err.msg);
	if (!RS)
		return tap_done();
	bad_rules();
	overrides();
	kg_rules_free(RS);
	return tap_done();
}

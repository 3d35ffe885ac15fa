/* test_rules.c — the rules engine's API on files: the checker on bad rule
 * files (testdata/rules-bad/) and --rules overrides (testdata/rules-extra/).
 * The rule cases themselves (facts in, the rules that fire and the cause
 * out) are data: the .test files in tests/rules/, run by
 * test_rules_cases.c. */
#include "diagnose/rules.h"
#include "read/rulesimage.h"
#include "tap.h"
#include "model/util.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

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
		{"remedy-kind.yaml", "rules-bad/remedy-kind.yaml:6:30: rules_out: 'bigger-batch' is not a kind of remedy "
				     "(smaller-batch, grad-accum, activation-checkpointing, allocator)\n"},
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

/* Whether two documents are the same tree: types, values, styles, marks. */
static bool same_doc(yaml_document_t *a, yaml_document_t *b, char *why, size_t n)
{
	size_t na = (size_t)(a->nodes.top - a->nodes.start), nb = (size_t)(b->nodes.top - b->nodes.start);
	if (na != nb) {
		snprintf(why, n, "%zu nodes, %zu parsed", na, nb);
		return false;
	}
	for (size_t i = 0; i < na; i++) {
		yaml_node_t *x = a->nodes.start + i, *y = b->nodes.start + i;
		bool ok = x->type == y->type && x->start_mark.line == y->start_mark.line &&
			  x->start_mark.column == y->start_mark.column && x->start_mark.index == y->start_mark.index &&
			  x->end_mark.index == y->end_mark.index && !strcmp((char *)x->tag, (char *)y->tag);
		if (ok && x->type == YAML_SCALAR_NODE)
			ok = x->data.scalar.length == y->data.scalar.length &&
			     !memcmp(x->data.scalar.value, y->data.scalar.value, x->data.scalar.length) &&
			     x->data.scalar.style == y->data.scalar.style;
		else if (ok && x->type == YAML_SEQUENCE_NODE)
			ok = x->data.sequence.items.top - x->data.sequence.items.start ==
				     y->data.sequence.items.top - y->data.sequence.items.start &&
			     !memcmp(x->data.sequence.items.start, y->data.sequence.items.start,
				     (size_t)(x->data.sequence.items.top - x->data.sequence.items.start) * sizeof(int));
		else if (ok)
			ok = x->data.mapping.pairs.top - x->data.mapping.pairs.start ==
				     y->data.mapping.pairs.top - y->data.mapping.pairs.start &&
			     !memcmp(x->data.mapping.pairs.start, y->data.mapping.pairs.start,
				     (size_t)(x->data.mapping.pairs.top - x->data.mapping.pairs.start) *
					     sizeof(yaml_node_pair_t));
		if (!ok) {
			snprintf(why, n, "node %zu (line %zu) differs", i + 1, (size_t)y->start_mark.line + 1);
			return false;
		}
	}
	return true;
}

/* The build's image of the shipped rule files and registries
 * (rulesimage.h): every YAML file of rules/ is in it, its document is the one libyaml parses, and a
 * file differing by one byte is not taken from it. */
static void image(void)
{
	DIR *d = opendir(RULES);
	TAP_OK(d != NULL, "open %s", RULES);
	if (!d)
		return;
	struct dirent *e;
	int files = 0;
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);
		if (l < 6 || strcmp(e->d_name + l - 5, ".yaml"))
			continue;
		char path[1400];
		snprintf(path, sizeof path, "%s/%s", RULES, e->d_name);
		FILE *f = fopen(path, "rb");
		kg_buf b = {0};
		char chunk[65536];
		size_t got;
		while (f && (got = fread(chunk, 1, sizeof chunk, f)) > 0)
			kg_buf_append(&b, chunk, got);
		if (f)
			fclose(f);
		files++;
		yaml_document_t img, parsed;
		bool have = kg_rules_image_doc(path, b.data, b.len, &img);
		TAP_OK(have, "%s: in the build's image (meson.build's rule_files)", e->d_name);
		yaml_parser_t p;
		yaml_parser_initialize(&p);
		yaml_parser_set_input_string(&p, (const unsigned char *)b.data, b.len);
		bool parsed_ok = yaml_parser_load(&p, &parsed);
		char why[200] = "";
		if (have && parsed_ok)
			TAP_OK(same_doc(&img, &parsed, why, sizeof why), "%s: the image's document is the parsed one: %s",
			       e->d_name, why);
		if (have)
			kg_rules_image_free(&img);
		if (parsed_ok)
			yaml_document_delete(&parsed);
		yaml_parser_delete(&p);
		/* one byte changed: parsed, not imaged */
		b.data[b.len / 2] ^= 1;
		TAP_OK(!kg_rules_image_doc(path, b.data, b.len, &img), "%s with one byte changed: not from the image",
		       e->d_name);
		kg_buf_free(&b);
	}
	closedir(d);
	TAP_OK((size_t)files == kg_rules_image_count(), "%d YAML files in rules/, %zu in the image", files,
	       kg_rules_image_count());
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
	image();
	kg_rules_free(RS);
	return tap_done();
}

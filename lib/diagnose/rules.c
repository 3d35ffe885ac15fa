/* rules.c — see include/diagnose/rules.h. YAML is read with libyaml's document API
 * so every node keeps its start mark (line, column, byte index) for
 * FILE:LINE:COL errors. */
#include "diagnose/rules.h"
#include "diagnose/differential.h"
#include "diagnose/expr.h"
#include "read/rulesimage.h"
#include "kg_build.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>
#include <limits.h>
#include <sys/stat.h>
#include <yaml.h>

#define MAX_RULE_FILE (4 * 1024 * 1024)

/* ---- templates --------------------------------------------------------- */

typedef struct tpart {
	char *lit;       /* literal text, or NULL for an expression */
	kg_expr *e;
} tpart;

typedef struct tpl {
	char *src;       /* as written, NULL when absent */
	tpart *parts;
	size_t nparts;
} tpl;

typedef struct remedy {
	tpl title, code, caveat;
	char *when_src;          /* optional: the remedy is offered only when true */
	kg_expr *when;
	char **env_names;
	tpl *env_values;
	size_t nenv;
	char **roles;
	tpl *set_values;
	size_t nset;
	unsigned kinds;          /* `kind`: what it changes (remedy.def mask) */
} remedy;

typedef struct rule {
	char *id;
	tpl title;
	const char *category;    /* static, a word of kg_categories */
	int cat_rank;
	enum kg_severity severity;
	char *when_src;
	kg_expr *when;
	tpl message;
	tpl *evidence;
	size_t nevidence;
	remedy *remedies;
	size_t nremedies;
	bool fallback;
	const char *supports;    /* static cause word (differential.h), or NULL */
	bool refutes;
	bool refines;            /* `refines: capacity` */
	unsigned rules_out;      /* `rules_out`: remedy kinds it says cannot help */
	enum kg_strength strength;
	char *file;
	long line;
	size_t seq;              /* load order */
} rule;

struct kg_ruleset {
	rule **rules;
	size_t n;
	double prior[KG_NCATEGORIES];  /* priors.yaml, per cause */
	bool have_prior;
};

static void tpl_free(tpl *t)
{
	for (size_t i = 0; i < t->nparts; i++) {
		free(t->parts[i].lit);
		kg_expr_free(t->parts[i].e);
	}
	free(t->parts);
	free(t->src);
	memset(t, 0, sizeof *t);
}

static void remedy_free(remedy *r)
{
	tpl_free(&r->title);
	tpl_free(&r->code);
	tpl_free(&r->caveat);
	free(r->when_src);
	kg_expr_free(r->when);
	for (size_t i = 0; i < r->nenv; i++) {
		free(r->env_names[i]);
		tpl_free(&r->env_values[i]);
	}
	free(r->env_names);
	free(r->env_values);
	for (size_t i = 0; i < r->nset; i++) {
		free(r->roles[i]);
		tpl_free(&r->set_values[i]);
	}
	free(r->roles);
	free(r->set_values);
}

static void rule_free(rule *r)
{
	if (!r)
		return;
	free(r->id);
	tpl_free(&r->title);
	free(r->when_src);
	kg_expr_free(r->when);
	tpl_free(&r->message);
	for (size_t i = 0; i < r->nevidence; i++)
		tpl_free(&r->evidence[i]);
	free(r->evidence);
	for (size_t i = 0; i < r->nremedies; i++)
		remedy_free(&r->remedies[i]);
	free(r->remedies);
	free(r->file);
	free(r);
}

void kg_rules_free(kg_ruleset *rs)
{
	if (!rs)
		return;
	for (size_t i = 0; i < rs->n; i++)
		rule_free(rs->rules[i]);
	free(rs->rules);
	free(rs);
}

size_t kg_rules_count(const kg_ruleset *rs)
{
	return rs ? rs->n : 0;
}

/* ---- loader state and errors ------------------------------------------ */

typedef struct loader {
	FILE *errs;              /* kg_rules_check: every error printed here */
	kg_error *err;           /* kg_rules_load: the first error */
	int nerr;
	const char *file;
	const char *raw;         /* the file's bytes (for line:col mapping) */
	size_t rawlen;
	yaml_document_t *doc;
} loader;

__attribute__((format(printf, 5, 6)))
static void lerr(loader *L, const char *file, long line, long col, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (L->errs)
		fprintf(L->errs, "%s:%ld:%ld: %s\n", file, line, col, msg);
	if (L->nerr == 0 && L->err) {
		snprintf(L->err->msg, sizeof L->err->msg, "%s:%ld:%ld: %s", file, line, col, msg);
		L->err->line = 0;
		L->err->offset = -1;
	}
	L->nerr++;
}

#define NODE_ERR(L, n, ...) \
	lerr((L), (L)->file, (long)(n)->start_mark.line + 1, (long)(n)->start_mark.column + 1, __VA_ARGS__)

/* Maps a byte offset inside a scalar's value to the file's line:col. Exact
 * for plain and quoted one-line scalars and for block scalars without
 * blank lines; approximate otherwise. */
static void scalar_pos(const loader *L, const yaml_node_t *n, size_t off, long *line, long *col)
{
	size_t i = n->start_mark.index, end = n->end_mark.index;
	*line = (long)n->start_mark.line + 1;
	*col = (long)n->start_mark.column + 1;
	yaml_scalar_style_t st = n->data.scalar.style;
	if (end > L->rawlen)
		end = L->rawlen;
	if (st == YAML_SINGLE_QUOTED_SCALAR_STYLE || st == YAML_DOUBLE_QUOTED_SCALAR_STYLE) {
		i++;
		(*col)++;
	} else if (st == YAML_LITERAL_SCALAR_STYLE || st == YAML_FOLDED_SCALAR_STYLE) {
		while (i < end && L->raw[i] != '\n')
			i++;
		if (i < end) {
			i++;
			(*line)++;
			*col = 1;
			while (i < end && L->raw[i] == ' ') {
				i++;
				(*col)++;
			}
		}
	}
	size_t v = 0;
	while (v < off && i < end) {
		char c = L->raw[i];
		if (c == '\n') {
			i++;
			(*line)++;
			*col = 1;
			while (i < end && L->raw[i] == ' ') {
				i++;
				(*col)++;
			}
			v++;
			continue;
		}
		if (c == '\\' && st == YAML_DOUBLE_QUOTED_SCALAR_STYLE && i + 1 < end) {
			i += 2;
			*col += 2;
			v++;
			continue;
		}
		if (c == '\'' && st == YAML_SINGLE_QUOTED_SCALAR_STYLE && i + 1 < end && L->raw[i + 1] == '\'') {
			i += 2;
			*col += 2;
			v++;
			continue;
		}
		/* a UTF-8 continuation byte does not start a new column */
		if (((unsigned char)c & 0xC0) != 0x80)
			(*col)++;
		i++;
		v++;
	}
}

static void scalar_err(loader *L, const yaml_node_t *n, size_t off, const char *what, const char *msg)
{
	long line, col;
	scalar_pos(L, n, off, &line, &col);
	lerr(L, L->file, line, col, "%s: %s", what, msg);
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static yaml_node_t *node(loader *L, int idx)
{
	return yaml_document_get_node(L->doc, idx);
}

/* The pairs of mapping n (a rule, a remedy, its env or set, the priors)
 * that repeat an earlier key, each reported at its place: a YAML loader
 * keeps one of them, and this loader would run both together (two
 * messages concatenated, the first `when` lost). Returns a flag per pair,
 * true for a repeat (to be skipped; *bad then -1); the caller frees it. */
static bool *repeated_keys(loader *L, const yaml_node_t *n, int *bad)
{
	size_t np = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	bool *rep = kg_calloc(np ? np : 1, sizeof *rep);
	const char **keys = kg_malloc((np ? np : 1) * sizeof *keys);
	size_t *first = kg_malloc((np ? np : 1) * sizeof *first);
	for (size_t i = 0; i < np; i++)
		keys[i] = scalar(node(L, n->data.mapping.pairs.start[i].key));
	if (kg_first_equal(keys, np, first)) {
		for (size_t i = 0; i < np; i++) {
			if (first[i] == i)
				continue;
			rep[i] = true;
			*bad = -1;
			yaml_node_t *k = node(L, n->data.mapping.pairs.start[i].key);
			yaml_node_t *k0 = node(L, n->data.mapping.pairs.start[first[i]].key);
			NODE_ERR(L, k, "duplicate key '%s' (first at line %ld): give each key once", keys[i],
				 (long)k0->start_mark.line + 1);
		}
	}
	free(keys);
	free(first);
	return rep;
}

/* ---- templates ---------------------------------------------------------- */

static void tpl_lit(tpl *t, const char *s, size_t n)
{
	if (!n)
		return;
	t->parts = kg_realloc(t->parts, (t->nparts + 1) * sizeof *t->parts);
	t->parts[t->nparts++] = (tpart){kg_strndup(s, n), NULL};
}

/* Compiles text with {expr} placeholders ({{ and }} are literal braces)
 * into *t (empty before). Returns 0, or -1 after reporting the error at
 * its place, with *t left empty (nothing to free). */
static int tpl_compile(loader *L, const yaml_node_t *n, const char *what, tpl *t)
{
	const char *s = scalar(n);
	if (!s) {
		NODE_ERR(L, n, "%s must be a string", what);
		return -1;
	}
	/* rules check: an unquoted text followed by " #" on its line was cut
	 * there by a YAML comment ("(adaptdl PR #90)" became "(adaptdl PR") */
	if (L->errs && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && L->raw &&
	    n->end_mark.index < L->rawlen) {
		const char *p = L->raw + n->end_mark.index, *e = L->raw + L->rawlen;
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		if (p < e && *p == '#' && p > L->raw + n->end_mark.index) {
			NODE_ERR(L, n, "%s is cut short by a YAML comment (' #' starts one): quote the text or use '>-'",
				 what);
			return -1;
		}
	}
	t->src = kg_strdup(s);
	size_t len = strlen(s), i = 0;
	kg_buf b = {0};
	while (i < len) {
		if (s[i] == '{' && i + 1 < len && s[i + 1] == '{') {
			kg_buf_putc(&b, '{');
			i += 2;
			continue;
		}
		if (s[i] == '}' && i + 1 < len && s[i + 1] == '}') {
			kg_buf_putc(&b, '}');
			i += 2;
			continue;
		}
		if (s[i] == '}') {
			scalar_err(L, n, i, what, "unmatched '}' (write '}}' for a literal brace)");
			kg_buf_free(&b);
			tpl_free(t);
			return -1;
		}
		if (s[i] != '{') {
			/* a run of literal text up to the next brace */
			size_t j = i + strcspn(s + i, "{}");
			kg_buf_append(&b, s + i, j - i);
			i = j;
			continue;
		}
		const char *close = strchr(s + i + 1, '}');
		if (!close) {
			scalar_err(L, n, i, what, "'{' without a closing '}'");
			kg_buf_free(&b);
			tpl_free(t);
			return -1;
		}
		tpl_lit(t, b.data ? b.data : "", b.len);
		kg_buf_reset(&b);
		char *src = kg_strndup(s + i + 1, (size_t)(close - s - i - 1));
		kg_error e = {0};
		size_t off = 0;
		kg_expr *x = kg_expr_compile(src, &e, &off);
		free(src);
		if (!x) {
			scalar_err(L, n, i + 1 + off, what, e.msg);
			kg_buf_free(&b);
			tpl_free(t);
			return -1;
		}
		t->parts = kg_realloc(t->parts, (t->nparts + 1) * sizeof *t->parts);
		t->parts[t->nparts++] = (tpart){NULL, x};
		i = (size_t)(close - s) + 1;
	}
	tpl_lit(t, b.data ? b.data : "", b.len);
	kg_buf_free(&b);
	return 0;
}

/* Plain format for config values and env values: integers without
 * separators, bytes as an integer count, ratios as a decimal. */
static char *raw_format(kg_value v, char *buf, size_t n)
{
	if (v.kind == KG_VAL_NUM) {
		if (v.num == (double)(long long)v.num)
			snprintf(buf, n, "%lld", (long long)v.num);
		else
			snprintf(buf, n, "%g", v.num);
		return buf;
	}
	return kg_value_format(v, buf, n);
}

/* Renders t; NULL when a placeholder is unknown (or t is absent). */
static char *tpl_render(const tpl *t, const kg_facts *f, bool raw)
{
	if (!t->src)
		return NULL;
	kg_buf b = {0};
	kg_buf_puts(&b, "");
	for (size_t i = 0; i < t->nparts; i++) {
		if (t->parts[i].lit) {
			kg_buf_puts(&b, t->parts[i].lit);
			continue;
		}
		kg_value v = kg_expr_eval(t->parts[i].e, f);
		if (v.kind == KG_VAL_UNKNOWN) {
			kg_buf_free(&b);
			return NULL;
		}
		char tmp[512];
		kg_buf_puts(&b, raw ? raw_format(v, tmp, sizeof tmp) : kg_value_format(v, tmp, sizeof tmp));
	}
	return kg_buf_steal(&b);
}

/* ---- parsing one rule ---------------------------------------------------- */

static bool name_ok(const char *s, bool upper)
{
	if (!*s)
		return false;
	for (const char *p = s; *p; p++) {
		char c = *p;
		bool ok = upper ? ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')
				: ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
				   c == '.' || c == '-');
		if (!ok)
			return false;
	}
	return true;
}

/* Compiles the `when` expression of a rule or a remedy (scalar v) into
 * *e, keeping its text in *src. Returns 0, or -1 with the error located
 * at its line:col. */
static int when_compile(loader *L, yaml_node_t *v, kg_expr **e, char **src)
{
	const char *val = scalar(v);
	*src = kg_strdup(val);
	kg_error err = {0};
	size_t off = 0;
	*e = kg_expr_compile(val, &err, &off);
	if (!*e) {
		scalar_err(L, v, off, "when", err.msg);
		return -1;
	}
	return 0;
}

/* A remedy's `kind` or a rule's `rules_out`: one word of kg_remedy_kinds
 * or a list of them (remedy.def), as a mask. Returns 0, or -1 after
 * reporting the error. */
static int parse_kinds(loader *L, yaml_node_t *v, const char *key, unsigned *mask)
{
	yaml_node_item_t one = 0, *start = &one, *top = &one + 1;
	if (v->type == YAML_SEQUENCE_NODE) {
		start = v->data.sequence.items.start;
		top = v->data.sequence.items.top;
	} else {
		one = (yaml_node_item_t)(v - L->doc->nodes.start) + 1;
	}
	int bad = 0;
	for (yaml_node_item_t *it = start; it < top; it++) {
		yaml_node_t *w = node(L, *it);
		int i = kg_vocab_index(&kg_remedy_kinds, scalar(w));
		if (i < 0) {
			char *all = kg_vocab_join(&kg_remedy_kinds, 0, ", ");
			NODE_ERR(L, w, "%s: '%s' is not a kind of remedy (%s)", key,
				 scalar(w) ? scalar(w) : "?", all);
			free(all);
			bad = -1;
			continue;
		}
		*mask |= 1u << i;
	}
	return bad;
}

static int parse_remedy(loader *L, yaml_node_t *n, remedy *r)
{
	if (n->type != YAML_MAPPING_NODE) {
		NODE_ERR(L, n, "a remedy must be a mapping (title, when, kind, env, set, code, caveat)");
		return -1;
	}
	int bad = 0;
	bool has_title = false;
	bool *rep = repeated_keys(L, n, &bad);
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(L, p->key), *v = node(L, p->value);
		const char *key = scalar(k);
		if (rep[p - n->data.mapping.pairs.start])
			continue;
		if (!key) {
			NODE_ERR(L, k, "remedy keys must be strings");
			bad = -1;
			continue;
		}
		if (!strcmp(key, "title")) {
			has_title = true;
			bad |= tpl_compile(L, v, "remedy title", &r->title);
		} else if (!strcmp(key, "code")) {
			bad |= tpl_compile(L, v, "remedy code", &r->code);
		} else if (!strcmp(key, "caveat")) {
			bad |= tpl_compile(L, v, "remedy caveat", &r->caveat);
		} else if (!strcmp(key, "kind")) {
			bad |= parse_kinds(L, v, "kind", &r->kinds);
		} else if (!strcmp(key, "when")) {
			if (!scalar(v)) {
				NODE_ERR(L, v, "a remedy's when must be an expression string");
				bad = -1;
				continue;
			}
			bad |= when_compile(L, v, &r->when, &r->when_src);
		} else if (!strcmp(key, "env") || !strcmp(key, "set")) {
			bool env = key[0] == 'e';
			if (v->type != YAML_MAPPING_NODE) {
				NODE_ERR(L, v, "%s must be a mapping of %s to values", key,
					 env ? "variable names" : "config roles");
				bad = -1;
				continue;
			}
			bool *vrep = repeated_keys(L, v, &bad);
			for (yaml_node_pair_t *q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++) {
				yaml_node_t *kk = node(L, q->key), *vv = node(L, q->value);
				const char *name = scalar(kk);
				if (vrep[q - v->data.mapping.pairs.start])
					continue;
				if (!name || !name_ok(name, env) || (!env && strchr(name, '.'))) {
					NODE_ERR(L, kk, env ? "env: '%s' is not an environment variable name"
							    : "set: '%s' is not a config role (lower_case, e.g. eval_batch_size)",
						 name ? name : "?");
					bad = -1;
					continue;
				}
				tpl t = {0};
				if (tpl_compile(L, vv, env ? "env value" : "set value", &t) < 0) {
					bad = -1;
					continue;
				}
				if (env) {
					r->env_names = kg_realloc(r->env_names, (r->nenv + 1) * sizeof *r->env_names);
					r->env_values = kg_realloc(r->env_values, (r->nenv + 1) * sizeof *r->env_values);
					r->env_names[r->nenv] = kg_strdup(name);
					r->env_values[r->nenv++] = t;
				} else {
					r->roles = kg_realloc(r->roles, (r->nset + 1) * sizeof *r->roles);
					r->set_values = kg_realloc(r->set_values, (r->nset + 1) * sizeof *r->set_values);
					r->roles[r->nset] = kg_strdup(name);
					r->set_values[r->nset++] = t;
				}
			}
			free(vrep);
		} else {
			NODE_ERR(L, k, "unknown remedy key '%s' (title, when, kind, env, set, code, caveat)", key);
			bad = -1;
		}
	}
	free(rep);
	if (!has_title) {
		NODE_ERR(L, n, "remedy without a title");
		bad = -1;
	}
	if (!bad && !r->nenv && !r->nset && !r->code.src) {
		NODE_ERR(L, n, "unreachable remedy: it has none of env, set or code, so it can never tell the user what to do");
		bad = -1;
	}
	return bad ? -1 : 0;
}

static int parse_rule(loader *L, yaml_node_t *n, rule *r)
{
	if (n->type != YAML_MAPPING_NODE) {
		NODE_ERR(L, n, "a rule must be a mapping (id, title, category, severity, when, message, …)");
		return -1;
	}
	int bad = 0;
	yaml_node_t *when = NULL, *idn = NULL, *catn = NULL, *hypn = NULL, *strn = NULL;
	yaml_node_t *titlen = NULL, *msgn = NULL;
	bool *rep = repeated_keys(L, n, &bad);
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(L, p->key), *v = node(L, p->value);
		const char *key = scalar(k), *val = scalar(v);
		if (rep[p - n->data.mapping.pairs.start])
			continue;
		if (!key) {
			NODE_ERR(L, k, "rule keys must be strings");
			bad = -1;
			continue;
		}
		if (!strcmp(key, "id")) {
			idn = v;
			if (!val || !name_ok(val, false) || !strchr(val, '.')) {
				NODE_ERR(L, v, "id must be lower-case and dotted, e.g. fragmentation.reserved-unallocated");
				bad = -1;
			} else {
				r->id = kg_strdup(val);
			}
		} else if (!strcmp(key, "title")) {
			titlen = v;
			bad |= tpl_compile(L, v, "title", &r->title);
		} else if (!strcmp(key, "category")) {
			catn = v;
			/* the category order (vocab/category.def) is the rule order */
			int c = kg_vocab_index(&kg_categories, val);
			if (c >= 0) {
				r->category = kg_categories.words[c];
				r->cat_rank = c;
			}
			if (!r->category) {
				char *all = kg_vocab_join(&kg_categories, 0, ", ");
				NODE_ERR(L, v, "unknown category '%s' (%s)", val ? val : "?", all);
				free(all);
				bad = -1;
			}
		} else if (!strcmp(key, "severity")) {
			int s = kg_vocab_index(&kg_severities, val);
			if (s > KG_SEV_NONE)
				r->severity = (enum kg_severity)s;
			if (!r->severity) {
				char *all = kg_vocab_join(&kg_severities, KG_SEV_NONE + 1, ", ");
				NODE_ERR(L, v, "severity must be one of %s", all);
				free(all);
				bad = -1;
			}
		} else if (!strcmp(key, "when")) {
			when = v;
			if (!val) {
				NODE_ERR(L, v, "when must be an expression string");
				bad = -1;
				continue;
			}
			bad |= when_compile(L, v, &r->when, &r->when_src);
		} else if (!strcmp(key, "message")) {
			msgn = v;
			bad |= tpl_compile(L, v, "message", &r->message);
		} else if (!strcmp(key, "evidence")) {
			if (v->type != YAML_SEQUENCE_NODE) {
				NODE_ERR(L, v, "evidence must be a list of lines");
				bad = -1;
				continue;
			}
			for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
				tpl t = {0};
				if (tpl_compile(L, node(L, *it), "evidence", &t) < 0) {
					bad = -1;
					continue;
				}
				r->evidence = kg_realloc(r->evidence, (r->nevidence + 1) * sizeof *r->evidence);
				r->evidence[r->nevidence++] = t;
			}
		} else if (!strcmp(key, "remedies")) {
			if (v->type != YAML_SEQUENCE_NODE) {
				NODE_ERR(L, v, "remedies must be a list");
				bad = -1;
				continue;
			}
			for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
				r->remedies = kg_realloc(r->remedies, (r->nremedies + 1) * sizeof *r->remedies);
				remedy *rm = &r->remedies[r->nremedies++];
				memset(rm, 0, sizeof *rm);
				if (parse_remedy(L, node(L, *it), rm) < 0)
					bad = -1;
			}
		} else if (!strcmp(key, "supports") || !strcmp(key, "refutes")) {
			const char *c = kg_cause_find(val);
			bool nothing = val && !strcmp(key, "supports") &&
				       kg_vocab_index(&kg_categories, val) == KG_CATEGORY_NONE;
			if (nothing && !hypn) {
				hypn = v;  /* advice only: evidence about no hypothesis */
			} else if (!c) {
				char *all = kg_vocab_join(&kg_categories, 0, ", ");
				NODE_ERR(L, v, "%s must name a cause (%s; 'supports: none' for advice)", key, all);
				free(all);
				bad = -1;
			} else if (hypn) {
				NODE_ERR(L, k, "a rule is evidence about one hypothesis: 'supports' or 'refutes', not both");
				bad = -1;
			} else {
				hypn = v;
				r->supports = c;
				r->refutes = key[0] == 'r';
			}
		} else if (!strcmp(key, "refines")) {
			if (kg_vocab_index(&kg_categories, val) != KG_CATEGORY_CAPACITY) {
				NODE_ERR(L, v, "refines must be 'capacity' (this evidence says why this process filled the device)");
				bad = -1;
			} else {
				r->refines = true;
			}
		} else if (!strcmp(key, "strength")) {
			strn = v;
			r->strength = kg_strength_find(val);
			if (!r->strength) {
				NODE_ERR(L, v, "strength must be decisive, strong or weak");
				bad = -1;
			}
		} else if (!strcmp(key, "rules_out")) {
			bad |= parse_kinds(L, v, "rules_out", &r->rules_out);
		} else if (!strcmp(key, "fallback")) {
			if (!val || (strcmp(val, "true") && strcmp(val, "false"))) {
				NODE_ERR(L, v, "fallback must be true or false");
				bad = -1;
			} else {
				r->fallback = !strcmp(val, "true");
			}
		} else {
			NODE_ERR(L, k, "unknown rule key '%s' (id, title, category, severity, supports, refutes, strength, refines, when, message, evidence, remedies, rules_out, fallback)", key);
			bad = -1;
		}
	}
	free(rep);
	static const char *const required[] = {"id", "title", "category", "severity", "when", "message"};
	bool have[] = {idn != NULL, titlen != NULL, catn != NULL, r->severity != 0,
		       when != NULL, msgn != NULL};
	for (size_t i = 0; i < 6; i++) {
		if (!have[i] && !(i == 3 && bad)) {
			NODE_ERR(L, n, "rule%s%s has no '%s'", r->id ? " " : "", r->id ? r->id : "",
				 required[i]);
			bad = -1;
		}
	}
	if (r->id && r->category && r->category != KG_CATEGORY_WORD(NONE) &&
	    (strncmp(r->id, r->category, strlen(r->category)) || r->id[strlen(r->category)] != '.')) {
		NODE_ERR(L, idn, "id '%s' must start with its category '%s.'", r->id, r->category);
		bad = -1;
	}
	/* evidence: a rule of a cause category supports it unless it says
	 * otherwise; without a strength it is weak (never a cause alone) */
	if (!hypn && r->category && !bad)
		r->supports = kg_cause_find(r->category);
	if (r->supports && !r->strength)
		r->strength = KG_STRENGTH_WEAK;
	if (strn && !r->supports && !bad) {
		NODE_ERR(L, strn, "strength needs a hypothesis: add 'supports' or 'refutes'");
		bad = -1;
	}
	if (r->when && kg_expr_nfacts(r->when) == 0) {
		int t = kg_expr_truth(r->when, NULL);
		if (t != 1)
			scalar_err(L, when, 0, "when", "condition reads no fact and is never true: the rule can never fire");
		else if (!r->fallback)
			scalar_err(L, when, 0, "when", "condition reads no fact and is always true; mark the rule 'fallback: true' if it should fire when nothing else does");
		else
			t = 1;
		if (t != 1 || !r->fallback)
			bad = -1;
	}
	return bad ? -1 : 0;
}

/* ---- files and directories ---------------------------------------------- */

static char *read_file(loader *L, const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		lerr(L, path, 0, 0, "cannot read rule file: %s", strerror(errno));
		return NULL;
	}
	kg_buf b = {0};
	char chunk[65536];
	size_t got;
	while ((got = fread(chunk, 1, sizeof chunk, fp)) > 0) {
		kg_buf_append(&b, chunk, got);
		if (b.len > MAX_RULE_FILE) {
			fclose(fp);
			kg_buf_free(&b);
			lerr(L, path, 0, 0, "rule file larger than %d bytes", MAX_RULE_FILE);
			return NULL;
		}
	}
	bool ioerr = ferror(fp);
	fclose(fp);
	if (ioerr) {
		kg_buf_free(&b);
		lerr(L, path, 0, 0, "read error");
		return NULL;
	}
	*len = b.len;
	return kg_buf_steal(&b);
}

#define PRIORS_FILE "priors.yaml"

/* Parses a priors file (DIAGNOSIS §9): a mapping of every cause to
 * {prior: probability in (0, 1], source: text}. On success fills
 * prior[] (per category; `none` 0) and sets *have. */
static void parse_priors(loader *L, yaml_node_t *root, double *prior, bool *have)
{
	double got[KG_NCATEGORIES] = {0};
	bool seen[KG_NCATEGORIES] = {0};
	int bad = L->nerr;
	if (!root || root->type != YAML_MAPPING_NODE) {
		if (root)
			NODE_ERR(L, root, "a priors file maps each cause to {prior, source}");
		else
			lerr(L, L->file, 1, 1, "a priors file maps each cause to {prior, source}");
		return;
	}
	for (yaml_node_pair_t *pr = root->data.mapping.pairs.start; pr < root->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = node(L, pr->key), *v = node(L, pr->value);
		const char *cause = kg_cause_find(scalar(k));
		if (!cause) {
			NODE_ERR(L, k, "unknown cause '%s'", scalar(k) ? scalar(k) : "?");
			continue;
		}
		int c = kg_vocab_index(&kg_categories, cause);
		if (seen[c])
			NODE_ERR(L, k, "cause '%s' given twice", cause);
		seen[c] = true;
		if (!v || v->type != YAML_MAPPING_NODE) {
			NODE_ERR(L, v ? v : k, "'%s': expected {prior: P, source: TEXT}", cause);
			continue;
		}
		bool have_p = false, have_src = false;
		int dup = 0;
		bool *rep = repeated_keys(L, v, &dup);
		for (yaml_node_pair_t *q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++) {
			yaml_node_t *qk = node(L, q->key), *qv = node(L, q->value);
			const char *key = scalar(qk), *val = scalar(qv);
			if (rep[q - v->data.mapping.pairs.start])
				continue;
			if (key && !strcmp(key, "prior")) {
				char *end = NULL;
				double x = val ? strtod(val, &end) : 0;
				if (!val || end == val || *end || !(x > 0 && x <= 1))
					NODE_ERR(L, qv ? qv : qk, "prior: a probability in (0, 1]");
				else
					got[c] = x, have_p = true;
			} else if (key && !strcmp(key, "source")) {
				if (!val || !*val)
					NODE_ERR(L, qv ? qv : qk, "source: the text the number comes from");
				else
					have_src = true;
			} else {
				NODE_ERR(L, qk, "unknown key '%s' (prior, source)", key ? key : "?");
			}
		}
		free(rep);
		if (!have_p || !have_src)
			NODE_ERR(L, v, "'%s': needs both prior and source", cause);
	}
	for (int c = 0; c < KG_NCATEGORIES; c++)
		if (c != KG_CATEGORY_NONE && !seen[c])
			NODE_ERR(L, root, "no prior for cause '%s'", kg_vocab_word(&kg_categories, c));
	if (L->nerr != bad)
		return;
	memcpy(prior, got, sizeof got);
	*have = true;
}

static bool is_priors_file(const char *path)
{
	const char *b = strrchr(path, '/');
	return !strcmp(b ? b + 1 : path, PRIORS_FILE);
}

/* Parses one file, appending its rules to *out (a priors file fills
 * prior[] instead). */
static void load_file(loader *L, const char *path, rule ***out, size_t *nout, double *prior, bool *have)
{
	size_t len = 0;
	char *raw = read_file(L, path, &len);
	if (!raw)
		return;
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)raw, len);
	L->file = path;
	L->raw = raw;
	L->rawlen = len;
	/* a shipped file as shipped: its document parsed at build time */
	bool imaged = kg_rules_image_doc(path, raw, len, &doc);
	if (!imaged && !yaml_parser_load(&parser, &doc)) {
		lerr(L, path, (long)parser.problem_mark.line + 1, (long)parser.problem_mark.column + 1,
		     "YAML syntax: %s%s%s", parser.problem ? parser.problem : "error", /* not vocabulary */
		     parser.context ? " " : "", parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		free(raw);
		return;
	}
	L->doc = &doc;
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (is_priors_file(path)) {
		parse_priors(L, root, prior, have);
	} else if (root && root->type != YAML_SEQUENCE_NODE) {
		NODE_ERR(L, root, "a rule file is a list of rules ('- id: …')");
	} else if (root) {
		for (yaml_node_item_t *it = root->data.sequence.items.start; it < root->data.sequence.items.top; it++) {
			yaml_node_t *n = node(L, *it);
			rule *r = kg_calloc(1, sizeof *r);
			r->file = kg_strdup(path);
			r->line = (long)n->start_mark.line + 1;
			if (parse_rule(L, n, r) < 0) {
				rule_free(r);
				continue;
			}
			*out = kg_realloc(*out, (*nout + 1) * sizeof **out);
			(*out)[(*nout)++] = r;
		}
	}
	yaml_document_t next;
	if (!imaged && yaml_parser_load(&parser, &next)) {
		if (yaml_document_get_root_node(&next))
			lerr(L, path, (long)parser.mark.line + 1, 1, "a rule file holds one YAML document");
		yaml_document_delete(&next);
	}
	if (imaged)
		kg_rules_image_free(&doc);
	else
		yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	L->doc = NULL;
	L->raw = NULL;
	free(raw);
}

static bool is_data_file(const char *name)
{
	return !strcmp(name, "keys.yaml") || !strcmp(name, "datasets.yaml") || !strcmp(name, PRIORS_FILE) ||
	       !strcmp(name, "models.yaml") || !strcmp(name, "gpus.yaml");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Loads one dir (or file) into a fresh list; duplicate ids within it are
 * errors. A dir's priors.yaml (or a priors file named alone) fills
 * prior[] and sets *have. */
static void load_path(loader *L, const char *path, rule ***out, size_t *nout, double *prior, bool *have)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		lerr(L, path, 0, 0, "cannot open rules: %s", strerror(errno));
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		load_file(L, path, out, nout, prior, have);
		return;
	}
	DIR *d = opendir(path);
	if (!d) {
		lerr(L, path, 0, 0, "cannot open rules directory: %s", strerror(errno));
		return;
	}
	char **names = NULL;
	size_t nn = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t L2 = strlen(de->d_name);
		bool yaml = (L2 > 5 && !strcmp(de->d_name + L2 - 5, ".yaml")) ||
			    (L2 > 4 && !strcmp(de->d_name + L2 - 4, ".yml"));
		if (!yaml || de->d_name[0] == '.' || is_data_file(de->d_name))
			continue;
		names = kg_realloc(names, (nn + 1) * sizeof *names);
		names[nn++] = kg_strdup(de->d_name);
	}
	closedir(d);
	if (nn)
		qsort(names, nn, sizeof *names, cmp_str);  /* qsort(NULL, 0) is undefined */
	size_t first = *nout;
	for (size_t i = 0; i < nn; i++) {
		char *full = kg_asprintf("%s/%s", path, names[i]);
		load_file(L, full, out, nout, prior, have);
		free(full);
		free(names[i]);
	}
	free(names);
	char *pf = kg_asprintf("%s/%s", path, PRIORS_FILE);
	if (access(pf, F_OK) == 0)
		load_file(L, pf, out, nout, prior, have);
	free(pf);
	/* sorted, not pairwise: 66,000 rules took a minute pairwise */
	size_t m = *nout - first;
	const char **ids = kg_malloc((m ? m : 1) * sizeof *ids);
	size_t *same = kg_malloc((m ? m : 1) * sizeof *same);
	for (size_t i = 0; i < m; i++)
		ids[i] = (*out)[first + i]->id;
	if (kg_first_equal(ids, m, same)) {
		for (size_t i = 0; i < m; i++) {
			if (same[i] == i)
				continue;
			const rule *r = (*out)[first + i], *r0 = (*out)[first + same[i]];
			lerr(L, r->file, r->line, 3, "duplicate rule id '%s' (first at %s:%ld)", r->id,
			     r0->file, r0->line);
		}
	}
	free(ids);
	free(same);
}

static int cmp_rule(const void *a, const void *b)
{
	const rule *x = *(rule *const *)a, *y = *(rule *const *)b;
	if (x->cat_rank != y->cat_rank)
		return x->cat_rank - y->cat_rank;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static kg_ruleset *load_all(loader *L, const char *const *dirs, size_t ndirs)
{
	kg_ruleset *rs = kg_calloc(1, sizeof *rs);
	/* every dir's rules in load order (each dir's ids checked unique by
	 * load_path), then each id kept once: the last loaded, at the place
	 * of the first (sorted, not pairwise) */
	rule **all = NULL;
	size_t nall = 0;
	for (size_t d = 0; d < ndirs; d++) {
		rule **got = NULL;
		size_t ng = 0;
		load_path(L, dirs[d], &got, &ng, rs->prior, &rs->have_prior);
		all = kg_realloc(all, (nall + ng + 1) * sizeof *all);
		if (ng) /* memcpy from NULL is undefined, even of 0 bytes */
			memcpy(all + nall, got, ng * sizeof *got);
		nall += ng;
		free(got);
	}
	const char **ids = kg_malloc((nall ? nall : 1) * sizeof *ids);
	size_t *first = kg_malloc((nall ? nall : 1) * sizeof *first);
	size_t *slot = kg_malloc((nall ? nall : 1) * sizeof *slot);
	for (size_t i = 0; i < nall; i++)
		ids[i] = all[i]->id;
	kg_first_equal(ids, nall, first);
	rs->rules = kg_malloc((nall ? nall : 1) * sizeof *rs->rules);
	for (size_t i = 0; i < nall; i++) {
		rule *r = all[i];
		if (first[i] == i) {
			r->seq = rs->n;
			slot[i] = rs->n;
			rs->rules[rs->n++] = r;
		} else {
			/* a later dir's rule replaces the earlier one */
			rule **old = &rs->rules[slot[first[i]]];
			r->seq = (*old)->seq;
			rule_free(*old);
			*old = r;
		}
	}
	free(ids);
	free(first);
	free(slot);
	free(all);
	if (rs->n)
		qsort(rs->rules, rs->n, sizeof *rs->rules, cmp_rule);
	return rs;
}

kg_ruleset *kg_rules_load(const char *const *dirs, size_t ndirs, kg_error *err)
{
	loader L = {.err = err};
	kg_ruleset *rs = load_all(&L, dirs, ndirs);
	if (L.nerr) {
		kg_rules_free(rs);
		return NULL;
	}
	return rs;
}

int kg_rules_check(const char *const *paths, size_t npaths, FILE *errs)
{
	loader L = {.errs = errs};
	kg_ruleset *rs = load_all(&L, paths, npaths);
	kg_rules_free(rs);
	return L.nerr;
}

/* ---- applying -------------------------------------------------------------- */

static void add_str(char ***v, size_t *n, char *s)
{
	*v = kg_realloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = s;
}

/* Whether the remedy would set a config role to the value in force
 * (config.ROLE, from a config or the log; "from 1 to 1"): it changes
 * nothing, so it is no remedy (issue 32). */
static bool void_remedy(const kg_remedy *x, const kg_facts *f)
{
	for (size_t k = 0; k < x->nset; k++) {
		char name[96];
		snprintf(name, sizeof name, "config.%s", x->set_roles[k]);
		const kg_fact *now = kg_facts_get(f, name);
		char *end = NULL;
		double v = strtod(x->set_values[k], &end);
		if (now && now->type != KG_FACT_STRING && end && end != x->set_values[k] && !*end &&
		    v == now->num)
			return true;
	}
	return false;
}

static bool fire(const rule *r, const kg_facts *f, kg_finding *out)
{
	char *title = tpl_render(&r->title, f, false);
	char *msg = title ? tpl_render(&r->message, f, false) : NULL;
	if (!msg) {
		free(title);
		return false;
	}
	memset(out, 0, sizeof *out);
	out->rule = kg_strdup(r->id);
	out->category = kg_strdup(r->category);
	out->severity = r->severity;
	out->supports = r->supports;
	out->refutes = r->refutes;
	out->refines = r->refines;
	out->rules_out = r->rules_out;
	out->strength = r->strength;
	out->title = title;
	/* YAML folded text ends with a newline; findings are one paragraph */
	size_t ml = strlen(msg);
	while (ml && (msg[ml - 1] == '\n' || msg[ml - 1] == ' '))
		msg[--ml] = 0;
	out->message = msg;
	for (size_t i = 0; i < r->nevidence; i++) {
		char *e = tpl_render(&r->evidence[i], f, false);
		if (e)
			add_str(&out->evidence, &out->nevidence, e);
	}
	for (size_t i = 0; i < r->nremedies; i++) {
		const remedy *rm = &r->remedies[i];
		if (rm->when && kg_expr_truth(rm->when, f) != 1)
			continue;
		kg_remedy x = {0};
		x.title = tpl_render(&rm->title, f, false);
		if (!x.title)
			continue;
		for (size_t k = 0; k < rm->nenv; k++) {
			char *v = tpl_render(&rm->env_values[k], f, true);
			if (!v)
				continue;
			size_t n = x.nenv;
			add_str(&x.env_names, &n, kg_strdup(rm->env_names[k]));
			add_str(&x.env_values, &x.nenv, v);
		}
		for (size_t k = 0; k < rm->nset; k++) {
			char *v = tpl_render(&rm->set_values[k], f, true);
			if (!v)
				continue;
			size_t n = x.nset;
			add_str(&x.set_roles, &n, kg_strdup(rm->roles[k]));
			add_str(&x.set_values, &x.nset, v);
		}
		x.code = tpl_render(&rm->code, f, false);
		x.caveat = tpl_render(&rm->caveat, f, false);
		x.kinds = rm->kinds;
		if ((!x.nenv && !x.nset && !x.code) || void_remedy(&x, f)) {
			kg_remedy_free(&x);
			continue;
		}
		out->remedies = kg_realloc(out->remedies, (out->nremedies + 1) * sizeof *out->remedies);
		out->remedies[out->nremedies++] = x;
	}
	return true;
}

/* Display order of findings: evidence for the incident's cause first,
 * then by severity. */
static bool finding_before(const kg_incident *inc, const kg_finding *a, const kg_finding *b)
{
	bool ca = inc->cause && a->supports == inc->cause && !a->refutes;
	bool cb = inc->cause && b->supports == inc->cause && !b->refutes;
	if (ca != cb)
		return ca;
	return a->severity > b->severity;
}

static void apply_one(const rule *r, kg_incident *inc, const kg_facts *f)
{
	if (kg_expr_truth(r->when, f) != 1)
		return;
	kg_finding x;
	if (!fire(r, f, &x))
		return;
	inc->findings = kg_realloc(inc->findings, (inc->nfindings + 1) * sizeof *inc->findings);
	inc->findings[inc->nfindings++] = x;
}

/* Whether the differential rules out the hypothesis f is evidence for. */
static bool hypothesis_ruled_out(const kg_incident *inc, const kg_finding *f)
{
	for (size_t i = 0; f->supports && !f->refutes && i < inc->ndifferential; i++)
		if (!strcmp(inc->differential[i].cause, f->supports))
			return inc->differential[i].ruled_out;
	return false;
}

/* Drops every remedy of the incident that cannot help it (issue 32): of a
 * kind a finding rules out (`rules_out`: a batch of one rules out a
 * smaller batch), unless the differential rules that finding's own
 * hypothesis out; and, where the job does not train (job.mode eval,
 * serve or load), of a kind only training has (gradient accumulation,
 * activation checkpointing; remedy.def). */
static void drop_ruled_out(kg_incident *inc)
{
	unsigned out = 0;
	for (size_t k = 0; k < inc->nfindings; k++)
		if (!hypothesis_ruled_out(inc, &inc->findings[k]))
			out |= inc->findings[k].rules_out;
	int m = kg_vocab_index(&kg_modes, inc->mode);
	if (m == KG_MODE_EVAL || m == KG_MODE_SERVE || m == KG_MODE_LOAD)
		out |= kg_remedy_kinds_training_only();
	if (!out)
		return;
	for (size_t k = 0; k < inc->nfindings; k++) {
		kg_finding *f = &inc->findings[k];
		size_t keep = 0;
		for (size_t i = 0; i < f->nremedies; i++) {
			if (f->remedies[i].kinds & out)
				kg_remedy_free(&f->remedies[i]);
			else
				f->remedies[keep++] = f->remedies[i];
		}
		f->nremedies = keep;
	}
}

void kg_rules_apply(const kg_ruleset *rs, kg_incident *inc, const kg_facts *facts)
{
	for (size_t i = 0; i < inc->nfindings; i++)
		kg_finding_free(&inc->findings[i]);
	free(inc->findings);
	inc->findings = NULL;
	inc->nfindings = 0;
	kg_differential_free(inc);
	inc->cause = NULL;
	inc->confidence = NULL;
	const kg_fact *mode = kg_facts_get(facts, "job.mode");
	int mi = mode && mode->type == KG_FACT_STRING ? kg_vocab_index(&kg_modes, mode->str) : -1;
	inc->mode = kg_vocab_word(&kg_modes, mi < 0 ? KG_MODE_UNKNOWN : mi);
	inc->mode_why = "--set";
	if (!mode || mode->derived)
		kg_facts_job_mode(facts, &inc->mode_why);
	if (!rs)
		return;
	for (size_t i = 0; i < rs->n; i++)
		if (!rs->rules[i]->fallback)
			apply_one(rs->rules[i], inc, facts);
	kg_differential_build(inc, rs->have_prior ? rs->prior : NULL);
	/* fallback rules say what is missing when nothing named a cause */
	if (!inc->cause)
		for (size_t i = 0; i < rs->n; i++)
			if (rs->rules[i]->fallback) {
				size_t before = inc->nfindings;
				apply_one(rs->rules[i], inc, facts);
				/* a fallback rule with a hypothesis says the
				 * message leaves it open */
				for (size_t k = before; k < inc->nfindings; k++)
					kg_differential_add_open(inc, &inc->findings[k]);
			}
	drop_ruled_out(inc);
	/* stable insertion sort: the cause's evidence first, then most severe
	 * first, ties keep rule order */
	for (size_t i = 1; i < inc->nfindings; i++) {
		kg_finding x = inc->findings[i];
		size_t j = i;
		while (j > 0 && finding_before(inc, &x, &inc->findings[j - 1])) {
			inc->findings[j] = inc->findings[j - 1];
			j--;
		}
		inc->findings[j] = x;
	}
}

/* ---- list and show ---------------------------------------------------------- */

void kg_rules_list(const kg_ruleset *rs, FILE *out)
{
	for (size_t i = 0; i < rs->n; i++) {
		const rule *r = rs->rules[i];
		fprintf(out, "%-44s %-8s %-16s %s\n", r->id, kg_severity_name(r->severity), r->category,
			r->title.src);
	}
}

static void show_text(FILE *out, const char *label, const char *s)
{
	if (!s)
		return;
	size_t n = strlen(s);
	while (n && s[n - 1] == '\n')
		n--;
	fprintf(out, "%s%.*s\n", label, (int)n, s);
}

/* "LABELword, word\n" for the kinds in mask; nothing for none. */
static void show_kinds(FILE *out, const char *label, unsigned mask)
{
	const char *sep = label;
	for (int i = 0; i < KG_NREMEDY_KINDS; i++)
		if (mask & (1u << i)) {
			fprintf(out, "%s%s", sep, kg_vocab_word(&kg_remedy_kinds, i));
			sep = ", ";
		}
	if (sep != label)
		fputc('\n', out);
}

int kg_rules_show(const kg_ruleset *rs, const char *id, FILE *out)
{
	for (size_t i = 0; i < rs->n; i++) {
		const rule *r = rs->rules[i];
		if (strcmp(r->id, id))
			continue;
		fprintf(out, "%s  (%s:%ld)\n", r->id, r->file, r->line);
		show_text(out, "  title:    ", r->title.src);
		fprintf(out, "  category: %s\n  severity: %s\n", r->category, kg_severity_name(r->severity));
		if (r->supports)
			fprintf(out, "  %s: %s (%s)%s\n", r->refutes ? "refutes" : "supports", r->supports,
				kg_strength_name(r->strength), r->refines ? ", refines capacity" : "");
		if (r->fallback)
			fprintf(out, "  fallback: true (fires only when no other rule does)\n");
		show_kinds(out, "  rules out: ", r->rules_out);
		show_text(out, "  when:     ", r->when_src);
		fprintf(out, "  facts:   ");
		for (size_t k = 0; k < kg_expr_nfacts(r->when); k++)
			fprintf(out, " %s", kg_expr_fact(r->when, k));
		fprintf(out, "\n");
		show_text(out, "  message:  ", r->message.src);
		for (size_t k = 0; k < r->nevidence; k++)
			show_text(out, "  = ", r->evidence[k].src);
		for (size_t k = 0; k < r->nremedies; k++) {
			const remedy *m = &r->remedies[k];
			show_text(out, "  help: ", m->title.src);
			show_text(out, "        when: ", m->when_src);
			show_kinds(out, "        kind: ", m->kinds);
			for (size_t e = 0; e < m->nenv; e++)
				fprintf(out, "        env %s=%s\n", m->env_names[e], m->env_values[e].src);
			for (size_t e = 0; e < m->nset; e++)
				fprintf(out, "        set %s: %s\n", m->roles[e], m->set_values[e].src);
			show_text(out, "        code: ", m->code.src);
			show_text(out, "        caveat: ", m->caveat.src);
		}
		return 0;
	}
	return -1;
}

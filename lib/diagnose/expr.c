/* expr.c — see include/diagnose/expr.h. A recursive-descent parser builds a small
 * tree; evaluation walks it with three-valued logic. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "diagnose/expr.h"
#include "read/regex.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64
#define MAX_SRC (64 * 1024)
#define MATCH_LIMIT 100000u
#define DEPTH_LIMIT 1000u

enum op {
	N_NUM, N_STR, N_BOOL, N_FACT,
	N_NEG, N_NOT, N_AND, N_OR,
	N_ADD, N_SUB, N_MUL, N_DIV,
	N_LT, N_LE, N_GT, N_GE, N_EQ, N_NE,
	N_DEFINED, N_NEAR, N_MATCHES, N_MIN, N_MAX, N_FLOOR, N_CEIL, N_DEFAULT, N_RELATION,
};

typedef struct node {
	enum op op;
	kg_fact_type unit;        /* N_NUM literal unit */
	double num;
	char *str;                /* N_STR text, N_FACT name */
	struct node **kids;
	size_t nkids;
	pcre2_code *re;           /* N_MATCHES */
	pcre2_match_data *md;     /* made on the first match (most rules'
	                             regexes never run) */
	uint32_t uses;            /* kg_regex_use: JIT-compiled when hot */
	uint32_t hash;            /* N_FACT: kg_fact_name_hash(str) */
} node;

struct kg_expr {
	node *root;
	char **facts;
	size_t nfacts;
	pcre2_match_context *mctx;
};

typedef struct parser {
	const char *s;
	size_t i, n;
	int depth;
	kg_expr *e;
	kg_error *err;
	size_t err_off;
	bool failed;
} parser;

static node *mk(enum op op)
{
	node *x = kg_calloc(1, sizeof *x);
	x->op = op;
	return x;
}

static void kid(node *x, node *k)
{
	x->kids = kg_realloc(x->kids, (x->nkids + 1) * sizeof *x->kids);
	x->kids[x->nkids++] = k;
}

static void node_free(node *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->nkids; i++)
		node_free(x->kids[i]);
	free(x->kids);
	free(x->str);
	if (x->md)
		pcre2_match_data_free(x->md);
	if (x->re)
		pcre2_code_free(x->re);
	free(x);
}

__attribute__((format(printf, 3, 4)))
static node *fail(parser *p, size_t at, const char *fmt, ...)
{
	if (p->failed)
		return NULL;
	p->failed = true;
	p->err_off = at;
	if (p->err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(p->err->msg, sizeof p->err->msg, fmt, ap);
		va_end(ap);
		p->err->line = 0;
		p->err->offset = (int64_t)at;
	}
	return NULL;
}

static void skip_ws(parser *p)
{
	while (p->i < p->n && isspace((unsigned char)p->s[p->i]))
		p->i++;
}

static bool is_ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.';
}

/* Peeks a word (identifier) at the cursor without consuming it. */
static size_t word_len(const parser *p)
{
	size_t j = p->i;
	if (j >= p->n || !is_ident_start(p->s[j]))
		return 0;
	while (j < p->n && is_ident(p->s[j]))
		j++;
	return j - p->i;
}

static bool accept_word(parser *p, const char *w)
{
	skip_ws(p);
	size_t L = word_len(p), wl = strlen(w);
	if (L == wl && !memcmp(p->s + p->i, w, wl)) {
		p->i += L;
		return true;
	}
	return false;
}

static bool accept(parser *p, const char *tok)
{
	skip_ws(p);
	size_t L = strlen(tok);
	if (p->i + L <= p->n && !memcmp(p->s + p->i, tok, L)) {
		p->i += L;
		return true;
	}
	return false;
}

static node *parse_or(parser *p);

static const struct { const char *name; int shift; } units[] = {
	{"bytes", 0}, {"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40},
	{"KB", 10}, {"MB", 20}, {"GB", 30}, {"TB", 40}, {"B", 0},
};

static node *parse_number(parser *p)
{
	size_t start = p->i;
	char *end;
	double v = strtod(p->s + p->i, &end);
	size_t used = (size_t)(end - (p->s + p->i));
	/* strtod accepts "inf", "nan", hex; we accept only decimal digits */
	for (size_t k = 0; k < used; k++) {
		char c = p->s[p->i + k];
		if (!isdigit((unsigned char)c) && c != '.' && c != 'e' && c != 'E' &&
		    c != '+' && c != '-')
			return fail(p, start, "malformed number");
	}
	p->i += used;
	node *x = mk(N_NUM);
	x->unit = KG_FACT_COUNT;
	x->num = v;
	size_t save = p->i;
	skip_ws(p);
	if (p->i < p->n && p->s[p->i] == '%') {
		p->i++;
		x->unit = KG_FACT_RATIO;
		x->num = v / 100.0;
		return x;
	}
	size_t L = word_len(p);
	if (L) {
		for (size_t k = 0; k < sizeof units / sizeof *units; k++) {
			if (strlen(units[k].name) == L && !memcmp(p->s + p->i, units[k].name, L)) {
				p->i += L;
				x->unit = KG_FACT_BYTES;
				x->num = round(v * (double)(1ULL << units[k].shift));
				return x;
			}
		}
	}
	p->i = save;
	return x;
}

static node *parse_string(parser *p)
{
	size_t start = p->i;
	p->i++; /* opening quote */
	kg_buf b = {0};
	while (p->i < p->n && p->s[p->i] != '"') {
		char c = p->s[p->i];
		if (c == '\\' && p->i + 1 < p->n) {
			char d = p->s[p->i + 1];
			if (d == '"' || d == '\\') {
				kg_buf_putc(&b, d);
			} else {
				/* keep other escapes for the regex engine (\b, \d, …) */
				kg_buf_putc(&b, '\\');
				kg_buf_putc(&b, d);
			}
			p->i += 2;
			continue;
		}
		kg_buf_putc(&b, c);
		p->i++;
	}
	if (p->i >= p->n) {
		kg_buf_free(&b);
		return fail(p, start, "unterminated string");
	}
	p->i++;
	node *x = mk(N_STR);
	x->str = kg_buf_steal(&b);
	return x;
}

static void note_fact(kg_expr *e, const char *name)
{
	for (size_t i = 0; i < e->nfacts; i++)
		if (!strcmp(e->facts[i], name))
			return;
	e->facts = kg_realloc(e->facts, (e->nfacts + 1) * sizeof *e->facts);
	e->facts[e->nfacts++] = kg_strdup(name);
}

static const struct { const char *name; enum op op; int min, max; } funcs[] = {
	{"defined", N_DEFINED, 1, 1}, {"near", N_NEAR, 2, 2},
	{"matches", N_MATCHES, 2, 2}, {"min", N_MIN, 1, 16}, {"max", N_MAX, 1, 16},
	{"floor", N_FLOOR, 1, 1}, {"ceil", N_CEIL, 1, 1}, {"default", N_DEFAULT, 2, 2},
	{"relation", N_RELATION, 2, 2},
};

static node *compile_regex(parser *p, node *x, size_t at)
{
	node *pat = x->kids[1];
	if (pat->op != N_STR) {
		node_free(x);
		return fail(p, at, "matches() needs a string literal as its regex");
	}
	int ec;
	PCRE2_SIZE eo;
	x->re = pcre2_compile((PCRE2_SPTR)pat->str, PCRE2_ZERO_TERMINATED,
			      PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &ec, &eo, NULL);
	if (!x->re) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(ec, msg, sizeof msg);
		node_free(x);
		/* point into the literal: its opening quote, then the offset */
		return fail(p, at + 1 + (size_t)eo, "bad regex: %s", (char *)msg);
	}
	if (!p->e->mctx) {
		/* the limits of this expression's matches (only one with a regex
		 * needs them) */
		p->e->mctx = pcre2_match_context_create(NULL);
		pcre2_set_match_limit(p->e->mctx, MATCH_LIMIT);
		pcre2_set_depth_limit(p->e->mctx, DEPTH_LIMIT);
	}
	return x; /* JIT-compiled on its first match (eval) */
}

static node *parse_call(parser *p, size_t start, size_t L)
{
	for (size_t k = 0; k < sizeof funcs / sizeof *funcs; k++) {
		if (strlen(funcs[k].name) != L || memcmp(p->s + start, funcs[k].name, L))
			continue;
		node *x = mk(funcs[k].op);
		size_t argpos = p->i;
		skip_ws(p);
		if (!accept(p, ")")) {
			for (;;) {
				skip_ws(p);
				if (x->nkids == 1)
					argpos = p->i;
				node *a = parse_or(p);
				if (!a) {
					node_free(x);
					return NULL;
				}
				kid(x, a);
				if (accept(p, ","))
					continue;
				if (accept(p, ")"))
					break;
				node_free(x);
				skip_ws(p);
				return fail(p, p->i, "expected ',' or ')' in call to %s()", funcs[k].name);
			}
		}
		if ((int)x->nkids < funcs[k].min || (int)x->nkids > funcs[k].max) {
			node_free(x);
			if (funcs[k].min == funcs[k].max)
				return fail(p, start, "%s() takes %d argument%s", funcs[k].name,
					    funcs[k].min, funcs[k].min == 1 ? "" : "s");
			return fail(p, start, "%s() takes %d to %d arguments", funcs[k].name,
				    funcs[k].min, funcs[k].max);
		}
		if (x->op == N_MATCHES)
			return compile_regex(p, x, argpos);
		return x;
	}
	return fail(p, start, "unknown function '%.*s' (defined, near, matches, min, max, floor, ceil, default)",
		    (int)L, p->s + start);
}

static node *parse_primary(parser *p)
{
	skip_ws(p);
	if (p->i >= p->n)
		return fail(p, p->i, "expected a value, found the end of the expression");
	char c = p->s[p->i];
	size_t start = p->i;
	if (isdigit((unsigned char)c) || (c == '.' && p->i + 1 < p->n && isdigit((unsigned char)p->s[p->i + 1])))
		return parse_number(p);
	if (c == '"')
		return parse_string(p);
	if (c == '(') {
		p->i++;
		node *x = parse_or(p);
		if (!x)
			return NULL;
		if (!accept(p, ")")) {
			node_free(x);
			skip_ws(p);
			return fail(p, p->i, "expected ')' to close the '(' opened %zu byte%s earlier",
				    p->i - start, p->i - start == 1 ? "" : "s");
		}
		return x;
	}
	size_t L = word_len(p);
	if (!L)
		return fail(p, start, "unexpected '%c'", c);
	p->i += L;
	size_t after = p->i;
	skip_ws(p);
	if (p->i < p->n && p->s[p->i] == '(') {
		p->i++;
		return parse_call(p, start, L);
	}
	p->i = after;
	if (L == 4 && !memcmp(p->s + start, "true", 4)) {
		node *x = mk(N_BOOL);
		x->num = 1;
		return x;
	}
	if (L == 5 && !memcmp(p->s + start, "false", 5))
		return mk(N_BOOL);
	static const char *const kw[] = {"and", "or", "not"};
	for (size_t k = 0; k < 3; k++)
		if (strlen(kw[k]) == L && !memcmp(p->s + start, kw[k], L))
			return fail(p, start, "expected a value, found '%s'", kw[k]);
	char *name = kg_strndup(p->s + start, L);
	if (name[L - 1] == '.' || strstr(name, "..")) {
		free(name);
		return fail(p, start, "malformed fact name '%.*s'", (int)L, p->s + start);
	}
	if (!kg_fact_info_find(name)) {
		node *r = fail(p, start, "unknown fact '%s' (see 'kgmem-diagnose rules facts')", name);
		free(name);
		return r;
	}
	node *x = mk(N_FACT);
	x->str = name;
	x->hash = kg_fact_name_hash(name);
	note_fact(p->e, name);
	return x;
}

static node *parse_unary(parser *p)
{
	if (accept(p, "-")) {
		if (++p->depth > MAX_DEPTH)
			return fail(p, p->i, "expression nested too deeply");
		node *a = parse_unary(p);
		p->depth--;
		if (!a)
			return NULL;
		node *x = mk(N_NEG);
		kid(x, a);
		return x;
	}
	if (++p->depth > MAX_DEPTH)
		return fail(p, p->i, "expression nested too deeply");
	node *x = parse_primary(p);
	p->depth--;
	return x;
}

static node *binary(enum op op, node *a, node *b)
{
	node *x = mk(op);
	kid(x, a);
	kid(x, b);
	return x;
}

typedef struct binop { const char *tok; enum op op; bool word; } binop;

/* One left-associative precedence level: next (op next)*. */
static node *left_assoc(parser *p, node *(*next)(parser *), const binop *ops, size_t nops)
{
	node *a = next(p);
	while (a) {
		size_t k;
		for (k = 0; k < nops; k++)
			if (ops[k].word ? accept_word(p, ops[k].tok) : accept(p, ops[k].tok))
				break;
		if (k == nops)
			break;
		node *b = next(p);
		if (!b) {
			node_free(a);
			return NULL;
		}
		a = binary(ops[k].op, a, b);
	}
	return a;
}

static node *parse_prod(parser *p)
{
	static const binop ops[] = {{"*", N_MUL, false}, {"/", N_DIV, false}};
	return left_assoc(p, parse_unary, ops, 2);
}

static node *parse_sum(parser *p)
{
	static const binop ops[] = {{"+", N_ADD, false}, {"-", N_SUB, false}};
	return left_assoc(p, parse_prod, ops, 2);
}

static node *parse_cmp(parser *p)
{
	node *a = parse_sum(p);
	if (!a)
		return NULL;
	static const struct { const char *t; enum op op; } cmps[] = {
		{"<=", N_LE}, {">=", N_GE}, {"==", N_EQ}, {"!=", N_NE}, {"<", N_LT}, {">", N_GT},
	};
	for (size_t k = 0; k < sizeof cmps / sizeof *cmps; k++) {
		if (accept(p, cmps[k].t)) {
			node *b = parse_sum(p);
			if (!b) {
				node_free(a);
				return NULL;
			}
			a = binary(cmps[k].op, a, b);
			skip_ws(p);
			if (p->i < p->n && strchr("<>=!", p->s[p->i])) {
				node_free(a);
				return fail(p, p->i, "comparisons do not chain; use 'and'");
			}
			return a;
		}
	}
	skip_ws(p);
	if (p->i < p->n && p->s[p->i] == '=') {
		node_free(a);
		return fail(p, p->i, "'=' is not an operator; did you mean '=='?");
	}
	return a;
}

static node *parse_not(parser *p)
{
	if (accept_word(p, "not")) {
		if (++p->depth > MAX_DEPTH)
			return fail(p, p->i, "expression nested too deeply");
		node *a = parse_not(p);
		p->depth--;
		if (!a)
			return NULL;
		node *x = mk(N_NOT);
		kid(x, a);
		return x;
	}
	return parse_cmp(p);
}

static node *parse_and(parser *p)
{
	static const binop ops[] = {{"and", N_AND, true}};
	return left_assoc(p, parse_not, ops, 1);
}

static node *parse_or(parser *p)
{
	static const binop ops[] = {{"or", N_OR, true}};
	if (++p->depth > MAX_DEPTH)
		return fail(p, p->i, "expression nested too deeply");
	node *a = left_assoc(p, parse_and, ops, 1);
	p->depth--;
	return a;
}

kg_expr *kg_expr_compile(const char *src, kg_error *err, size_t *err_off)
{
	kg_expr *e = kg_calloc(1, sizeof *e);
	parser p = {.s = src, .n = strlen(src), .e = e, .err = err};
	if (p.n > MAX_SRC) {
		fail(&p, 0, "expression longer than %d bytes", MAX_SRC);
	} else {
		skip_ws(&p);
		if (p.i >= p.n)
			fail(&p, 0, "empty expression");
		else
			e->root = parse_or(&p);
		skip_ws(&p);
		if (e->root && p.i < p.n) {
			if (word_len(&p))
				fail(&p, p.i, "unexpected '%.*s' (missing 'and'/'or' or an operator?)",
				     (int)word_len(&p), p.s + p.i);
			else
				fail(&p, p.i, "unexpected '%c'", p.s[p.i]);
		}
	}
	if (p.failed) {
		if (err_off)
			*err_off = p.err_off;
		kg_expr_free(e);
		return NULL;
	}
	return e;
}

void kg_expr_free(kg_expr *e)
{
	if (!e)
		return;
	node_free(e->root);
	for (size_t i = 0; i < e->nfacts; i++)
		free(e->facts[i]);
	free(e->facts);
	if (e->mctx)
		pcre2_match_context_free(e->mctx);
	free(e);
}

size_t kg_expr_nfacts(const kg_expr *e)
{
	return e->nfacts;
}

const char *kg_expr_fact(const kg_expr *e, size_t i)
{
	return i < e->nfacts ? e->facts[i] : NULL;
}

/* ---- evaluation ------------------------------------------------------- */

static const kg_value UNKNOWN = {0};

static kg_value vnum(kg_fact_type unit, double v, double lo, double hi)
{
	kg_value r = {.kind = KG_VAL_NUM, .unit = unit, .num = v, .lo = lo, .hi = hi};
	if (r.lo > r.hi) {
		double t = r.lo;
		r.lo = r.hi;
		r.hi = t;
	}
	if (!isfinite(v))
		return UNKNOWN;
	return r;
}

static kg_value vbool(int b)
{
	return (kg_value){.kind = KG_VAL_BOOL, .num = b ? 1 : 0};
}

/* Unit of a sum or difference: bytes win, then ratio, then count. */
static kg_fact_type sum_unit(kg_fact_type a, kg_fact_type b)
{
	if (a == KG_FACT_BYTES || b == KG_FACT_BYTES) return KG_FACT_BYTES;
	if (a == KG_FACT_RATIO && b == KG_FACT_RATIO) return KG_FACT_RATIO;
	return KG_FACT_COUNT;
}

static kg_value eval(const kg_expr *e, const node *x, const kg_facts *f);

static kg_value arith(enum op op, kg_value a, kg_value b)
{
	if (a.kind != KG_VAL_NUM || b.kind != KG_VAL_NUM)
		return UNKNOWN;
	switch (op) {
	case N_ADD:
		return vnum(sum_unit(a.unit, b.unit), a.num + b.num, a.lo + b.lo, a.hi + b.hi);
	case N_SUB:
		return vnum(sum_unit(a.unit, b.unit), a.num - b.num, a.lo - b.hi, a.hi - b.lo);
	case N_MUL: {
		kg_fact_type u = (a.unit == KG_FACT_BYTES || b.unit == KG_FACT_BYTES) ? KG_FACT_BYTES
			: (a.unit == KG_FACT_RATIO && b.unit == KG_FACT_RATIO) ? KG_FACT_RATIO
			: (a.unit == KG_FACT_COUNT || b.unit == KG_FACT_COUNT) ? KG_FACT_COUNT
			: KG_FACT_RATIO;
		double c[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
		double lo = c[0], hi = c[0];
		for (int i = 1; i < 4; i++) {
			lo = fmin(lo, c[i]);
			hi = fmax(hi, c[i]);
		}
		return vnum(u, a.num * b.num, lo, hi);
	}
	case N_DIV: {
		if (b.num == 0 || (b.lo <= 0 && b.hi >= 0))
			return UNKNOWN;
		kg_fact_type u = a.unit == KG_FACT_BYTES
			? (b.unit == KG_FACT_BYTES ? KG_FACT_RATIO : KG_FACT_BYTES)
			: a.unit;
		double c[4] = {a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi};
		double lo = c[0], hi = c[0];
		for (int i = 1; i < 4; i++) {
			lo = fmin(lo, c[i]);
			hi = fmax(hi, c[i]);
		}
		return vnum(u, a.num / b.num, lo, hi);
	}
	default:
		return UNKNOWN;
	}
}

static kg_value compare(enum op op, kg_value a, kg_value b)
{
	if (a.kind == KG_VAL_UNKNOWN || b.kind == KG_VAL_UNKNOWN)
		return UNKNOWN;
	if (a.kind == KG_VAL_STR && b.kind == KG_VAL_STR) {
		int c = strcmp(a.str, b.str);
		if (op == N_EQ) return vbool(c == 0);
		if (op == N_NE) return vbool(c != 0);
		return UNKNOWN;
	}
	if (a.kind == KG_VAL_STR || b.kind == KG_VAL_STR)
		return UNKNOWN;
	if (a.kind != b.kind && (op != N_EQ && op != N_NE))
		return UNKNOWN;
	double x = a.num, y = b.num;
	switch (op) {
	case N_LT: return vbool(x < y);
	case N_LE: return vbool(x <= y);
	case N_GT: return vbool(x > y);
	case N_GE: return vbool(x >= y);
	case N_EQ: return a.kind != b.kind ? UNKNOWN : vbool(x == y);
	case N_NE: return a.kind != b.kind ? UNKNOWN : vbool(x != y);
	default: return UNKNOWN;
	}
}

/* -1 unknown, 0 false, 1 true */
static int truth(kg_value v)
{
	if (v.kind == KG_VAL_BOOL)
		return v.num != 0;
	return -1;
}

static kg_value eval(const kg_expr *e, const node *x, const kg_facts *f)
{
	switch (x->op) {
	case N_NUM:
		return vnum(x->unit, x->num, x->num, x->num);
	case N_STR:
		return (kg_value){.kind = KG_VAL_STR, .str = x->str};
	case N_BOOL:
		return vbool(x->num != 0);
	case N_FACT: {
		const kg_fact *fa = kg_facts_get_hashed(f, x->str, x->hash);
		if (!fa)
			return UNKNOWN;
		switch (fa->type) {
		case KG_FACT_STRING:
			return (kg_value){.kind = KG_VAL_STR, .str = fa->str ? fa->str : ""};
		case KG_FACT_BOOL:
			return vbool(fa->num != 0);
		default:
			return vnum(fa->type, fa->num, fa->lo, fa->hi);
		}
	}
	case N_NEG: {
		kg_value a = eval(e, x->kids[0], f);
		if (a.kind != KG_VAL_NUM)
			return UNKNOWN;
		return vnum(a.unit, -a.num, -a.hi, -a.lo);
	}
	case N_NOT: {
		int t = truth(eval(e, x->kids[0], f));
		return t < 0 ? UNKNOWN : vbool(!t);
	}
	case N_AND: {
		int a = truth(eval(e, x->kids[0], f));
		if (a == 0)
			return vbool(0);
		int b = truth(eval(e, x->kids[1], f));
		if (b == 0)
			return vbool(0);
		return (a < 0 || b < 0) ? UNKNOWN : vbool(1);
	}
	case N_OR: {
		int a = truth(eval(e, x->kids[0], f));
		if (a == 1)
			return vbool(1);
		int b = truth(eval(e, x->kids[1], f));
		if (b == 1)
			return vbool(1);
		return (a < 0 || b < 0) ? UNKNOWN : vbool(0);
	}
	case N_ADD: case N_SUB: case N_MUL: case N_DIV:
		return arith(x->op, eval(e, x->kids[0], f), eval(e, x->kids[1], f));
	case N_LT: case N_LE: case N_GT: case N_GE: case N_EQ: case N_NE:
		return compare(x->op, eval(e, x->kids[0], f), eval(e, x->kids[1], f));
	case N_DEFINED:
		return vbool(eval(e, x->kids[0], f).kind != KG_VAL_UNKNOWN);
	case N_DEFAULT: {
		kg_value a = eval(e, x->kids[0], f);
		return a.kind != KG_VAL_UNKNOWN ? a : eval(e, x->kids[1], f);
	}
	case N_RELATION: {
		/* the sign that is true of the two numbers as printed */
		kg_value a = eval(e, x->kids[0], f), b = eval(e, x->kids[1], f);
		if (a.kind != KG_VAL_NUM || b.kind != KG_VAL_NUM || a.unit != b.unit)
			return UNKNOWN;
		char pa[64], pb[64];
		bool same = !strcmp(kg_value_format(a, pa, sizeof pa), kg_value_format(b, pb, sizeof pb));
		kg_value r = {.kind = KG_VAL_STR};
		r.str = a.num > b.num ? (same ? "≥" : ">") : a.num < b.num ? (same ? "≤" : "<") : "=";
		return r;
	}
	case N_NEAR: {
		kg_value a = eval(e, x->kids[0], f), b = eval(e, x->kids[1], f);
		if (a.kind != KG_VAL_NUM || b.kind != KG_VAL_NUM)
			return UNKNOWN;
		return vbool(a.lo <= b.hi && b.lo <= a.hi);
	}
	case N_MATCHES: {
		kg_value a = eval(e, x->kids[0], f);
		if (a.kind != KG_VAL_STR)
			return UNKNOWN;
		/* the compiled tree is filled in here (the tool evaluates on
		 * one thread) */
		node *m = (node *)x;
		if (!x->md)
			m->md = pcre2_match_data_create_from_pattern(m->re, NULL);
		size_t len = strlen(a.str);
		kg_regex_use(m->re, &m->uses, len);
		int rc = pcre2_match(x->re, (PCRE2_SPTR)a.str, len, 0, 0, x->md, e->mctx);
		if (rc >= 0)
			return vbool(1);
		if (rc == PCRE2_ERROR_NOMATCH)
			return vbool(0);
		return UNKNOWN; /* match limit, depth limit, … */
	}
	case N_MIN: case N_MAX: {
		kg_value best = UNKNOWN;
		for (size_t i = 0; i < x->nkids; i++) {
			kg_value a = eval(e, x->kids[i], f);
			if (a.kind != KG_VAL_NUM)
				return UNKNOWN;
			if (i == 0 || (x->op == N_MIN ? a.num < best.num : a.num > best.num)) {
				kg_fact_type u = i == 0 ? a.unit : best.unit;
				best = a;
				best.unit = u;
			}
		}
		return best;
	}
	case N_FLOOR: case N_CEIL: {
		kg_value a = eval(e, x->kids[0], f);
		if (a.kind != KG_VAL_NUM)
			return UNKNOWN;
		double (*fn)(double) = x->op == N_FLOOR ? floor : ceil;
		return vnum(a.unit, fn(a.num), fn(a.lo), fn(a.hi));
	}
	}
	return UNKNOWN;
}

kg_value kg_expr_eval(const kg_expr *e, const kg_facts *facts)
{
	static const kg_facts none = {0};
	return eval(e, e->root, facts ? facts : &none);
}

int kg_expr_truth(const kg_expr *e, const kg_facts *facts)
{
	return truth(kg_expr_eval(e, facts));
}

char *kg_value_format(kg_value v, char *buf, size_t n)
{
	switch (v.kind) {
	case KG_VAL_UNKNOWN:
		snprintf(buf, n, "?");
		return buf;
	case KG_VAL_BOOL:
		return kg_fact_value_format(KG_FACT_BOOL, v.num, NULL, buf, n);
	case KG_VAL_STR:
		return kg_fact_value_format(KG_FACT_STRING, 0, v.str, buf, n);
	case KG_VAL_NUM:
		return kg_fact_value_format(v.unit, v.num, NULL, buf, n);
	}
	return buf;
}

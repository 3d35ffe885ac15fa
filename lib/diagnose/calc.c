/* calc.c — see include/diagnose/calc.h. */
#include "diagnose/calc.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- allocator arithmetic ---- */

static int floor_log2(uint64_t v)
{
	return 63 - __builtin_clzll(v);
}

int kg_alloc_conf_parse_divisions(const char *value, kg_alloc_conf *out, kg_error *err)
{
	memset(out, 0, sizeof *out);
	const char *p = value;
	while (*p == ' ')
		p++;
	if (*p != '[') {
		char *end;
		long v = strtol(p, &end, 10);
		while (*end == ' ')
			end++;
		if (end == p || *end || v < 0 || (v & (v - 1)))
			return kg_fail(err, "roundup_power2_divisions: '%s' is not a power of two", value);
		for (int i = 0; i < 16; i++)
			out->divisions[i] = (unsigned)v;
		return 0;
	}
	p++;
	bool first = true;
	int last = -1;
	while (*p && *p != ']') {
		while (*p == ' ' || *p == ',')
			p++;
		if (*p == ']')
			break;
		bool gt = false;
		long key = 0;
		if (*p == '>') {
			gt = true;
			p++;
		} else {
			char *end;
			key = strtol(p, &end, 10);
			if (end == p || key <= 0)
				return kg_fail(err, "roundup_power2_divisions: bad interval in '%s'", value);
			p = end;
		}
		while (*p == ' ')
			p++;
		if (*p != ':')
			return kg_fail(err, "roundup_power2_divisions: expected ':' in '%s'", value);
		p++;
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p || v < 0 || (v & (v - 1)))
			return kg_fail(err, "roundup_power2_divisions: value in '%s' is not a power of two", value);
		p = end;
		if (gt) {
			for (int i = last + 1; i < 16; i++)
				out->divisions[i] = (unsigned)v;
		} else {
			int idx = floor_log2((uint64_t)key);
			if (idx > 15)
				idx = 15;
			if (first)
				for (int i = 0; i < idx; i++)
					out->divisions[i] = (unsigned)v;
			first = false;
			out->divisions[idx] = (unsigned)v;
			last = idx;
		}
		while (*p == ' ')
			p++;
		if (*p && *p != ',' && *p != ']')
			return kg_fail(err, "roundup_power2_divisions: unexpected '%c' in '%s'", *p, value);
	}
	if (*p != ']')
		return kg_fail(err, "roundup_power2_divisions: missing ']' in '%s'", value);
	return 0;
}

static unsigned divisions_for(int64_t size, const kg_alloc_conf *conf)
{
	if (!conf)
		return 0;
	int idx = floor_log2((uint64_t)size) - 20;
	if (idx < 0)
		idx = 0;
	if (idx > 15)
		idx = 15;
	return conf->divisions[idx];
}

int64_t kg_alloc_round_size(int64_t size, const kg_alloc_conf *conf)
{
	if (size < 0 || size > (INT64_MAX >> 2))
		return -1;
	if (size < KG_MIN_BLOCK_SIZE)
		return KG_MIN_BLOCK_SIZE;
	unsigned d = divisions_for(size, conf);
	if (d > 1 && size > (int64_t)KG_MIN_BLOCK_SIZE * d) {
		/* roundup_power2_next_division() */
		if ((size & (size - 1)) == 0)
			return size;
		int64_t floor2 = (int64_t)1 << floor_log2((uint64_t)size);
		int64_t step = floor2 >> floor_log2(d);
		if (step == 0)
			return floor2 << 1;
		int64_t down = size & ~(step - 1);
		return down == size ? size : down + step;
	}
	return KG_MIN_BLOCK_SIZE * ((size + KG_MIN_BLOCK_SIZE - 1) / KG_MIN_BLOCK_SIZE);
}

bool kg_alloc_small_pool(int64_t block)
{
	return block <= KG_SMALL_SIZE;
}

int64_t kg_alloc_segment_size(int64_t block)
{
	if (block < 0 || block > (INT64_MAX >> 2))
		return -1;
	if (block <= KG_SMALL_SIZE)
		return KG_SMALL_BUFFER;
	if (block < KG_MIN_LARGE_ALLOC)
		return KG_LARGE_BUFFER;
	return KG_ROUND_LARGE * ((block + KG_ROUND_LARGE - 1) / KG_ROUND_LARGE);
}

int64_t kg_alloc_tried_to_allocate(int64_t request, const kg_alloc_conf *conf)
{
	int64_t b = kg_alloc_round_size(request, conf);
	return b < 0 ? -1 : kg_alloc_segment_size(b);
}

/* Largest r in [a, b] with pred(r) true, for pred true on a prefix; a - 1
 * when pred(a) is false. */
static int64_t last_true(int64_t a, int64_t b, bool (*pred)(int64_t, const void *), const void *ctx)
{
	if (!pred(a, ctx))
		return a - 1;
	while (a < b) {
		int64_t mid = a + (b - a + 1) / 2;
		if (pred(mid, ctx))
			a = mid;
		else
			b = mid - 1;
	}
	return a;
}

struct inv_ctx {
	const kg_alloc_conf *conf;
	int64_t bound;
};

static bool round_at_most(int64_t r, const void *c)
{
	const struct inv_ctx *x = c;
	return kg_alloc_round_size(r, x->conf) <= x->bound;
}

static bool tried_at_most(int64_t r, const void *c)
{
	const struct inv_ctx *x = c;
	return kg_alloc_tried_to_allocate(r, x->conf) <= x->bound;
}

#define KG_INV_LIMIT ((int64_t)1 << 56)

size_t kg_alloc_request_ranges(kg_size printed, const kg_alloc_conf *conf,
			       kg_range *out, size_t cap)
{
	if (!kg_size_known(printed))
		return 0;
	/* Regions of r in which tried_to_allocate is non-decreasing: small
	 * pool, 1–10 MiB blocks, large blocks (round_size is monotone). */
	struct inv_ctx c = {conf, KG_SMALL_SIZE};
	int64_t end_small = last_true(1, KG_INV_LIMIT, round_at_most, &c);
	c.bound = KG_MIN_LARGE_ALLOC - 1;
	int64_t end_mid = last_true(1, KG_INV_LIMIT, round_at_most, &c);
	int64_t starts[3] = {1, end_small + 1, end_mid + 1};
	int64_t ends[3] = {end_small, end_mid, KG_INV_LIMIT};
	size_t n = 0;
	for (int i = 0; i < 3 && n < cap; i++) {
		if (starts[i] > ends[i])
			continue;
		c.bound = printed.lo - 1;
		int64_t lo = last_true(starts[i], ends[i], tried_at_most, &c) + 1;
		c.bound = printed.hi;
		int64_t hi = last_true(starts[i], ends[i], tried_at_most, &c);
		if (lo > hi)
			continue;
		if (n > 0 && out[n - 1].hi + 1 >= lo) {
			out[n - 1].hi = hi;
			continue;
		}
		out[n].lo = lo;
		out[n].hi = hi;
		n++;
	}
	return n;
}

/* ---- closed forms ---- */

int64_t kg_calc_product(const int64_t *f, size_t n)
{
	__int128 p = 1;
	for (size_t i = 0; i < n; i++) {
		if (f[i] < 0)
			return -1;
		p *= f[i];
		if (p > INT64_MAX)
			return -1;
	}
	return (int64_t)p;
}

#define PRODUCT(...) kg_calc_product((const int64_t[]){__VA_ARGS__}, \
	sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))

int64_t kg_calc_tensor(const int64_t *shape, size_t ndim, int dtype_bytes)
{
	int64_t n = kg_calc_product(shape, ndim);
	return n < 0 || dtype_bytes <= 0 ? -1 : PRODUCT(n, dtype_bytes);
}

int kg_model_components(const char *model)
{
	static const struct { const char *name; int c; } models[] = {
		{"transe", 1}, {"distmult", 1}, {"tucker", 1}, {"conve", 1}, {"transh", 1},
		{"transr", 1}, {"pairre", 1}, {"rescal", 1},
		{"complex", 2}, {"rotate", 2}, {"hake", 2}, {"compgcn", 1},
		{"quate", 4}, {"dualquate", 8},
	};
	if (!model)
		return -1;
	for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
		if (strcasecmp(model, models[i].name) == 0)
			return models[i].c;
	return -1;
}

int64_t kg_calc_full_ranking(int64_t batch, int64_t entities, int64_t dim,
			     int components, int dtype_bytes)
{
	return PRODUCT(batch, entities, dim, components, dtype_bytes);
}

int64_t kg_calc_full_ranking_peak(int64_t batch, int64_t entities, int64_t dim,
				  int temporaries, int dtype_bytes)
{
	return PRODUCT(temporaries, batch, entities, dim, dtype_bytes);
}

int64_t kg_calc_negatives(int64_t batch, int64_t negatives, int64_t dim,
			  int components, int dtype_bytes)
{
	return PRODUCT(batch, negatives, dim, components, dtype_bytes);
}

int kg_adam_kind_of(const char *precision, bool eight_bit, kg_adam_kind *out)
{
	if (!precision)
		return -1;
	static const char *const mixed[] = {"bf16-mixed", "16-mixed", "fp16", "bf16", "amp",
		"mixed", "16", "true", "fp16-mixed"};
	static const char *const full[] = {"fp32", "32", "32-true", "float32", "no", "false"};
	static const char *const half_true[] = {"bf16-true", "16-true", "half", "bfloat16", "float16"};
	for (size_t i = 0; i < sizeof mixed / sizeof mixed[0]; i++)
		if (strcasecmp(precision, mixed[i]) == 0) {
			*out = eight_bit ? KG_ADAM_8BIT_MIXED : KG_ADAM_MIXED;
			return 0;
		}
	for (size_t i = 0; i < sizeof full / sizeof full[0]; i++)
		if (strcasecmp(precision, full[i]) == 0) {
			*out = eight_bit ? KG_ADAM_8BIT_FP32 : KG_ADAM_FP32;
			return 0;
		}
	for (size_t i = 0; i < sizeof half_true / sizeof half_true[0]; i++)
		if (strcasecmp(precision, half_true[i]) == 0) {
			*out = KG_ADAM_HALF_TRUE;
			return 0;
		}
	return -1;
}

int kg_adam_bytes_per_param(kg_adam_kind k)
{
	switch (k) {
	case KG_ADAM_FP32: return 16;
	case KG_ADAM_MIXED: return 16;
	case KG_ADAM_HALF_TRUE: return 8;
	case KG_ADAM_8BIT_FP32: return 10;
	case KG_ADAM_8BIT_MIXED: return 10;
	}
	return -1;
}

int64_t kg_calc_adam(int64_t params, kg_adam_kind k)
{
	return PRODUCT(params, kg_adam_bytes_per_param(k));
}

/* ceil(a·p / n) without overflow for the sizes we meet */
static int64_t share(int64_t mult, int64_t p, int64_t n)
{
	__int128 v = (__int128)mult * p;
	v = (v + n - 1) / n;
	return v > INT64_MAX ? -1 : (int64_t)v;
}

static int64_t add2(int64_t a, int64_t b)
{
	if (a < 0 || b < 0 || a > INT64_MAX - b)
		return -1;
	return a + b;
}

int64_t kg_calc_zero(int64_t params, int stage, int64_t gpus)
{
	if (gpus < 1 || params < 0)
		return -1;
	switch (stage) {
	case 0: return PRODUCT(16, params);
	case 1: return add2(PRODUCT(4, params), share(12, params, gpus));
	case 2: return add2(PRODUCT(2, params), share(14, params, gpus));
	case 3: return share(16, params, gpus);
	}
	return -1;
}

int64_t kg_calc_deepspeed_zero(int64_t params, int stage, int64_t gpus, int offload,
			       int64_t largest_layer_params)
{
	if (gpus < 1 || params < 0 || largest_layer_params < 0)
		return -1;
	int64_t llm = PRODUCT(4, largest_layer_params);
	if (stage == 2) {
		if (offload == 0)
			return add2(PRODUCT(4, params), share(16, params, gpus));
		if (offload == 1)
			return PRODUCT(2, params);
		return -1;
	}
	if (stage == 3) {
		if (offload == 0)
			return add2(llm, share(18, params, gpus));
		if (offload == 1)
			return add2(llm, share(2, params, gpus));
		if (offload == 2)
			return llm;
	}
	return -1;
}

int64_t kg_calc_activations(int64_t seq, int64_t batch, int64_t hidden, int64_t heads)
{
	return add2(PRODUCT(34, seq, batch, hidden), PRODUCT(5, heads, seq, seq, batch));
}

int64_t kg_calc_attention_scores(int64_t batch, int64_t heads, int64_t seq, int dtype_bytes)
{
	return PRODUCT(batch, heads, seq, seq, dtype_bytes);
}

int64_t kg_calc_kv_cache(int64_t layers, int64_t kv_heads, int64_t head_dim,
			 int64_t seq, int64_t batch, int dtype_bytes)
{
	return PRODUCT(2, layers, kv_heads, head_dim, seq, batch, dtype_bytes);
}

int64_t kg_calc_logits(int64_t batch, int64_t seq, int64_t vocab, int dtype_bytes)
{
	return PRODUCT(batch, seq, vocab, dtype_bytes);
}

/* ---- solver ---- */

int64_t kg_round_down(int64_t v, int64_t multiple)
{
	if (multiple < 0 || v <= 0)
		return v < 0 ? v : (multiple < 0 ? v : 0);
	if (multiple == 0)
		return (int64_t)1 << floor_log2((uint64_t)v);
	return v / multiple * multiple;
}

int64_t kg_solve_max(int64_t (*f)(int64_t v, void *ctx), void *ctx,
		     int64_t budget, int64_t limit)
{
	int64_t y = f(0, ctx);
	if (y < 0 || y > budget)
		return -1;
	int64_t a = 0, b = limit;
	while (a < b) {
		int64_t mid = a + (b - a + 1) / 2;
		int64_t v = f(mid, ctx);
		if (v >= 0 && v <= budget)
			a = mid;
		else
			b = mid - 1;
	}
	return a;
}

int64_t kg_solve_full_ranking_batch(int64_t budget, int64_t entities, int64_t dim,
				    int components, int dtype_bytes, int64_t multiple)
{
	int64_t per_row = kg_calc_full_ranking(1, entities, dim, components, dtype_bytes);
	if (per_row <= 0 || budget < 0)
		return 0;
	return kg_round_down(budget / per_row, multiple);
}

/* ---- explain ---- */

struct search {
	const kg_knowns *k;
	const kg_range *t;
	size_t nt;
	int64_t maxhi;
	int64_t printed;
	kg_explanation *out;
	size_t cap, n;
	long budget;
	size_t stack[KG_EXPLAIN_MAX_FACTORS];
};

/* Plausibility: numbers from the config and the dataset count for an
 * explanation, constants and a dtype other than the run's against it;
 * the shapes models really build (batch × entities × dim, batch ×
 * negatives × dim) earn a bonus, and two batch sizes, two dataset sizes,
 * two embedding widths, or negatives next to all entities, a penalty. */
static double score_of(const struct search *s, const size_t *f, size_t n, int64_t product)
{
	double sc = -0.5 * (double)n;
	int seen[KG_KNOWN_DTYPE + 1] = {0};
	for (size_t i = 0; i < n; i++) {
		const kg_known *x = &s->k->v[f[i]];
		if (seen[x->kind]++ && x->kind != KG_KNOWN_OTHER && x->kind != KG_KNOWN_CONSTANT)
			sc -= 5.0;
		switch (x->kind) {
		case KG_KNOWN_CONSTANT: sc -= 1.0; break;
		case KG_KNOWN_DTYPE: sc += x->preferred ? 1.0 : -2.0; break;
		default: sc += 2.0; break;
		}
	}
	if (seen[KG_KNOWN_BATCH] && seen[KG_KNOWN_DATASET] && seen[KG_KNOWN_DIM])
		sc += 3.0;
	else if (seen[KG_KNOWN_BATCH] && seen[KG_KNOWN_COUNT] && seen[KG_KNOWN_DIM])
		sc += 2.0;
	if (seen[KG_KNOWN_COUNT] && seen[KG_KNOWN_DATASET])
		sc -= 2.0;
	if (s->printed > 0 && product > 0)
		sc -= fabs(log((double)product / (double)s->printed)) * 10.0;
	return sc;
}

static void consider(struct search *s, size_t depth, int64_t product)
{
	bool hit = false;
	for (size_t i = 0; i < s->nt && !hit; i++)
		hit = product >= s->t[i].lo && product <= s->t[i].hi;
	if (!hit)
		return;
	kg_explanation e = {.nfactors = depth, .product = product};
	memcpy(e.factor, s->stack, depth * sizeof *s->stack);
	e.score = score_of(s, e.factor, depth, product);
	/* insert, best first; stable for equal scores */
	size_t pos = s->n;
	while (pos > 0 && s->out[pos - 1].score < e.score)
		pos--;
	if (pos >= s->cap)
		return;
	size_t last = s->n < s->cap ? s->n : s->cap - 1;
	memmove(&s->out[pos + 1], &s->out[pos], (last - pos) * sizeof e);
	s->out[pos] = e;
	if (s->n < s->cap)
		s->n++;
}

static void dfs(struct search *s, size_t from, size_t depth, int64_t product,
		int ndtype, int nconst)
{
	if (--s->budget < 0)
		return;
	if (ndtype == 1 && depth > 1)
		consider(s, depth, product);
	if (depth == KG_EXPLAIN_MAX_FACTORS)
		return;
	for (size_t i = from; i < s->k->n; i++) {
		const kg_known *x = &s->k->v[i];
		if (x->value < 2)
			continue;
		int nd = ndtype + (x->kind == KG_KNOWN_DTYPE);
		int nc = nconst + (x->kind == KG_KNOWN_CONSTANT);
		if (nd > 1 || nc > 1)
			continue;
		if (product > s->maxhi / x->value)
			continue;
		s->stack[depth] = i;
		dfs(s, i + 1, depth + 1, product * x->value, nd, nc);
	}
}

size_t kg_explain(const kg_knowns *k, const kg_range *targets, size_t ntargets,
		  int64_t printed_bytes, kg_explanation *out, size_t cap)
{
	if (!cap || !ntargets)
		return 0;
	struct search s = {.k = k, .t = targets, .nt = ntargets, .printed = printed_bytes,
			   .out = out, .cap = cap, .budget = 2000000};
	for (size_t i = 0; i < ntargets; i++)
		if (targets[i].hi > s.maxhi)
			s.maxhi = targets[i].hi;
	dfs(&s, 0, 0, 1, 0, 0);
	return s.n;
}

char *kg_explanation_format(const kg_knowns *k, const kg_explanation *e)
{
	kg_buf b = {0};
	bool first = true;
	for (int kind = KG_KNOWN_CONSTANT; kind <= KG_KNOWN_DTYPE; kind++) {
		for (size_t i = 0; i < e->nfactors; i++) {
			const kg_known *x = &k->v[e->factor[i]];
			if ((int)x->kind != kind)
				continue;
			if (!first)
				kg_buf_puts(&b, " × ");
			first = false;
			if (kind == KG_KNOWN_CONSTANT)
				kg_buf_printf(&b, "%lld", (long long)x->value);
			else if (kind == KG_KNOWN_DTYPE)
				kg_buf_printf(&b, "%lld B (%s)", (long long)x->value, x->label);
			else
				kg_buf_printf(&b, "%lld (%s)", (long long)x->value, x->label);
		}
	}
	return kg_buf_steal(&b);
}

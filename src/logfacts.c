/* logfacts.c — see include/logfacts.h. Each parser first looks for a
 * literal keyword with kg_memcasemem and runs PCRE2 (JIT) only on lines
 * that have one. The compiled patterns are process-wide and compiled on
 * first use; the parsers are not safe to call from two threads at once. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "logfacts.h"
#include "util.h"

#include <math.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

typedef struct pattern {
	const char *src;
	pcre2_code *re;
	pcre2_match_data *md;
} pattern;

static pcre2_match_context *mctx;

static pcre2_code *pat(pattern *p)
{
	if (!p->re) {
		int ec;
		PCRE2_SIZE eo;
		p->re = pcre2_compile((PCRE2_SPTR)p->src, PCRE2_ZERO_TERMINATED,
				      PCRE2_CASELESS, &ec, &eo, NULL);
		if (!p->re)
			abort(); /* a bug in the literal patterns below */
		pcre2_jit_compile(p->re, PCRE2_JIT_COMPLETE);
		p->md = pcre2_match_data_create_from_pattern(p->re, NULL);
		if (!mctx) {
			mctx = pcre2_match_context_create(NULL);
			pcre2_set_match_limit(mctx, 100000);
			pcre2_set_depth_limit(mctx, 1000);
		}
	}
	return p->re;
}

/* Matches p at or after *start; on success returns the ovector and moves
 * *start past the match. */
static PCRE2_SIZE *match(pattern *p, const char *s, size_t n, size_t *start)
{
	if (*start > n)
		return NULL;
	pcre2_code *re = pat(p); /* compiles p->md on first use: before reading it */
	int rc = pcre2_match(re, (PCRE2_SPTR)s, n, *start, 0, p->md, mctx);
	if (rc < 0)
		return NULL;
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(p->md);
	*start = ov[1] > ov[0] ? ov[1] : ov[0] + 1;
	return ov;
}

static bool has_any(const char *s, size_t n, const char *const *words, size_t nw)
{
	for (size_t i = 0; i < nw; i++)
		if (kg_memcasemem(s, n, words[i], strlen(words[i])))
			return true;
	return false;
}

static int64_t int_at(const char *s, size_t a, size_t b)
{
	int64_t v = 0;
	for (size_t i = a; i < b; i++) {
		if (s[i] < '0' || s[i] > '9' || v > INT64_MAX / 10 - 10)
			return KG_NONE;
		v = v * 10 + (s[i] - '0');
	}
	return b > a ? v : KG_NONE;
}

/* ---- readings ---------------------------------------------------------- */

static pattern p_named = {.src =
	"\\b(max_?mem(?:ory)?_?(?:allocated|reserved|cached)|mem(?:ory)?_?(?:allocated|reserved|cached)"
	"|max_ma|max_ca|ma|ca|gpu_?mem)(?:\\(\\))?\\s*[:=]?\\s*([0-9]+(?:\\.[0-9]+)?\\s*(?:[KMGT]i?B|bytes|[KMGT]\\b)?)"};
static pattern p_value_word = {.src =
	"\\b([0-9]+(?:\\.[0-9]+)?\\s*[KMGT]i?B)\\s+(?:max(?:imum)?\\s+|peak\\s+)?(allocated|reserved|cached)\\b"};
static pattern p_word_value = {.src =
	"\\b((?:max(?:imum)?[ _]|peak[ _])?(?:allocated|reserved|cached))(?:\\s+memory)?\\s*[:=]\\s*([0-9]+(?:\\.[0-9]+)?\\s*[KMGT]i?B)"};
static pattern p_epoch = {.src = "\\bepoch\\s*[:=#]?\\s*\\[?\\s*([0-9]+)"};
static pattern p_step = {.src = "\\b(?:global_|train_)?(?:step|iter(?:ation)?)\\s*[:=#]?\\s*\\[?\\s*([0-9]+)"};

static kg_reading_kind kind_of(const char *w, size_t n)
{
	bool max = kg_memcasemem(w, n, "max", 3) || kg_memcasemem(w, n, "peak", 4);
	bool res = kg_memcasemem(w, n, "reserved", 8) || kg_memcasemem(w, n, "cached", 6) ||
		   (n >= 2 && (w[n - 2] == 'C' || w[n - 2] == 'c') && (w[n - 1] == 'A' || w[n - 1] == 'a')) ||
		   kg_memcasemem(w, n, "gpu", 3); /* ultralytics GPU_mem = memory_reserved() */
	if (max)
		return res ? KG_READ_MAX_RESERVED : KG_READ_MAX_ALLOCATED;
	return res ? KG_READ_RESERVED : KG_READ_ALLOCATED;
}

static int64_t ctx_number(pattern *p, const char *s, size_t n)
{
	size_t at = 0;
	PCRE2_SIZE *ov = match(p, s, n, &at);
	return ov ? int_at(s, ov[2], ov[3]) : KG_NONE;
}

static size_t add_reading(kg_reading *out, size_t k, size_t max, kg_reading_kind kind,
			  const char *s, size_t a, size_t b)
{
	if (k >= max)
		return k;
	kg_size v;
	size_t used;
	if (kg_size_parse(s + a, b - a, &v, &used) < 0)
		return k;
	for (size_t i = 0; i < k; i++)
		if (out[i].kind == kind)
			return k; /* one reading per kind and line */
	out[k].kind = kind;
	out[k].value = v;
	out[k].step = out[k].epoch = KG_NONE;
	out[k].line = 0;
	return k + 1;
}

size_t kg_parse_readings(const char *s, size_t n, kg_reading *out, size_t max)
{
	static const char *const pre[] = {"alloc", "reserved", "cached", "MA ", "CA ", "mem"};
	if (!max || !has_any(s, n, pre, sizeof pre / sizeof *pre))
		return 0;
	size_t k = 0, at = 0;
	PCRE2_SIZE *ov;
	while ((ov = match(&p_named, s, n, &at)) && k < max) {
		const char *w = s + ov[2];
		size_t wl = ov[3] - ov[2];
		/* DeepSpeed's "MA"/"CA" must be upper case and followed by a unit */
		bool short_name = wl <= 6 && (kg_memcasemem(w, wl, "ma", 2) || kg_memcasemem(w, wl, "ca", 2)) &&
				  !kg_memcasemem(w, wl, "mem", 3);
		if (short_name && (w[wl - 1] != 'A' || w[wl - 2] == 'a' || w[wl - 2] == 'c'))
			continue;
		const char *num = s + ov[4];
		size_t nl = ov[5] - ov[4];
		bool unit = nl && (num[nl - 1] < '0' || num[nl - 1] > '9');
		if (!unit && (short_name || memchr(num, '.', nl)))
			continue; /* a bare decimal has no unit we could trust */
		k = add_reading(out, k, max, kind_of(w, wl), s, ov[4], ov[5]);
	}
	at = 0;
	while ((ov = match(&p_value_word, s, n, &at)) && k < max) {
		/* "3.2GB allocated" — the word may be "max allocated" (group 0 span) */
		const char *w = s + ov[0];
		k = add_reading(out, k, max, kind_of(w, ov[1] - ov[0]), s, ov[2], ov[3]);
	}
	at = 0;
	while ((ov = match(&p_word_value, s, n, &at)) && k < max)
		k = add_reading(out, k, max, kind_of(s + ov[2], ov[3] - ov[2]), s, ov[4], ov[5]);
	if (k) {
		int64_t ep = ctx_number(&p_epoch, s, n), st = ctx_number(&p_step, s, n);
		for (size_t i = 0; i < k; i++) {
			out[i].epoch = ep;
			out[i].step = st;
		}
	}
	return k;
}

/* ---- parallelism hints ------------------------------------------------ */

static struct {
	pattern p;
	const char *kind;
	int plus;   /* added to the number (gwN → N + 1 workers) */
} hints[] = {
	{{.src = "\\bn_jobs\\s*[=:]\\s*([0-9]+)"}, "n_jobs", 0},
	{{.src = "--nproc[_-]per[_-]node(?:\\s*=\\s*|\\s+)([0-9]+)"}, "nproc_per_node", 0},
	{{.src = "\\bpytest\\b.*?\\s-n\\s*([0-9]+)\\b"}, "pytest-xdist", 0},
	{{.src = "\\bcreated:\\s*([0-9]+)/[0-9]+\\s+workers\\b"}, "pytest-xdist", 0},
	{{.src = "\\[gw([0-9]+)\\]"}, "pytest-xdist", 1},
	{{.src = "\\b(?:num_parallel_trials|n_parallel|max_concurrent_trials|parallel_trials)\\s*[=:]\\s*([0-9]+)"}, "parallel-trials", 0},
	{{.src = "\\bparallel(?:\\s+(?:jobs|trials|workers))?\\s*:\\s*([0-9]+)\\b"}, "parallel", 0},
	{{.src = "(?-i:\\bPAR)\\s*[?]?=\\s*([0-9]+)\\b"}, "parallel", 0},
};

int kg_parse_parallel_hint(const char *s, size_t n, int64_t *jobs, const char **kind)
{
	static const char *const pre[] = {"n_jobs", "parallel", "PAR", "nproc", "pytest",
					  "workers", "[gw", "concurrent"};
	if (!has_any(s, n, pre, sizeof pre / sizeof *pre))
		return 0;
	for (size_t i = 0; i < sizeof hints / sizeof *hints; i++) {
		size_t at = 0;
		PCRE2_SIZE *ov = match(&hints[i].p, s, n, &at);
		if (!ov)
			continue;
		int64_t v = int_at(s, ov[2], ov[3]);
		if (v == KG_NONE || v < 1 || v > 1000000)
			continue;
		*jobs = v + hints[i].plus;
		if (kind)
			*kind = hints[i].kind;
		return 1;
	}
	return 0;
}

/* ---- store and facts --------------------------------------------------- */

#define MAX_READINGS 1000000

void kg_log_facts_init(kg_log_facts *lf)
{
	memset(lf, 0, sizeof *lf);
	lf->parallel_jobs = KG_NONE;
}

void kg_log_facts_free(kg_log_facts *lf)
{
	free(lf->readings);
	kg_log_facts_init(lf);
}

void kg_log_facts_add_reading(kg_log_facts *lf, const kg_reading *r, int64_t step,
			      int64_t epoch, long line)
{
	if (lf->nreadings >= MAX_READINGS)
		return;
	if (lf->nreadings == lf->cap) {
		lf->cap = lf->cap ? lf->cap * 2 : 64;
		lf->readings = kg_realloc(lf->readings, lf->cap * sizeof *lf->readings);
	}
	kg_reading *x = &lf->readings[lf->nreadings++];
	*x = *r;
	if (x->step == KG_NONE)
		x->step = step;
	if (x->epoch == KG_NONE)
		x->epoch = epoch;
	x->line = line;
}

void kg_log_facts_add_parallel(kg_log_facts *lf, int64_t jobs, const char *kind, long line)
{
	if (lf->parallel_jobs == KG_NONE || jobs > lf->parallel_jobs) {
		lf->parallel_jobs = jobs;
		lf->parallel_kind = kind;
		lf->parallel_line = line;
	}
}

static const char *const kind_names[] = {"allocated", "reserved", "max_allocated", "max_reserved"};

typedef struct point { double x; kg_size v; long line; } point;

void kg_facts_from_log(const kg_log_facts *lf, const char *path, long before, kg_facts *f)
{
	if (!path)
		path = "<log>";
	size_t counts[4] = {0};
	size_t total = 0;
	for (size_t i = 0; i < lf->nreadings; i++) {
		const kg_reading *r = &lf->readings[i];
		if (before > 0 && r->line >= before)
			continue;
		counts[r->kind]++;
		total++;
	}
	if (lf->parallel_jobs != KG_NONE && (before <= 0 || lf->parallel_line < before)) {
		char *prov = kg_asprintf("%s:%ld", path, lf->parallel_line);
		kg_facts_set_num(f, "log.parallel_jobs", KG_FACT_COUNT, (double)lf->parallel_jobs, prov);
		if (lf->parallel_kind)
			kg_facts_set_str(f, "log.parallel_source", lf->parallel_kind, prov);
		free(prov);
	}
	if (!total) {
		kg_facts_derive(f);
		return;
	}
	kg_reading_kind kind = KG_READ_ALLOCATED;
	for (int k = 0; k < 4; k++) {
		if (counts[k]) {
			kind = (kg_reading_kind)k;
			break;
		}
	}
	/* group: last reading per epoch, else per step, else every reading */
	bool by_epoch = false, by_step = false;
	int64_t e0 = KG_NONE, s0 = KG_NONE;
	for (size_t i = 0; i < lf->nreadings; i++) {
		const kg_reading *r = &lf->readings[i];
		if (r->kind != kind || (before > 0 && r->line >= before))
			continue;
		if (r->epoch != KG_NONE) {
			if (e0 == KG_NONE) e0 = r->epoch;
			else if (r->epoch != e0) by_epoch = true;
		}
		if (r->step != KG_NONE) {
			if (s0 == KG_NONE) s0 = r->step;
			else if (r->step != s0) by_step = true;
		}
	}
	if (by_epoch)
		by_step = false;
	point *pts = kg_malloc(counts[kind] * sizeof *pts);
	size_t np = 0;
	kg_size first = kg_size_none(), last = kg_size_none(), mx = kg_size_none();
	long first_line = 0, last_line = 0, max_line = 0;
	for (size_t i = 0; i < lf->nreadings; i++) {
		const kg_reading *r = &lf->readings[i];
		if (r->kind != kind || (before > 0 && r->line >= before))
			continue;
		if (!kg_size_known(first)) {
			first = r->value;
			first_line = r->line;
		}
		last = r->value;
		last_line = r->line;
		if (!kg_size_known(mx) || r->value.bytes > mx.bytes) {
			mx = r->value;
			max_line = r->line;
		}
		double x;
		if (by_epoch) {
			if (r->epoch == KG_NONE) continue;
			x = (double)r->epoch;
		} else if (by_step) {
			if (r->step == KG_NONE) continue;
			x = (double)r->step;
		} else {
			x = (double)np;
		}
		if (np && (by_epoch || by_step) && pts[np - 1].x == x) {
			pts[np - 1].v = r->value; /* the last reading of the epoch/step */
			pts[np - 1].line = r->line;
			continue;
		}
		pts[np++] = (point){x, r->value, r->line};
	}
	char *pl = kg_asprintf("%s:%ld", path, last_line);
	char *pf = kg_asprintf("%s:%ld", path, first_line);
	char *pm = kg_asprintf("%s:%ld", path, max_line);
	kg_facts_set_num(f, "log.readings.count", KG_FACT_COUNT, (double)total, pl);
	kg_facts_set_str(f, "log.allocated.kind", kind_names[kind], pl);
	kg_facts_set_bytes(f, "log.allocated.first", first, pf);
	kg_facts_set_bytes(f, "log.allocated.last", last, pl);
	kg_facts_set_bytes(f, "log.allocated.max", mx, pm);
	kg_facts_set_interval(f, "log.allocated.growth", KG_FACT_BYTES,
			      (double)(last.bytes - first.bytes), (double)(last.lo - first.hi),
			      (double)(last.hi - first.lo), pl);
	kg_facts_set_num(f, "log.allocated.points", KG_FACT_COUNT, (double)np, pl);
	kg_facts_set_str(f, "log.allocated.per", by_epoch ? "epoch" : by_step ? "step" : "reading", pl);
	if (np >= 2) {
		bool mono = true;
		for (size_t i = 1; i < np; i++)
			if (pts[i].v.hi < pts[i - 1].v.lo)
				mono = false;
		if (pts[np - 1].v.lo <= pts[0].v.hi)
			mono = false;
		kg_facts_set_num(f, "log.allocated.monotonic", KG_FACT_BOOL, mono, pl);
		double sx = 0, sy = 0, sxx = 0, sxy = 0;
		for (size_t i = 0; i < np; i++) {
			double y = (double)pts[i].v.bytes;
			sx += pts[i].x;
			sy += y;
			sxx += pts[i].x * pts[i].x;
			sxy += pts[i].x * y;
		}
		double den = (double)np * sxx - sx * sx;
		if (den != 0 && (by_epoch || by_step)) {
			double slope = ((double)np * sxy - sx * sy) / den;
			kg_facts_set_num(f, by_epoch ? "log.allocated.growth_per_epoch"
					 : "log.allocated.growth_per_step",
					 KG_FACT_BYTES, round(slope), pl);
		}
	}
	free(pts);
	free(pl);
	free(pf);
	free(pm);
	kg_facts_derive(f);
}

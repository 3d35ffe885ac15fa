/* snapshot.c — see include/snapshot.h. Metric definitions are DESIGN §5's;
 * snapshot layout from formats.md §4.2 (torch/csrc/cuda/Module.cpp ≈2.5,
 * torch/cuda/memory.py _snapshot docstring); legacy 2.0 blocks with
 * "history" are read the way torch/cuda/_memory_viz.py reads them. */
#include "snapshot.h"
#include "pickle.h"
#include "summary.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- trace replay, streamed ------------------------------------------------ */

typedef struct act_count {
	char name[40];
	int64_t n;
} act_count;

typedef struct series_pt {
	int64_t entry, req, res;           /* last entry of the bucket; prefix maxima */
} series_pt;

#define SERIES_MAX 2000
#define SERIES_OOM_MAX 1000
#define SEGMAP_MAX 200
#define SEGMAP_RUNS 256

typedef struct trace_acc {
	int64_t entries;
	act_count *acts;
	size_t nacts;
	int64_t pre_req, max_req, t_req;   /* running Σ(alloc − free_completed) */
	int64_t pre_res, max_res;          /* running Σ(segment_alloc/map − free/unmap) */
	cJSON *oom;
	/* KG_SNAP_SERIES only: downsampled replay, bucket maxima of the prefixes */
	series_pt *pts;
	size_t npts;
	int64_t width, in_bucket;          /* entries per point, entries in the open one */
	int64_t b_req, b_res;              /* open bucket's maxima */
	int64_t peak_entry;                /* 1-based entry of max_req (0: none) */
	int64_t *oom_at;                   /* 1-based entries of the oom actions */
	size_t noom;
} trace_acc;

typedef struct snap_acc {
	trace_acc *dev;
	size_t ndev;
	bool series;                       /* KG_SNAP_SERIES */
} snap_acc;

#define SIZE_CAP ((int64_t)1 << 53)

static trace_acc *acc_dev(snap_acc *a, int device)
{
	if (device < 0)
		device = 0;
	if ((size_t)device >= a->ndev) {
		size_t nn = (size_t)device + 1;
		a->dev = kg_realloc(a->dev, nn * sizeof *a->dev);
		memset(a->dev + a->ndev, 0, (nn - a->ndev) * sizeof *a->dev);
		for (size_t i = a->ndev; i < nn; i++)
			a->dev[i].t_req = KG_NONE;
		a->ndev = nn;
	}
	return &a->dev[device];
}

static bool act_is(const kg_trace_entry *e, const char *s)
{
	size_t n = strlen(s);
	return e->action_len == n && memcmp(e->action, s, n) == 0;
}

static int64_t clamp_size(int64_t v)
{
	if (v == KG_NONE || v < 0)
		return 0;
	return v > SIZE_CAP ? SIZE_CAP : v;
}

/* Closes the open bucket into a point; at SERIES_MAX points, merges
 * neighbours pairwise (maxima kept) and doubles the bucket width. */
static void series_close(trace_acc *t)
{
	if (!t->in_bucket)
		return;
	if (!t->pts) {
		t->pts = kg_malloc(SERIES_MAX * sizeof *t->pts);
		t->width = t->width ? t->width : 1;
	}
	if (t->npts == SERIES_MAX) {
		for (size_t i = 0; i < SERIES_MAX / 2; i++) {
			series_pt a = t->pts[2 * i], b = t->pts[2 * i + 1];
			t->pts[i] = (series_pt){b.entry, a.req > b.req ? a.req : b.req,
						 a.res > b.res ? a.res : b.res};
		}
		t->npts = SERIES_MAX / 2;
		t->width *= 2;
	}
	t->pts[t->npts++] = (series_pt){t->entries, t->b_req, t->b_res};
	t->in_bucket = 0;
}

static void series_add(trace_acc *t, const kg_trace_entry *e)
{
	if (!t->width)
		t->width = 1;
	if (t->in_bucket == 0 || t->pre_req > t->b_req)
		t->b_req = t->pre_req;
	if (t->in_bucket == 0 || t->pre_res > t->b_res)
		t->b_res = t->pre_res;
	t->in_bucket++;
	if (e && e->action && act_is(e, "oom") && t->noom < SERIES_OOM_MAX) {
		t->oom_at = kg_realloc(t->oom_at, (t->noom + 1) * sizeof *t->oom_at);
		t->oom_at[t->noom++] = t->entries;
	}
	/* width may double inside series_close, so compare after the fact */
	if (t->in_bucket >= t->width)
		series_close(t);
}

static void acc_entry_replay(trace_acc *t, const kg_trace_entry *e);

static void acc_entry(void *ctx, int device, const kg_trace_entry *e)
{
	snap_acc *a = ctx;
	trace_acc *t = acc_dev(a, device);
	t->entries++;
	acc_entry_replay(t, e);
	if (a->series)
		series_add(t, e);
}

static void acc_entry_replay(trace_acc *t, const kg_trace_entry *e)
{
	if (!e->action)
		return;
	size_t i;
	size_t an = e->action_len < sizeof t->acts[0].name - 1 ? e->action_len : sizeof t->acts[0].name - 1;
	for (i = 0; i < t->nacts; i++)
		if (strlen(t->acts[i].name) == an && !memcmp(t->acts[i].name, e->action, an))
			break;
	if (i == t->nacts) {
		if (t->nacts >= 64)
			return; /* not a real action name; stop counting new ones */
		t->acts = kg_realloc(t->acts, (t->nacts + 1) * sizeof *t->acts);
		memset(&t->acts[i], 0, sizeof t->acts[i]);
		char *s = kg_sanitize_utf8(e->action, an);
		snprintf(t->acts[i].name, sizeof t->acts[i].name, "%s", s);
		free(s);
		t->nacts++;
	}
	t->acts[i].n++;
	int64_t size = clamp_size(e->size);
	if (act_is(e, "alloc")) {
		t->pre_req += size;
		if (t->pre_req > t->max_req) {
			t->max_req = t->pre_req;
			t->t_req = e->time_us;
			t->peak_entry = t->entries;
		}
	} else if (act_is(e, "free_completed")) {
		t->pre_req -= size;
	} else if (act_is(e, "segment_alloc") || act_is(e, "segment_map")) {
		t->pre_res += size;
		if (t->pre_res > t->max_res)
			t->max_res = t->pre_res;
	} else if (act_is(e, "segment_free") || act_is(e, "segment_unmap")) {
		t->pre_res -= size;
	} else if (act_is(e, "oom")) {
		if (!t->oom)
			t->oom = cJSON_CreateArray();
		cJSON *o = cJSON_CreateObject();
		if (e->size == KG_NONE)
			cJSON_AddNullToObject(o, "size_bytes");
		else
			cJSON_AddNumberToObject(o, "size_bytes", (double)e->size);
		if (e->device_free == KG_NONE)
			cJSON_AddNullToObject(o, "device_free_bytes");
		else
			cJSON_AddNumberToObject(o, "device_free_bytes", (double)e->device_free);
		cJSON_AddItemToArray(t->oom, o);
	}
}

static void acc_free(snap_acc *a)
{
	for (size_t i = 0; i < a->ndev; i++) {
		free(a->dev[i].acts);
		cJSON_Delete(a->dev[i].oom);
		free(a->dev[i].pts);
		free(a->dev[i].oom_at);
	}
	free(a->dev);
}

static int64_t num_or(const cJSON *o, const char *key, int64_t dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v);
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
		return dflt;
	double x = v->valuedouble;
	if (x >= 9.2e18)
		return INT64_MAX;
	if (x <= -9.2e18)
		return INT64_MIN + 1;
	return (int64_t)x;
}

/* Feeds a decoded (JSON or non-streamed) device_traces list to the replay. */
static void acc_from_json(snap_acc *a, const cJSON *traces)
{
	int d = 0;
	const cJSON *list;
	cJSON_ArrayForEach(list, traces) {
		const cJSON *it;
		cJSON_ArrayForEach(it, list) {
			kg_trace_entry e = {0};
			const cJSON *act = cJSON_GetObjectItemCaseSensitive(it, "action");
			if (cJSON_IsString(act)) {
				e.action = act->valuestring;
				e.action_len = strlen(act->valuestring);
			}
			e.addr = num_or(it, "addr", KG_NONE);
			e.size = num_or(it, "size", KG_NONE);
			e.device_free = num_or(it, "device_free", KG_NONE);
			e.time_us = num_or(it, "time_us", KG_NONE);
			acc_entry(a, d, &e);
		}
		d++;
	}
}

/* ---- segments ---------------------------------------------------------------- */

typedef struct site {
	char *file, *function;
	int64_t line, bytes, blocks;
} site;

#define NBUCKETS 6
static const int64_t bucket_min[NBUCKETS] = {
	0, 1LL << 20, 2LL << 20, 20LL << 20, 100LL << 20, 1LL << 30,
};

typedef struct dev_stats {
	int device;
	int64_t segments, seg_large, seg_small, seg_exp, blocks;
	int64_t reserved, allocated, active, requested, inactive, largest_free;
	int64_t hist_n[NBUCKETS], hist_b[NBUCKETS];
	site *sites;
	size_t nsites;
} dev_stats;

static bool ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !strcmp(s + n - m, suf);
}

/* DESIGN §5 top_sites frame rule. */
static bool user_frame(const char *f)
{
	return ends_with(f, ".py") && !strstr(f, "site-packages") && !strstr(f, "dist-packages") &&
	       !strstr(f, "/torch/") && strncmp(f, "torch/", 6) != 0;
}

static const cJSON *block_frames(const cJSON *b)
{
	const cJSON *fr = cJSON_GetObjectItemCaseSensitive(b, "frames");
	if (cJSON_IsArray(fr))
		return fr;
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(b, "history");
	if (cJSON_IsArray(h) && cJSON_GetArraySize(h) > 0)
		return cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(h, 0), "frames");
	return NULL;
}

static int64_t block_requested(const cJSON *b)
{
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(b, "requested_size");
	if (cJSON_IsNumber(r))
		return num_or(b, "requested_size", 0);
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(b, "history");
	if (cJSON_IsArray(h) && cJSON_GetArraySize(h) > 0) {
		const cJSON *h0 = cJSON_GetArrayItem(h, 0);
		if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(h0, "real_size")))
			return num_or(h0, "real_size", 0);
	}
	return num_or(b, "size", 0);
}

static const char *frame_file(const cJSON *f)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(f, "filename");
	return cJSON_IsString(s) ? s->valuestring : "";
}

static void add_site(dev_stats *ds, const cJSON *b, int64_t size)
{
	const cJSON *frames = block_frames(b), *f, *pick = NULL, *first_py = NULL;
	cJSON_ArrayForEach(f, frames) {
		const char *file = frame_file(f);
		if (!first_py && ends_with(file, ".py"))
			first_py = f;
		if (user_frame(file)) {
			pick = f;
			break;
		}
	}
	if (!pick)
		pick = first_py;
	const char *file = pick ? frame_file(pick) : "<unknown>";
	const cJSON *fn = pick ? cJSON_GetObjectItemCaseSensitive(pick, "name") : NULL;
	const char *func = cJSON_IsString(fn) ? fn->valuestring : NULL;
	int64_t line = pick ? num_or(pick, "line", KG_NONE) : KG_NONE;
	for (size_t i = 0; i < ds->nsites; i++) {
		site *s = &ds->sites[i];
		if (!strcmp(s->file, file) && s->line == line &&
		    ((!s->function && !func) || (s->function && func && !strcmp(s->function, func)))) {
			s->bytes += size;
			s->blocks++;
			return;
		}
	}
	ds->sites = kg_realloc(ds->sites, (ds->nsites + 1) * sizeof *ds->sites);
	ds->sites[ds->nsites++] = (site){kg_strdup(file), func ? kg_strdup(func) : NULL, line, size, 1};
}

static int site_cmp(const void *pa, const void *pb)
{
	const site *a = pa, *b = pb;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	if (a->blocks != b->blocks)
		return a->blocks > b->blocks ? -1 : 1;
	int c = strcmp(a->file, b->file);
	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return strcmp(a->function ? a->function : "", b->function ? b->function : "");
}

static dev_stats *dev_get(dev_stats **v, size_t *n, int device)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].device == device)
			return &(*v)[i];
	*v = kg_realloc(*v, (*n + 1) * sizeof **v);
	dev_stats *d = &(*v)[(*n)++];
	memset(d, 0, sizeof *d);
	d->device = device;
	return d;
}

static bool str_eq(const cJSON *o, const char *key, const char *want)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) && !strcmp(v->valuestring, want);
}

static void scan_segments(const cJSON *segments, dev_stats **devs, size_t *ndevs)
{
	const cJSON *seg;
	cJSON_ArrayForEach(seg, segments) {
		dev_stats *ds = dev_get(devs, ndevs, (int)num_or(seg, "device", 0));
		ds->segments++;
		if (str_eq(seg, "segment_type", "large"))
			ds->seg_large++;
		if (str_eq(seg, "segment_type", "small"))
			ds->seg_small++;
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(seg, "is_expandable")))
			ds->seg_exp++;
		ds->reserved += clamp_size(num_or(seg, "total_size", 0));
		const cJSON *b;
		cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(seg, "blocks")) {
			int64_t size = clamp_size(num_or(b, "size", 0));
			ds->blocks++;
			if (str_eq(b, "state", "active_allocated")) {
				ds->allocated += size;
				ds->active += size;
				ds->requested += clamp_size(block_requested(b));
				add_site(ds, b, size);
			} else if (str_eq(b, "state", "active_pending_free")) {
				ds->active += size;
			} else if (str_eq(b, "state", "inactive")) {
				ds->inactive += size;
				if (size > ds->largest_free)
					ds->largest_free = size;
				int k = NBUCKETS - 1;
				while (k > 0 && size < bucket_min[k])
					k--;
				ds->hist_n[k]++;
				ds->hist_b[k] += size;
			}
		}
	}
}

/* Innermost external annotation (START without its END) on `device` at or
 * before time t, in list order. */
static const char *annotation_at(const cJSON *anns, int device, int64_t t)
{
	const char *stack[64];
	int n = 0;
	const cJSON *a;
	cJSON_ArrayForEach(a, anns) {
		int64_t dev = num_or(a, "device", KG_NONE);
		if (dev != KG_NONE && dev != device)
			continue;
		int64_t ts = num_or(a, "time_us", KG_NONE);
		if (ts == KG_NONE || ts > t)
			continue;
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(a, "name");
		if (!cJSON_IsString(name))
			continue;
		if (str_eq(a, "stage", "START")) {
			if (n < 64)
				stack[n++] = name->valuestring;
		} else if (str_eq(a, "stage", "END")) {
			for (int i = n - 1; i >= 0; i--) {
				if (!strcmp(stack[i], name->valuestring)) {
					memmove(&stack[i], &stack[i + 1], (size_t)(n - i - 1) * sizeof *stack);
					n--;
					break;
				}
			}
		}
	}
	return n ? stack[n - 1] : NULL;
}

static void add_i64(cJSON *o, const char *k, int64_t v)
{
	if (v == KG_NONE)
		cJSON_AddNullToObject(o, k);
	else
		cJSON_AddNumberToObject(o, k, (double)v);
}

static int dev_cmp(const void *a, const void *b)
{
	return ((const dev_stats *)a)->device - ((const dev_stats *)b)->device;
}

/* trace.series (KG_SNAP_SERIES): the replay of DESIGN §5 downsampled to at
 * most SERIES_MAX + 1 points [entry, requested_bytes, reserved_bytes]; entry
 * 0 is the start, each later point is the maximum over its bucket of
 * entries and sits at the bucket's last entry (1-based). */
static void series_json(cJSON *tr, trace_acc *t, int64_t start_req, int64_t start_res)
{
	series_close(t);
	cJSON *s = cJSON_AddObjectToObject(tr, "series");
	cJSON_AddStringToObject(s, "x", "entry");
	add_i64(s, "entries_per_point", t->width ? t->width : 1);
	cJSON *pts = cJSON_AddArrayToObject(s, "points");
	for (size_t i = 0; i <= t->npts; i++) {
		series_pt p = i ? t->pts[i - 1] : (series_pt){0, 0, 0};
		const double v[3] = {(double)p.entry, (double)(start_req + p.req), (double)(start_res + p.res)};
		cJSON_AddItemToArray(pts, cJSON_CreateDoubleArray(v, 3));
	}
	add_i64(s, "peak_entry", t->max_req > 0 ? t->peak_entry : KG_NONE);
	cJSON *oe = cJSON_AddArrayToObject(s, "oom_entries");
	for (size_t i = 0; i < t->noom; i++)
		cJSON_AddItemToArray(oe, cJSON_CreateNumber((double)t->oom_at[i]));
}

static cJSON *run_json(int64_t bytes, const char *state)
{
	cJSON *r = cJSON_CreateArray();
	cJSON_AddItemToArray(r, cJSON_CreateNumber((double)bytes));
	cJSON_AddItemToArray(r, cJSON_CreateString(state));
	return r;
}

static int seg_size_cmp(const void *pa, const void *pb)
{
	int64_t a = num_or(*(const cJSON *const *)pa, "total_size", 0);
	int64_t b = num_or(*(const cJSON *const *)pb, "total_size", 0);
	return a < b ? 1 : a > b ? -1 : 0;
}

/* segment_map (KG_SNAP_SERIES): the device's SEGMAP_MAX largest segments,
 * largest first, each {"address", "total_size", "segment_type", "runs":
 * [[bytes, state], …]} with neighbouring blocks of one state merged (at
 * most SEGMAP_RUNS runs; the rest of the segment becomes one "mixed" run). */
static void segment_map_json(cJSON *o, const cJSON *segments, int device)
{
	size_t n = 0, cap = 0;
	const cJSON **v = NULL;
	const cJSON *seg;
	cJSON_ArrayForEach(seg, segments) {
		if ((int)num_or(seg, "device", 0) != device)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			v = kg_realloc(v, cap * sizeof *v);
		}
		v[n++] = seg;
	}
	if (n)
		qsort(v, n, sizeof *v, seg_size_cmp);
	cJSON *arr = cJSON_AddArrayToObject(o, "segment_map");
	for (size_t i = 0; i < n && i < SEGMAP_MAX; i++) {
		cJSON *m = cJSON_CreateObject();
		add_i64(m, "address", num_or(v[i], "address", KG_NONE));
		add_i64(m, "total_size", clamp_size(num_or(v[i], "total_size", 0)));
		const cJSON *ty = cJSON_GetObjectItemCaseSensitive(v[i], "segment_type");
		cJSON_AddStringToObject(m, "segment_type", cJSON_IsString(ty) ? ty->valuestring : "unknown");
		cJSON *runs = cJSON_AddArrayToObject(m, "runs");
		const char *last = NULL;
		int64_t bytes = 0;
		int nruns = 0;
		const cJSON *b;
		cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(v[i], "blocks")) {
			const cJSON *st = cJSON_GetObjectItemCaseSensitive(b, "state");
			const char *state = !cJSON_IsString(st) ? "unknown"
				: !strcmp(st->valuestring, "active_allocated") ? "active_allocated"
				: !strcmp(st->valuestring, "active_pending_free") ? "active_pending_free"
				: !strcmp(st->valuestring, "inactive") ? "inactive" : "unknown";
			if (nruns >= SEGMAP_RUNS - 1 && last)
				state = "mixed";
			if (last && last != state) {
				cJSON_AddItemToArray(runs, run_json(bytes, last));
				nruns++;
				bytes = 0;
			}
			last = state;
			bytes = clamp_size(bytes + clamp_size(num_or(b, "size", 0)));
		}
		if (last)
			cJSON_AddItemToArray(runs, run_json(bytes, last));
		cJSON_AddItemToArray(arr, m);
	}
	free(v);
}

static cJSON *device_json(dev_stats *ds, trace_acc *t, const cJSON *anns, const cJSON *segments,
			  bool series)
{
	cJSON *o = cJSON_CreateObject();
	add_i64(o, "device", ds->device);
	add_i64(o, "segments", ds->segments);
	add_i64(o, "segments_large", ds->seg_large);
	add_i64(o, "segments_small", ds->seg_small);
	add_i64(o, "segments_expandable", ds->seg_exp);
	add_i64(o, "blocks", ds->blocks);
	add_i64(o, "reserved_bytes", ds->reserved);
	add_i64(o, "allocated_bytes", ds->allocated);
	add_i64(o, "active_bytes", ds->active);
	add_i64(o, "requested_bytes", ds->requested);
	add_i64(o, "inactive_bytes", ds->inactive);
	add_i64(o, "largest_free_block_bytes", ds->largest_free);
	cJSON_AddNumberToObject(o, "fragmentation",
		ds->inactive ? 1.0 - (double)ds->largest_free / (double)ds->inactive : 0.0);
	cJSON *h = cJSON_AddArrayToObject(o, "free_blocks");
	for (int k = 0; k < NBUCKETS; k++) {
		cJSON *b = cJSON_CreateObject();
		add_i64(b, "min_bytes", bucket_min[k]);
		add_i64(b, "max_bytes", k + 1 < NBUCKETS ? bucket_min[k + 1] : KG_NONE);
		add_i64(b, "blocks", ds->hist_n[k]);
		add_i64(b, "bytes", ds->hist_b[k]);
		cJSON_AddItemToArray(h, b);
	}

	trace_acc empty = {.t_req = KG_NONE};
	if (!t)
		t = &empty;
	cJSON *tr = cJSON_AddObjectToObject(o, "trace");
	add_i64(tr, "entries", t->entries);
	cJSON *acts = cJSON_AddObjectToObject(tr, "actions");
	for (size_t i = 0; i < t->nacts; i++)
		add_i64(acts, t->acts[i].name, t->acts[i].n);
	/* start = final − Σ changes; peak = start + max prefix (prefix 0 = start) */
	add_i64(tr, "peak_requested_bytes", ds->requested - t->pre_req + t->max_req);
	add_i64(tr, "peak_reserved_bytes", ds->reserved - t->pre_res + t->max_res);
	int64_t tp = t->max_req > 0 ? t->t_req : KG_NONE;
	add_i64(tr, "peak_time_us", tp);
	const char *ann = tp != KG_NONE ? annotation_at(anns, ds->device, tp) : NULL;
	if (ann)
		cJSON_AddStringToObject(tr, "peak_annotation", ann);
	else
		cJSON_AddNullToObject(tr, "peak_annotation");
	cJSON_AddItemToObject(tr, "oom", t->oom ? cJSON_Duplicate(t->oom, 1) : cJSON_CreateArray());
	if (series) {
		series_json(tr, t, ds->requested - t->pre_req, ds->reserved - t->pre_res);
		segment_map_json(o, segments, ds->device);
	}

	if (ds->nsites) /* qsort(NULL, 0, …) is undefined */
		qsort(ds->sites, ds->nsites, sizeof *ds->sites, site_cmp);
	cJSON *ts = cJSON_AddArrayToObject(o, "top_sites");
	for (size_t i = 0; i < ds->nsites && i < 10; i++) {
		site *s = &ds->sites[i];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "file", s->file);
		add_i64(x, "line", s->line);
		if (s->function)
			cJSON_AddStringToObject(x, "function", s->function);
		else
			cJSON_AddNullToObject(x, "function");
		add_i64(x, "bytes", s->bytes);
		add_i64(x, "blocks", s->blocks);
		cJSON_AddItemToArray(ts, x);
	}
	return o;
}

/* Builds the snapshot object from the decoded root (traces either already
 * replayed into acc, or still inside root). */
static cJSON *snapshot_object(const cJSON *root, snap_acc *acc, const char *path)
{
	const cJSON *segments = root, *traces = NULL, *settings = NULL, *anns = NULL;
	if (cJSON_IsObject(root)) {
		segments = cJSON_GetObjectItemCaseSensitive(root, "segments");
		traces = cJSON_GetObjectItemCaseSensitive(root, "device_traces");
		settings = cJSON_GetObjectItemCaseSensitive(root, "allocator_settings");
		anns = cJSON_GetObjectItemCaseSensitive(root, "external_annotations");
	}
	acc_from_json(acc, traces); /* streamed lists are empty here */

	dev_stats *devs = NULL;
	size_t ndevs = 0;
	scan_segments(segments, &devs, &ndevs);
	for (size_t d = 0; d < acc->ndev; d++)
		if (acc->dev[d].entries)
			dev_get(&devs, &ndevs, (int)d);
	if (ndevs)
		qsort(devs, ndevs, sizeof *devs, dev_cmp);

	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "path", path ? path : "-");
	cJSON_AddStringToObject(o, "kind", "snapshot");
	cJSON_AddItemToObject(o, "allocator_settings",
		cJSON_IsObject(settings) ? cJSON_Duplicate(settings, 1) : cJSON_CreateNull());
	cJSON *arr = cJSON_AddArrayToObject(o, "devices");
	for (size_t i = 0; i < ndevs; i++) {
		int d = devs[i].device;
		trace_acc *t = (d >= 0 && (size_t)d < acc->ndev) ? &acc->dev[d] : NULL;
		cJSON_AddItemToArray(arr, device_json(&devs[i], t, anns, segments, acc->series));
		for (size_t k = 0; k < devs[i].nsites; k++) {
			free(devs[i].sites[k].file);
			free(devs[i].sites[k].function);
		}
		free(devs[i].sites);
	}
	free(devs);
	return o;
}

/* ---- memory_stats ------------------------------------------------------------- */

static void flatten(cJSON *out, const cJSON *v, kg_buf *prefix)
{
	const cJSON *c;
	cJSON_ArrayForEach(c, v) {
		size_t keep = prefix->len;
		if (prefix->len)
			kg_buf_putc(prefix, '.');
		kg_buf_puts(prefix, c->string ? c->string : "");
		if (cJSON_IsObject(c))
			flatten(out, c, prefix);
		else if (cJSON_IsNumber(c))
			cJSON_AddNumberToObject(out, prefix->data, c->valuedouble);
		prefix->len = keep;
		if (prefix->data)
			prefix->data[keep] = 0;
	}
}

static bool looks_memory_stats(const cJSON *root)
{
	static const char *const stems[] = {
		"allocated_bytes", "reserved_bytes", "active_bytes", "num_ooms", "num_alloc_retries",
		"allocation", "segment", "inactive_split_bytes", "requested_bytes",
	};
	const cJSON *c;
	cJSON_ArrayForEach(c, root) {
		for (size_t i = 0; i < sizeof stems / sizeof stems[0]; i++) {
			size_t n = strlen(stems[i]);
			if (c->string && !strncmp(c->string, stems[i], n) && (c->string[n] == 0 || c->string[n] == '.'))
				return true;
		}
	}
	return false;
}

static cJSON *value_object(const cJSON *root, snap_acc *acc, const char *path, kg_error *err)
{
	if (cJSON_IsArray(root) ||
	    (cJSON_IsObject(root) && (cJSON_GetObjectItemCaseSensitive(root, "segments") ||
				      cJSON_GetObjectItemCaseSensitive(root, "device_traces"))))
		return snapshot_object(root, acc, path);
	if (cJSON_IsObject(root) && looks_memory_stats(root)) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "path", path ? path : "-");
		cJSON_AddStringToObject(o, "kind", "memory_stats");
		cJSON *stats = cJSON_AddObjectToObject(o, "stats");
		kg_buf pre = {0};
		flatten(stats, root, &pre);
		kg_buf_free(&pre);
		return o;
	}
	kg_fail_at(err, 0, "neither an allocator snapshot (segments, device_traces) nor memory_stats()");
	return NULL;
}

cJSON *kg_snapshot_from_value(const cJSON *root, const char *path, kg_error *err)
{
	snap_acc acc = {0};
	cJSON *o = value_object(root, &acc, path, err);
	acc_free(&acc);
	return o;
}

cJSON *kg_snapshot_load(kg_source *src, kg_kind kind, kg_error *err)
{
	return kg_snapshot_load_ex(src, kind, 0, err);
}

void kg_snapshot_strip_detail(cJSON *snap)
{
	cJSON *d;
	cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(snap, "devices")) {
		cJSON_DeleteItemFromObjectCaseSensitive(d, "segment_map");
		cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(d, "trace"), "series");
	}
}

cJSON *kg_snapshot_load_ex(kg_source *src, kg_kind kind, unsigned flags, kg_error *err)
{
	snap_acc acc = {.series = (flags & KG_SNAP_SERIES) != 0};
	cJSON *root = NULL, *o = NULL;
	if (kind == KG_KIND_PICKLE) {
		kg_trace_sink sink = {&acc, acc_entry, true};
		root = kg_pickle_load(src, &sink, err);
		if (root)
			o = value_object(root, &acc, src->name, err);
	} else if (kind == KG_KIND_JSON || kind == KG_KIND_SUMMARY || kind == KG_KIND_LOG) {
		size_t len = 0;
		char *text = kg_source_slurp(src, kind == KG_KIND_JSON ? (size_t)4 << 30 : (size_t)64 << 20,
					     &len, err);
		if (text && kind != KG_KIND_JSON) {
			o = kg_summary_parse(text, len, src->name, err);
		} else if (text) {
			const char *end = NULL;
			root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
			if (!root)
				kg_fail_at(err, end ? (int64_t)(end - text) : 0, "invalid JSON");
			else
				o = value_object(root, &acc, src->name, err);
		}
		free(text);
	} else {
		kg_fail(err, "not an allocator snapshot, memory_stats() JSON or memory_summary() table (%s)",
			kg_kind_name(kind));
	}
	cJSON_Delete(root);
	acc_free(&acc);
	return o;
}

/* ---- facts ---------------------------------------------------------------------- */

static void fact_bytes(kg_facts *f, const char *name, const cJSON *o, const char *key, const char *prov)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (cJSON_IsNumber(v))
		kg_facts_set_bytes(f, name, kg_size_exact((int64_t)v->valuedouble), prov);
}

static void fact_num(kg_facts *f, const char *name, kg_fact_type type, const cJSON *o, const char *key,
		     const char *prov)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (cJSON_IsNumber(v))
		kg_facts_set_num(f, name, type, v->valuedouble, prov);
	else if (cJSON_IsBool(v))
		kg_facts_set_num(f, name, KG_FACT_BOOL, cJSON_IsTrue(v), prov);
}

void kg_snapshot_facts(const cJSON *snap, kg_facts *f)
{
	const cJSON *pathj = cJSON_GetObjectItemCaseSensitive(snap, "path");
	const char *prov = cJSON_IsString(pathj) ? pathj->valuestring : NULL;
	if (str_eq(snap, "kind", "snapshot")) {
		const cJSON *best = NULL, *d;
		cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(snap, "devices"))
			if (!best || num_or(d, "reserved_bytes", 0) > num_or(best, "reserved_bytes", 0))
				best = d;
		if (best) {
			static const char *const dev_facts[][2] = {
				{"snapshot.reserved", "reserved_bytes"}, {"snapshot.allocated", "allocated_bytes"},
				{"snapshot.active", "active_bytes"}, {"snapshot.requested", "requested_bytes"},
				{"snapshot.inactive", "inactive_bytes"},
				{"snapshot.largest_free_block", "largest_free_block_bytes"},
			};
			for (size_t i = 0; i < sizeof dev_facts / sizeof dev_facts[0]; i++)
				fact_bytes(f, dev_facts[i][0], best, dev_facts[i][1], prov);
			fact_num(f, "snapshot.fragmentation", KG_FACT_RATIO, best, "fragmentation", prov); /* JSON key, not vocabulary */
			fact_num(f, "snapshot.segments", KG_FACT_COUNT, best, "segments", prov);
			const cJSON *tr = cJSON_GetObjectItemCaseSensitive(best, "trace");
			fact_bytes(f, "snapshot.peak_requested", tr, "peak_requested_bytes", prov);
			fact_bytes(f, "snapshot.peak_reserved", tr, "peak_reserved_bytes", prov);
			const cJSON *ann = cJSON_GetObjectItemCaseSensitive(tr, "peak_annotation");
			if (cJSON_IsString(ann))
				kg_facts_set_str(f, "snapshot.peak_phase", ann->valuestring, prov);
			const cJSON *ooms = cJSON_GetObjectItemCaseSensitive(tr, "oom");
			int n = cJSON_GetArraySize(ooms);
			if (n > 0)
				fact_bytes(f, "snapshot.oom_requested", cJSON_GetArrayItem(ooms, n - 1), "size_bytes", prov);
		}
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(snap, "allocator_settings");
		if (cJSON_IsObject(s)) {
			fact_num(f, "alloc_conf.expandable_segments", KG_FACT_BOOL, s, "expandable_segments", prov);
			if (num_or(s, "max_split_size", -1) >= 0)
				fact_bytes(f, "alloc_conf.max_split_size", s, "max_split_size", prov);
			fact_num(f, "alloc_conf.garbage_collection_threshold", KG_FACT_RATIO, s,
				 "garbage_collection_threshold", prov);
			const cJSON *raw = cJSON_GetObjectItemCaseSensitive(s, "PYTORCH_CUDA_ALLOC_CONF");
			if (cJSON_IsString(raw) && raw->valuestring[0])
				kg_facts_set_str(f, "alloc_conf.setting", raw->valuestring, prov);
		}
		return;
	}
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(snap, "stats");
	if (!st)
		return;
	static const char *const stat_facts[][2] = {
		{"snapshot.allocated", "allocated_bytes.all.current"},
		{"snapshot.reserved", "reserved_bytes.all.current"},
		{"snapshot.active", "active_bytes.all.current"},
		{"snapshot.requested", "requested_bytes.all.current"},
		{"snapshot.inactive_split", "inactive_split_bytes.all.current"},
		{"snapshot.peak_allocated", "allocated_bytes.all.peak"},
		{"snapshot.peak_reserved", "reserved_bytes.all.peak"},
	};
	for (size_t i = 0; i < sizeof stat_facts / sizeof stat_facts[0]; i++)
		fact_bytes(f, stat_facts[i][0], st, stat_facts[i][1], prov);
	fact_num(f, "snapshot.num_ooms", KG_FACT_COUNT, st, "num_ooms", prov);
	fact_num(f, "snapshot.num_alloc_retries", KG_FACT_COUNT, st, "num_alloc_retries", prov);
}

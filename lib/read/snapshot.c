/* snapshot.c — see include/read/snapshot.h. Metric definitions are DESIGN §5's;
 * snapshot layout from formats.md §4.2 (torch/csrc/cuda/Module.cpp ≈2.5,
 * torch/cuda/memory.py _snapshot docstring); legacy 2.0 blocks with
 * "history" are read the way torch/cuda/_memory_viz.py reads them. */
#include "read/snapshot.h"
#include "read/pickle.h"
#include "read/summary.h"

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
#define SEGMAP_MAX 4096
#define SEGMAP_RUNS 256

typedef struct trace_acc {
	int64_t entries;
	act_count *acts;
	size_t nacts;
	int64_t pre_req, max_req, t_req;   /* running Σ(alloc − free_completed) */
	int64_t pre_res, max_res;          /* running Σ(segment_alloc/map − free/unmap) */
	kg_trace_oom *oom;
	size_t noom_events;
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
		t->oom = kg_realloc(t->oom, (t->noom_events + 1) * sizeof *t->oom);
		t->oom[t->noom_events++] = (kg_trace_oom){e->size, e->device_free};
	}
}

static void acc_free(snap_acc *a)
{
	for (size_t i = 0; i < a->ndev; i++) {
		free(a->dev[i].acts);
		free(a->dev[i].oom);
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
	return kg_clamp_i64(v->valuedouble);
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

#define NBUCKETS KG_SNAP_NBUCKETS
static const int64_t bucket_min[NBUCKETS] = {
	0, 1LL << 20, 2LL << 20, 20LL << 20, 100LL << 20, 1LL << 30,
};

/* A device's segment metrics as they are summed (m), and its sites. */
typedef struct dev_stats {
	kg_snapshot_device m;
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
		if ((*v)[i].m.device == device)
			return &(*v)[i];
	*v = kg_realloc(*v, (*n + 1) * sizeof **v);
	dev_stats *d = &(*v)[(*n)++];
	memset(d, 0, sizeof *d);
	d->m.device = device;
	for (int k = 0; k < NBUCKETS; k++) {
		d->m.free_blocks[k].min_bytes = bucket_min[k];
		d->m.free_blocks[k].max_bytes = k + 1 < NBUCKETS ? bucket_min[k + 1] : KG_NONE;
	}
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
		kg_snapshot_device *m = &ds->m;
		m->segments++;
		if (str_eq(seg, "segment_type", "large"))
			m->segments_large++;
		if (str_eq(seg, "segment_type", "small"))
			m->segments_small++;
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(seg, "is_expandable")))
			m->segments_expandable++;
		m->reserved_bytes += clamp_size(num_or(seg, "total_size", 0));
		const cJSON *b;
		cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(seg, "blocks")) {
			int64_t size = clamp_size(num_or(b, "size", 0));
			m->blocks++;
			if (str_eq(b, "state", "active_allocated")) {
				m->allocated_bytes += size;
				m->active_bytes += size;
				m->requested_bytes += clamp_size(block_requested(b));
				add_site(ds, b, size);
			} else if (str_eq(b, "state", "active_pending_free")) {
				m->active_bytes += size;
			} else if (str_eq(b, "state", "inactive")) {
				m->inactive_bytes += size;
				if (size > m->largest_free_block_bytes)
					m->largest_free_block_bytes = size;
				int k = NBUCKETS - 1;
				while (k > 0 && size < bucket_min[k])
					k--;
				m->free_blocks[k].blocks++;
				m->free_blocks[k].bytes += size;
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

static int dev_cmp(const void *a, const void *b)
{
	return (int)(((const dev_stats *)a)->m.device - ((const dev_stats *)b)->m.device);
}

/* trace series (KG_SNAP_SERIES): the replay of DESIGN §5 downsampled to at
 * most SERIES_MAX + 1 points; point 0 is the start, each later point is the
 * maximum over its bucket of entries and sits at the bucket's last entry
 * (1-based). */
static void series_fill(kg_snapshot_trace *tr, trace_acc *t, int64_t start_req, int64_t start_res)
{
	series_close(t);
	tr->has_series = true;
	tr->entries_per_point = t->width ? t->width : 1;
	tr->npoints = t->npts + 1;
	tr->points = kg_calloc(tr->npoints, sizeof *tr->points);
	for (size_t i = 0; i <= t->npts; i++) {
		series_pt p = i ? t->pts[i - 1] : (series_pt){0, 0, 0};
		tr->points[i] = (kg_series_point){p.entry, start_req + p.req, start_res + p.res};
	}
	tr->peak_entry = t->max_req > 0 ? t->peak_entry : KG_NONE;
	tr->noom_entries = t->noom;
	tr->oom_entries = t->noom ? kg_malloc(t->noom * sizeof *tr->oom_entries) : NULL;
	for (size_t i = 0; i < t->noom; i++)
		tr->oom_entries[i] = t->oom_at[i];
}

static void push_run(kg_segment_view *m, int64_t bytes, const char *state)
{
	m->runs = kg_realloc(m->runs, (m->nruns + 1) * sizeof *m->runs);
	m->runs[m->nruns++] = (kg_segment_run){bytes, state};
}

static int seg_size_cmp(const void *pa, const void *pb)
{
	int64_t a = num_or(*(const cJSON *const *)pa, "total_size", 0);
	int64_t b = num_or(*(const cJSON *const *)pb, "total_size", 0);
	return a < b ? 1 : a > b ? -1 : 0;
}

/* A block's state as one of the map's static words. */
static const char *block_state(const cJSON *b)
{
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(b, "state");
	return !cJSON_IsString(st) ? "unknown"
		: !strcmp(st->valuestring, "active_allocated") ? "active_allocated"
		: !strcmp(st->valuestring, "active_pending_free") ? "active_pending_free"
		: !strcmp(st->valuestring, "inactive") ? "inactive" : "unknown";
}

/* segment map (KG_SNAP_SERIES): the device's SEGMAP_MAX largest segments,
 * largest first, with neighbouring blocks of one state merged into runs (at
 * most SEGMAP_RUNS; the rest of the segment becomes one "mixed" run); the
 * segments past SEGMAP_MAX summed into segment_rest, one run per state. */
static void segment_map_fill(kg_snapshot_device *o, const cJSON *segments, int device)
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
	o->has_segment_map = true;
	o->nsegment_map = n < SEGMAP_MAX ? n : SEGMAP_MAX;
	o->segment_map = o->nsegment_map ? kg_calloc(o->nsegment_map, sizeof *o->segment_map) : NULL;
	for (size_t i = 0; i < o->nsegment_map; i++) {
		kg_segment_view *m = &o->segment_map[i];
		m->address = num_or(v[i], "address", KG_NONE);
		m->total_size = clamp_size(num_or(v[i], "total_size", 0));
		const cJSON *ty = cJSON_GetObjectItemCaseSensitive(v[i], "segment_type");
		m->segment_type = kg_strdup(cJSON_IsString(ty) ? ty->valuestring : "unknown");
		const char *last = NULL;
		int64_t bytes = 0;
		int nruns = 0;
		const cJSON *b;
		cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(v[i], "blocks")) {
			const char *state = block_state(b);
			if (nruns >= SEGMAP_RUNS - 1 && last)
				state = "mixed";
			if (last && last != state) {
				push_run(m, bytes, last);
				nruns++;
				bytes = 0;
			}
			last = state;
			bytes = clamp_size(bytes + clamp_size(num_or(b, "size", 0)));
		}
		if (last)
			push_run(m, bytes, last);
	}
	static const char *const rest_states[] = {"active_allocated", "active_pending_free", "inactive", "unknown"};
	int64_t rest[4] = {0};
	kg_segment_view *r = &o->segment_rest;
	r->address = KG_NONE;
	for (size_t i = o->nsegment_map; i < n; i++) {
		o->nsegment_rest++;
		r->total_size = clamp_size(r->total_size + clamp_size(num_or(v[i], "total_size", 0)));
		const cJSON *b;
		cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(v[i], "blocks")) {
			const char *state = block_state(b);
			int k = 0;
			while (k < 3 && strcmp(rest_states[k], state))
				k++;
			rest[k] = clamp_size(rest[k] + clamp_size(num_or(b, "size", 0)));
		}
	}
	for (int k = 0; k < 4 && o->nsegment_rest; k++)
		if (rest[k])
			push_run(r, rest[k], rest_states[k]);
	free(v);
}

static void device_fill(kg_snapshot_device *o, dev_stats *ds, trace_acc *t, const cJSON *anns,
			const cJSON *segments, bool series)
{
	*o = ds->m;
	o->fragmentation = o->inactive_bytes
		? 1.0 - (double)o->largest_free_block_bytes / (double)o->inactive_bytes : 0.0;

	trace_acc empty = {.t_req = KG_NONE};
	if (!t)
		t = &empty;
	kg_snapshot_trace *tr = &o->trace;
	tr->entries = t->entries;
	tr->nactions = t->nacts;
	tr->actions = t->nacts ? kg_calloc(t->nacts, sizeof *tr->actions) : NULL;
	for (size_t i = 0; i < t->nacts; i++)
		tr->actions[i] = (kg_action_count){kg_strdup(t->acts[i].name), t->acts[i].n};
	/* start = final − Σ changes; peak = start + max prefix (prefix 0 = start) */
	tr->peak_requested_bytes = o->requested_bytes - t->pre_req + t->max_req;
	tr->peak_reserved_bytes = o->reserved_bytes - t->pre_res + t->max_res;
	tr->peak_time_us = t->max_req > 0 ? t->t_req : KG_NONE;
	const char *ann = tr->peak_time_us != KG_NONE ? annotation_at(anns, (int)o->device, tr->peak_time_us) : NULL;
	tr->peak_annotation = ann ? kg_strdup(ann) : NULL;
	tr->noom = t->noom_events;
	tr->oom = t->noom_events ? kg_malloc(t->noom_events * sizeof *tr->oom) : NULL;
	for (size_t i = 0; i < t->noom_events; i++)
		tr->oom[i] = t->oom[i];
	if (series) {
		series_fill(tr, t, o->requested_bytes - t->pre_req, o->reserved_bytes - t->pre_res);
		segment_map_fill(o, segments, (int)o->device);
	}

	if (ds->nsites) /* qsort(NULL, 0, …) is undefined */
		qsort(ds->sites, ds->nsites, sizeof *ds->sites, site_cmp);
	o->ntop_sites = ds->nsites < 10 ? ds->nsites : 10;
	o->top_sites = o->ntop_sites ? kg_calloc(o->ntop_sites, sizeof *o->top_sites) : NULL;
	for (size_t i = 0; i < o->ntop_sites; i++) {
		site *s = &ds->sites[i];
		o->top_sites[i] = (kg_alloc_site){kg_strdup(s->file), s->line,
						  s->function ? kg_strdup(s->function) : NULL, s->bytes, s->blocks};
	}
}

static kg_setting setting(const cJSON *settings, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(settings, key);
	if (cJSON_IsBool(v))
		return (kg_setting){true, true, cJSON_IsTrue(v)};
	if (cJSON_IsNumber(v))
		return (kg_setting){true, false, v->valuedouble};
	return (kg_setting){0};
}

/* Builds the snapshot from the decoded root (traces either already
 * replayed into acc, or still inside root). */
static kg_snapshot *snapshot_object(const cJSON *root, snap_acc *acc, const char *path)
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

	kg_snapshot *o = kg_snapshot_new(path, KG_SNAPSHOT);
	if (cJSON_IsObject(settings)) {
		o->allocator_settings = cJSON_PrintUnformatted(settings);
		const cJSON *raw = cJSON_GetObjectItemCaseSensitive(settings, "PYTORCH_CUDA_ALLOC_CONF");
		if (cJSON_IsString(raw))
			o->alloc_conf = kg_strdup(raw->valuestring);
		o->expandable_segments = setting(settings, "expandable_segments");
		o->max_split_size = setting(settings, "max_split_size");
		o->garbage_collection_threshold = setting(settings, "garbage_collection_threshold");
	}
	o->ndevices = ndevs;
	o->devices = ndevs ? kg_calloc(ndevs, sizeof *o->devices) : NULL;
	for (size_t i = 0; i < ndevs; i++) {
		int d = (int)devs[i].m.device;
		trace_acc *t = (d >= 0 && (size_t)d < acc->ndev) ? &acc->dev[d] : NULL;
		device_fill(&o->devices[i], &devs[i], t, anns, segments, acc->series);
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

static void flatten(kg_snapshot *out, const cJSON *v, kg_buf *prefix)
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
			kg_snapshot_add_stat(out, prefix->data, c->valuedouble, false);
		prefix->len = keep;
		if (prefix->data)
			prefix->data[keep] = 0;
	}
}

/* memory_stats() by its keys: the sniffer's (kg_snapshot_json_key). */
static bool looks_memory_stats(const cJSON *root)
{
	const cJSON *c;
	cJSON_ArrayForEach(c, root)
		if (c->string && kg_snapshot_json_key(c->string, strlen(c->string)) == 2)
			return true;
	return false;
}

static kg_snapshot *value_object(const cJSON *root, snap_acc *acc, const char *path, kg_error *err)
{
	if (cJSON_IsArray(root) ||
	    (cJSON_IsObject(root) && (cJSON_GetObjectItemCaseSensitive(root, "segments") ||
				      cJSON_GetObjectItemCaseSensitive(root, "device_traces"))))
		return snapshot_object(root, acc, path);
	if (cJSON_IsObject(root) && looks_memory_stats(root)) {
		kg_snapshot *o = kg_snapshot_new(path, KG_MEMORY_STATS);
		kg_buf pre = {0};
		flatten(o, root, &pre);
		kg_buf_free(&pre);
		return o;
	}
	kg_fail_at(err, 0, "neither an allocator snapshot (segments, device_traces) nor memory_stats()");
	return NULL;
}

kg_snapshot *kg_snapshot_from_value(const cJSON *root, const char *path, kg_error *err)
{
	snap_acc acc = {0};
	kg_snapshot *o = value_object(root, &acc, path, err);
	acc_free(&acc);
	return o;
}

kg_snapshot *kg_snapshot_load(kg_source *src, kg_kind kind, kg_error *err)
{
	return kg_snapshot_load_ex(src, kind, 0, err);
}

kg_snapshot *kg_snapshot_load_ex(kg_source *src, kg_kind kind, unsigned flags, kg_error *err)
{
	snap_acc acc = {.series = (flags & KG_SNAP_SERIES) != 0};
	cJSON *root = NULL;
	kg_snapshot *o = NULL;
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

static void fact_exact(kg_facts *f, const char *name, int64_t bytes, const char *prov)
{
	if (bytes != KG_NONE)
		kg_facts_set_bytes(f, name, kg_size_exact(bytes), prov);
}

static void fact_stat(kg_facts *f, const char *name, const kg_snapshot *s, const char *key,
		      kg_fact_type type, const char *prov)
{
	const kg_stat *st = kg_snapshot_stat(s, key);
	if (!st)
		return;
	if (type == KG_FACT_BYTES)
		kg_facts_set_bytes(f, name, kg_size_exact(kg_clamp_i64(st->value)), prov);
	else
		kg_facts_set_num(f, name, type, st->value, prov);
}

static void fact_setting(kg_facts *f, const char *name, kg_fact_type type, kg_setting v, const char *prov)
{
	if (v.set)
		kg_facts_set_num(f, name, v.is_bool ? KG_FACT_BOOL : type, v.value, prov);
}

void kg_snapshot_facts(const kg_snapshot *snap, kg_facts *f)
{
	const char *prov = snap->path;
	if (snap->kind == KG_SNAPSHOT) {
		const kg_snapshot_device *best = NULL;
		for (size_t i = 0; i < snap->ndevices; i++)
			if (!best || snap->devices[i].reserved_bytes > best->reserved_bytes)
				best = &snap->devices[i];
		if (best) {
			fact_exact(f, "snapshot.reserved", best->reserved_bytes, prov);
			fact_exact(f, "snapshot.allocated", best->allocated_bytes, prov);
			fact_exact(f, "snapshot.active", best->active_bytes, prov);
			fact_exact(f, "snapshot.requested", best->requested_bytes, prov);
			fact_exact(f, "snapshot.inactive", best->inactive_bytes, prov);
			fact_exact(f, "snapshot.largest_free_block", best->largest_free_block_bytes, prov);
			kg_facts_set_num(f, "snapshot.fragmentation", KG_FACT_RATIO, best->fragmentation, prov);
			kg_facts_set_num(f, "snapshot.segments", KG_FACT_COUNT, (double)best->segments, prov);
			const kg_snapshot_trace *tr = &best->trace;
			fact_exact(f, "snapshot.peak_requested", tr->peak_requested_bytes, prov);
			fact_exact(f, "snapshot.peak_reserved", tr->peak_reserved_bytes, prov);
			if (tr->peak_annotation)
				kg_facts_set_str(f, "snapshot.peak_phase", tr->peak_annotation, prov);
			if (tr->noom > 0)
				fact_exact(f, "snapshot.oom_requested", tr->oom[tr->noom - 1].size_bytes, prov);
		}
		if (snap->allocator_settings) {
			fact_setting(f, "alloc_conf.expandable_segments", KG_FACT_BOOL, snap->expandable_segments, prov);
			kg_setting m = snap->max_split_size;
			if (m.set && !m.is_bool && isfinite(m.value) && m.value >= 0)
				kg_facts_set_bytes(f, "alloc_conf.max_split_size", kg_size_exact(kg_clamp_i64(m.value)), prov);
			fact_setting(f, "alloc_conf.garbage_collection_threshold", KG_FACT_RATIO,
				     snap->garbage_collection_threshold, prov);
			if (snap->alloc_conf && snap->alloc_conf[0])
				kg_facts_set_str(f, "alloc_conf.setting", snap->alloc_conf, prov);
		}
		return;
	}
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
		fact_stat(f, stat_facts[i][0], snap, stat_facts[i][1], KG_FACT_BYTES, prov);
	fact_stat(f, "snapshot.num_ooms", snap, "num_ooms", KG_FACT_COUNT, prov);
	fact_stat(f, "snapshot.num_alloc_retries", snap, "num_alloc_retries", KG_FACT_COUNT, prov);
}

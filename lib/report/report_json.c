/* report_json.c — the JSON report, schema `kgmem-diagnose/1` (DESIGN §4).
 * All JSON goes through cJSON; byte counts are written as raw integers so
 * values above 2^53 stay exact. Unknown values are null, never 0. Fields
 * beyond DESIGN §4 (message, phase_source, alloc_conf, followups,
 * duplicates, summary.first_failed_rank, summary.root_cause_rank, notes, run)
 * are additive. */
#include "report/report.h"
#include "model/run.h"
#include "diagnose/differential.h"
#include "kg_build.h"
#include "model/snapshot.h"
#include "model/util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

static cJSON *int_or_null(int64_t v)
{
	if (v == KG_NONE)
		return cJSON_CreateNull();
	char buf[32];
	snprintf(buf, sizeof buf, "%lld", (long long)v);
	return cJSON_CreateRaw(buf);
}

static cJSON *str_or_null(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static void add_bytes(cJSON *o, const char *key, kg_size s)
{
	cJSON_AddItemToObject(o, key, int_or_null(kg_size_known(s) ? s.bytes : KG_NONE));
}

static cJSON *memory_json(const kg_memory *m)
{
	cJSON *o = cJSON_CreateObject();
	add_bytes(o, "requested_bytes", m->requested);
	add_bytes(o, "total_capacity_bytes", m->total_capacity);
	add_bytes(o, "free_bytes", m->free);
	add_bytes(o, "allocated_bytes", m->allocated);
	add_bytes(o, "reserved_bytes", m->reserved);
	add_bytes(o, "reserved_unallocated_bytes", m->reserved_unallocated);
	add_bytes(o, "process_in_use_bytes", m->process_in_use);
	add_bytes(o, "allowed_bytes", m->allowed);
	add_bytes(o, "private_pools_bytes", m->private_pools);
	add_bytes(o, "other_allocations_bytes", m->other_allocations);
	cJSON *procs = cJSON_AddArrayToObject(o, "other_processes");
	for (size_t i = 0; i < m->nprocs; i++) {
		cJSON *p = cJSON_CreateObject();
		cJSON_AddItemToObject(p, "pid", int_or_null(m->procs[i].pid));
		add_bytes(p, "in_use_bytes", m->procs[i].in_use);
		cJSON_AddItemToArray(procs, p);
	}
	return o;
}

/* DIAGNOSIS §7: bytes, null where unknown; split_uncertain says the
 * unaccounted part is the CUDA context and other processes together. */
static cJSON *budget_json(const kg_budget *b)
{
	if (b->capacity == KG_NONE && b->free == KG_NONE && b->allocated == KG_NONE)
		return cJSON_CreateNull();
	cJSON *o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "capacity", int_or_null(b->capacity));
	cJSON_AddItemToObject(o, "free", int_or_null(b->free));
	cJSON_AddItemToObject(o, "allocated", int_or_null(b->allocated));
	cJSON_AddItemToObject(o, "cached_unused", int_or_null(b->cached_unused));
	cJSON_AddItemToObject(o, "non_pytorch", int_or_null(b->non_pytorch));
	cJSON_AddItemToObject(o, "other_processes", int_or_null(b->other_processes));
	cJSON_AddItemToObject(o, "unaccounted", int_or_null(b->unaccounted));
	cJSON_AddBoolToObject(o, "split_uncertain", b->split_uncertain);
	cJSON_AddBoolToObject(o, "consistent", b->consistent);
	return o;
}

static cJSON *differential_json(const kg_incident *inc)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < inc->ndifferential; i++) {
		const kg_hypothesis *h = &inc->differential[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "cause", h->cause);
		cJSON_AddItemToObject(o, "confidence", str_or_null(h->confidence));
		/* rounded to 4 places: the report is stable across libm builds */
		cJSON_AddNumberToObject(o, "p", round(h->p * 1e4) / 1e4);
		cJSON_AddBoolToObject(o, "ruled_out", h->ruled_out);
		cJSON_AddBoolToObject(o, "open", h->open);
		cJSON *ev = cJSON_AddArrayToObject(o, "evidence");
		for (size_t k = 0; k < h->nevidence; k++) {
			cJSON *e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "text", h->evidence[k].text);
			cJSON_AddStringToObject(e, "strength", kg_strength_name(h->evidence[k].strength));
			cJSON_AddBoolToObject(e, "against", h->evidence[k].against);
			cJSON_AddStringToObject(e, "source", h->evidence[k].source);
			cJSON_AddItemToArray(ev, e);
		}
		cJSON_AddItemToObject(o, "to_confirm", str_or_null(h->to_confirm));
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static cJSON *finding_json(const kg_incident *inc, const kg_finding *f)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "rule", str_or_null(f->rule));
	cJSON_AddItemToObject(o, "category", str_or_null(f->category));
	cJSON_AddStringToObject(o, "severity", kg_severity_name(kg_finding_shown_severity(inc, f)));
	if (f->supports) {
		cJSON_AddStringToObject(o, f->refutes ? "refutes" : "supports", f->supports);
		cJSON_AddStringToObject(o, "strength", kg_strength_name(f->strength));
	}
	cJSON_AddItemToObject(o, "title", str_or_null(f->title));
	cJSON_AddItemToObject(o, "message", str_or_null(f->message));
	cJSON *ev = cJSON_AddArrayToObject(o, "evidence");
	for (size_t i = 0; i < f->nevidence; i++)
		cJSON_AddItemToArray(ev, cJSON_CreateString(f->evidence[i]));
	cJSON *rems = cJSON_AddArrayToObject(o, "remedies");
	for (size_t i = 0; i < f->nremedies; i++) {
		const kg_remedy *r = &f->remedies[i];
		cJSON *ro = cJSON_CreateObject();
		cJSON_AddItemToObject(ro, "title", str_or_null(r->title));
		/* the one-line instruction the text report's help: line prints */
		char *act = kg_remedy_instruction(r);
		cJSON_AddStringToObject(ro, "instruction", act);
		free(act);
		cJSON *env = cJSON_AddObjectToObject(ro, "env");
		for (size_t k = 0; k < r->nenv; k++)
			cJSON_AddStringToObject(env, r->env_names[k], r->env_values[k]);
		cJSON *set = cJSON_AddObjectToObject(ro, "set");
		for (size_t k = 0; k < r->nset; k++) {
			/* a value that is a plain integer is written as a number */
			char *end = NULL;
			long long v = strtoll(r->set_values[k], &end, 10);
			if (end && *end == '\0' && end != r->set_values[k])
				cJSON_AddItemToObject(set, r->set_roles[k], int_or_null(v));
			else
				cJSON_AddStringToObject(set, r->set_roles[k], r->set_values[k]);
		}
		/* the config's own key for each role a loaded config names */
		if (r->set_keys) {
			cJSON *keys = cJSON_AddObjectToObject(ro, "keys");
			for (size_t k = 0; k < r->nset; k++)
				if (r->set_keys[k])
					cJSON_AddStringToObject(keys, r->set_roles[k], r->set_keys[k]);
		}
		if (r->code)
			cJSON_AddStringToObject(ro, "code", r->code);
		if (r->caveat)
			cJSON_AddStringToObject(ro, "caveat", r->caveat);
		cJSON_AddItemToArray(rems, ro);
	}
	return o;
}

static cJSON *incident_json(const kg_incident *inc)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "id", inc->id);
	cJSON_AddItemToObject(o, "kind", str_or_null(inc->kind));
	cJSON_AddItemToObject(o, "family", str_or_null(inc->family));
	cJSON_AddItemToObject(o, "framework", str_or_null(inc->framework));
	cJSON *loc = cJSON_AddObjectToObject(o, "location");
	cJSON_AddItemToObject(loc, "path", str_or_null(inc->path));
	cJSON_AddItemToObject(loc, "line", int_or_null(inc->line > 0 ? inc->line : KG_NONE));
	cJSON_AddItemToObject(o, "time", str_or_null(inc->time[0] ? inc->time : NULL));
	cJSON *dev = cJSON_AddObjectToObject(o, "device");
	cJSON_AddItemToObject(dev, "type", str_or_null(inc->device_type));
	cJSON_AddItemToObject(dev, "index", int_or_null(inc->device_index));
	cJSON_AddItemToObject(o, "rank", int_or_null(inc->rank));
	cJSON_AddItemToObject(o, "step", int_or_null(inc->step));
	cJSON_AddItemToObject(o, "epoch", int_or_null(inc->epoch));
	cJSON_AddItemToObject(o, "phase", str_or_null(inc->phase));
	cJSON_AddItemToObject(o, "phase_source", str_or_null(inc->phase_source));
	cJSON_AddItemToObject(o, "mode", str_or_null(inc->mode));
	cJSON_AddStringToObject(o, "severity", kg_severity_name(kg_incident_severity(inc)));
	cJSON_AddItemToObject(o, "cause", str_or_null(inc->cause));
	cJSON_AddItemToObject(o, "confidence", str_or_null(inc->confidence));
	cJSON_AddItemToObject(o, "memory", memory_json(&inc->mem));
	cJSON_AddItemToObject(o, "budget", budget_json(&inc->budget));
	if (inc->tensor) {
		cJSON *t = cJSON_AddObjectToObject(o, "tensor");
		cJSON *shape = cJSON_AddArrayToObject(t, "shape");
		for (size_t i = 0; i < inc->tensor->ndim; i++)
			cJSON_AddItemToArray(shape, int_or_null(inc->tensor->shape[i]));
		cJSON_AddItemToObject(t, "dtype", str_or_null(inc->tensor->dtype[0] ? inc->tensor->dtype : NULL));
		cJSON_AddItemToObject(t, "bytes", int_or_null(inc->tensor->bytes));
	} else {
		cJSON_AddNullToObject(o, "tensor");
	}
	cJSON_AddItemToObject(o, "status", str_or_null(inc->status));
	cJSON_AddItemToObject(o, "message", str_or_null(inc->message));
	if (inc->alloc_conf_var) {
		cJSON *ac = cJSON_AddObjectToObject(o, "alloc_conf");
		cJSON_AddStringToObject(ac, "variable", inc->alloc_conf_var);
		cJSON_AddStringToObject(ac, "value", inc->alloc_conf ? inc->alloc_conf : "");
		cJSON_AddItemToObject(ac, "line", int_or_null(inc->alloc_conf_line));
	} else {
		cJSON_AddNullToObject(o, "alloc_conf");
	}
	cJSON *frames = cJSON_AddArrayToObject(o, "frames");
	for (size_t i = 0; i < inc->nframes; i++) {
		const kg_frame *f = &inc->frames[i];
		cJSON *fo = cJSON_CreateObject();
		cJSON_AddItemToObject(fo, "file", str_or_null(f->file));
		cJSON_AddItemToObject(fo, "line", int_or_null(f->line > 0 ? f->line : KG_NONE));
		cJSON_AddItemToObject(fo, "function", str_or_null(f->function));
		cJSON_AddItemToObject(fo, "code", str_or_null(f->code));
		cJSON_AddItemToArray(frames, fo);
	}
	cJSON *fu = cJSON_AddArrayToObject(o, "followups");
	for (size_t i = 0; i < inc->nfollowups; i++) {
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "kind", inc->followups[i].kind);
		cJSON_AddItemToObject(x, "line", int_or_null(inc->followups[i].line));
		cJSON_AddItemToObject(x, "text", str_or_null(inc->followups[i].text));
		cJSON_AddItemToArray(fu, x);
	}
	cJSON_AddNumberToObject(o, "duplicates", inc->duplicates);
	cJSON_AddItemToObject(o, "differential", differential_json(inc));
	cJSON *fs = cJSON_AddArrayToObject(o, "findings");
	for (size_t i = 0; i < inc->nfindings; i++)
		cJSON_AddItemToArray(fs, finding_json(inc, &inc->findings[i]));
	/* the one action (the text report's help: line): which remedy of
	 * findings[] it is, and its instruction */
	const kg_finding *af = kg_incident_action_finding(inc);
	if (af && af->nremedies) {
		cJSON *a = cJSON_AddObjectToObject(o, "action");
		cJSON_AddItemToObject(a, "rule", str_or_null(af->rule));
		cJSON_AddItemToObject(a, "title", str_or_null(af->remedies[0].title));
		char *act = kg_remedy_instruction(&af->remedies[0]);
		cJSON_AddStringToObject(a, "instruction", act);
		free(act);
	} else {
		cJSON_AddNullToObject(o, "action");
	}
	return o;
}

/* ---- snapshots[] (model/snapshot.h): numbers as cJSON numbers, as DESIGN §5 ---- */

static void add_i64(cJSON *o, const char *k, int64_t v)
{
	if (v == KG_NONE)
		cJSON_AddNullToObject(o, k);
	else
		cJSON_AddNumberToObject(o, k, (double)v);
}

static cJSON *trace_json(const kg_snapshot_trace *t)
{
	cJSON *tr = cJSON_CreateObject();
	add_i64(tr, "entries", t->entries);
	cJSON *acts = cJSON_AddObjectToObject(tr, "actions");
	for (size_t i = 0; i < t->nactions; i++)
		add_i64(acts, t->actions[i].action, t->actions[i].count);
	add_i64(tr, "peak_requested_bytes", t->peak_requested_bytes);
	add_i64(tr, "peak_reserved_bytes", t->peak_reserved_bytes);
	add_i64(tr, "peak_time_us", t->peak_time_us);
	cJSON_AddItemToObject(tr, "peak_annotation", str_or_null(t->peak_annotation));
	cJSON *oom = cJSON_AddArrayToObject(tr, "oom");
	for (size_t i = 0; i < t->noom; i++) {
		cJSON *o = cJSON_CreateObject();
		add_i64(o, "size_bytes", t->oom[i].size_bytes);
		add_i64(o, "device_free_bytes", t->oom[i].device_free_bytes);
		cJSON_AddItemToArray(oom, o);
	}
	if (t->has_series) {
		cJSON *s = cJSON_AddObjectToObject(tr, "series");
		cJSON_AddStringToObject(s, "x", "entry");
		add_i64(s, "entries_per_point", t->entries_per_point);
		cJSON *pts = cJSON_AddArrayToObject(s, "points");
		for (size_t i = 0; i < t->npoints; i++) {
			const kg_series_point *p = &t->points[i];
			const double v[3] = {(double)p->entry, (double)p->requested_bytes, (double)p->reserved_bytes};
			cJSON_AddItemToArray(pts, cJSON_CreateDoubleArray(v, 3));
		}
		add_i64(s, "peak_entry", t->peak_entry);
		cJSON *oe = cJSON_AddArrayToObject(s, "oom_entries");
		for (size_t i = 0; i < t->noom_entries; i++)
			cJSON_AddItemToArray(oe, cJSON_CreateNumber((double)t->oom_entries[i]));
	}
	return tr;
}

static cJSON *device_json(const kg_snapshot_device *d)
{
	cJSON *o = cJSON_CreateObject();
	add_i64(o, "device", d->device);
	add_i64(o, "segments", d->segments);
	add_i64(o, "segments_large", d->segments_large);
	add_i64(o, "segments_small", d->segments_small);
	add_i64(o, "segments_expandable", d->segments_expandable);
	add_i64(o, "blocks", d->blocks);
	add_i64(o, "reserved_bytes", d->reserved_bytes);
	add_i64(o, "allocated_bytes", d->allocated_bytes);
	add_i64(o, "active_bytes", d->active_bytes);
	add_i64(o, "requested_bytes", d->requested_bytes);
	add_i64(o, "inactive_bytes", d->inactive_bytes);
	add_i64(o, "largest_free_block_bytes", d->largest_free_block_bytes);
	cJSON_AddNumberToObject(o, "fragmentation", d->fragmentation);
	cJSON *h = cJSON_AddArrayToObject(o, "free_blocks");
	for (int k = 0; k < KG_SNAP_NBUCKETS; k++) {
		cJSON *b = cJSON_CreateObject();
		add_i64(b, "min_bytes", d->free_blocks[k].min_bytes);
		add_i64(b, "max_bytes", d->free_blocks[k].max_bytes);
		add_i64(b, "blocks", d->free_blocks[k].blocks);
		add_i64(b, "bytes", d->free_blocks[k].bytes);
		cJSON_AddItemToArray(h, b);
	}
	cJSON_AddItemToObject(o, "trace", trace_json(&d->trace));
	if (d->has_segment_map) {
		cJSON *arr = cJSON_AddArrayToObject(o, "segment_map");
		for (size_t i = 0; i < d->nsegment_map; i++) {
			const kg_segment_view *v = &d->segment_map[i];
			cJSON *m = cJSON_CreateObject();
			add_i64(m, "address", v->address);
			add_i64(m, "total_size", v->total_size);
			cJSON_AddStringToObject(m, "segment_type", v->segment_type);
			cJSON *runs = cJSON_AddArrayToObject(m, "runs");
			for (size_t k = 0; k < v->nruns; k++) {
				cJSON *r = cJSON_CreateArray();
				cJSON_AddItemToArray(r, cJSON_CreateNumber((double)v->runs[k].bytes));
				cJSON_AddItemToArray(r, cJSON_CreateString(v->runs[k].state));
				cJSON_AddItemToArray(runs, r);
			}
			cJSON_AddItemToArray(arr, m);
		}
	}
	cJSON *ts = cJSON_AddArrayToObject(o, "top_sites");
	for (size_t i = 0; i < d->ntop_sites; i++) {
		const kg_alloc_site *s = &d->top_sites[i];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "file", s->file);
		add_i64(x, "line", s->line);
		cJSON_AddItemToObject(x, "function", str_or_null(s->function));
		add_i64(x, "bytes", s->bytes);
		add_i64(x, "blocks", s->blocks);
		cJSON_AddItemToArray(ts, x);
	}
	return o;
}

cJSON *kg_snapshot_to_json(const kg_snapshot *s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "path", s->path);
	cJSON_AddStringToObject(o, "kind", kg_snapshot_kind_name(s->kind));
	if (s->kind == KG_SNAPSHOT) {
		cJSON *settings = s->allocator_settings ? cJSON_Parse(s->allocator_settings) : NULL;
		cJSON_AddItemToObject(o, "allocator_settings", settings ? settings : cJSON_CreateNull());
		cJSON *arr = cJSON_AddArrayToObject(o, "devices");
		for (size_t i = 0; i < s->ndevices; i++)
			cJSON_AddItemToArray(arr, device_json(&s->devices[i]));
		return o;
	}
	if (s->kind == KG_MEMORY_SUMMARY)
		add_i64(o, "device", s->device);
	cJSON *stats = cJSON_AddObjectToObject(o, "stats");
	for (size_t i = 0; i < s->nstats; i++)
		cJSON_AddNumberToObject(stats, s->stats[i].name, s->stats[i].value);
	return o;
}

void kg_snapshots_json(kg_snapshot *const *v, size_t n, FILE *out)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "schema", "kgmem-diagnose/1");
	cJSON_AddStringToObject(doc, "version", KG_VERSION);
	cJSON *arr = cJSON_AddArrayToObject(doc, "snapshots");
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, kg_snapshot_to_json(v[i]));
	char *s = cJSON_Print(doc);
	fputs(s, out);
	fputc('\n', out);
	cJSON_free(s);
	cJSON_Delete(doc);
}

/* The document; the incidents array is left empty when !with_incidents
 * (kg_report_json streams them). */
/* --- the "run" object (`run` subcommand, model/run.h) --- */

/* A count or size that is -1 when unknown: raw integer or null. */
static cJSON *known_or_null(int64_t v)
{
	return int_or_null(v < 0 ? KG_NONE : v);
}


static cJSON *reading_json(const kg_reading *e)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "time", e->time);
	cJSON_AddStringToObject(o, "trigger", e->trigger);
	cJSON_AddItemToObject(o, "line", e->line > 0 ? known_or_null(e->line) : cJSON_CreateNull());

	cJSON *g = cJSON_AddObjectToObject(o, "gpu");
	cJSON_AddBoolToObject(g, "available", e->gpu.available);
	cJSON_AddItemToObject(g, "note", e->gpu.note[0] ? cJSON_CreateString(e->gpu.note) : cJSON_CreateNull());
	cJSON *devs = cJSON_AddArrayToObject(g, "devices");
	for (size_t i = 0; i < e->gpu.ndevices; i++) {
		const kg_gpu_device *d = &e->gpu.devices[i];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddNumberToObject(x, "index", d->index);
		cJSON_AddItemToObject(x, "name", d->name[0] ? cJSON_CreateString(d->name) : cJSON_CreateNull());
		cJSON_AddItemToObject(x, "uuid", d->uuid[0] ? cJSON_CreateString(d->uuid) : cJSON_CreateNull());
		cJSON_AddItemToObject(x, "used_bytes", known_or_null(d->used_bytes));
		cJSON_AddItemToObject(x, "total_bytes", known_or_null(d->total_bytes));
		cJSON_AddItemToArray(devs, x);
	}
	cJSON *procs = cJSON_AddArrayToObject(g, "processes");
	for (size_t i = 0; i < e->gpu.nprocs; i++) {
		const kg_gpu_proc *p = &e->gpu.procs[i];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddNumberToObject(x, "device", p->device);
		cJSON_AddItemToObject(x, "pid", known_or_null(p->pid));
		cJSON_AddItemToObject(x, "name", p->name[0] ? cJSON_CreateString(p->name) : cJSON_CreateNull());
		cJSON_AddItemToObject(x, "used_bytes", known_or_null(p->used_bytes));
		cJSON_AddItemToObject(x, "of_run", p->ours < 0 ? cJSON_CreateNull() : cJSON_CreateBool(p->ours));
		cJSON_AddItemToArray(procs, x);
	}

	cJSON *c = cJSON_AddObjectToObject(o, "cgroup");
	cJSON_AddBoolToObject(c, "found", e->cgroup.found);
	cJSON_AddItemToObject(c, "version", e->cgroup.version ? known_or_null(e->cgroup.version) : cJSON_CreateNull());
	cJSON_AddItemToObject(c, "path", e->cgroup.path[0] ? cJSON_CreateString(e->cgroup.path) : cJSON_CreateNull());
	cJSON_AddItemToObject(c, "memory_max_bytes", known_or_null(e->cgroup.max_bytes));
	cJSON_AddItemToObject(c, "memory_current_bytes", known_or_null(e->cgroup.current_bytes));
	cJSON_AddItemToObject(c, "memory_peak_bytes", known_or_null(e->cgroup.peak_bytes));
	cJSON_AddItemToObject(c, "oom", known_or_null(e->cgroup.oom));
	cJSON_AddItemToObject(c, "oom_kill", known_or_null(e->cgroup.oom_kill));

	cJSON *h = cJSON_AddObjectToObject(o, "host");
	cJSON_AddItemToObject(h, "mem_total_bytes", known_or_null(e->host.total_bytes));
	cJSON_AddItemToObject(h, "mem_available_bytes", known_or_null(e->host.available_bytes));
	cJSON_AddItemToObject(h, "swap_total_bytes", known_or_null(e->host.swap_total_bytes));
	cJSON_AddItemToObject(h, "swap_free_bytes", known_or_null(e->host.swap_free_bytes));
	return o;
}

static cJSON *run_json(const kg_run_info *ri)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *cmd = cJSON_AddArrayToObject(o, "command");
	for (size_t i = 0; i < ri->argc; i++) {
		char *s = kg_sanitize_utf8(ri->argv[i], strlen(ri->argv[i]));
		cJSON_AddItemToArray(cmd, cJSON_CreateString(s));
		free(s);
	}
	cJSON_AddItemToObject(o, "pid", known_or_null(ri->pid));
	cJSON_AddStringToObject(o, "started", ri->started);
	cJSON_AddStringToObject(o, "ended", ri->ended);
	cJSON_AddNumberToObject(o, "duration_seconds", (double)(int64_t)(ri->duration_s * 1000) / 1000.0);
	cJSON_AddItemToObject(o, "exit_code", ri->signal ? cJSON_CreateNull() : known_or_null(ri->exit_code));
	if (ri->signal) {
		const char *n = kg_signal_name(ri->signal);
		char buf[16];
		if (!n) {
			snprintf(buf, sizeof buf, "%d", ri->signal);
			n = buf;
		}
		cJSON_AddStringToObject(o, "signal", n);
	} else {
		cJSON_AddNullToObject(o, "signal");
	}
	cJSON *labels = cJSON_AddObjectToObject(o, "labels");
	for (size_t i = 0; i < ri->nlabels; i++) {
		const char *eq = strchr(ri->labels[i], '=');
		if (!eq)
			continue;
		char *k = kg_sanitize_utf8(ri->labels[i], (size_t)(eq - ri->labels[i]));
		char *v = kg_sanitize_utf8(eq + 1, strlen(eq + 1));
		cJSON_DeleteItemFromObjectCaseSensitive(labels, k);
		cJSON_AddStringToObject(labels, k, v);
		free(k);
		free(v);
	}
	cJSON_AddItemToObject(o, "log", ri->log ? cJSON_CreateString(ri->log) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "snapshot_dir",
			      ri->snapshot_dir ? cJSON_CreateString(ri->snapshot_dir) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "oom_kill_during_run",
			      ri->oom_kill_before >= 0 && ri->oom_kill_after >= ri->oom_kill_before
				      ? known_or_null(ri->oom_kill_after - ri->oom_kill_before)
				      : cJSON_CreateNull());
	cJSON *ev = cJSON_AddArrayToObject(o, "readings");
	for (size_t i = 0; i < ri->nreadings; i++)
		cJSON_AddItemToArray(ev, reading_json(&ri->readings[i]));
	return o;
}


static cJSON *report_tree(const kg_report *r, bool with_incidents)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "schema", "kgmem-diagnose/1");
	cJSON_AddStringToObject(root, "version", KG_VERSION);
	cJSON *inputs = cJSON_AddArrayToObject(root, "inputs");
	for (size_t i = 0; i < r->ninputs; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, "path", str_or_null(r->inputs[i].name));
		cJSON_AddItemToObject(o, "kind", str_or_null(r->inputs[i].kind));
		cJSON_AddItemToObject(o, "bytes", int_or_null(r->inputs[i].bytes));
		cJSON_AddBoolToObject(o, "gzip", r->inputs[i].gzip);
		cJSON_AddItemToArray(inputs, o);
	}
	cJSON *incs = cJSON_AddArrayToObject(root, "incidents");
	for (size_t i = 0; with_incidents && i < r->nincidents; i++)
		cJSON_AddItemToArray(incs, incident_json(&r->incidents[i]));
	cJSON *snaps = cJSON_AddArrayToObject(root, "snapshots");
	for (size_t i = 0; i < r->nsnapshots; i++)
		cJSON_AddItemToArray(snaps, kg_snapshot_to_json(r->snapshots[i]));
	cJSON *patches = cJSON_AddArrayToObject(root, "patches");
	for (size_t i = 0; i < r->npatches; i++) {
		cJSON *p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "path", r->patches[i].path);
		cJSON_AddStringToObject(p, "diff", r->patches[i].diff);
		cJSON_AddBoolToObject(p, "applied", r->patches[i].applied);
		cJSON_AddItemToArray(patches, p);
	}
	int e, w, inf;
	kg_report_counts(r, &e, &w, &inf);
	cJSON *sum = cJSON_AddObjectToObject(root, "summary");
	cJSON_AddNumberToObject(sum, "incidents", (double)r->nincidents);
	cJSON_AddNumberToObject(sum, "errors", e);
	cJSON_AddNumberToObject(sum, "warnings", w);
	cJSON_AddNumberToObject(sum, "infos", inf);
	cJSON_AddItemToObject(sum, "first_failed_rank", int_or_null(r->first_failed_rank));
	cJSON_AddItemToObject(sum, "root_cause_rank", int_or_null(r->root_cause_rank));
	cJSON *notes = cJSON_AddArrayToObject(root, "notes");
	for (size_t i = 0; i < r->nnotes; i++)
		cJSON_AddItemToArray(notes, cJSON_CreateString(r->notes[i]));
	if (r->run) /* `run` subcommand only (model/run.h) */
		cJSON_AddItemToObject(root, "run", run_json(r->run));
	return root;
}

cJSON *kg_report_to_json(const kg_report *r)
{
	return report_tree(r, true);
}

/* Writes cJSON_Print(item) as if item sat `depth` levels deep in a
 * document: cJSON indents each level with one tab after every line break
 * (strings cannot hold a raw one: cJSON escapes it). */
static void print_at(const cJSON *item, int depth, FILE *out)
{
	static const char tabs[] = "\t\t\t\t\t\t\t\t";
	size_t nt = (size_t)depth < sizeof tabs - 1 ? (size_t)depth : sizeof tabs - 1;
	char *s = cJSON_Print(item);
	/* the indented text in one buffer, written once: a write per line
	 * through the UTF-8-repairing stream was most of the report's cost
	 * with many incidents (bench/README.md, issue 30) */
	kg_buf b = {0};
	for (const char *p = s; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
		kg_buf_append(&b, p, n);
		if (nl)
			kg_buf_append(&b, tabs, nt);
		p += n;
	}
	if (b.len)
		fwrite(b.data, 1, b.len, out);
	kg_buf_free(&b);
	cJSON_free(s);
}

/* Prints the same text cJSON_Print gives for the whole tree, but builds and
 * prints one incident at a time, so memory does not grow with the number
 * of incidents (a retry loop can log thousands). */
void kg_report_json(const kg_report *r, FILE *out)
{
	cJSON *root = report_tree(r, false);
	fputs("{\n", out);
	for (const cJSON *m = root->child; m; m = m->next) {
		fprintf(out, "\t\"%s\":\t", m->string);
		if (!strcmp(m->string, "incidents") && r->nincidents) {
			fputc('[', out);
			for (size_t i = 0; i < r->nincidents; i++) {
				cJSON *o = incident_json(&r->incidents[i]);
				if (i)
					fputs(", ", out);
				print_at(o, 2, out);
				cJSON_Delete(o);
			}
			fputc(']', out);
		} else {
			print_at(m, 1, out);
		}
		fputs(m->next ? ",\n" : "\n", out);
	}
	fputs("}\n", out);
	cJSON_Delete(root);
}

void kg_report_json_line(const kg_report *r, FILE *out)
{
	cJSON *root = report_tree(r, true);
	char *s = cJSON_PrintUnformatted(root);
	if (s) {
		fputs(s, out);
		cJSON_free(s);
	}
	fputc('\n', out);
	cJSON_Delete(root);
}

void kg_report_jsonl(const kg_report *r, const char *const *labels, size_t nlabels, FILE *out)
{
	for (size_t i = 0; i < r->nincidents; i++) {
		const kg_incident *inc = &r->incidents[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "schema", "kgmem-diagnose/1");
		cJSON_AddStringToObject(o, "version", KG_VERSION);
		cJSON *in = cJSON_AddObjectToObject(o, "input");
		for (size_t k = 0; k < r->ninputs; k++) {
			if (!inc->path || strcmp(r->inputs[k].name, inc->path))
				continue;
			cJSON_AddItemToObject(in, "path", str_or_null(r->inputs[k].name));
			cJSON_AddItemToObject(in, "kind", str_or_null(r->inputs[k].kind));
			cJSON_AddItemToObject(in, "bytes", int_or_null(r->inputs[k].bytes));
			break;
		}
		if (!cJSON_GetObjectItem(in, "path"))
			cJSON_AddItemToObject(in, "path", str_or_null(inc->path));
		cJSON *lab = cJSON_AddObjectToObject(o, "labels");
		for (size_t k = 0; k < nlabels; k++) {
			const char *eq = strchr(labels[k], '=');
			if (!eq)
				continue;
			char *key = kg_strndup(labels[k], (size_t)(eq - labels[k]));
			cJSON_DeleteItemFromObjectCaseSensitive(lab, key);
			cJSON_AddStringToObject(lab, key, eq + 1);
			free(key);
		}
		cJSON *inc_o = incident_json(inc);
		/* the incident's own fields follow, flat, as in incidents[] */
		while (inc_o->child) {
			cJSON *m = cJSON_DetachItemViaPointer(inc_o, inc_o->child);
			char *name = m->string;
			m->string = NULL;
			cJSON_AddItemToObject(o, name, m);
			cJSON_free(name);
		}
		cJSON_Delete(inc_o);
		char *s = cJSON_PrintUnformatted(o);
		fputs(s, out);
		fputc('\n', out);
		cJSON_free(s);
		cJSON_Delete(o);
	}
}

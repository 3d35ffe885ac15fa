/* snapshot.c — the snapshot document: creation, stats, release
 * (include/model/snapshot.h). The readers that fill it are
 * lib/read/snapshot.c and lib/read/summary.c. */
#include "model/snapshot.h"
#include "model/util.h"

#include <stdlib.h>
#include <string.h>

kg_snapshot *kg_snapshot_new(const char *path, enum kg_snapshot_kind kind)
{
	kg_snapshot *o = kg_calloc(1, sizeof *o);
	o->path = kg_strdup(path ? path : "-");
	o->kind = kind;
	o->device = KG_NONE;
	return o;
}

static void strip_device(kg_snapshot_device *d)
{
	for (size_t i = 0; i < d->nsegment_map; i++) {
		free(d->segment_map[i].segment_type);
		free(d->segment_map[i].runs);
	}
	free(d->segment_map);
	d->segment_map = NULL;
	d->nsegment_map = 0;
	free(d->segment_rest.runs);
	d->segment_rest = (kg_segment_view){0};
	d->nsegment_rest = 0;
	d->has_segment_map = false;
	kg_snapshot_trace *t = &d->trace;
	free(t->points);
	free(t->oom_entries);
	t->points = NULL;
	t->oom_entries = NULL;
	t->npoints = t->noom_entries = 0;
	t->has_series = false;
}

void kg_snapshot_strip_detail(kg_snapshot *snap)
{
	for (size_t i = 0; i < snap->ndevices; i++)
		strip_device(&snap->devices[i]);
}

void kg_snapshot_free(kg_snapshot *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->ndevices; i++) {
		kg_snapshot_device *d = &s->devices[i];
		strip_device(d);
		for (size_t k = 0; k < d->trace.nactions; k++)
			free(d->trace.actions[k].action);
		free(d->trace.actions);
		free(d->trace.peak_annotation);
		free(d->trace.oom);
		for (size_t k = 0; k < d->ntop_sites; k++) {
			free(d->top_sites[k].file);
			free(d->top_sites[k].function);
		}
		free(d->top_sites);
	}
	free(s->devices);
	for (size_t i = 0; i < s->nstats; i++)
		free(s->stats[i].name);
	free(s->stats);
	free(s->path);
	free(s->allocator_settings);
	free(s->alloc_conf);
	free(s);
}

const char *kg_snapshot_kind_name(enum kg_snapshot_kind k)
{
	return k == KG_SNAPSHOT ? "snapshot" : k == KG_MEMORY_STATS ? "memory_stats" : "memory_summary";
}

const kg_stat *kg_snapshot_stat(const kg_snapshot *s, const char *name)
{
	for (size_t i = 0; i < s->nstats; i++)
		if (!strcmp(s->stats[i].name, name))
			return &s->stats[i];
	return NULL;
}

void kg_snapshot_add_stat(kg_snapshot *s, const char *name, double value, bool replace)
{
	for (size_t i = 0; replace && i < s->nstats; i++) {
		if (strcmp(s->stats[i].name, name))
			continue;
		free(s->stats[i].name);
		memmove(&s->stats[i], &s->stats[i + 1], (s->nstats - i - 1) * sizeof *s->stats);
		s->nstats--;
		break;
	}
	s->stats = kg_realloc(s->stats, (s->nstats + 1) * sizeof *s->stats);
	s->stats[s->nstats++] = (kg_stat){kg_strdup(name), value};
}

/* snapshot_text.c — the readable view of one snapshots[] object (see
 * include/report/snapshot_text.h): summary table, fragmentation line,
 * free-block histogram, top sites, or the memory_stats table. */
#include "report/snapshot_text.h"
#include "model/units.h"

#include <stdlib.h>
#include <string.h>

static const char *fmt(int64_t b, char *buf, size_t n)
{
	if (b == KG_NONE)
		return "-";
	return kg_size_format(b, buf, n);
}

static void row(FILE *out, const char *label, int64_t b)
{
	char s[64];
	fprintf(out, "  %-34s %12s  (%lld bytes)\n", label, fmt(b, s, sizeof s), (long long)b);
}

static void device_text(const kg_snapshot_device *d, FILE *out)
{
	char a[64], b[64];
	fprintf(out, "device %lld: %lld segments (%lld large, %lld small, %lld expandable), %lld blocks\n",
		(long long)d->device, (long long)d->segments, (long long)d->segments_large,
		(long long)d->segments_small, (long long)d->segments_expandable, (long long)d->blocks);
	row(out, "reserved", d->reserved_bytes);
	row(out, "allocated", d->allocated_bytes);
	row(out, "active", d->active_bytes);
	row(out, "requested", d->requested_bytes);
	row(out, "inactive (cached, free)", d->inactive_bytes);
	row(out, "largest free block", d->largest_free_block_bytes);
	fprintf(out, "  fragmentation: %.1f%% of free cached memory is outside the largest free block (%s of %s)\n",
		d->fragmentation * 100, fmt(d->largest_free_block_bytes, a, sizeof a),
		fmt(d->inactive_bytes, b, sizeof b));

	int64_t maxn = 0;
	for (int k = 0; k < KG_SNAP_NBUCKETS; k++)
		if (d->free_blocks[k].blocks > maxn)
			maxn = d->free_blocks[k].blocks;
	if (maxn > 0) {
		fprintf(out, "  free blocks by size:\n");
		for (int k = 0; k < KG_SNAP_NBUCKETS; k++) {
			const kg_free_bucket *h = &d->free_blocks[k];
			int64_t n = h->blocks, hi = h->max_bytes;
			char lo_s[64], hi_s[64], by[64], label[160];
			if (hi == KG_NONE)
				snprintf(label, sizeof label, ">= %s", fmt(h->min_bytes, lo_s, sizeof lo_s));
			else
				snprintf(label, sizeof label, "< %s", fmt(hi, hi_s, sizeof hi_s));
			int bar = (int)(n * 30 / maxn);
			if (n && !bar)
				bar = 1;
			fprintf(out, "    %-16s %6lld %-30.*s %s\n", label, (long long)n, bar,
				"##############################", n ? fmt(h->bytes, by, sizeof by) : "");
		}
	}

	const kg_snapshot_trace *tr = &d->trace;
	if (tr->entries > 0) {
		fprintf(out, "  trace: %lld entries (", (long long)tr->entries);
		for (size_t i = 0; i < tr->nactions; i++)
			fprintf(out, "%s%s %lld", i ? ", " : "", tr->actions[i].action, (long long)tr->actions[i].count);
		fprintf(out, ")\n");
		row(out, "peak requested (replay)", tr->peak_requested_bytes);
		row(out, "peak reserved (replay)", tr->peak_reserved_bytes);
		if (tr->peak_annotation)
			fprintf(out, "  phase at the peak: %s\n", tr->peak_annotation);
		for (size_t i = 0; i < tr->noom; i++)
			fprintf(out, "  OOM: requested %s with %s free on the device\n",
				fmt(tr->oom[i].size_bytes, a, sizeof a), fmt(tr->oom[i].device_free_bytes, b, sizeof b));
	}
	if (d->ntop_sites > 0) {
		fprintf(out, "  top allocation sites (live blocks):\n");
		for (size_t i = 0; i < d->ntop_sites; i++) {
			const kg_alloc_site *s = &d->top_sites[i];
			fprintf(out, "    %12s  %5lld blocks  %s", fmt(s->bytes, a, sizeof a), (long long)s->blocks,
				s->file ? s->file : "?");
			if (s->line != KG_NONE)
				fprintf(out, ":%lld", (long long)s->line);
			if (s->function)
				fprintf(out, " in %s", s->function);
			fputc('\n', out);
		}
	}
}

void kg_snapshot_text(const kg_snapshot *snap, FILE *out)
{
	fprintf(out, "%s: %s\n", snap->path ? snap->path : "-", kg_snapshot_kind_name(snap->kind));
	if (snap->kind == KG_SNAPSHOT) {
		if (snap->ndevices == 0)
			fprintf(out, "  no segments and no trace entries\n");
		for (size_t i = 0; i < snap->ndevices; i++)
			device_text(&snap->devices[i], out);
		if (snap->allocator_settings) {
			kg_setting e = snap->expandable_segments;
			fprintf(out, "allocator settings: PYTORCH_CUDA_ALLOC_CONF=\"%s\", expandable_segments %s\n",
				snap->alloc_conf ? snap->alloc_conf : "", e.set && e.is_bool && e.value ? "on" : "off");
		}
		return;
	}
	if (snap->device != KG_NONE)
		fprintf(out, "  device %d\n", (int)snap->device);
	static const char *const main_keys[] = {
		"allocated_bytes.all.current", "allocated_bytes.all.peak", "reserved_bytes.all.current",
		"reserved_bytes.all.peak", "active_bytes.all.current", "requested_bytes.all.current",
		"inactive_split_bytes.all.current",
	};
	const kg_stat *v;
	for (size_t i = 0; i < sizeof main_keys / sizeof main_keys[0]; i++)
		if ((v = kg_snapshot_stat(snap, main_keys[i])))
			row(out, main_keys[i], kg_clamp_i64(v->value));
	if ((v = kg_snapshot_stat(snap, "num_ooms")))
		fprintf(out, "  %-34s %12lld\n", "num_ooms", (long long)kg_clamp_i64(v->value));
	if ((v = kg_snapshot_stat(snap, "num_alloc_retries")))
		fprintf(out, "  %-34s %12lld\n", "num_alloc_retries", (long long)kg_clamp_i64(v->value));
	if (snap->kind == KG_MEMORY_SUMMARY)
		fprintf(out, "  (memory_summary cells are truncated: each size is a lower bound, up to one unit more)\n");
}

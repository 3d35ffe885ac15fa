/* snapshot_text.c — the readable view of one snapshots[] object (see
 * include/snapshot.h kg_snapshot_text): summary table, fragmentation line,
 * free-block histogram, top sites, or the memory_stats table. */
#include "snapshot.h"
#include "units.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static int64_t geti(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : KG_NONE;
}

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

static void device_text(const cJSON *d, FILE *out)
{
	char a[64], b[64];
	fprintf(out, "device %lld: %lld segments (%lld large, %lld small, %lld expandable), %lld blocks\n",
		(long long)geti(d, "device"), (long long)geti(d, "segments"), (long long)geti(d, "segments_large"),
		(long long)geti(d, "segments_small"), (long long)geti(d, "segments_expandable"),
		(long long)geti(d, "blocks"));
	row(out, "reserved", geti(d, "reserved_bytes"));
	row(out, "allocated", geti(d, "allocated_bytes"));
	row(out, "active", geti(d, "active_bytes"));
	row(out, "requested", geti(d, "requested_bytes"));
	row(out, "inactive (cached, free)", geti(d, "inactive_bytes"));
	row(out, "largest free block", geti(d, "largest_free_block_bytes"));
	const cJSON *fr = cJSON_GetObjectItemCaseSensitive(d, "fragmentation");
	fprintf(out, "  fragmentation: %.1f%% of free cached memory is outside the largest free block (%s of %s)\n",
		cJSON_IsNumber(fr) ? fr->valuedouble * 100 : 0.0,
		fmt(geti(d, "largest_free_block_bytes"), a, sizeof a), fmt(geti(d, "inactive_bytes"), b, sizeof b));

	const cJSON *h, *hist = cJSON_GetObjectItemCaseSensitive(d, "free_blocks");
	int64_t maxn = 0;
	cJSON_ArrayForEach(h, hist) if (geti(h, "blocks") > maxn) maxn = geti(h, "blocks");
	if (maxn > 0) {
		fprintf(out, "  free blocks by size:\n");
		cJSON_ArrayForEach(h, hist) {
			int64_t n = geti(h, "blocks"), hi = geti(h, "max_bytes");
			char lo_s[64], hi_s[64], by[64], label[160];
			if (hi == KG_NONE)
				snprintf(label, sizeof label, ">= %s", fmt(geti(h, "min_bytes"), lo_s, sizeof lo_s));
			else
				snprintf(label, sizeof label, "< %s", fmt(hi, hi_s, sizeof hi_s));
			int bar = (int)(n * 30 / maxn);
			if (n && !bar)
				bar = 1;
			fprintf(out, "    %-16s %6lld %-30.*s %s\n", label, (long long)n, bar,
				"##############################", n ? fmt(geti(h, "bytes"), by, sizeof by) : "");
		}
	}

	const cJSON *tr = cJSON_GetObjectItemCaseSensitive(d, "trace");
	if (geti(tr, "entries") > 0) {
		fprintf(out, "  trace: %lld entries (", (long long)geti(tr, "entries"));
		const cJSON *ac;
		bool first = true;
		cJSON_ArrayForEach(ac, cJSON_GetObjectItemCaseSensitive(tr, "actions")) {
			fprintf(out, "%s%s %lld", first ? "" : ", ", ac->string, (long long)ac->valuedouble);
			first = false;
		}
		fprintf(out, ")\n");
		row(out, "peak requested (replay)", geti(tr, "peak_requested_bytes"));
		row(out, "peak reserved (replay)", geti(tr, "peak_reserved_bytes"));
		const cJSON *ann = cJSON_GetObjectItemCaseSensitive(tr, "peak_annotation");
		if (cJSON_IsString(ann))
			fprintf(out, "  phase at the peak: %s\n", ann->valuestring);
		const cJSON *o;
		cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(tr, "oom"))
			fprintf(out, "  OOM: requested %s with %s free on the device\n",
				fmt(geti(o, "size_bytes"), a, sizeof a), fmt(geti(o, "device_free_bytes"), b, sizeof b));
	}
	const cJSON *sites = cJSON_GetObjectItemCaseSensitive(d, "top_sites"), *s;
	if (cJSON_GetArraySize(sites) > 0) {
		fprintf(out, "  top allocation sites (live blocks):\n");
		cJSON_ArrayForEach(s, sites) {
			const cJSON *fn = cJSON_GetObjectItemCaseSensitive(s, "function");
			const cJSON *file = cJSON_GetObjectItemCaseSensitive(s, "file");
			int64_t line = geti(s, "line");
			fprintf(out, "    %12s  %5lld blocks  %s", fmt(geti(s, "bytes"), a, sizeof a),
				(long long)geti(s, "blocks"), cJSON_IsString(file) ? file->valuestring : "?");
			if (line != KG_NONE)
				fprintf(out, ":%lld", (long long)line);
			if (cJSON_IsString(fn))
				fprintf(out, " in %s", fn->valuestring);
			fputc('\n', out);
		}
	}
}

void kg_snapshot_text(const cJSON *snap, FILE *out)
{
	const cJSON *path = cJSON_GetObjectItemCaseSensitive(snap, "path");
	const cJSON *kind = cJSON_GetObjectItemCaseSensitive(snap, "kind");
	fprintf(out, "%s: %s\n", cJSON_IsString(path) ? path->valuestring : "-",
		cJSON_IsString(kind) ? kind->valuestring : "?");
	if (cJSON_IsString(kind) && !strcmp(kind->valuestring, "snapshot")) {
		const cJSON *d, *devs = cJSON_GetObjectItemCaseSensitive(snap, "devices");
		if (cJSON_GetArraySize(devs) == 0)
			fprintf(out, "  no segments and no trace entries\n");
		cJSON_ArrayForEach(d, devs)
			device_text(d, out);
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(snap, "allocator_settings");
		if (cJSON_IsObject(st)) {
			const cJSON *conf = cJSON_GetObjectItemCaseSensitive(st, "PYTORCH_CUDA_ALLOC_CONF");
			fprintf(out, "allocator settings: PYTORCH_CUDA_ALLOC_CONF=\"%s\", expandable_segments %s\n",
				cJSON_IsString(conf) ? conf->valuestring : "",
				cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(st, "expandable_segments")) ? "on" : "off");
		}
		return;
	}
	const cJSON *dev = cJSON_GetObjectItemCaseSensitive(snap, "device");
	if (cJSON_IsNumber(dev))
		fprintf(out, "  device %d\n", dev->valueint);
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(snap, "stats"), *v;
	static const char *const main_keys[] = {
		"allocated_bytes.all.current", "allocated_bytes.all.peak", "reserved_bytes.all.current",
		"reserved_bytes.all.peak", "active_bytes.all.current", "requested_bytes.all.current",
		"inactive_split_bytes.all.current",
	};
	for (size_t i = 0; i < sizeof main_keys / sizeof main_keys[0]; i++)
		if ((v = cJSON_GetObjectItemCaseSensitive(st, main_keys[i])))
			row(out, main_keys[i], (int64_t)v->valuedouble);
	if ((v = cJSON_GetObjectItemCaseSensitive(st, "num_ooms")))
		fprintf(out, "  %-34s %12lld\n", "num_ooms", (long long)v->valuedouble);
	if ((v = cJSON_GetObjectItemCaseSensitive(st, "num_alloc_retries")))
		fprintf(out, "  %-34s %12lld\n", "num_alloc_retries", (long long)v->valuedouble);
	if (cJSON_IsString(kind) && !strcmp(kind->valuestring, "memory_summary"))
		fprintf(out, "  (memory_summary cells are truncated: each size is a lower bound, up to one unit more)\n");
}

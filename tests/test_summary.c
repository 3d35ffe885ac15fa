/* memory_summary() tables: the dev corpus records (testdata/corpus/dev.jsonl,
 * family memory_summary) give every stats value their "fields" state; plus
 * the eras the corpus lacks (pre-2.0 KB/MB, abbreviated, one line with
 * literal "\n", K/M counts, log prefixes). Run from the source root. */
#include "report/report.h"
#include "read/summary.h"
#include "tap.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* Independent of summary.c's table: DESIGN §5 row → stats key. */
static const char *const row_key[][2] = {
	{"Allocated memory", "allocated_bytes"}, {"Active memory", "active_bytes"},
	{"Requested memory", "requested_bytes"}, {"GPU reserved memory", "reserved_bytes"},
	{"Non-releasable memory", "inactive_split_bytes"}, {"Allocations", "allocation"},
	{"Active allocs", "active"}, {"GPU reserved segments", "segment"},
	{"Non-releasable allocs", "inactive_split"}, {"Oversize allocations", "oversize_allocations"},
	{"Oversize GPU segments", "oversize_segments"},
};
static const char *const col_key[][2] = {
	{"cur", "current"}, {"peak", "peak"}, {"tot_alloc", "allocated"}, {"tot_freed", "freed"},
};

/* "14324 MiB" → bytes; an int stays itself. */
/* The snapshots[] object of s as the JSON report writes it (s freed). */
static cJSON *as_json(kg_snapshot *s)
{
	cJSON *j = s ? kg_snapshot_to_json(s) : NULL;
	kg_snapshot_free(s);
	return j;
}

static double field_value(const cJSON *v)
{
	if (cJSON_IsNumber(v))
		return v->valuedouble;
	double n = 0;
	char unit[8] = "";
	sscanf(v->valuestring, "%lf %7s", &n, unit);
	const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	for (int k = 0; k < 5; k++)
		if (!strcmp(unit, units[k]))
			return n * (double)(1ULL << (10 * k));
	return -1;
}

static double stat(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "stats"), key);
	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static void check_record(const cJSON *rec)
{
	const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(rec, "id"));
	const char *text = cJSON_GetStringValue(cJSON_GetObjectItem(rec, "text"));
	const cJSON *fields = cJSON_GetObjectItem(rec, "fields");
	kg_error err = {.offset = -1};
	cJSON *o = as_json(kg_summary_parse(text, strlen(text), id, &err));
	TAP_OK(o != NULL, "%s parses (%s)", id, err.msg);
	if (!o)
		return;
	TAP_EQ_I64(cJSON_GetObjectItem(o, "device")->valuedouble,
		   cJSON_GetObjectItem(fields, "device_id")->valuedouble, "%s device", id);
	TAP_EQ_I64(stat(o, "num_ooms"), cJSON_GetObjectItem(fields, "cuda_ooms")->valuedouble, "%s num_ooms", id);
	TAP_EQ_I64(stat(o, "num_alloc_retries"), cJSON_GetObjectItem(fields, "cudamalloc_retries")->valuedouble,
		   "%s num_alloc_retries", id);
	int checked = 0, wrong = 0;
	const cJSON *row;
	cJSON_ArrayForEach(row, cJSON_GetObjectItem(fields, "rows")) {
		const char *stem = NULL;
		for (size_t i = 0; i < sizeof row_key / sizeof row_key[0]; i++)
			if (!strcmp(row->string, row_key[i][0]))
				stem = row_key[i][1];
		TAP_OK(stem != NULL, "%s: row '%s' known", id, row->string);
		if (!stem)
			continue;
		const char *pools[] = {NULL, "large_pool", "small_pool"};
		for (int p = 0; p < 3; p++) {
			const cJSON *cells = p ? cJSON_GetObjectItem(row, pools[p]) : row;
			if (!cells)
				continue;
			for (int c = 0; c < 4; c++) {
				const cJSON *cell = cJSON_GetObjectItem(cells, col_key[c][0]);
				if (!cell)
					continue;
				char key[128];
				bool oversize = !strncmp(stem, "oversize", 8);
				if (oversize)
					snprintf(key, sizeof key, "%s.%s", stem, col_key[c][1]);
				else
					snprintf(key, sizeof key, "%s.%s.%s", stem, p ? pools[p] : "all", col_key[c][1]);
				checked++;
				if (stat(o, key) != field_value(cell)) {
					wrong++;
					printf("#   %s %s: got %.0f want %.0f\n", id, key, stat(o, key), field_value(cell));
				}
			}
		}
	}
	TAP_OK(checked >= 100 && wrong == 0, "%s: %d stats values equal the record's fields", id, checked);
	cJSON_Delete(o);
}

int main(void)
{
	FILE *f = fopen("testdata/corpus/dev.jsonl", "r");
	TAP_OK(f != NULL, "dev corpus present");
	char *line = NULL;
	size_t cap = 0;
	int records = 0;
	while (f && getline(&line, &cap, f) > 0) {
		cJSON *rec = cJSON_Parse(line);
		if (rec && !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(rec, "family")) ?: "", "memory_summary")) {
			check_record(rec);
			records++;
		}
		cJSON_Delete(rec);
	}
	free(line);
	if (f)
		fclose(f);
	TAP_EQ_I64(records, 2, "two memory_summary records in the dev corpus");

	/* pre-2.0: KB/MB/GB are powers of 1024 (issue #35901 layout), no
	 * Requested/oversize rows; abbreviated (no pool rows); in a log with a
	 * prefix; pasted on one line with literal \n; K/M count cells */
	const char *old =
		"[rank0]: |===========================================================================|\\n"
		"[rank0]: |                  PyTorch CUDA memory summary, device ID 1                 |\\n"
		"[rank0]: |            CUDA OOMs: 3            |        cudaMalloc retries: 12        |\\n"
		"[rank0]: |        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |\\n"
		"[rank0]: | Allocated memory      |  659155 KB |    4460 MB |     101 GB |      12 B  |\\n"
		"[rank0]: | GPU reserved memory   |    5120 MB |    5120 MB |    5120 MB |       0 B  |\\n"
		"[rank0]: | Allocations           |     912    |    1205 K  |    7802 K  |       2 M  |\\n"
		"[rank0]: |===========================================================================|\\n";
	kg_error err = {.offset = -1};
	cJSON *o = as_json(kg_summary_parse(old, strlen(old), "old.log", &err));
	TAP_OK(o != NULL, "pre-2.0 abbreviated one-line table parses (%s)", err.msg);
	TAP_EQ_I64(stat(o, "allocated_bytes.all.current"), 659155LL * 1024, "659155 KB");
	TAP_EQ_I64(stat(o, "allocated_bytes.all.peak"), 4460LL << 20, "4460 MB");
	TAP_EQ_I64(stat(o, "allocated_bytes.all.allocated"), 101LL << 30, "101 GB");
	TAP_EQ_I64(stat(o, "allocated_bytes.all.freed"), 12, "12 B");
	TAP_EQ_I64(stat(o, "reserved_bytes.all.current"), 5120LL << 20, "reserved 5120 MB");
	TAP_EQ_I64(stat(o, "allocation.all.peak"), 1205000, "1205 K allocations");
	TAP_EQ_I64(stat(o, "allocation.all.freed"), 2000000, "2 M allocations");
	TAP_EQ_I64(stat(o, "num_ooms"), 3, "CUDA OOMs 3");
	TAP_EQ_I64(stat(o, "num_alloc_retries"), 12, "cudaMalloc retries 12");
	TAP_EQ_I64(cJSON_GetObjectItem(o, "device")->valuedouble, 1, "device ID 1");
	TAP_EQ_I64(stat(o, "allocated_bytes.large_pool.current"), -1, "no pool rows invented");
	cJSON_Delete(o);

	const char *bad = "| Allocated memory      |  12 parsecs |   1 MiB |   1 MiB |   0 B   |\n";
	o = as_json(kg_summary_parse(bad, strlen(bad), "bad.txt", &err));
	TAP_OK(o == NULL && err.line == 1, "malformed cell: error on line 1 (%s)", err.msg);
	o = as_json(kg_summary_parse("hello\n", 6, "x", &err));
	TAP_OK(o == NULL && strstr(err.msg, "no metric rows"), "no table: %s", err.msg);
	return tap_done();
}

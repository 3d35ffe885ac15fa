/* Snapshot metrics against the reference computation: for every snapshot
 * in testdata/snapshots/ (four real ones, three synthetic in protocols 2, 3
 * and 5), the object kgmem-diagnose builds equals NAME.expected.json, which
 * tests/snapshot_reference.py computed with CPython's pickle module from
 * DESIGN §5's definitions. Checked three ways: streamed from the pickle,
 * from the fully decoded tree, and from the same dict as JSON. Also
 * memory_stats JSON (flat and nested) and facts. Run from the source root. */
#include "read/pickle.h"
#include "report/report.h"
#include "read/snapshot.h"
#include "tap.h"
#include "cases.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The snapshots[] object of s as the JSON report writes it (s freed). */
static cJSON *as_json(kg_snapshot *s)
{
	cJSON *j = s ? kg_snapshot_to_json(s) : NULL;
	kg_snapshot_free(s);
	return j;
}

static cJSON *read_json(const char *path)
{
	char *text = tc_slurp(path);
	cJSON *v = text ? cJSON_Parse(text) : NULL;
	free(text);
	return v;
}

/* Compares key by key so a failure names the metric. */
static void same(cJSON *got, const cJSON *want, const char *what)
{
	if (!got) {
		TAP_OK(0, "%s: loaded", what);
		return;
	}
	cJSON_DeleteItemFromObject(got, "path");
	bool eq = cJSON_Compare(got, want, true);
	TAP_OK(eq, "%s: every metric equals the reference", what);
	if (!eq) {
		const cJSON *gd = cJSON_GetArrayItem(cJSON_GetObjectItem(got, "devices"), 0);
		const cJSON *wd = cJSON_GetArrayItem(cJSON_GetObjectItem(want, "devices"), 0), *w;
		cJSON_ArrayForEach(w, wd) {
			if (!cJSON_Compare(w, cJSON_GetObjectItem(gd, w->string), true)) {
				char *a = cJSON_PrintUnformatted(w), *b = cJSON_PrintUnformatted(cJSON_GetObjectItem(gd, w->string));
				printf("#   %s: want %s got %s\n", w->string, a, b ? b : "(missing)");
				free(a);
				free(b);
			}
		}
	}
}

static const char *const names[] = {
	"cs336-transformer-forward-mixed", "cs336-transformer-fullstep", "eor-nn-counterfactuals",
	"ftcourse-finetune", "synthetic-p2", "synthetic-p3", "synthetic-p5",
};

int main(void)
{
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char path[256], exp_path[256];
		snprintf(path, sizeof path, "testdata/snapshots/%s.pickle", names[i]);
		snprintf(exp_path, sizeof exp_path, "testdata/snapshots/%s.expected.json", names[i]);
		cJSON *want = read_json(exp_path);
		TAP_OK(want != NULL, "%s: reference present", names[i]);
		if (!want)
			continue;

		kg_source src;
		kg_error err = {.offset = -1};
		TAP_OK(kg_source_open(&src, path, &err) == 0, "%s: open", names[i]);
		TAP_OK(kg_source_sniff(&src) == KG_KIND_PICKLE, "%s: sniffed as pickle", names[i]);
		kg_snapshot *gs = kg_snapshot_load(&src, KG_KIND_PICKLE, &err);
		cJSON *got = gs ? kg_snapshot_to_json(gs) : NULL;
		kg_source_close(&src);
		TAP_EQ_STR(cJSON_GetStringValue(cJSON_GetObjectItem(got, "path")), path, "%s: path", names[i]);
		same(got, want, names[i]);
		char what[300];

		/* not streamed: the whole tree, then the JSON route */
		kg_source_open(&src, path, &err);
		kg_trace_sink py_only = {NULL, NULL, true};
		cJSON *tree = kg_pickle_load(&src, &py_only, &err);
		kg_source_close(&src);
		snprintf(what, sizeof what, "%s decoded in full", names[i]);
		cJSON *o = tree ? as_json(kg_snapshot_from_value(tree, path, &err)) : NULL;
		same(o, want, what);
		cJSON_Delete(o);

		char *text = tree ? cJSON_PrintUnformatted(tree) : NULL;
		char tmp[] = "/tmp/kgsnapXXXXXX";
		int fd = mkstemp(tmp);
		if (text && fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text)) {
			close(fd);
			kg_source_open(&src, tmp, &err);
			TAP_OK(kg_source_sniff(&src) == KG_KIND_JSON, "%s as JSON: sniffed as JSON", names[i]);
			o = as_json(kg_snapshot_load(&src, KG_KIND_JSON, &err));
			kg_source_close(&src);
			snprintf(what, sizeof what, "%s as JSON", names[i]);
			same(o, want, what);
			cJSON_Delete(o);
		}
		unlink(tmp);
		free(text);
		cJSON_Delete(tree);

		if (!strcmp(names[i], "cs336-transformer-fullstep")) {
			kg_facts f = {0};
			kg_snapshot_facts(gs, &f);
			const kg_fact *x = kg_facts_get(&f, "snapshot.largest_free_block");
			TAP_OK(x && x->type == KG_FACT_BYTES && x->num == 104857600.0, "fact snapshot.largest_free_block");
			x = kg_facts_get(&f, "snapshot.peak_phase");
			TAP_EQ_STR(x ? x->str : NULL, "Optimizer.step#AdamW.step", "fact snapshot.peak_phase");
			x = kg_facts_get(&f, "alloc_conf.expandable_segments");
			TAP_OK(x && x->type == KG_FACT_BOOL && x->num == 0, "fact alloc_conf.expandable_segments false");
			x = kg_facts_get(&f, "snapshot.fragmentation");
			TAP_OK(x && x->num > 0.98 && x->num < 0.99, "fact snapshot.fragmentation");
			kg_facts_free(&f);
		}
		cJSON_Delete(got);
		kg_snapshot_free(gs);
		cJSON_Delete(want);
	}

	/* memory_stats, flat (as torch.cuda.memory_stats() returns it) and nested */
	const char *flat = "{\"allocated_bytes.all.current\": 1024, \"reserved_bytes.all.peak\": 4096,"
			   " \"num_ooms\": 2, \"num_alloc_retries\": 1}";
	const char *nested = "{\"allocated_bytes\": {\"all\": {\"current\": 1024}},"
			     " \"reserved_bytes\": {\"all\": {\"peak\": 4096}}, \"num_ooms\": 2, \"num_alloc_retries\": 1}";
	kg_error err = {.offset = -1};
	cJSON *a = cJSON_Parse(flat), *b = cJSON_Parse(nested);
	kg_snapshot *sb = kg_snapshot_from_value(b, "s.json", &err);
	cJSON *oa = as_json(kg_snapshot_from_value(a, "s.json", &err)), *ob = sb ? kg_snapshot_to_json(sb) : NULL;
	TAP_EQ_STR(cJSON_GetStringValue(cJSON_GetObjectItem(oa, "kind")), "memory_stats", "flat memory_stats kind");
	TAP_OK(cJSON_Compare(oa, ob, true), "nested memory_stats flattens to the same keys");
	kg_facts f = {0};
	kg_snapshot_facts(sb, &f);
	kg_snapshot_free(sb);
	const kg_fact *x = kg_facts_get(&f, "snapshot.allocated");
	TAP_OK(x && x->num == 1024, "memory_stats fact snapshot.allocated");
	x = kg_facts_get(&f, "snapshot.num_ooms");
	TAP_OK(x && x->type == KG_FACT_COUNT && x->num == 2, "memory_stats fact snapshot.num_ooms");
	kg_facts_free(&f);
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(oa);
	cJSON_Delete(ob);
	a = cJSON_Parse("{\"model\": \"x\"}");
	oa = as_json(kg_snapshot_from_value(a, "x.json", &err));
	TAP_OK(oa == NULL && strstr(err.msg, "neither"), "other JSON refused: %s", err.msg);
	cJSON_Delete(a);
	return tap_done();
}

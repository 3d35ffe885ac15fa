/* Unit tests for config.c: roles and dataset facts from the configs in
 * testdata/configs (seed 001's RotatE/WN18RR config and others), and clear
 * errors for bad ones. Rules come from the source tree's rules/. */
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include "read/config.h"

#include "tap.h"

#define CFG(name) KG_TESTDATA_DIR "/configs/" name

static void seed(void)
{
	kg_error err = {0};
	kg_config *c = kg_config_load(CFG("seed001-rotate-wn18rr.yaml"), &err);
	TAP_OK(c != NULL, "load seed 001 config (%s)", err.msg);
	if (!c)
		return;
	const kg_config_entry *e = kg_config_role(c, "eval_batch_size");
	TAP_EQ_STR(e ? e->path : NULL, "data.test_bs", "eval_batch_size ← data.test_bs");
	TAP_EQ_I64(e ? e->line : 0, 9, "on line 9");
	e = kg_config_role(c, "embedding_dim");
	TAP_EQ_STR(e ? e->path : NULL, "model.base_dim", "embedding_dim ← model.base_dim");
	e = kg_config_role(c, "train_batch_size");
	TAP_EQ_STR(e ? e->path : NULL, "data.train_bs", "train_batch_size ← data.train_bs");
	e = kg_config_role(c, "negatives");
	TAP_EQ_STR(e ? e->path : NULL, "train.negative_sample_size", "negatives");
	e = kg_config_role(c, "dataloader_workers");
	TAP_EQ_STR(e ? e->path : NULL, "data.num_workers", "num_workers is its own role");
	e = kg_config_role(c, "model");
	TAP_EQ_STR(e ? e->value : NULL, "RotatE", "model ← model.name (the model: section is skipped)");
	kg_facts f = {0};
	kg_config_facts(c, &f);
	const kg_fact *x = kg_facts_get(&f, "config.eval_batch_size");
	TAP_OK(x && x->num == 128, "config.eval_batch_size = 128");
	TAP_EQ_STR(x ? x->provenance : NULL, CFG("seed001-rotate-wn18rr.yaml") ":9", "provenance file:line");
	x = kg_facts_get(&f, "dataset.entities");
	TAP_OK(x && x->num == 40943, "dataset.entities = 40943 (WN18RR)");
	x = kg_facts_get(&f, "dataset.relations");
	TAP_OK(x && x->num == 11, "dataset.relations = 11");
	x = kg_facts_get(&f, "config.precision");
	TAP_EQ_STR(x ? x->str : NULL, "32", "precision string");
	x = kg_facts_get(&f, "config.eval_batch_size.key");
	TAP_EQ_STR(x ? x->str : NULL, "data.test_bs", "the key behind the role");
	kg_facts_free(&f);
	TAP_EQ_I64(c->nwarnings, 0, "no warnings");
	kg_config_free(c);
}

static void others(void)
{
	kg_error err = {0};
	kg_config *c = kg_config_load(CFG("hf-trainer.yaml"), &err);
	TAP_OK(c != NULL, "load HF config");
	if (c) {
		int64_t v = 0;
		TAP_OK(kg_config_role_int(c, "eval_batch_size", &v) && v == 16, "quoted '16' is 16");
		TAP_OK(kg_config_role_int(c, "grad_accum_steps", &v) && v == 8, "gradient_accumulation_steps");
		kg_facts f = {0};
		kg_config_facts(c, &f);
		const kg_fact *x = kg_facts_get(&f, "config.precision");
		TAP_EQ_STR(x ? x->str : NULL, "bf16", "bf16: true → precision bf16");
		kg_facts_free(&f);
		kg_config_free(c);
	}
	c = kg_config_load(CFG("lightning-no-eval.yaml"), &err);
	TAP_OK(c != NULL, "load Lightning config");
	if (c) {
		TAP_OK(kg_config_role(c, "eval_batch_size") == NULL, "no eval batch size");
		TAP_OK(c->dataset >= 0 && c->datasets[c->dataset].entities == 17050, "codex-m → CoDEx-M 17050");
		const kg_config_entry *e = kg_config_role(c, "grad_accum_steps");
		TAP_EQ_STR(e ? e->path : NULL, "trainer.accumulate_grad_batches", "Lightning accumulate_grad_batches");
		kg_config_free(c);
	}
	c = kg_config_load(CFG("mapping-for-number.yaml"), &err);
	TAP_OK(c != NULL, "a mapping where a number is expected is a warning, not an error");
	if (c) {
		TAP_OK(kg_config_role(c, "eval_batch_size") == NULL, "… and the role stays unset");
		TAP_EQ_I64(c->nwarnings, 1, "one warning");
		TAP_OK(c->nwarnings && strstr(c->warnings[0], "mapping-for-number.yaml:4: data.test_bs is a mapping"),
		       "warning names file, line and key: %s", c->nwarnings ? c->warnings[0] : "");
		kg_config_free(c);
	}
	c = kg_config_load(CFG("invalid.yaml"), &err);
	TAP_OK(c == NULL, "invalid YAML is an error");
	TAP_EQ_I64(err.line, 4, "… at line 4");
	TAP_OK(strstr(err.msg, "invalid YAML") != NULL, "… saying so: %s", err.msg);
	c = kg_config_load(CFG("does-not-exist.yaml"), &err);
	TAP_OK(c == NULL && strstr(err.msg, "cannot open"), "missing file: %s", err.msg);
	c = kg_config_parse("list.yaml", "- a\n- b\n", 8, NULL, &err);
	TAP_OK(c == NULL && strstr(err.msg, "not a YAML mapping"), "a list is not a config");
}

/* Issue 14: configs an edit could not keep its promises on are refused
 * with the line (reproducers from ../shared/repro, see SOURCES.md). */
static void refused(void)
{
	kg_error err = {0};
	kg_config *c = kg_config_load(CFG("dup-key.yaml"), &err);
	TAP_OK(c == NULL && err.line == 4 && strstr(err.msg, "duplicate key 'test_bs' (first at line 3)"),
	       "duplicate key refused at its second line: %ld %s", err.line, err.msg);
	kg_config_free(c);

	memset(&err, 0, sizeof err);
	c = kg_config_load(CFG("alias-two-roles-one-node.yaml"), &err);
	TAP_OK(c == NULL && err.line == 3 && strstr(err.msg, "gradient_accumulation_steps") &&
	       strstr(err.msg, "batch_size (train_batch_size, line 2)") && strstr(err.msg, "alias"),
	       "two roles on one node refused, both lines named: %ld %s", err.line, err.msg);
	kg_config_free(c);

	memset(&err, 0, sizeof err);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	c = kg_config_load(CFG("yaml-alias-bomb-mappings.yaml"), &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	TAP_OK(c == NULL && err.line > 0 && strstr(err.msg, "aliases expand to more than 10000 keys"),
	       "alias bomb refused with its line: %ld %s", err.line, err.msg);
	TAP_OK(s < 2.0, "… quickly (%.3f s)", s);
	kg_config_free(c);

	/* aliases within the bounds are read as before */
	const char *ok = "base: &b\n  lr: 0.1\n  dim: 64\ntrain:\n  opt: *b\n  test_bs: 8\n";
	memset(&err, 0, sizeof err);
	c = kg_config_parse("ok.yaml", ok, strlen(ok), NULL, &err);
	int64_t v = 0;
	TAP_OK(c && kg_config_role_int(c, "eval_batch_size", &v) && v == 8, "an alias to a mapping is still read (%s)", err.msg);
	kg_config_free(c);

	/* a recursion through aliases deeper than 64 mappings is refused */
	kg_buf b = {0};
	for (int i = 0; i < 70; i++)
		kg_buf_printf(&b, "%*sk%d:\n", 2 * i, "", i);
	kg_buf_printf(&b, "%*sv: 1\n", 140, "");
	memset(&err, 0, sizeof err);
	c = kg_config_parse("deep.yaml", b.data, b.len, NULL, &err);
	TAP_OK(c == NULL && strstr(err.msg, "nested deeper than 64"), "70 nested mappings refused: %s", err.msg);
	kg_config_free(c);
	kg_buf_free(&b);
}

int main(void)
{
	seed();
	others();
	refused();
	return tap_done();
}

/* calcfacts.c — see include/diagnose/calcfacts.h. Sources of the forms:
 * formats.md §8.7 (full ranking; DeepGraphLearning/KnowledgeGraphEmbedding
 * codes/model.py), §8 (negatives, logits, attention scores) and the
 * functions of calc.h that cite them. */
#include "diagnose/calcfacts.h"
#include "diagnose/calc.h"
#include "diagnose/estimate.h"
#include "model/units.h"
#include "model/vocab.h"

#include <stdio.h>
#include <string.h>

/* A count fact's value, or -1 when absent, a string or not positive. */
static int64_t count(const kg_facts *f, const char *name)
{
	const kg_fact *x = kg_facts_get(f, name);
	if (!x || x->type == KG_FACT_STRING || x->num <= 0)
		return -1;
	return kg_clamp_i64(x->num);
}

/* dtype bytes from config.precision, 4 ("float32, assumed") otherwise. */
static int dtype(const kg_facts *f, char *name, size_t n)
{
	snprintf(name, n, "float32, assumed");
	const kg_fact *x = kg_facts_get(f, "config.precision");
	if (x && x->str) {
		const char *canon = NULL;
		int w = kg_dtype_bytes(x->str, &canon);
		if (w > 0) {
			snprintf(name, n, "%s", canon ? canon : x->str);
			return w;
		}
	}
	return 4;
}

/* KG model components from config.model, or -1 (unknown: no guess). */
static int components(const kg_facts *f, char *model, size_t n)
{
	const kg_fact *x = kg_facts_get(f, "config.model");
	if (!x || !x->str)
		return -1;
	snprintf(model, n, "%s", x->str);
	return kg_model_components(model);
}

static const char *key_of(const kg_facts *f, const char *role_fact, const char *fallback,
			  char *buf, size_t n)
{
	char name[128];
	snprintf(name, sizeof name, "%s.key", role_fact);
	const kg_fact *x = kg_facts_get(f, name);
	snprintf(buf, n, "%s", x && x->str ? x->str : fallback);
	return buf;
}

/* Full ranking (formats.md §8.7): batch × entities × dim × components ×
 * dtype bytes, and the largest eval batch whose tensor fits in one block the
 * failed allocation could have had: a new segment (free on the device) or a
 * cached one (at most the reserved-but-unallocated bytes), whichever is
 * larger — their sum is not one block. The other temporaries of the
 * scoring step shrink with the batch too, so this bound is safe. */
static void full_ranking(kg_facts *f)
{
	int64_t bs = count(f, "config.eval_batch_size"), ent = count(f, "dataset.entities");
	int64_t dim = count(f, "config.embedding_dim");
	char model[64], dname[40], bkey[128], dkey[128], ds[64];
	int comp = components(f, model, sizeof model);
	if (bs < 0 || ent < 0 || dim < 0 || comp <= 0)
		return;
	int width = dtype(f, dname, sizeof dname);
	int64_t bytes = kg_calc_full_ranking(bs, ent, dim, comp, width);
	if (bytes <= 0)
		return;
	kg_facts_set_bytes(f, "calc.full_ranking.bytes", kg_size_exact(bytes), "calculated");
	const kg_fact *x = kg_facts_get(f, "dataset.name");
	snprintf(ds, sizeof ds, "%s", x && x->str ? x->str : "dataset");
	char formula[640];
	snprintf(formula, sizeof formula, "%d (%s components) × %lld (%s) × %lld (%s entities) × %lld (%s) × %d B (%s)",
		 comp, model, (long long)bs, key_of(f, "config.eval_batch_size", "eval batch", bkey, sizeof bkey),
		 (long long)ent, ds, (long long)dim,
		 key_of(f, "config.embedding_dim", "embedding dim", dkey, sizeof dkey), width, dname);
	kg_facts_set_str(f, "calc.full_ranking.formula", formula, "calculated");
	if ((x = kg_facts_get(f, "oom.free"))) {
		int64_t budget = kg_clamp_i64(x->lo);
		const kg_fact *ru = kg_facts_get(f, "oom.reserved_unallocated");
		if (ru && kg_clamp_i64(ru->lo) > budget)
			budget = kg_clamp_i64(ru->lo);
		int64_t mb = kg_solve_full_ranking_batch(budget, ent, dim, comp, width, 0);
		if (mb > 0)
			kg_facts_set_num(f, "calc.full_ranking.max_batch", KG_FACT_COUNT, (double)mb, "calculated");
	}
}

/* Negative sampling in training: the (B, K, d) score tensor. */
static void negatives(kg_facts *f)
{
	int64_t bs = count(f, "config.train_batch_size"), k = count(f, "config.negatives");
	int64_t dim = count(f, "config.embedding_dim");
	char model[64], dname[40];
	int comp = components(f, model, sizeof model);
	if (bs < 0 || k < 0 || dim < 0 || comp <= 0)
		return;
	int64_t bytes = kg_calc_negatives(bs, k, dim, comp, dtype(f, dname, sizeof dname));
	if (bytes > 0)
		kg_facts_set_bytes(f, "calc.negatives.bytes", kg_size_exact(bytes), "calculated");
}

/* The batch of the step that failed: evaluation's during eval. */
static int64_t step_batch(const kg_facts *f)
{
	const kg_fact *ph = kg_facts_get(f, "phase");
	bool eval = ph && ph->str && !strcmp(ph->str, kg_vocab_word(&kg_phases, KG_PHASE_EVAL));
	int64_t b = eval ? count(f, "config.eval_batch_size") : -1;
	return b > 0 ? b : count(f, "config.train_batch_size");
}

/* Logits over a vocabulary: batch × seq × vocab × dtype. */
static void logits(kg_facts *f)
{
	int64_t b = step_batch(f), s = count(f, "config.seq_len"), v = count(f, "config.vocab_size");
	char dname[40];
	if (b < 0 || s < 0 || v < 0)
		return;
	int64_t bytes = kg_calc_logits(b, s, v, dtype(f, dname, sizeof dname));
	if (bytes > 0)
		kg_facts_set_bytes(f, "calc.logits.bytes", kg_size_exact(bytes), "calculated");
}

/* One attention score matrix per head: batch × heads × seq² × dtype. */
static void attention(kg_facts *f)
{
	int64_t b = step_batch(f), h = count(f, "config.num_heads"), s = count(f, "config.seq_len");
	char dname[40];
	if (b < 0 || h < 0 || s < 0)
		return;
	int64_t bytes = kg_calc_attention_scores(b, h, s, dtype(f, dname, sizeof dname));
	if (bytes > 0)
		kg_facts_set_bytes(f, "calc.attention.bytes", kg_size_exact(bytes), "calculated");
}

/* The table: every form the diagnosis evaluates, in order (the model
 * against the card: estimate.h). */
static void (*const forms[])(kg_facts *) = {full_ranking, negatives, logits, attention,
					    kg_estimate_facts};

void kg_calc_facts(kg_facts *f)
{
	for (size_t i = 0; i < sizeof forms / sizeof *forms; i++)
		forms[i](f);
}

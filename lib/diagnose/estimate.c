/* estimate.c — see include/diagnose/estimate.h. Sources: the ZeRO paper
 * (Rajbhandari et al. 2020, arXiv:1910.02054 §3.1: mixed-precision Adam
 * keeps 2 + 2 + 12 bytes per parameter), DeepSpeed docs memory.rst (fp32
 * Adam: 4 + 4 + 4 + 4), bitsandbytes' 8-bit optimizers (one byte per
 * moment), formats.md §8.1 and §8.6 (KV cache), through calc.h. */
#include "diagnose/estimate.h"
#include "diagnose/calc.h"
#include "model/units.h"
#include "model/util.h"
#include "model/vocab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct num { bool ok; double v, lo, hi; } num;

static num get(const kg_facts *f, const char *name)
{
	const kg_fact *x = kg_facts_get(f, name);
	if (!x || x->type == KG_FACT_STRING || !(x->num > 0))
		return (num){0};
	return (num){true, x->num, x->lo, x->hi};
}

static const char *str(const kg_facts *f, const char *name)
{
	const kg_fact *x = kg_facts_get(f, name);
	return x && x->type == KG_FACT_STRING && x->str && *x->str ? x->str : NULL;
}

static bool is(const char *s, const char *w)
{
	return s && !strcmp(s, w);
}

char *kg_params_format(double params, bool exact, char *buf, size_t n)
{
	bool b = params >= 1e9;
	double d = params / (b ? 1e9 : 1e6);
	char t[32];
	snprintf(t, sizeof t, "%.*g", exact ? 4 : 3, d);
	if (!strchr(t, '.') && !strchr(t, 'e') && d < 100 && !exact)
		snprintf(t + strlen(t), sizeof t - strlen(t), ".0");
	snprintf(buf, n, "%s %s", t, b ? "B" : "M");
	return buf;
}

/* Sets NAME (bytes, its interval), NAME.formula ("WHAT = SIZE") and,
 * with `least`, NAME.least (the interval's lower end: what a rule compares
 * when the claim must hold for every value the inputs allow). */
static void put(kg_facts *f, const char *name, num x, const char *what, bool least)
{
	if (!x.ok || !(x.v > 0) || x.hi > 9.2e18)
		return;
	char sz[32];
	kg_size_format(kg_clamp_i64(round(x.v)), sz, sizeof sz);
	kg_facts_set_interval(f, name, KG_FACT_BYTES, round(x.v), floor(x.lo), ceil(x.hi), "calculated");
	char *formula = kg_asprintf("%s = %s", what, sz);
	char *fname = kg_asprintf("%s.formula", name);
	kg_facts_set_str(f, fname, formula, "calculated");
	free(formula);
	free(fname);
	if (least) {
		char *lname = kg_asprintf("%s.least", name);
		kg_facts_set_num(f, lname, KG_FACT_BYTES, floor(x.lo), "calculated");
		free(lname);
	}
}

/* The card's capacity and where it comes from. */
static num card(kg_facts *f)
{
	static const struct { const char *fact; const char *source; } from[] = {
		{"oom.total_capacity", "the device's total capacity in the message"},
		{"log.smi.total", "nvidia-smi's total"},
		{"gpu.memory", NULL},
	};
	for (size_t i = 0; i < sizeof from / sizeof *from; i++) {
		num c = get(f, from[i].fact);
		if (!c.ok)
			continue;
		const kg_fact *x = kg_facts_get(f, from[i].fact);
		char *src;
		if (from[i].source)
			src = kg_strdup(from[i].source);
		else if (x->provenance && strstr(x->provenance, "rules/gpus.yaml"))
			src = kg_asprintf("%s, the most any card of that name has (rules/gpus.yaml)",
					  str(f, "gpu.name") ? str(f, "gpu.name") : "the GPU named");
		else
			src = kg_asprintf("%s, as its name says", str(f, "gpu.name") ? str(f, "gpu.name") : "the GPU named");
		kg_facts_set_interval(f, "estimate.card", KG_FACT_BYTES, c.v, c.lo, c.hi,
				      x->provenance ? x->provenance : "calculated");
		kg_facts_set_str(f, "estimate.card.source", src, "calculated");
		free(src);
		return c;
	}
	return (num){0};
}

void kg_estimate_facts(kg_facts *f)
{
	card(f);
	num P = get(f, "model.params");
	if (!P.ok)
		return;
	const char *name = str(f, "model.name");
	bool printed = is(name, "printed count");
	char ps[32], label[128];
	kg_params_format(P.v, printed, ps, sizeof ps);
	snprintf(label, sizeof label, "%s params (%s)", ps, printed ? "printed" : name ? name : "named");

	/* the weights' bytes per parameter */
	double w = 2;
	char wname[64] = "16-bit, assumed";
	num wb = get(f, "model.precision.bytes");
	const char *cp = str(f, "config.precision");
	const char *canon = NULL;
	int cw = cp ? kg_dtype_bytes(cp, &canon) : -1;
	const char *engine = str(f, "job.engine");
	if (wb.ok) {
		w = wb.v;
		snprintf(wname, sizeof wname, "%s", str(f, "model.precision") ? str(f, "model.precision") : "stated");
	} else if (cw > 0) {
		w = cw;
		snprintf(wname, sizeof wname, "%s", canon ? canon : cp);
	} else if (is(engine, KG_FRAMEWORK_WORD(GGML)) || is(engine, KG_FRAMEWORK_WORD(OLLAMA))) {
		/* llama.cpp and Ollama run GGUF files, quantised as a rule
		 * (Ollama's library tags are 4-bit: Q4_0, later Q4_K_M); the
		 * least of them, Q4_0's 4.5 bits, keeps the comparison safe */
		w = 0.5625;
		snprintf(wname, sizeof wname, "4-bit GGUF, assumed");
	}
	char what[320];
	snprintf(what, sizeof what, "%s × %.4g B (%s)", label, w, wname);
	num weights = {true, P.v * w, P.lo * w, P.hi * w};
	put(f, "estimate.weights", weights, what, true);

	/* training: weights, gradients and the optimizer's state */
	const char *mode = str(f, "model.mode"), *phase = str(f, "phase"), *opt = str(f, "model.optimizer");
	bool train = is(mode, KG_MODE_WORD(TRAIN)) || is(phase, KG_PHASE_WORD(BACKWARD)) || is(phase, KG_PHASE_WORD(OPTIMIZER));
	bool adapters = str(f, "model.adapters") || (wb.ok && w < 2);
	num training = {0};
	char twhat[480] = "";
	if (train && !is(opt, "SGD")) {
		bool a8 = is(opt, "8-bit Adam");
		int per = kg_adam_bytes_per_param(a8 ? KG_ADAM_8BIT_MIXED : KG_ADAM_MIXED);
		/* the least any Adam keeps: 16-bit weights, gradients and
		 * moments (8 B), or 2 + 2 + 1 + 1 with 8-bit moments */
		int least = a8 ? 6 : kg_adam_bytes_per_param(KG_ADAM_HALF_TRUE);
		num T = get(f, "model.trainable");
		if (!adapters) {
			training = (num){true, P.v * per, P.lo * least, P.hi * per};
			snprintf(twhat, sizeof twhat, "%s × %d B (weights, gradients, %s state)", label, per,
				 a8 ? "8-bit Adam" : "Adam");
		} else if (T.ok && T.v < P.v) {
			training = (num){true, weights.v + T.v * 16, weights.lo + T.lo * least, weights.hi + T.hi * 16};
			char ts[32], wsz[32];
			kg_size_format(kg_clamp_i64(round(weights.v)), wsz, sizeof wsz);
			snprintf(twhat, sizeof twhat, "%s (weights) + %s trainable params × 16 B (%s weights, gradients, Adam state)",
				 wsz, kg_params_format(T.v, true, ts, sizeof ts),
				 str(f, "model.adapters") ? str(f, "model.adapters") : "adapter");
		}
		put(f, "estimate.training", training, twhat, true);
	}

	/* one sequence's KV cache at the context the log sets */
	num L = get(f, "model.layers"), H = get(f, "model.kv_heads"), D = get(f, "model.head_dim"),
	    C = get(f, "model.context");
	num kv = {0};
	if (L.ok && H.ok && D.ok && C.ok) {
		int64_t b = kg_calc_kv_cache(kg_clamp_i64(L.v), kg_clamp_i64(H.v), kg_clamp_i64(D.v),
					     kg_clamp_i64(C.v), 1, 2);
		if (b > 0) {
			kv = (num){true, (double)b, (double)b, (double)b};
			char kw[200];
			snprintf(kw, sizeof kw, "2 (K, V) × %.0f layers × %.0f KV heads × %.0f head dim × %.0f tokens × 2 B",
				 L.v, H.v, D.v, C.v);
			put(f, "estimate.kv_cache", kv, kw, false);
		}
	}

	/* what the model holds in its mode */
	if (training.ok) {
		put(f, "estimate.model", training, twhat, false);
	} else if (kv.ok && !train) {
		char a[32], b[32], mw[160];
		kg_size_format(kg_clamp_i64(round(weights.v)), a, sizeof a);
		kg_size_format(kg_clamp_i64(round(kv.v)), b, sizeof b);
		snprintf(mw, sizeof mw, "%s (weights) + %s (KV cache, %.0f tokens)", a, b, C.v);
		put(f, "estimate.model", (num){true, weights.v + kv.v, weights.lo + kv.lo, weights.hi + kv.hi}, mw,
		    false);
	} else {
		put(f, "estimate.model", weights, what, false);
	}
}

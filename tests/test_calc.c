/* Unit tests for calc.c: allocator rounding against the worked examples of
 * formats.md §6.4 (c10/cuda/CUDACachingAllocator.cpp@001074d2), closed
 * forms against hand-checked products, the solver, and explain on the seed
 * 001 size and on TensorFlow OOM messages of testdata/corpus/dev.jsonl whose
 * tensor shapes the message states. */
#include <cjson/cJSON.h>
#include <stdlib.h>

#include "diagnose/calc.h"
#include "tap.h"
#include "model/units.h"
#include "model/util.h"

#define MiB (1LL << 20)
#define GiB (1LL << 30)

static void allocator(void)
{
	/* §6.4 worked examples */
	TAP_EQ_I64(kg_alloc_round_size(4, NULL), 512, "4 B → 512 B block");
	TAP_EQ_I64(kg_alloc_tried_to_allocate(4, NULL), 2 * MiB, "4 B → 2 MiB segment (prints 2.00 MiB)");
	TAP_OK(kg_alloc_small_pool(512), "512 B block is small pool");
	TAP_EQ_I64(kg_alloc_round_size(MiB + 1, NULL), 1049088, "1 MiB + 1 B → block 1,049,088 B");
	TAP_OK(!kg_alloc_small_pool(1049088), "1,049,088 B is large pool");
	TAP_EQ_I64(kg_alloc_tried_to_allocate(MiB + 1, NULL), 20 * MiB, "1 MiB + 1 B → 20 MiB segment");
	TAP_EQ_I64(kg_alloc_tried_to_allocate(10 * MiB, NULL), 10 * MiB, "exactly 10 MiB → own 10 MiB segment");
	TAP_EQ_I64(kg_alloc_tried_to_allocate(98 * MiB + 5, NULL), 100 * MiB, "98 MiB + 5 B → 100 MiB");
	TAP_EQ_I64(kg_alloc_round_size(MiB, NULL), MiB, "exactly 1 MiB stays");
	TAP_EQ_I64(kg_alloc_tried_to_allocate(MiB, NULL), 2 * MiB, "exactly 1 MiB → small pool 2 MiB");
	TAP_EQ_I64(kg_alloc_tried_to_allocate(10 * MiB - 1, NULL), 10 * MiB, "10 MiB - 1 rounds to a 10 MiB block");
	TAP_EQ_I64(kg_alloc_tried_to_allocate(10 * MiB - 513, NULL), 20 * MiB, "10 MiB - 513 → 20 MiB");

	/* roundup_power2_divisions: code, not docs prose */
	kg_alloc_conf c;
	kg_error err = {0};
	TAP_OK(kg_alloc_conf_parse_divisions("4", &c, &err) == 0, "parse divisions 4");
	TAP_EQ_I64(kg_alloc_round_size(1200, &c), 1536, "1200 B with 4 divisions → 1536 (size ≤ 512·4: plain rounding)");
	TAP_EQ_I64(kg_alloc_round_size(1200 * MiB, &c), 1280 * MiB, "1200 MiB with 4 → 1280 MiB");
	TAP_EQ_I64(kg_alloc_round_size(1024 * MiB, &c), 1024 * MiB, "power of two stays");
	TAP_OK(kg_alloc_conf_parse_divisions("[256:1,512:2,1024:4,>:8]", &c, &err) == 0, "parse list form");
	TAP_EQ_I64(c.divisions[0], 1, "first value fills below 256 MiB");
	TAP_EQ_I64(c.divisions[8], 1, "[256,512) MiB → 1");
	TAP_EQ_I64(c.divisions[9], 2, "[512 MiB,1 GiB) → 2");
	TAP_EQ_I64(c.divisions[10], 4, "[1,2) GiB → 4");
	TAP_EQ_I64(c.divisions[11], 8, "≥ 2 GiB → 8");
	TAP_EQ_I64(c.divisions[15], 8, "last interval → 8");
	TAP_EQ_I64(kg_alloc_round_size(600 * MiB, &c), 768 * MiB, "600 MiB with 2 divisions → 768 MiB");
	TAP_OK(kg_alloc_conf_parse_divisions("3", &c, &err) < 0, "3 is not a power of two");
	TAP_OK(kg_alloc_conf_parse_divisions("[256:1,512", &c, &err) < 0, "unterminated list rejected");

	/* inverse */
	kg_size s;
	kg_range r[3];
	kg_size_parse_str("2.00 MiB", &s);
	size_t n = kg_alloc_request_ranges(s, NULL, r, 3);
	TAP_EQ_I64(n, 1, "2.00 MiB: one range");
	TAP_EQ_I64(r[0].lo, 1, "2.00 MiB from 1 B");
	TAP_EQ_I64(r[0].hi, MiB, "… to 1 MiB (small pool)");
	kg_size_parse_str("20.00 MiB", &s);
	n = kg_alloc_request_ranges(s, NULL, r, 3);
	TAP_EQ_I64(n, 2, "20.00 MiB: 1–10 MiB blocks and a 20 MiB large block");
	TAP_EQ_I64(r[0].lo, MiB + 1, "from 1 MiB + 1");
	TAP_EQ_I64(r[0].hi, 10 * MiB - 512, "to 10 MiB - 512 (the last block below 10 MiB)");
	TAP_EQ_I64(r[1].lo, 18 * MiB + 1, "then 18 MiB + 1");
	TAP_EQ_I64(r[1].hi, 20 * MiB, "to 20 MiB");
	kg_size_parse_str("3.00 MiB", &s);
	TAP_EQ_I64(kg_alloc_request_ranges(s, NULL, r, 3), 0, "3.00 MiB is never printed");
	kg_size_parse_str("19.99 GiB", &s);
	n = kg_alloc_request_ranges(s, NULL, r, 3);
	TAP_EQ_I64(n, 1, "19.99 GiB: one range");
	/* [19.985, 19.995] GiB = [21458988237, 21469725655] B holds the 2 MiB
	 * multiples 10233·2 MiB … 10237·2 MiB, so requests from
	 * 10232·2 MiB + 1 to 10237·2 MiB */
	TAP_EQ_I64(r[0].lo, 10232LL * 2 * MiB + 1, "19.99 GiB lowest request");
	TAP_EQ_I64(r[0].hi, 10237LL * 2 * MiB, "19.99 GiB highest request");
	TAP_OK(21465923584LL >= r[0].lo && 21465923584LL <= r[0].hi, "seed 001 tensor in range");
}

static void closed_forms(void)
{
	/* 128·40943 = 5,240,704; ·512 = 2,683,240,448; ·2·4 = 21,465,923,584 */
	TAP_EQ_I64(kg_calc_full_ranking(128, 40943, 512, 2, 4), 21465923584LL,
		   "seed 001: 2 × 128 × 40943 × 512 × 4");
	char buf[64];
	TAP_EQ_STR(kg_size_format(21465923584LL, buf, sizeof buf), "19.99 GiB", "prints 19.99 GiB");
	TAP_EQ_I64(kg_alloc_tried_to_allocate(21465923584LL, NULL), 10236LL * 2 * MiB,
		   "its segment: 10236 × 2 MiB (still prints 19.99 GiB)");
	TAP_EQ_STR(kg_size_format(10236LL * 2 * MiB, buf, sizeof buf), "19.99 GiB", "segment prints 19.99 GiB");
	TAP_EQ_STR(kg_bytes_grouped(21465923584LL, buf, sizeof buf), "21,465,923,584", "grouped bytes");
	TAP_EQ_I64(kg_calc_full_ranking(16, 14541, 1000, 2, 4), 1861248000LL,
		   "formats.md §8.7 FB15k-237 example");
	TAP_EQ_I64(kg_calc_full_ranking_peak(16, 14541, 1000, KG_ROTATE_PEAK_TEMPORARIES, 4),
		   6514368000LL, "≈7 temporaries ≈ 6.5 GB");
	TAP_EQ_I64(kg_calc_negatives(1024, 64, 512, 2, 4), 268435456LL, "seed 001 training negatives (2 components)");
	TAP_EQ_I64(kg_model_components("RotatE"), 2, "RotatE 2 components");
	TAP_EQ_I64(kg_model_components("QuatE"), 4, "QuatE 4");
	TAP_EQ_I64(kg_model_components("TransE"), 1, "TransE 1");
	kg_adam_kind k;
	TAP_OK(kg_adam_kind_of("bf16-mixed", false, &k) == 0 && k == KG_ADAM_MIXED, "bf16-mixed is mixed");
	TAP_EQ_I64(kg_calc_adam(7000000000LL, k), 112000000000LL, "7e9 params × 16 B");
	TAP_OK(kg_adam_kind_of("fp32", true, &k) == 0, "fp32 8-bit");
	TAP_EQ_I64(kg_calc_adam(1000, k), 10000, "8-bit Adam 10 B/param");
	TAP_EQ_I64(kg_calc_zero(1500000000LL, 0, 64), 24000000000LL, "ZeRO paper: 1.5B GPT-2 → 24 GB");
	TAP_EQ_I64(kg_calc_zero(7500000000LL, 1, 64), 31406250000LL, "ZeRO-1 7.5B N=64 (paper fig. 1: 31.4 GB)");
	TAP_EQ_I64(kg_calc_zero(7500000000LL, 2, 64), 16640625000LL, "ZeRO-2 (16.6 GB)");
	TAP_EQ_I64(kg_calc_zero(7500000000LL, 3, 64), 1875000000LL, "ZeRO-3 (1.9 GB)");
	TAP_EQ_I64(kg_calc_deepspeed_zero(1000, 3, 10, 0, 100), 400 + 1800, "DeepSpeed ZeRO-3 LLM + 18P/N");
	TAP_EQ_I64(kg_calc_deepspeed_zero(1000, 2, 10, 0, 0), 4000 + 1600, "DeepSpeed ZeRO-2 4P + 16P/N");
	TAP_EQ_I64(kg_calc_activations(2048, 1, 4096, 32), 34LL * 2048 * 4096 + 5LL * 32 * 2048 * 2048,
		   "activations 34sbh + 5as²b");
	TAP_EQ_I64(kg_calc_kv_cache(32, 8, 128, 8192, 4, 2), 4294967296LL, "KV cache Llama-3-8B-like, 4 × 8k, bf16 = 4 GiB");
	TAP_EQ_I64(kg_calc_attention_scores(8, 32, 4096, 2), 8589934592LL, "attention 8·32·4096²·2");
	TAP_EQ_I64(kg_calc_logits(8, 4096, 128256, 4), 16810770432LL, "logits b·s·vocab·4");
	int64_t shape[] = {INT64_MAX / 2, 4};
	TAP_EQ_I64(kg_calc_tensor(shape, 2, 4), -1, "overflow gives -1");
}

static void solver(void)
{
	TAP_EQ_I64(kg_round_down(57, 0), 32, "power of two below 57");
	TAP_EQ_I64(kg_round_down(57, 8), 56, "multiple of 8");
	TAP_EQ_I64(kg_round_down(57, -1), 57, "no rounding");
	/* Seed 001 remedy on an H200 incident: "of which 13.21 GiB is free",
	 * "0.50 GiB is reserved by PyTorch but unallocated" (constructed
	 * incident, numbers in the printed form). One row costs
	 * 40943·512·2·4 = 167,702,528 B. */
	kg_size fr, ru;
	kg_size_parse_str("13.21 GiB", &fr);
	kg_size_parse_str("512.00 MiB", &ru);
	int64_t budget = fr.lo + ru.lo;
	int64_t raw = kg_solve_full_ranking_batch(budget, 40943, 512, 2, 4, -1);
	TAP_EQ_I64(raw, (14183790694LL + 536870912LL) / 167702528LL, "raw max batch");
	TAP_EQ_I64(raw, 87, "= 87 rows");
	TAP_EQ_I64(kg_solve_full_ranking_batch(budget, 40943, 512, 2, 4, 0), 64, "power of two: 64");
	TAP_EQ_I64(kg_solve_full_ranking_batch(100, 40943, 512, 2, 4, 0), 0, "nothing fits → 0");
}

static int64_t quad(int64_t v, void *ctx)
{
	(void)ctx;
	return v * v;
}

static void explain_seed(void)
{
	kg_knowns k = {0};
	kg_knowns_add(&k, 128, "data.test_bs", KG_KNOWN_BATCH);
	kg_knowns_add(&k, 1024, "data.train_bs", KG_KNOWN_BATCH);
	kg_knowns_add(&k, 64, "train.num_negs", KG_KNOWN_COUNT);
	kg_knowns_add(&k, 40943, "WN18RR entities", KG_KNOWN_DATASET);
	kg_knowns_add(&k, 11, "WN18RR relations", KG_KNOWN_DATASET);
	kg_knowns_add(&k, 512, "model.base_dim", KG_KNOWN_DIM);
	kg_knowns_add(&k, 10000, "train.eval_every", KG_KNOWN_OTHER);
	kg_knowns_add_defaults(&k, "float32");
	kg_size s;
	kg_size_parse_str("19.99 GiB", &s);
	kg_range r[3];
	size_t nr = kg_alloc_request_ranges(s, NULL, r, 3);
	kg_explanation e[8];
	size_t n = kg_explain(&k, r, nr, s.bytes, e, 8);
	TAP_OK(n >= 1, "19.99 GiB has explanations (%zu)", n);
	if (n) {
		char *t = kg_explanation_format(&k, &e[0]);
		TAP_EQ_STR(t, "2 × 128 (data.test_bs) × 40943 (WN18RR entities) × 512 (model.base_dim) × 4 B (float32)",
			   "seed 001 explanation ranks first");
		free(t);
		TAP_EQ_I64(e[0].product, 21465923584LL, "its product");
	}
	kg_knowns_free(&k);
	TAP_EQ_I64(kg_solve_max(quad, NULL, 1000000, 1 << 30), 1000, "solve_max on v² ≤ 10^6");
}

/* TensorFlow messages name the tensor's shape and dtype: the size they
 * imply, printed as PyTorch would, must factor back into that shape. */
static void explain_corpus(void)
{
	FILE *f = fopen(KG_TESTDATA_DIR "/corpus/dev.jsonl", "r");
	TAP_OK(f != NULL, "open corpus");
	if (!f)
		return;
	char line[1 << 16];
	int cases = 0;
	while (fgets(line, sizeof line, f)) {
		cJSON *j = cJSON_Parse(line);
		if (!j)
			continue;
		cJSON *ex = cJSON_GetObjectItem(j, "expect");
		cJSON *shape = cJSON_GetObjectItem(ex, "tensor.shape");
		cJSON *dt = cJSON_GetObjectItem(ex, "tensor.dtype");
		const char *id = cJSON_GetObjectItem(j, "id")->valuestring;
		if (!cJSON_IsArray(shape) || !cJSON_IsString(dt)) {
			cJSON_Delete(j);
			continue;
		}
		int64_t dims[8];
		size_t nd = 0;
		kg_knowns k = {0};
		cJSON *d;
		cJSON_ArrayForEach(d, shape) {
			if (nd < 8)
				dims[nd] = (int64_t)d->valuedouble;
			char lab[32];
			snprintf(lab, sizeof lab, "shape[%zu]", nd);
			kg_knowns_add(&k, dims[nd], lab, KG_KNOWN_OTHER);
			nd++;
		}
		kg_knowns_add_defaults(&k, NULL);
		int w = kg_dtype_bytes(dt->valuestring, NULL);
		int64_t bytes = kg_calc_tensor(dims, nd, w);
		char buf[64];
		kg_size_format(bytes, buf, sizeof buf);
		kg_size s;
		kg_size_parse_str(buf, &s);
		kg_range r = {s.lo, s.hi};
		kg_explanation e[4];
		size_t n = kg_explain(&k, &r, 1, s.bytes, e, 4);
		bool ok = n > 0 && e[0].product == bytes;
		size_t others = 0;
		for (size_t i = 0; n && i < e[0].nfactors; i++)
			others += k.v[e[0].factor[i]].kind == KG_KNOWN_OTHER;
		char *t = n ? kg_explanation_format(&k, &e[0]) : kg_strdup("(none)");
		TAP_OK(ok && others == nd, "%s: %s = %s", id, t, buf);
		free(t);
		kg_knowns_free(&k);
		cJSON_Delete(j);
		cases++;
	}
	fclose(f);
	TAP_OK(cases >= 5, "at least five TensorFlow shapes (%d)", cases);
}

static void dtypes(void)
{
	const char *c = NULL;
	TAP_EQ_I64(kg_dtype_bytes("float32", &c), 4, "float32");
	TAP_EQ_I64(kg_dtype_bytes("torch.bfloat16", &c), 2, "torch.bfloat16");
	TAP_EQ_STR(c, "bfloat16", "canonical bfloat16");
	TAP_EQ_I64(kg_dtype_bytes("half", &c), 2, "half");
	TAP_EQ_STR(c, "float16", "half → float16");
	TAP_EQ_I64(kg_dtype_bytes("double", &c), 8, "TF double");
	TAP_EQ_I64(kg_dtype_bytes("float", &c), 4, "TF float");
	TAP_EQ_I64(kg_dtype_bytes("float8_e4m3fn", &c), 1, "fp8 e4m3fn");
	TAP_EQ_I64(kg_dtype_bytes("float8_e5m2", &c), 1, "fp8 e5m2");
	TAP_EQ_I64(kg_dtype_bytes("complex64", &c), 8, "complex64");
	TAP_EQ_I64(kg_dtype_bytes("complex128", &c), 16, "complex128");
	TAP_EQ_I64(kg_dtype_bytes("bf16", &c), 2, "bf16");
	TAP_EQ_I64(kg_dtype_bytes("int64", &c), 8, "int64");
	TAP_EQ_I64(kg_dtype_bytes("bool", &c), 1, "bool");
	TAP_EQ_I64(kg_dtype_bytes("f32", &c), 4, "JAX f32");
	TAP_EQ_I64(kg_dtype_bytes("quaternion", &c), -1, "unknown");
	TAP_EQ_I64(kg_precision_bytes("bf16-mixed"), 2, "bf16-mixed activations 2 B");
	TAP_EQ_I64(kg_precision_bytes("32"), 4, "precision 32");
}

int main(void)
{
	allocator();
	closed_forms();
	solver();
	explain_seed();
	explain_corpus();
	dtypes();
	return tap_done();
}

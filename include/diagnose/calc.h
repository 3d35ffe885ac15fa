/* calc.h — closed-form memory arithmetic: the PyTorch caching allocator's
 * rounding (and its inverse), tensor and model-state sizes, a solver for
 * "the largest value that fits", and `explain`, which factors a printed size
 * into products of known numbers.
 *
 * All sizes are bytes (int64_t); every function that can overflow int64
 * returns -1 instead. Sources are cited per function; formats.md is the
 * project's reference notes (shared/reference/formats.md). */
#ifndef KG_CALC_H
#define KG_CALC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/knowns.h"
#include "model/units.h"
#include "model/util.h"

/* ---- allocator arithmetic (c10/cuda/CUDACachingAllocator.cpp@001074d2,
 *      formats.md §6.4) ---- */

#define KG_MIN_BLOCK_SIZE 512              /* kMinBlockSize */
#define KG_SMALL_SIZE (1LL << 20)          /* kSmallSize: ≤ 1 MiB → small pool */
#define KG_SMALL_BUFFER (2LL << 20)        /* kSmallBuffer: small-pool segment */
#define KG_LARGE_BUFFER (20LL << 20)       /* kLargeBuffer: 1–10 MiB segment */
#define KG_MIN_LARGE_ALLOC (10LL << 20)    /* kMinLargeAlloc */
#define KG_ROUND_LARGE (2LL << 20)         /* kRoundLarge */

/* roundup_power2_divisions per size interval: entry k covers
 * [2^k MiB, 2^(k+1) MiB), everything below 1 MiB uses entry 0, the last
 * (15) everything from 32 GiB (c10/core/AllocatorConfig.cpp). 0 or 1 =
 * no power-of-two rounding (the default). */
typedef struct kg_alloc_conf {
	unsigned divisions[16];
} kg_alloc_conf;

/* Parses the value of `roundup_power2_divisions`: a single power of two
 * ("4") or the list form "[256:1,512:2,1024:4,>:8]" (keys in MiB; the first
 * key's value also fills every smaller interval; ">" fills the intervals
 * after the last key — newest AllocatorConfig.cpp behaviour). Returns 0, or
 * -1 and err on malformed text or a value that is not a power of two. */
int kg_alloc_conf_parse_divisions(const char *value, kg_alloc_conf *out, kg_error *err);

/* round_size(): the block size the allocator uses for a request of `size`
 * bytes: minimum 512, multiples of 512, or the next of d equal divisions
 * between powers of two when roundup_power2_divisions gives d > 1 and
 * size > 512·d. conf may be NULL (defaults). -1 on size < 0 or overflow. */
int64_t kg_alloc_round_size(int64_t size, const kg_alloc_conf *conf);

/* true when a rounded block size is served from the small pool (≤ 1 MiB). */
bool kg_alloc_small_pool(int64_t block);

/* get_allocation_size(): the segment cudaMalloc is asked for, which is what
 * "Tried to allocate X" prints: ≤ 1 MiB → 2 MiB; < 10 MiB → 20 MiB; else
 * rounded up to a multiple of 2 MiB. */
int64_t kg_alloc_segment_size(int64_t block);

/* Both steps: request bytes → printed "Tried to allocate" bytes. */
int64_t kg_alloc_tried_to_allocate(int64_t request, const kg_alloc_conf *conf);

/* An inclusive range of byte counts. */
typedef struct kg_range {
	int64_t lo, hi;
} kg_range;

/* The inverse: every request size r ≥ 1 for which
 * kg_alloc_tried_to_allocate(r) lies in printed's interval [lo, hi] (a
 * c10 format_size value, e.g. "19.99 GiB" = [19.985, 19.995) GiB). Writes
 * up to `cap` disjoint ranges in increasing order (3 suffice: small pool,
 * 1–10 MiB, large) and returns how many; 0 when no request prints that way
 * (e.g. "3.00 MiB"). */
size_t kg_alloc_request_ranges(kg_size printed, const kg_alloc_conf *conf,
			       kg_range *out, size_t cap);

/* ---- closed forms (formats.md §8) ---- */

/* Product of n non-negative factors; -1 on overflow or a negative factor. */
int64_t kg_calc_product(const int64_t *f, size_t n);

/* Tensor bytes: Π shape × dtype bytes (TensorShape × DataTypeSize, the
 * numbers TensorFlow's "OOM when allocating tensor with shape[…]" names). */
int64_t kg_calc_tensor(const int64_t *shape, size_t ndim, int dtype_bytes);

/* KG embedding models and the components of their entity vectors:
 * TransE/DistMult/TuckER 1, ComplEx/RotatE 2 (real and imaginary parts,
 * stacked by torch.stack([re, im])), QuatE 4. -1 when unknown. */
int kg_model_components(const char *model);

/* Full-ranking scoring of a test batch against every entity
 * (DeepGraphLearning/KnowledgeGraphEmbedding codes/model.py@a0a3cf75,
 * formats.md §8.7): one tensor of batch × entities × dim × components ×
 * dtype bytes (the gathered tail embeddings or torch.stack([re, im])). */
int64_t kg_calc_full_ranking(int64_t batch, int64_t entities, int64_t dim,
			     int components, int dtype_bytes);

/* Peak of the same step: RotatE/ComplEx keep ≈7 (B, N, d) temporaries alive
 * at once under no_grad (gather 2, re/im scores 2, stack 2, norm 1 —
 * formats.md §8.7): temporaries × batch × entities × dim × dtype bytes. */
#define KG_ROTATE_PEAK_TEMPORARIES 7
int64_t kg_calc_full_ranking_peak(int64_t batch, int64_t entities, int64_t dim,
				  int temporaries, int dtype_bytes);

/* Training with negative sampling: batch × negatives × dim × components ×
 * dtype bytes (the (B, K, d) negative-score tensor). */
int64_t kg_calc_negatives(int64_t batch, int64_t negatives, int64_t dim,
			  int components, int dtype_bytes);

/* Adam/AdamW model states per parameter, in bytes (formats.md §8.1):
 * mixed precision (fp16/bf16 weights + grads, fp32 master, m, v) 16;
 * fp32 16 (DeepSpeed memory.rst: 4 param + 4 grad + 4 m + 4 v);
 * 8-bit optimizers (bitsandbytes Adam8bit: m and v one byte each, block
 * scales ignored) 10 either way (mixed 2 + 2 + 4 master + 1 + 1; fp32 or
 * torch.autocast 4 + 4 + 1 + 1);
 * pure bf16/fp16 ("16-true": weights, grads, m, v all 2 bytes) 8.
 * Precision names: see kg_adam_bytes_per_param. */
typedef enum kg_adam_kind {
	KG_ADAM_FP32,
	KG_ADAM_MIXED,
	KG_ADAM_HALF_TRUE,
	KG_ADAM_8BIT_FP32,
	KG_ADAM_8BIT_MIXED,
} kg_adam_kind;

/* Maps a precision setting ("fp32", "32", "bf16-mixed", "16-mixed",
 * "fp16", "amp", "bf16-true", "16-true") and whether the optimizer is 8-bit
 * to a kind; -1 when the precision is unknown. */
int kg_adam_kind_of(const char *precision, bool eight_bit, kg_adam_kind *out);
int kg_adam_bytes_per_param(kg_adam_kind k);
/* params × bytes per parameter; -1 on overflow. */
int64_t kg_calc_adam(int64_t params, kg_adam_kind k);

/* ZeRO per-GPU model-state bytes, mixed-precision Adam (K = 12), ZeRO paper
 * (Rajbhandari et al., arXiv:1910.02054 §5, fig. 1): stage 0: 16P;
 * 1 (optimizer states partitioned): 4P + 12P/N; 2 (+ gradients): 2P +
 * 14P/N; 3 (+ parameters): 16P/N. -1 on a bad stage or N < 1. */
int64_t kg_calc_zero(int64_t params, int stage, int64_t gpus);

/* DeepSpeed's estimators (deepspeed/runtime/zero/stage_1_and_2.py,
 * stage3.py@70adb32a, formats.md §8.2), GPU side only: stage 2 no offload
 * 4P + 16P/N, stage 2 optimizer offload 2P; stage 3 no offload
 * LLM + 18P/N, optimizer offload LLM + 2P/N, params + optimizer offload
 * LLM, with LLM = 4 × largest layer's parameters. offload: 0 none,
 * 1 optimizer, 2 optimizer + params (stage 3 only). */
int64_t kg_calc_deepspeed_zero(int64_t params, int stage, int64_t gpus, int offload,
			       int64_t largest_layer_params);

/* Transformer activations per layer, 16-bit, no recomputation (Korthikanti
 * et al. 2022, arXiv:2205.05198 eq. 2): s·b·h·(34 + 5·a·s/h) bytes =
 * 34·s·b·h + 5·a·s²·b. */
int64_t kg_calc_activations(int64_t seq, int64_t batch, int64_t hidden, int64_t heads);

/* One attention score matrix per head and sequence: b·a·s²·bytes
 * (formats.md §8.5; eager attention keeps scores, softmax and dropout). */
int64_t kg_calc_attention_scores(int64_t batch, int64_t heads, int64_t seq, int dtype_bytes);

/* KV cache: 2 (K and V) × L × kv_heads × head_dim × s × b × bytes
 * (formats.md §8.6; vLLM cache_engine.get_cache_block_size). */
int64_t kg_calc_kv_cache(int64_t layers, int64_t kv_heads, int64_t head_dim,
			 int64_t seq, int64_t batch, int dtype_bytes);

/* LM-head logits: b × s × vocab × bytes. */
int64_t kg_calc_logits(int64_t batch, int64_t seq, int64_t vocab, int dtype_bytes);

/* ---- solver ---- */

/* Rounds v down: to a power of two (multiple == 0) or to a multiple of
 * `multiple` (> 0); multiple < 0 leaves v as is. Values below the step
 * give the step's floor (1 for powers of two, 0 otherwise). */
int64_t kg_round_down(int64_t v, int64_t multiple);

/* The largest v in [0, limit] with f(v, ctx) ≤ budget, for f non-decreasing
 * in v (binary search); -1 when even f(0) exceeds the budget or f fails
 * (returns < 0) there. */
int64_t kg_solve_max(int64_t (*f)(int64_t v, void *ctx), void *ctx,
		     int64_t budget, int64_t limit);

/* Largest batch whose full-ranking tensor (kg_calc_full_ranking) fits in
 * budget bytes (e.g. oom.free + oom.reserved_unallocated), rounded down as
 * kg_round_down(…, multiple) says; 0 when not even one row fits. */
int64_t kg_solve_full_ranking_batch(int64_t budget, int64_t entities, int64_t dim,
				    int components, int dtype_bytes, int64_t multiple);

/* ---- explain (the knowns it draws on: model/knowns.h) ---- */

/* One explanation: the factors (indices into the knowns), their product,
 * and a plausibility score (higher is better). */
#define KG_EXPLAIN_MAX_FACTORS 7
typedef struct kg_explanation {
	size_t factor[KG_EXPLAIN_MAX_FACTORS];
	size_t nfactors;
	int64_t product;
	double score;
} kg_explanation;

/* Finds products of known numbers — each used at most once, exactly one
 * dtype width, at most one constant, at most KG_EXPLAIN_MAX_FACTORS — that
 * fall in one of the target ranges (from kg_alloc_request_ranges, or
 * printed's own interval when the size is a tensor size). Ranks them:
 * more config/dataset numbers, fewer constants, the preferred dtype, fewer
 * factors, closeness to the printed value. Writes up to cap, best first;
 * returns how many were found (≤ cap). Work is bounded (the search stops
 * after 2 million products). */
size_t kg_explain(const kg_knowns *k, const kg_range *targets, size_t ntargets,
		  int64_t printed_bytes, kg_explanation *out, size_t cap);

/* Renders "2 × 128 (data.test_bs) × 40943 (WN18RR entities) × 512
 * (model.base_dim) × 4 B (float32)": constants, batches, counts, dataset
 * sizes, dims, others, dtype last. Returns a malloc'd string. */
char *kg_explanation_format(const kg_knowns *k, const kg_explanation *e);

#endif

/* context.h — per-line context markers around an OOM (DESIGN §2
 * "Incident"): step and epoch counters, phase words in the log, the echoed
 * allocator configuration, follow-on errors, torchelastic's root-cause rank.
 * Each parser takes one noise-stripped line, runs a literal prefilter first
 * and PCRE2 only on lines that pass it. */
#ifndef KG_CONTEXT_H
#define KG_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/util.h"

/* Sets up the context patterns (idempotent; kg_context_fini frees them).
 * Compiles nothing: each pattern is compiled and JIT-compiled on its first
 * match. Returns 0; err is never filled (kept for callers). Not thread-safe. */
int kg_context_init(kg_error *err);
void kg_context_fini(void);

/* Step / epoch counters: `step 10000`, `Step 3/1000`, `global_step=500`,
 * `iter 20`, `Epoch 3/10`, `epoch: 3`, `Epoch [3/10]`, tqdm `Epoch 3:  45%|`.
 * Sets *step / *epoch (left alone when absent). Returns true when either
 * was found. */
bool kg_ctx_counters(const char *line, size_t n, int64_t *step, int64_t *epoch);

/* A progress line: tqdm's bar ("45%|████▌     | 45/100 [00:10<…"; kind
 * "bar"), "Epoch 30/100" / "Epoch [30/100]" / "epoch 3 of 10" ("epoch"),
 * "Step 120/1000" / "iter 20/300" / "batch 5/50" ("step"), a bracketed
 * counter that starts the line, "[ 30/210] processing …" ("item"), and
 * Hugging Face Trainer's notebook bar, "[ 501/1500 06:35 < 13:11, 1.26
 * it/s, Epoch 1/3]" ("trainer": the optimizer step shown, global_step + 1,
 * transformers utils/notebook.py), and Keras' bar, "  45/469 [==>....] -
 * ETA: …" or Keras 3's "  45/469 ━━━━━━━━━━ 1:02 134ms/step" ("step": the
 * batch of the epoch). Sets
 * *done, *total (done ≤ total, total ≥ 1) and *kind (static) and returns
 * true; false (nothing set) otherwise. A tqdm line of \r redraws: the
 * first bar in s[0..n) is read, so pass the last redraw. */
bool kg_ctx_progress(const char *line, size_t n, int64_t *done, int64_t *total, const char **kind);
/* Whether s[0..n) could be one: it holds `/` or ` of ` (caseless), as
 * every form above does; no regex runs. */
bool kg_ctx_progress_maybe(const char *line, size_t n);

/* Phase word in a log line: the kg_phases words eval, checkpoint and
 * model-load (vocab.h), the kg_modes word train (KG_MODE_WORD(TRAIN):
 * training resumed; clears an earlier eval marker, sets no phase, and
 * tells the job's mode), or NULL. A line with an evaluation word and
 * "train"/"training" after it is training. Static strings. */
const char *kg_ctx_phase_marker(const char *line, size_t n);

/* Echoed allocator configuration, e.g. `PYTORCH_CUDA_ALLOC_CONF=expandable_
 * segments:True`, `export PYTORCH_ALLOC_CONF=…`, `os.environ["…"] = "…"`;
 * also misspelled variable names that start with PYTORCH_ and contain ALLOC.
 * The OOM message's own hint ("try setting PYTORCH_CUDA_ALLOC_CONF=…") is not
 * an echo. Returns true with *var and *value malloc'd. */
bool kg_ctx_alloc_conf(const char *line, size_t n, char **var, char **value);

/* A training-config path echoed in the log: `--config cfg.yaml`,
 * `--config=cfg.yaml`, `-c cfg.yaml`, `Config: configs/x.yaml`,
 * `config_file=x.yml`. Returns true with *path malloc'd. */
bool kg_ctx_config_path(const char *line, size_t n, char **path);

/* Follow-on error kinds that are consequences of an OOM, or NULL:
 * "device-side-assert", "illegal-memory-access", "nccl-timeout",
 * "elastic-child-failed". */
const char *kg_ctx_followup(const char *line, size_t n);

/* torchelastic's error summary: returns 1 on the `Root Cause (first observed
 * failure):` header; on a later `rank : N (local_rank: M)` line returns 2
 * with *rank set; else 0. */
int kg_ctx_root_cause(const char *line, size_t n, int64_t *rank);

#endif

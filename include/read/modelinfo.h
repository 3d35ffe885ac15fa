/* modelinfo.h — what a log says about the model it runs and the machine it
 * runs on (issue 31, item 5): the model named with its size
 * (`llama-2-7b`, `Meta-Llama-3.1-70B-Instruct-Q4_K_L.gguf`, `models/7B/`),
 * or by a name the catalogue knows (`roberta-large`, `gpt2-xl`, `sdxl`,
 * `whisper … large-v2`), or a printed parameter count (`has 859.52 M
 * params`, `Total params: 124,439,808`, PEFT's `trainable params: … || all
 * params: …`, llama.cpp's `model params = 6.74 B`); the weights' precision
 * (`fp16`, `torch_dtype=torch.bfloat16`, `load_in_8bit`, `4bit`, GGUF
 * `Q4_K_M`, MLC `q4f16_1`, `AWQ`); the mode (training: `--do_train`,
 * `Trainer`, `train.py`; inference and serving: `generate`, `pipeline(`,
 * vLLM `LLM(`, Ollama, llama.cpp); adapters (LoRA, PEFT) and anything that
 * spreads the model over devices or the host (`device_map="auto"`,
 * DeepSpeed ZeRO, FSDP, offload, tensor parallelism); a GPU by name
 * (`Tesla V100-SXM2-16GB`, `NVIDIA GeForce RTX 4090`, `A100-80GB`, `T4`);
 * the host's RAM (`MemTotal:`, `free`'s `Mem:` row, Slurm `--mem=`, "32 GB
 * RAM"); and what a KV cache needs (layers, KV heads, head dim, context:
 * llama.cpp's `n_layer = 32`, a config's `"num_key_value_heads": 8`, vLLM's
 * `max_model_len`).
 *
 * The scanner (logscan.c) calls kg_parse_modelinfo() on each line that holds
 * one of its context atoms (every line of a short input); per incident,
 * kg_facts_from_modelinfo() turns what the log said into model.*, gpu.*
 * and host.* facts (kgmem-rules(5) *FACTS*), which the estimator
 * (diagnose/estimate.h) weighs against the card.
 *
 * The catalogues are data under the rules directory, each entry with its
 * source: rules/models.yaml (models whose names do not say their size) and
 * rules/gpus.yaml (cards and their memory). */
#ifndef KG_MODELINFO_H
#define KG_MODELINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/facts.h"
#include "model/util.h"

/* ---- catalogues (rules/models.yaml, rules/gpus.yaml) ------------------- */

typedef struct kg_catalogue_entry {
	char *name;          /* as shown ("roberta-large", "Tesla V100") */
	char **keys;         /* the name and its aliases, lower-case letters and
	                        digits only ("robertalarge", "teslav100") */
	size_t nkeys;
	double value;        /* models: parameters; GPUs: bytes of memory (the
	                        largest variant: an upper bound) */
	int context;         /* models: index in kg_catalogue.contexts of a word
	                        the input must also name for a key to count
	                        (whisper's "large-v2"), -1 when none */
	char *source;        /* where the number comes from */
} kg_catalogue_entry;

typedef struct kg_catalogue {
	kg_catalogue_entry *models, *gpus;
	size_t nmodels, ngpus;
	char **contexts;     /* the distinct context words, lower-case (≤ 32) */
	size_t ncontexts;
	double largest_gpu;  /* bytes of the largest card, 0 when none */
	const char *largest_gpu_name;
} kg_catalogue;

/* Reads DIR/models.yaml and DIR/gpus.yaml (config.h kg_registry_load: a
 * YAML sequence of mappings; models: name, aliases, params as a count with
 * K/M/B/T, context, source; GPUs: name, aliases, memory as a size such as
 * "80 GiB", source). An entry without its number is skipped. Returns 0, or
 * -1 with err ("DIR/models.yaml: …") on an unreadable file or invalid YAML;
 * *c is then empty. */
int kg_catalogue_load(kg_catalogue *c, const char *dir, kg_error *err);
void kg_catalogue_free(kg_catalogue *c);
/* The shipped catalogues (kg_rules_dir()), loaded on first use and kept
 * for the process; empty when they cannot be read. Not thread-safe on the
 * first call. */
const kg_catalogue *kg_catalogue_shipped(void);

/* ---- what the log said --------------------------------------------------- */

#define KG_MODEL_MENTIONS 32
#define KG_GPU_MENTIONS 8

typedef struct kg_model_mention {
	char name[80];       /* the name as written (the path part that holds
	                        the size), or "printed count" */
	double params;       /* parameters; lo..hi: what the name's rounding
	                        allows (a "7b" is 6.44–9.1 B: names round) */
	double lo, hi;
	const char *how;     /* static: "name", "catalogue" or "printed" */
	int entry;           /* catalogue index, -1 when none */
	long line;
} kg_model_mention;

typedef struct kg_model_signs {
	kg_model_mention model[KG_MODEL_MENTIONS];
	int nmodel;          /* kept in line order, the first 32 */
	double trainable;    /* a printed trainable count (PEFT, torchinfo), 0 */
	long trainable_line;
	char precision[24];  /* the narrowest weights' precision named */
	double width;        /* its bytes per parameter (Q4_K: 0.5625) */
	long precision_line;
	bool optim_8bit;     /* an 8-bit optimizer (adamw_8bit, Adam8bit) */
	bool optim_sgd;      /* SGD named: Adam's state is not assumed */
	long optim_line;     /* where either was named */
	const char *mode;    /* static: "train" or "infer" (train wins) */
	long mode_line;
	const char *engine;  /* static: "vllm", "ollama", "llama.cpp",
	                        "ctranslate2", "mlc", or NULL */
	long engine_line;
	char adapters[24];   /* "LoRA", "PEFT", … as written, "" when none */
	long adapters_line;
	char split[32];      /* what spreads the model: "device_map=auto",
	                        "DeepSpeed", "FSDP", "offload", … "" when none */
	long split_line;
	struct { char name[64]; double bytes; bool stated; long line; } gpu[KG_GPU_MENTIONS];
	int ngpu;            /* distinct names, the first 8 */
	double host_ram;     /* bytes: the smallest the log states, 0 none */
	const char *host_ram_how; /* static: "MemTotal", "free", "Slurm --mem", "RAM" */
	long host_ram_line;
	int64_t layers, kv_heads, heads, head_dim, hidden, context; /* 0: none */
	long kv_line;        /* the last line that gave one of them */
	uint32_t contexts;   /* bit i: the catalogue's context word i seen */
} kg_model_signs;

void kg_model_signs_init(kg_model_signs *m);

/* Reads one noise-stripped log line (the first n bytes of s; lineno its
 * number) into m, with the shipped catalogues. Lines of a traceback's
 * `File "…"` headers are skipped (a path to modeling_gpt2.py names a code
 * file, not the model). Returns 1 when it recorded something, else 0.
 * Never reads past n; never fails. */
int kg_parse_modelinfo(const char *s, size_t n, long lineno, kg_model_signs *m);
/* The same with an explicit catalogue (tests). */
int kg_parse_modelinfo_cat(const char *s, size_t n, long lineno, kg_model_signs *m,
			   const kg_catalogue *cat);

/* Sets the model.*, gpu.* and host.* facts from m for an incident at line
 * `before` (0: the whole log), provenance "PATH:LINE": the model named
 * last at or before that line (else the first named after it, as prose
 * after a pasted error names it), the largest printed count when there is
 * one; model.sizes counts the distinct sizes named (within 30 %). The
 * precision, mode, adapters, split and host RAM count wherever they are;
 * gpu.memory is the largest card named; gpu.largest is the catalogue's
 * largest card whether or not the log names one. m may be NULL (then only
 * gpu.largest). Re-derives nothing: the estimator (estimate.h) does. */
void kg_facts_from_modelinfo(const kg_model_signs *m, const char *path, long before, kg_facts *f);
/* The same with an explicit catalogue (tests). */
void kg_facts_from_modelinfo_cat(const kg_model_signs *m, const char *path, long before,
				 kg_facts *f, const kg_catalogue *cat);

#endif

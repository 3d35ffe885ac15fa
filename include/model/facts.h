/* facts.h — named, typed facts with provenance (DESIGN §2). Everything the
 * rules may use is a fact: parsed numbers of an incident, snapshot metrics,
 * config values by role, --set overrides, calculator outputs, readings
 * found earlier in the log. Names are stable, dotted, lower-case
 * (`oom.requested`, `config.eval_batch_size`, `calc.full_ranking.bytes`);
 * the registry of known names lives in facts.c (kg_fact_registry) and is
 * printed by `kgmem-diagnose rules facts` and listed in kgmem-rules(5).
 *
 * Derived facts (oom.reserved for 2.x, oom.non_pytorch, oom.headroom, …) are
 * computed in one place, kg_facts_derive(), from the stated ones; printed
 * size intervals propagate through the arithmetic (sum: [lo1+lo2, hi1+hi2];
 * difference: [lo1−hi2, hi1−lo2]; ratio: [lo1/hi2, hi1/lo2]). */
#ifndef KG_FACTS_H
#define KG_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/units.h"
#include "model/util.h"

struct kg_incident;

typedef enum kg_fact_type {
	KG_FACT_BYTES,   /* num = bytes; lo/hi = printed-size interval */
	KG_FACT_COUNT,   /* num = a count (entities, steps, pids, …) */
	KG_FACT_RATIO,   /* num in [0, 1] typically (fragmentation, share) */
	KG_FACT_STRING,  /* str */
	KG_FACT_BOOL,    /* num = 0 or 1 */
} kg_fact_type;

typedef struct kg_fact {
	char *name;
	kg_fact_type type;
	double num;            /* value for BYTES/COUNT/RATIO/BOOL */
	double lo, hi;         /* uncertainty interval (== num when exact) */
	char *str;             /* value for STRING */
	char *provenance;      /* "crash.log:1234", "cfg.yaml:12", "--set", … */
	bool derived;          /* computed by kg_facts_derive (recomputed there) */
	uint32_t hash;         /* kg_fact_name_hash(name), for the index */
} kg_fact;

typedef struct kg_facts {
	kg_fact *v;            /* in insertion order */
	size_t n;
	/* name index (open addressing): ix[h] = 1 + index into v, 0 = empty;
	 * ixcap is 0 or a power of two above 2n. Kept by the functions below;
	 * zero-initialised is an empty set. */
	uint32_t *ix;
	size_t ixcap;
} kg_facts;

/* Setters replace an existing fact of the same name. prov may be NULL. */
void kg_facts_set_bytes(kg_facts *f, const char *name, kg_size s, const char *prov);
void kg_facts_set_num(kg_facts *f, const char *name, kg_fact_type type, double v, const char *prov);
/* A number with an uncertainty interval [lo, hi] (lo <= v <= hi). */
void kg_facts_set_interval(kg_facts *f, const char *name, kg_fact_type type,
			   double v, double lo, double hi, const char *prov);
void kg_facts_set_str(kg_facts *f, const char *name, const char *s, const char *prov);
/* The fact named name (exact, case-sensitive), or NULL. A hash lookup:
 * constant time whatever the number of facts. The pointer stays valid until
 * the next set or remove on f. */
const kg_fact *kg_facts_get(const kg_facts *f, const char *name);
/* kg_facts_get with the name's kg_fact_name_hash computed by the caller
 * once (a compiled rule looks its facts up for every incident). */
const kg_fact *kg_facts_get_hashed(const kg_facts *f, const char *name, uint32_t hash);
/* A fact name's 32-bit FNV-1a hash (the index's key); name NUL-terminated. */
uint32_t kg_fact_name_hash(const char *name);
/* Sets every fact of src in dst, in src's order (each replaces a fact of
 * the same name, as its setter would): the same result as setting them
 * one by one. Derived flags are not copied; derive afterwards if needed. */
void kg_facts_merge(kg_facts *dst, const kg_facts *src);
/* Removes a fact (no-op when absent); linear in the number of facts. */
void kg_facts_remove(kg_facts *f, const char *name);
void kg_facts_free(kg_facts *f);

/* ---- registry of known fact names ------------------------------------ */

typedef struct kg_fact_info {
	const char *name;   /* exact name, or a prefix ending in ".*" */
	kg_fact_type type;  /* for a prefix: the usual type (see kg_facts_set_arg) */
	const char *desc;   /* one line */
} kg_fact_info;

/* The registry, in a fixed order; *n receives its length. */
const kg_fact_info *kg_fact_registry(size_t *n);
/* The registry entry that admits name (exact match first, then the longest
 * matching "prefix.*" entry), or NULL for an unknown name. */
const kg_fact_info *kg_fact_info_find(const char *name);

/* ---- facts from evidence --------------------------------------------- */

/* Turns every parsed number and string of inc into facts named as in the
 * registry, with provenance "PATH:LINE" (path is the input's display name;
 * NULL uses inc->path), then runs kg_facts_derive(). Existing facts of the
 * same names are replaced; facts the incident does not state are left
 * alone (never set to 0). */
void kg_facts_from_incident(const struct kg_incident *inc, const char *path, kg_facts *facts);

/* Computes every derived fact from the stated ones (DESIGN §2), in one
 * place: oom.reserved (2.x: allocated + reserved_unallocated),
 * oom.reserved_unallocated (1.x: reserved − allocated), oom.non_pytorch
 * (total − free − reserved), oom.outside_process (total − free −
 * process_in_use), oom.self_non_pytorch (process_in_use − reserved),
 * oom.process_share, oom.used_share, oom.headroom (free +
 * reserved_unallocated), parallel.per_job, parallel.max_jobs,
 * torch.version_code. A fact that was stated or --set is never
 * overwritten; a derived fact whose inputs vanished is removed. */
void kg_facts_derive(kg_facts *facts);

/* The derived facts that read the settings (config.*), which the pipeline
 * merges after kg_facts_derive ran: progress.save_interval (the checkpoint
 * interval the last progress line sits on, config.save_every or HF
 * Trainer's default 500) and progress.save_from. Same rules as
 * kg_facts_derive: a stated or --set fact is kept. */
void kg_facts_derive_settings(kg_facts *facts);

/* What the job was doing when it ran out of memory, read off facts (the
 * fact job.mode, which kg_facts_derive sets from it unless it was --set;
 * DIAGNOSIS §10 "The action follows the mode"). Every sign of the mode is
 * read here, so a new one is one more test in this function; the first
 * that holds decides:
 *   serve  the message is an inference engine's (framework vllm, ggml,
 *          ollama, ctranslate2, tvm, openvino, onnxruntime, sglang: oom.c's
 *          wordings), or an engine's package is in the frames' files
 *          (vllm/, llama_cpp/, ctranslate2/, faster_whisper/, …);
 *   load   the process was killed while loading (family oom_killer, the
 *          message says "load": "Loading checkpoint shards … Killed"), or
 *          the phase is model-load (from_pretrained, "Loading checkpoint
 *          shards"), or the frames load a checkpoint outside training;
 *   eval   the frames' phase is eval (validate, evaluate, predict,
 *          generate, inference, test_step …; traceback.c);
 *   train  the frames' phase is backward or optimizer, or a frame's
 *          function is a training one (train, training_step, fit,
 *          backward);
 *   eval   the log's phase is eval, or the reporter's words say
 *          evaluation (log.words.eval);
 *   train  the log's nearest phase word is training's (phase.log_train),
 *          the progress line counts epochs, or an epoch is known;
 *   unknown otherwise.
 * Returns a word of kg_modes (static storage); *why is the sign in words
 * (static), the fact's provenance. */
const char *kg_facts_job_mode(const kg_facts *f, const char **why);

/* The inference engine that ran the job (the fact job.engine, derived
 * with job.mode): the framework that printed the message when it is an
 * engine (vllm, sglang, ggml, ollama, ctranslate2, tvm, openvino,
 * onnxruntime); else an engine's package in the frames' files (/vllm/,
 * /sglang/, /llama_cpp/ → ggml, /ctranslate2/ and /faster_whisper/ →
 * ctranslate2; TGI's → tgi, TensorRT-LLM's → tensorrt_llm, ExLlamaV2's →
 * exllamav2); else the engine the log names (model.engine: llama.cpp →
 * ggml, mlc → tvm); else unknown. Returns a framework word, one of those
 * three or job.mode's unknown (static storage); *why as
 * kg_facts_job_mode's. */
const char *kg_facts_job_engine(const kg_facts *f, const char **why);

/* Parses "NAME=VALUE" (the --set option) and sets the fact with provenance
 * "--set", then re-derives. The value is read by the registry type of NAME:
 * bytes take a printed size ("12GiB", "12 GiB", "1.5GB" = binary units; a
 * bare integer is bytes), counts a decimal number ("40943", "40,943" and
 * "40_943" accepted), ratios a number or a percentage ("0.9", "90%"),
 * bools true/false/yes/no/1/0, strings anything. For a "prefix.*" name
 * (config.*, dataset.*, calc.*) the value decides: a size with a unit is
 * bytes, true/false a bool, a number a count, anything else a string.
 * Returns 0, or -1 with err ("--set NAME: reason") for an unknown name or
 * a value of the wrong shape. */
int kg_facts_set_arg(kg_facts *f, const char *name_eq_value, kg_error *err);

/* Formats a fact's value in its unit into buf: bytes as c10 format_size
 * ("19.99 GiB"), counts with thousands separators ("40,943"; non-integers
 * with two decimals), ratios as a percentage ("97 %", below 10 % one
 * decimal "0.5 %"), bools "true"/"false", strings as they are. */
char *kg_fact_value_format(kg_fact_type type, double num, const char *str, char *buf, size_t n);

/* "bytes", "count", "ratio", "string", "bool". */
const char *kg_fact_type_name(kg_fact_type t);

#endif

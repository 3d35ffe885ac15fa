/* logfacts.h — facts that come from the whole log rather than one OOM
 * message: memory readings printed over time (user prints, DeepSpeed
 * `see_memory_usage`, Lightning/HF logs of `torch.cuda.memory_allocated()`)
 * and parallelism hints (Optuna `n_jobs`, `Parallel: 4`,
 * `--nproc_per_node`, `pytest -n`, xdist `[gwN]` workers).
 *
 * The log scanner calls the pure per-line parsers kg_parse_readings() and
 * kg_parse_parallel_hint() on each noise-stripped line (both start with a
 * cheap literal prefilter, so calling them on every line is fine), stores
 * what they return with kg_log_facts_add_reading() /
 * kg_log_facts_add_parallel(), and, per incident, kg_facts_from_log()
 * turns what was seen before the incident's line into facts:
 *
 *   log.readings.count                  count   readings before the OOM
 *   log.allocated.first / .last / .max  bytes   first, last, largest reading
 *   log.allocated.growth                bytes   last − first
 *   log.allocated.points                count   epochs (or steps, or
 *                                               readings) compared
 *   log.allocated.per                   string  "epoch", "step" or "reading"
 *   log.allocated.growth_per_epoch      bytes   least-squares slope per epoch
 *   log.allocated.growth_per_step       bytes   least-squares slope per step
 *   log.allocated.monotonic             bool    never falls from one point to
 *                                               the next, and rises overall
 *   log.parallel_jobs                   count   largest parallelism hint
 *   log.parallel_source                 string  the hint's kind ("n_jobs", …)
 *   log.platform / .text                string  "wsl" or "jetson", and the
 *                                               marker line (kg_parse_marker)
 *   log.tf.total / log.tf.free          bytes   TensorFlow's device at start-up
 *   log.tf.device                       bytes   the memory TensorFlow created
 *                                               its device with
 *   log.driver.vram                     bytes   the VRAM the amdgpu driver
 *                                               set up (dmesg)
 *   log.notebook                        bool    an IPython/Jupyter traceback
 *                                               line before the OOM
 *   model.*, gpu.*, host.ram                    what the log says about the
 *                                               model, card and host
 *                                               (modelinfo.h)
 *
 * "allocated" readings are preferred; when the log only prints reserved
 * memory (or peaks), those are used and log.allocated.kind says which. */
#ifndef KG_LOGFACTS_H
#define KG_LOGFACTS_H

#include <stddef.h>
#include <stdint.h>
#include "model/facts.h"
#include "model/units.h"

/* What a reading measures. */
typedef enum kg_reading_kind {
	KG_READ_ALLOCATED = 0,     /* memory_allocated(), "MA", "allocated" */
	KG_READ_RESERVED,          /* memory_reserved(), "CA", "reserved", "cached" */
	KG_READ_MAX_ALLOCATED,     /* max_memory_allocated(), "Max_MA", "peak" */
	KG_READ_MAX_RESERVED,      /* max_memory_reserved(), "Max_CA" */
} kg_reading_kind;

typedef struct kg_log_reading {
	kg_reading_kind kind;
	kg_size value;             /* bytes, GB/MB read as binary (as printed
	                              by `x / 1024**3` user code) */
	int si;                    /* the unit had no "i" (KB, MB, GB, TB): its
	                              power of 1000 or 1024, 1–4; 0 for KiB…,
	                              K/M/G/T or bytes. kg_facts_from_log reads
	                              such a series as SI when binary cannot be */
	int64_t step, epoch;       /* from the same line, else KG_NONE */
	long line;                 /* filled by the caller */
	int64_t rank;              /* the line's rank prefix ([rankN]:, srun
	                              --label), filled by the caller; KG_NONE */
} kg_log_reading;

/* Parses the readings on one line (at most max). Recognised forms:
 * "Memory: 3.20GB allocated, 4.10GB reserved" (seed 002),
 * "MemAllocated=0.93GB" / "MaxMemAllocated=…" (DeepSpeed),
 * "MA 0.93 GB  Max_MA 1.2 GB  CA 1.5 GB  Max_CA 2 GB" (DeepSpeed
 * see_memory_usage), "memory_allocated: 123456789", "max_memory_allocated
 * = 3.2 GiB", "allocated: 3.2 GiB" / "reserved: …", "gpu_mem: 3.2G".
 * step/epoch are taken from "epoch N" / "step N" on the same line.
 * Returns the number of readings written (0 when none). Never reads past n. */
size_t kg_parse_readings(const char *line, size_t n, kg_log_reading *out, size_t max);

/* Parses a parallelism hint: Optuna "n_jobs=4", "Parallel: 4", "PAR=4",
 * torchrun "--nproc_per_node=4" / "--nproc-per-node 4", "pytest -n 4",
 * "xdist: workers 4" / "gw3" worker ids (gwN means at least N+1 workers),
 * "num_parallel_trials: 4". Sets *jobs and *kind (a static string:
 * "n_jobs", "parallel", "nproc_per_node", "pytest-xdist", …) and returns 1,
 * or returns 0. "-n auto" is not a count and returns 0. */
int kg_parse_parallel_hint(const char *line, size_t n, int64_t *jobs, const char **kind);

/* Platform and framework start-up markers (DIAGNOSIS §9), the first of
 * each kind in the log. */
typedef struct kg_log_markers {
	const char *platform;      /* "wsl" (microsoft-standard-WSL2,
	                              /usr/lib/wsl/, WSL2) or "jetson" (NvMap,
	                              Tegra, Jetson), NULL when none */
	char platform_text[160];   /* the marker line, cut */
	long platform_line;
	kg_size tf_total, tf_free; /* TensorFlow 1.x "totalMemory: X
	                              freeMemory: Y" at start-up (1.0-1.4:
	                              "Total memory: X" and "Free memory: Y"
	                              on lines of their own), or 2.x
	                              "deviceMemorySize: X" (total only) */
	long tf_total_line;
	kg_size tf_split_total;    /* a 1.0-1.4 "Total memory: X" line waiting
	                              for its "Free memory: Y" */
	long tf_split_line;
	int64_t tf_device;         /* bytes of "Created [TensorFlow] device …
	                              with N MB memory", KG_NONE when none */
	long tf_device_line;
	int64_t driver_vram;       /* bytes of the Linux amdgpu driver's
	                              "amdgpu: NM of VRAM memory ready" (the
	                              device's own memory as the driver set
	                              it up; dmesg), KG_NONE when none */
	long driver_vram_line;
	long notebook_line;        /* first IPython/Jupyter traceback line
	                              ("<ipython-input-", "Cell In["), 0 if none */
	/* nvidia-smi pasted into the log: its process-table rows
	 * ("|    0     32317      C   python     7773MiB |", GPU index, pid,
	 * type C/G/C+G, name, used memory; the 470+ layout has GI/CI ids
	 * between) and its first device row ("| 7785MiB / 16280MiB |"). */
	int nsmi;                  /* process rows kept (at most 16) */
	struct { int gpu; bool compute; int64_t pid; int64_t bytes; } smi[16];
	long smi_line;             /* first process row */
	int64_t smi_used, smi_total; /* first device row, KG_NONE when none */
	int smi_util;              /* that row's GPU utilization, percent; -1 when not printed */
	long smi_dev_line;
	/* the reporter's words (anywhere in the input: prose often follows the
	 * paste): a late failure ("after 30 epochs", "the 12th epoch", "after
	 * 3 hours", "after running for a while"), a batch of one ("even with
	 * batch size 1", "batch size to 1"), the evaluation phase ("during the
	 * evaluation loop", "Loading valid dataset") */
	char late_text[120], batch1_text[120], eval_text[120];
	long late_line, batch1_line, eval_line;
	/* … memory that grows ("a memory leak", "keeps on increasing"), a
	 * checkpoint loaded, resumed from or saved ("when it loads the
	 * existing checkpoint"), several jobs on one device ("two processes
	 * on the same GPU", "run both scripts simultaneously") */
	char leak_text[120], ckpt_text[120], par_text[120];
	long leak_line, ckpt_line, par_line;
	/* … the inputs named large ("large point cloud data", "long
	 * sequences", "high-resolution images"): one sample's activations */
	char large_text[120];
	long large_line;
	/* … the failure tied to a software version ("worked before the
	 * update", "after upgrading from ROCm 7.1.1 to 7.14.0", "does not
	 * occur in v2.6.3"): the workload stayed, the software changed */
	char ver_text[120];
	long ver_line;
} kg_log_markers;

/* Reads the markers on one line into m (only kinds not yet seen). Returns
 * 1 when it recorded one, else 0. */
int kg_parse_marker(const char *line, size_t n, long lineno, kg_log_markers *m);

/* Reads nvidia-smi rows and the reporter's words on one line into m
 * (kg_log_markers: smi*, late*, batch1*, eval*; the first of each kind).
 * Returns 1 when it recorded one, else 0. */
int kg_parse_signs(const char *line, size_t n, long lineno, kg_log_markers *m);

/* A setting the log printed (the batch that ran, a memory cap, the
 * engine's context length, …): a role of rules/keys.yaml with a `log:`
 * kind. */
typedef struct kg_log_setting {
	const char *role;          /* the role's name (lives as long as the process) */
	double value;              /* a count, a share (0.9), bytes, or 0/1 */
	long line;                 /* filled by kg_log_facts_add_setting */
} kg_log_setting;

typedef struct kg_log_facts {
	kg_log_reading *readings;
	size_t nreadings, cap;
	kg_log_setting *batch;         /* the settings, in line order */
	size_t nbatch, batch_cap;
	int64_t parallel_jobs;     /* largest hint, KG_NONE when none */
	const char *parallel_kind;
	long parallel_line;
	kg_log_markers markers;
	struct kg_model_signs *models; /* the model, card and host the log names
	                              (modelinfo.h), NULL until a line names one */
	struct kg_log_index *index; /* built by the first kg_facts_from_log (logfacts.c) */
	/* set by the caller before the scan: the log's head (its first 256 KiB,
	 * logscan.c: HEAD_FULL) is read only when an OOM follows it, so a log
	 * without one leaves these facts without the head's (readings,
	 * settings, models, markers); false (kg_log_facts_init) reads it
	 * always, as --svg and a run of several logs need */
	bool head_lazy;
} kg_log_facts;

void kg_log_facts_init(kg_log_facts *lf);
void kg_log_facts_free(kg_log_facts *lf);
/* Appends a reading (kept in line order: one whose line is before the
 * last reading's is ignored; at most 1,000,000 are kept, the rest dropped
 * so memory stays bounded). step/epoch: the scanner's current
 * context when the line itself has none (KG_NONE when unknown). */
void kg_log_facts_add_reading(kg_log_facts *lf, const kg_log_reading *r, int64_t step,
			      int64_t epoch, long line);
/* The model signs of lf (modelinfo.h), allocated on first use. */
struct kg_model_signs *kg_log_facts_models(kg_log_facts *lf);
/* Records a parallelism hint (the largest one is kept). */
void kg_log_facts_add_parallel(kg_log_facts *lf, int64_t jobs, const char *kind, long line);

/* Parses the settings one log line prints (at most max, one per role):
 * every role of rules/keys.yaml with a `log:` kind (count, fraction,
 * size, bool), by its key names in the forms `key=value`, `key: value`,
 * `"key": value`, `key(value)` (set_per_process_memory_fraction(0.5)), and
 * an echoed command line's `--key value`, `--key=value`, `-key value`
 * (argparse and llama.cpp; the key's words joined by `_` or `-`); a key is
 * never read inside a longer one (`eval-batch-size=16` is no
 * `batch-size`). Also HF Trainer's banner ("Instantaneous batch size per
 * device = 16", "Gradient Accumulation steps = 2"). Counts are 1 to 10^8,
 * shares 0 to 10, sizes bytes (c10's units, kg_size_parse), booleans 0/1.
 * keys.yaml is read once (the installed one, or KGMEM_RULES_PATH's);
 * unreadable, no setting is read. Returns how many it wrote. */
int kg_parse_settings(const char *s, size_t n, kg_log_setting *out, int max);
/* Records one (at most 4,096 are kept). */
void kg_log_facts_add_setting(kg_log_facts *lf, const kg_log_setting *h, long line);
/* Sets config.ROLE to the last value of each role the log printed before
 * line `before` (0: the whole log), typed by the role's kind (count,
 * ratio, bytes, bool), provenance "PATH:LINE". The caller sets them after
 * a config file's: the log's batch is the one that ran (a config patched
 * since must not be patched again). */
void kg_facts_settings_from_log(const kg_log_facts *lf, const char *path, long before, kg_facts *f);

/* Sets the log.* facts from what was seen before line `before` (0: the
 * whole log), provenance "PATH:LINE", then re-derives. The first call
 * after readings were added indexes them (O(n) memory and time); each
 * call then costs O(log n) plus the points of the series it reports. */
void kg_facts_from_log(kg_log_facts *lf, const char *path, long before, kg_facts *facts);

#endif

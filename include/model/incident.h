/* incident.h — the evidence model: one OOM (or OOM-like failure) with its
 * place in the input, its parsed numbers, traceback frames and context.
 * Field names follow the JSON schema `kgmem-diagnose/1` (DESIGN §4); every
 * size is bytes with its printed-size interval (units.h), KG_NONE when the
 * message does not state it. */
#ifndef KG_INCIDENT_H
#define KG_INCIDENT_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include "model/units.h"
#include "model/vocab.h"

typedef struct kg_proc {
	int64_t pid;       /* KG_NONE for "Process has X" without a pid */
	kg_size in_use;
} kg_proc;

/* Sizes as the message states them (DESIGN §4 "Field meanings"). */
typedef struct kg_memory {
	kg_size requested;            /* "Tried to allocate" (the segment size) */
	bool requested_overflow;      /* the request as printed is >= 2^63 bytes
					 (requested is then not known) */
	kg_size total_capacity;
	kg_size free;
	kg_size allocated;
	kg_size reserved;             /* 1.x "reserved in total by PyTorch" */
	kg_size reserved_unallocated; /* 2.x, and 1.0–1.3 "cached" */
	kg_size process_in_use;       /* "this process has" / "Process has" */
	kg_size allowed;              /* memory fraction / MPS max allowed */
	kg_size private_pools;        /* "allocated in private pools" */
	kg_size other_allocations;    /* MPS "other allocations" */
	kg_proc *procs;               /* "Process N has X memory in use" */
	size_t nprocs;
} kg_memory;

typedef struct kg_tensor {
	int64_t *shape;
	size_t ndim;
	char dtype[24];   /* PyTorch names: float32, float64, int64, … or "" */
	int64_t bytes;    /* product of shape × dtype width, KG_NONE if unknown */
} kg_tensor;

typedef struct kg_frame {
	char *file;
	long line;        /* 0 when not known */
	char *function;   /* NULL when not known */
	char *code;       /* source line shown under the frame, or NULL */
} kg_frame;

/* A follow-on error linked to the incident it follows (DESIGN §2:
 * consequences, not causes). kind: "device-side-assert",
 * "illegal-memory-access", "nccl-timeout", "elastic-child-failed",
 * "cuda-error" (other sticky CUDA error after the OOM). */
typedef struct kg_followup {
	const char *kind;
	long line;
	char *text;       /* the line, noise-stripped, at most 300 bytes */
} kg_followup;

/* The memory budget of one incident at the moment of the failure
 * (DIAGNOSIS §1), bytes, each KG_NONE when the inputs do not give it:
 *   capacity = free + allocated + cached_unused   (this process's PyTorch
 *            + non_pytorch                          reserved; non-PyTorch
 *            + other_processes + unaccounted        memory of this process)
 * PyTorch 1.x messages do not state what this process has in use: then
 * non_pytorch and other_processes are KG_NONE and unaccounted holds the
 * CUDA context and other processes together (split_uncertain). */
typedef struct kg_budget {
	int64_t capacity, free, allocated, cached_unused;
	int64_t non_pytorch, other_processes, unaccounted;
	int64_t requested;        /* the segment that did not fit */
	bool split_uncertain;     /* unaccounted = context + others, split unknown */
	bool consistent;          /* the parts fit in capacity (false: the
	                             message's numbers contradict each other,
	                             e.g. allocated > total capacity) */
} kg_budget;

/* One piece of evidence in the differential: the rule that found it, its
 * one-line statement, and its weight for (against == false) or against
 * the hypothesis. */
typedef struct kg_evidence {
	char *text;
	char *source;             /* rule id */
	enum kg_strength strength;
	bool against;
} kg_evidence;

/* One hypothesis of the differential (DIAGNOSIS §3, §9): a cause with the
 * evidence for and against it, its posterior probability, its confidence
 * (the first hypothesis only, NULL below 0.5 and for the others) and what
 * would confirm or refute it. */
typedef struct kg_hypothesis {
	const char *cause;        /* a word of kg_categories (static) */
	const char *confidence;   /* a word of kg_confidences, or NULL */
	double p;                 /* posterior probability, 0–1 */
	bool ruled_out;           /* decisive evidence against it */
	bool open;                /* left open by an undetermined incident: no
	                             evidence either way; a fallback rule says why
	                             and to_confirm what would decide */
	kg_evidence *evidence;
	size_t nevidence;
	const char *to_confirm;   /* static text */
} kg_hypothesis;

/* One remedy of a finding: environment settings, config roles to set (DESIGN
 * §2: roles, never raw paths), code changes in words, and a caveat. */
typedef struct kg_remedy {
	char *title;
	char **env_names, **env_values;   /* nenv pairs */
	size_t nenv;
	char **set_roles, **set_values;   /* nset pairs; values already rendered */
	size_t nset;
	char **set_keys;                  /* nset entries or NULL: the loaded
	                                     config's own dotted key for each
	                                     role ("data.test_bs"), NULL where
	                                     no config names it (diagnose.c) */
	char *code;                       /* code change in words, or NULL */
	char *caveat;                     /* or NULL */
	unsigned kinds;                   /* what it changes: bit i is
	                                     kg_remedy_kinds word i (vocab.h) */
} kg_remedy;

/* One fired rule. */
typedef struct kg_finding {
	char *rule;                /* rule id, e.g. "fragmentation.reserved-unallocated" */
	char *category;            /* a word of kg_categories (vocab.h) */
	enum kg_severity severity;
	const char *supports;      /* the hypothesis it is evidence about (a
	                              cause word), or NULL (cascade, none) */
	bool refutes;              /* evidence against `supports` */
	bool refines;              /* says why this process filled the device:
	                              its hypothesis takes capacity's evidence */
	enum kg_strength strength;
	char *title;
	char *message;             /* templated, facts formatted in their units */
	char **evidence;           /* "= …" lines */
	size_t nevidence;
	kg_remedy *remedies;
	size_t nremedies;
	unsigned rules_out;        /* remedy kinds this finding says cannot
	                              help (rule key rules_out): bit i is
	                              kg_remedy_kinds word i */
} kg_finding;

typedef struct kg_incident {
	int id;                   /* 1-based, in input order */
	const char *kind;         /* "oom", "oom-warning" (a retried,
	                             non-fatal allocator failure, e.g. TF BFC
	                             "freed_by_count") or "oom-suspected" (an
	                             OOM in disguise: no cuDNN algorithm's
	                             workspace fitted) or "oom-unrecognized" (a line
	                             that says out of memory in an error's words
	                             and that no grammar reads: the safety net,
	                             oom.h kg_oom_unrecognized) */
	const char *family;       /* message layout: a word of kg_families */
	const char *framework;    /* a word of kg_frameworks, or NULL */
	char *path;               /* input display name ("-" → "<stdin>") */
	long line;                /* 1-based line of the message's first line */
	char time[40];            /* that line's time stamp as printed (RFC 3339 /
	                             ISO 8601: a log prefix, or the envelope's,
	                             envelope.h), "" when it has none */
	const char *device_type;  /* a word of kg_device_types, or NULL */
	int64_t device_index;     /* KG_NONE when not stated */
	int64_t rank, step, epoch;/* KG_NONE when not known */
	const char *phase;        /* a word of kg_phases, or NULL */
	const char *phase_source; /* "frames" or "log" or NULL */
	bool log_train;           /* the log's nearest phase word before the
	                             OOM is training's (context.h
	                             kg_ctx_phase_marker "train"; it sets no
	                             phase): fact phase.log_train */
	const char *mode;         /* a word of kg_modes: fact job.mode as the
	                             rules saw it (facts.h kg_facts_job_mode),
	                             filled with the findings; NULL before */
	const char *mode_why;     /* the sign that told it, in words (static;
	                             "--set" when given) */
	const char *cause;        /* a word of kg_categories, filled by the
	                             differential, or NULL when undetermined */
	const char *confidence;   /* a word of kg_confidences, or NULL */
	kg_budget budget;         /* filled before the rules run */
	kg_hypothesis *differential; /* hypotheses, most likely first */
	double cause_p[KG_NCATEGORIES]; /* every cause's posterior (differential.c),
	                             named in the differential or not */
	size_t ndifferential;
	kg_memory mem;
	kg_tensor *tensor;        /* NULL unless the message gives a shape */
	char *status;             /* CUBLAS_STATUS_ALLOC_FAILED, … or NULL */
	char *message;            /* the OOM text as matched, noise-stripped,
	                             whitespace-collapsed, at most 4 KiB */
	char *folded;             /* an out-of-memory line no grammar knows, read
	                             beside this message and folded into it (the
	                             first one's message), or NULL */
	char *alloc_conf;         /* echoed PYTORCH_[CUDA_]ALLOC_CONF value */
	char *alloc_conf_var;     /* which variable echoed it */
	long alloc_conf_line;
	kg_frame *frames;         /* outermost first, as Python prints them */
	size_t nframes;
	kg_followup *followups;
	size_t nfollowups;
	int duplicates;           /* how many identical copies were folded in */
	int ooms_before;          /* earlier incidents of the same input */
	int repeats_before;       /* earlier incidents of the same input with
	                             the same message text that were not folded
	                             into it (another step, epoch, or far apart):
	                             the same OOM raised again */
	int64_t progress_done, progress_total; /* the last progress line
	                             before the OOM (context.h
	                             kg_ctx_progress), KG_NONE when none */
	const char *progress_kind;/* "bar", "epoch", "step", "item", or NULL */
	long progress_line;
	long during_handling_line;/* the "During handling of the above
	                             exception, another exception occurred"
	                             line before this OOM's traceback: it was
	                             raised while an earlier exception was
	                             handled; 0 when not */
	kg_finding *findings;     /* filled by the rules engine, most severe first */
	size_t nfindings;
	bool header;              /* it stands on a traceback header that names
	                             an OOM exception (oom.h kg_oom.header):
	                             the message, when it follows, replaces it */
	bool prose;               /* it stands on a person's sentence reporting an
	                             OOM (kg_oom.prose): kept only when no other
	                             incident is read in the same log */
} kg_incident;

/* Initialises every size to kg_size_none() and every index to KG_NONE. */
void kg_incident_init(kg_incident *inc);
void kg_incident_free(kg_incident *inc);
void kg_memory_free(kg_memory *m);
/* Deep-copies src's memory block into dst (dst's old contents are freed). */
void kg_memory_copy(kg_memory *dst, const kg_memory *src);
void kg_frame_free(kg_frame *f);
void kg_finding_free(kg_finding *f);
/* Frees the differential's hypotheses and their evidence. */
void kg_differential_free(kg_incident *inc);
/* DIAGNOSIS §5: KG_SEV_ERROR for an OOM that ended the run (kind "oom",
 * every family), KG_SEV_WARNING for a retried one ("oom-warning") and for
 * a message no grammar knows ("oom-unrecognized"). */
enum kg_severity kg_incident_severity(const kg_incident *inc);
/* Whether f's evidence supports cause (and does not refute it); false for
 * a NULL cause. */
bool kg_finding_supports(const kg_finding *f, const char *cause);
/* The severity f is shown at in every format (issue 32: one verdict): its
 * own, except that evidence for a hypothesis other than the incident's
 * cause, or for one the differential rules out, is at most info (a
 * "note"): such a finding is no error of the incident, whatever its
 * rule's severity says. */
enum kg_severity kg_finding_shown_severity(const kg_incident *inc, const kg_finding *f);
/* Whether f is about no cause (category none): the input that would decide
 * (rules/general.yaml). */
bool kg_finding_no_cause(const kg_finding *f);
/* The finding that states the incident's cause: of those whose evidence
 * supports it, the strongest (a decisive closed form before the phase it
 * happened in: its remedy has the numbers), the first on ties; NULL when
 * the cause is undetermined or no finding states it. */
const kg_finding *kg_incident_cause_finding(const kg_incident *inc);
/* The finding whose first remedy is the report's one action (the text
 * report's help: line, the JSON report's "action"): the cause's
 * (kg_incident_cause_finding); for an undetermined cause, the leading
 * hypothesis's finding when it has support and a remedy, else the first
 * category-none finding with a remedy: the input that would decide
 * (rules/general.yaml); else NULL. */
const kg_finding *kg_incident_action_finding(const kg_incident *inc);
void kg_remedy_free(kg_remedy *r);
/* The remedy as one instruction a user can act on, the text report's
 * help: line (malloc'd, never NULL): the first sentence of its code (the
 * rules write it as an imperative with the incident's numbers: "Lower the
 * evaluation batch size to 64, the largest that fits"), else its title;
 * then, after ": ", each environment setting "NAME=VALUE" and each setting
 * a loaded config names, "set data.test_bs: 64", that the sentence does not
 * already contain, separated by "; ". A role no config names is not
 * printed (it is the tool's word, not the user's; the sentence says it in
 * words). The sentence ends at the first ". " outside backticks that is
 * followed by a capital letter or a backtick, or at the end. */
char *kg_remedy_instruction(const kg_remedy *r);
/* What follows the first sentence of a remedy's code (the instruction):
 * the explanation, or "" (points into code). */
const char *kg_remedy_code_rest(const char *code);

#endif

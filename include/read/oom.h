/* oom.h — the OOM grammars: one parser per message family (DESIGN §4
 * `family`), exact templates from ../shared/reference/formats.md §1, §7.
 *
 * The scanner (logscan.c) hands each candidate line, noise-stripped, with up
 * to KG_OOM_WINDOW_LINES following lines joined by '\n' (so a message wrapped
 * over several lines still parses: every grammar allows any whitespace,
 * newlines included, between words). */
#ifndef KG_OOM_H
#define KG_OOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/incident.h"
#include "model/util.h"

#define KG_OOM_WINDOW_LINES 12
#define KG_OOM_WINDOW_BYTES 16384

typedef struct kg_oom {
	const char *kind;        /* "oom", "oom-warning" (retried), "oom-suspected"
	                            (an OOM in disguise: no cuDNN algorithm fitted)
	                            or "oom-unrecognized" (kg_oom_unrecognized); static
	                            string */
	const char *family;      /* static string, DESIGN §4 vocabulary */
	const char *framework;   /* static string or NULL */
	const char *device_type; /* static string or NULL */
	int64_t device_index;    /* KG_NONE when not stated */
	kg_memory mem;           /* owns procs */
	kg_tensor *tensor;       /* owned; NULL unless a shape is given */
	char *status;            /* owned; library status word or NULL */
	size_t start, end;       /* byte range of the message in the text */
	bool header;             /* a traceback header that names an OOM
	                            exception (IPython's "OutOfMemoryError
	                            Traceback (most recent call last)"): the
	                            message, when it follows, replaces it */
	bool prose;              /* kg_oom_unrecognized read a person reporting
	                            the error ("I keep getting CUDA out of
	                            memory"), not an error line */
} kg_oom;

/* Compiles every grammar now (PCRE2, JIT when available; without JIT the
 * interpreter runs the same patterns). Idempotent; returns 0, or -1 with err
 * filled if a pattern fails to compile (a bug). Optional: kg_oom_parse
 * compiles each pattern the first time it needs it (most logs need few or
 * none); call this once before using the grammars from several threads, or
 * to check that every pattern compiles. */
int kg_oom_init(kg_error *err);
void kg_oom_fini(void);

/* Literal prefilter: true when line[0..n) contains one of the grammars'
 * trigger literals, verbatim and case-sensitive ("out of memory",
 * "Tried to allocate", "OOM when allocating", "OUT_OF_MEMORY",
 * "Out of memory", "_STATUS_", "DefaultCPUAllocator", "[Ff]ailed to
 * allocate", "cudaMalloc failed", "Allocation on device", "exceeds the memory
 * limit", "Attempting to allocate", "ncclUnhandledCudaError", "failed to
 * create cublas handle"). One pass over the line, no regex; about 60 ns for a
 * 90-byte log line. A true result only means "worth parsing": lines such as
 * "out of memory retries: 0" pass it and kg_oom_parse returns 0. */
bool kg_oom_candidate(const char *line, size_t n);

/* The trigger literals kg_oom_candidate looks for (static storage); *n gets
 * their count. The scanner's atoms use exactly these for OOM lines, so a
 * line without one is never shown to the grammars. */
const char *const *kg_oom_triggers(size_t *n);

/* Parses the first OOM message whose first byte lies in text[0..first_len)
 * (the first line of the window); the message may continue into the rest of
 * text[0..n) (wrapped lines, multi-line templates). Never reads past n.
 * Returns 1 and fills *out (release with kg_oom_free), or 0 when no grammar
 * matches (then *out is untouched). When several messages start in the
 * first line, the earliest wins.
 *
 * out->start/end: byte range of the message in text, so the caller knows
 * how many lines it consumed (advice sentences after the numbers — the
 * max_split_size_mb / expandable_segments / empty_cache / MPS watermark
 * hints, TF's node and Hint lines — are inside the range).
 * Sizes: DESIGN §4 field meanings, binary units, nearest byte, with the
 * printed-size interval; an exact byte count printed beside a rounded size
 * wins ("(rounded to N)", "(N bytes)", "(NB)", ggml "buffer of size N").
 * A value the message does not print stays kg_size_none(), never 0.
 *
 * Choices where DESIGN is silent:
 * - family "other" (framework "pytorch") for PyTorch texts in neither
 *   layout: "Tried to allocate more than 1EB memory." (requested interval
 *   [2^60, INT64_MAX]), the cudaMallocAsync "Allocation on device N would
 *   exceed allowed memory" block (Device limit → total_capacity, PyTorch
 *   limit → allowed), XPU's number-less first text, and a bare
 *   "CUDA out of memory." ending its line (only after "…: " or at the
 *   line start, so prose that mentions OOM does not count).
 * - a 1.x/2.x message whose head was cut off ("Tried to allocate 20.00 MiB
 *   (GPU 0; …") has device_type NULL: the backend is not printed.
 * - TensorFlow "GPU" devices and GPU_N_bfc allocators → device_type "cuda";
 *   *_host_bfc → "cpu".
 * - status holds cuBLAS/cuDNN status words only (caffe's numeric
 *   "(4 vs. 0)" is named from cudnnStatus_t/cublasStatus_t); the
 *   driver's CUDA_ERROR_OUT_OF_MEMORY is not a status.
 * - framework of shared texts from cues in the window: "CUDA error: out of
 *   memory" is pytorch (c10) unless "ggml" appears; the stream-executor
 *   "failed to allocate X (N bytes) from device" is jax unless a
 *   tensorflow/ path without org_tensorflow (jaxlib's vendored copy)
 *   appears. */
int kg_oom_parse(const char *text, size_t n, size_t first_len, kg_oom *out);

/* The safety net (issue 31): a line that says "out of memory" (in any
 * letter case, "out-of-memory", "OutOfMemory", "OUT_OF_MEMORY") or "OOM"
 * as a word, in an error's words ("…Error", "…Exception", "error",
 * "fatal", "failed", "failure", "aborted", "panic", "CRITICAL",
 * "what():", "terminate called"; looked for in raw[0..rawn), the line as
 * the log printed it, with the prefixes noise stripping takes off, such as
 * a logger's "ERROR:root:"; raw NULL: in line), or as the exception line
 * that ends a traceback (exception_line true), and that kg_oom_parse does
 * not read.
 * Lines that say there was none ("no OOM", "OOM trials: 0", "out of
 * memory: false") and source code (a raise, a condition, "in str(e)", a
 * notebook's numbered listing) are not. The scanner calls it only on a
 * line that passed kg_oom_candidate, so the phrase must come with a
 * trigger literal ("out of memory", "Out of memory", "Out of Memory",
 * "OUT OF MEMORY", "OutOfMemory", "OUT_OF_MEMORY", "OOM error", "OOM
 * Error"): nothing is added to the prefilter for it but those.
 * Returns 1 and fills *out (kind "oom-unrecognized", family "unrecognized", the
 * line without its surrounding blanks as start..end), or 0. */
int kg_oom_unrecognized(const char *line, size_t n, const char *raw, size_t rawn, bool exception_line,
			kg_oom *out);
void kg_oom_free(kg_oom *o);

#endif

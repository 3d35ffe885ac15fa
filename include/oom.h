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
#include "incident.h"
#include "util.h"

#define KG_OOM_WINDOW_LINES 12
#define KG_OOM_WINDOW_BYTES 16384

typedef struct kg_oom {
	const char *kind;        /* "oom" or "oom-warning" (static string) */
	const char *family;      /* static string, DESIGN §4 vocabulary */
	const char *framework;   /* static string or NULL */
	const char *device_type; /* static string or NULL */
	int64_t device_index;    /* KG_NONE when not stated */
	kg_memory mem;           /* owns procs */
	kg_tensor *tensor;       /* owned; NULL unless a shape is given */
	char *status;            /* owned; library status word or NULL */
	size_t start, end;       /* byte range of the message in the text */
} kg_oom;

/* Compiles every grammar (PCRE2, JIT when available). Idempotent; returns 0,
 * or -1 with err filled if a pattern fails to compile (a bug). */
int kg_oom_init(kg_error *err);
void kg_oom_fini(void);

/* Literal prefilter: true when line[0..n) contains one of the grammars'
 * trigger literals ("out of memory", "OOM when allocating",
 * "RESOURCE_EXHAUSTED", "_STATUS_", "can't allocate memory", …). Cheap
 * (memmem-class); no regex runs for lines where it is false. */
bool kg_oom_candidate(const char *line, size_t n);

/* Parses the first OOM message whose first byte lies in text[0..first_len)
 * (the first line of the window); the message may continue into the rest of
 * text[0..n). Returns 1 and fills *out (call kg_oom_free), or 0 when no
 * grammar matches. Sizes convert as DESIGN §4 says, to the byte. */
int kg_oom_parse(const char *text, size_t n, size_t first_len, kg_oom *out);
void kg_oom_free(kg_oom *o);

#endif

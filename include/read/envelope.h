/* envelope.h — log envelopes, decoded before noise stripping (issue 13):
 * the text a container runtime, log shipper or scheduler wrapped around
 * each line of a training log is taken off, so the scanner sees the lines
 * the program printed.
 *
 * Formats (each line is tried against the decoders the input's head showed;
 * a line none of them matches passes through unchanged):
 *   - JSON Lines (one object a line): the text is the first string among
 *     "log" (Docker json-file driver, Fluent Bit), "message" (Vector, Loki
 *     exports), "msg" (zap, pino, slog), "MESSAGE" (journalctl -o json, the
 *     journal export format; an array of byte values too) and "event"
 *     (structlog's JSONRenderer); "exception"/"exc_info" (structlog,
 *     python-json-logger) follow it as more lines; an integer "rank" becomes
 *     a `[rankN]: ` prefix.
 *   - Kubernetes CRI (kubelet's container log format, kubectl logs of a
 *     containerd/CRI-O node): `<RFC3339Nano> stdout|stderr F|P <text>`; the
 *     `P` (partial) pieces of a line are joined to its `F` piece.
 *   - journalctl -o short-iso / short-iso-precise / short:
 *     `<time> <host> <ident>[<pid>]: <text>`.
 *   - Slurm `srun --label`: `<task>: <text>` becomes `[rank<task>]: <text>`
 *     (beside another envelope; a log with labels alone is read as it is
 *     and the scanner strips them, kg_envelope_slurm_label).
 *   - UTF-16 LE or BE with a byte order mark: transcoded to UTF-8 first
 *     (unpaired surrogates become U+FFFD).
 *   - Terminal output hard-wrapped at W columns (a log copied from a
 *     terminal, or written by a tool that folds long lines): a line exactly
 *     W columns long and the continuation lines after it are read as one
 *     line, and as many empty lines follow it as were joined, so every
 *     later line keeps its line number. A copy whose rows are padded with
 *     blanks to W is read without the blanks: a row whose text fills the
 *     width is cut. Plain text only (no other envelope).
 *
 * Line numbers count the decoded lines: one envelope line gives one text
 * line, except that a JSON message holding several lines gives that many,
 * and the `P` pieces of a CRI line and its `F` piece give one (a wrapped
 * line and its continuations give as many lines as they were). */
#ifndef KG_ENVELOPE_H
#define KG_ENVELOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "read/source.h"
#include "model/util.h"

enum {
	KG_ENV_JSON = 1,     /* JSON Lines (Docker json-file, shippers, journal) */
	KG_ENV_CRI = 2,      /* Kubernetes CRI */
	KG_ENV_JOURNAL = 4,  /* journalctl -o short-iso / short */
	KG_ENV_SLURM = 8,    /* srun --label */
	KG_ENV_UTF16LE = 16, /* UTF-16 little endian, BOM FF FE */
	KG_ENV_UTF16BE = 32, /* UTF-16 big endian, BOM FE FF */
	KG_ENV_WRAP = 64,    /* hard-wrapped terminal lines; the width W is
	                        the mask's bits 8 and up (KG_ENV_WRAP_WIDTH) */
	KG_ENV_WRAP_PAD = 128, /* with KG_ENV_WRAP: every row padded with
	                        blanks to W (a copy of the screen's cells) */
};
#define KG_ENV_WRAP_WIDTH(mask) ((mask) >> 8)

/* The width (columns) at which the lines s[0..n) (a log's head) were
 * hard-wrapped, or 0 when they do not look wrapped; *padded says whether
 * the rows were padded with blanks to the width (nine in ten rows are W
 * columns and two or more of those end in three blanks or more): then every row is
 * measured without its trailing blanks, and the width is the padded one. Columns count UTF-8
 * characters, a tab advancing to the next multiple of 8, no trailing CR.
 * Wrapped means: the longest lines, W ≥ 60 columns long, are at least two
 * (or one, when W is a common terminal width: 80, 100, 120, 132, 160, 200,
 * 240); at least half of those followed by a line go on in it
 * (kg_wrap_continues), one of those ends in a shorter line, and one break
 * falls inside a word (a letter or digit on both sides). Fixed-width
 * tables (rows that start with '|', or end and begin with no word split)
 * and text a writer wrapped at word ends or behind "# " are not. With whole false the last line may be cut and is not read. */
unsigned kg_wrap_width(const char *s, size_t n, bool whole, bool *padded);
/* Whether the line s[0..n) can be the continuation of a line a terminal
 * wrapped: it is not empty and does not start a record of its own (an
 * indent of two blanks or a tab, a table row '|', an ISO date, a glog
 * "E1121" prefix, a log level word, "[<digit>" or "[rank", "Traceback",
 * "During handling"). */
bool kg_wrap_continues(const char *s, size_t n);

#define KG_ENV_MAX_LINE (4u << 20) /* 4 MiB: a longer envelope line passes
                                      through undecoded */

typedef struct kg_envelope kg_envelope;

/* Which envelopes the source's sniffed head (src->head, the first
 * KG_SNIFF_BYTES decompressed bytes) shows: a mask of KG_ENV_*, 0 for plain
 * text. A line decoder is chosen when it matches at least half of the
 * head's complete non-blank lines (Slurm labels: three quarters, and at
 * least two). Costs one pass over the head; never reads the source. */
unsigned kg_envelope_sniff(const kg_source *src);

/* A decoder for the envelopes in mask (from kg_envelope_sniff; non-zero). */
kg_envelope *kg_envelope_new(unsigned mask);
void kg_envelope_free(kg_envelope *env);

/* After kg_envelope_read returned 0 (end of one file), lets it read the
 * next file of the same log (kg_scan_logs). */
void kg_envelope_next_input(kg_envelope *env);

/* srun(1) --label's prefix, `[spaces]<task>: ` (task: at most 6 digits),
 * at the start of s[0..n): returns the offset of the text after it and
 * sets *task, or returns 0 when s does not start with one. The scanner
 * reads an srun --label log straight from its source and strips the
 * label itself (logscan.c), without decoding it through the envelope. */
size_t kg_envelope_slurm_label(const char *s, size_t n, long *task);

/* Human name of a mask for notes, e.g. "Docker json-file / JSON Lines". */
const char *kg_envelope_name(unsigned mask);

/* Reads up to n bytes of decoded text (UTF-8, lines ending in '\n') from
 * src through env. Returns the count, 0 at the end of input, or -1 with err
 * as kg_source_read. Memory stays bounded: at most KG_ENV_MAX_LINE bytes of
 * one line are held. */
ssize_t kg_envelope_read(kg_envelope *env, kg_source *src, void *buf, size_t n, kg_error *err);

/* The time stamp the envelope gave decoded line `line` (1-based, counting
 * the lines kg_envelope_read has handed out or buffered): Docker's "time",
 * a JSON line's "time" / "timestamp" / "@timestamp" / "ts" (RFC 3339) or
 * journald's "__REALTIME_TIMESTAMP" (µs since the epoch, printed as
 * RFC 3339 UTC), CRI's and journalctl short-iso's leading time. NULL when
 * the line had none or is more than KG_ENV_TIME_LINES lines back. */
#define KG_ENV_TIME_LINES 32768
const char *kg_envelope_time(const kg_envelope *env, long line);

/* Nanoseconds since 1970-01-01 UTC of an RFC 3339 / ISO 8601 time at s
 * (`YYYY-MM-DD[T ]HH:MM:SS[.frac][Z|±HH[:]MM]`, no zone read as UTC), or
 * KG_NONE when s does not start with one or its time is outside what
 * int64 nanoseconds hold (1677-09-22 to 2262-04-10). */
int64_t kg_time_ns(const char *s);

/* Decodes one line s[0..n) (no '\n') with the decoders in mask, appending
 * the text (and '\n' after each line it holds) to out. Returns the decoder
 * that matched (one KG_ENV_* bit), or 0 when none did (nothing appended).
 * CRI `P` pieces are not joined here (kg_envelope_read joins them). */
unsigned kg_envelope_decode_line(unsigned mask, const char *s, size_t n, kg_buf *out);

#endif

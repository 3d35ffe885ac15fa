/* util.h — small helpers shared by every module: checked allocation, a
 * growable byte buffer, and the error record every reader fills.
 *
 * Errors: functions that can fail on bad input return -1 (or NULL) and fill a
 * kg_error with a one-line reason and, where it applies, the line or byte
 * offset; the CLI prints it as "kgmem-diagnose: PATH:LINE: reason" or
 * "PATH: byte N: reason" and exits with status 3 (DESIGN §1). */
#ifndef KG_UTIL_H
#define KG_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/* Sentinel for "not stated": JSON null. Never use 0 for unknown. */
#define KG_NONE INT64_MIN

typedef struct kg_error {
	char path[1024];   /* the input at fault (display name), or "" when the
	                      caller knows it; kg_diagnose fills it */
	char msg[512];     /* one line, no trailing newline; "" when no error */
	long line;         /* 1-based line, or 0 when not a line-oriented error */
	int64_t offset;    /* byte offset, or -1 when not applicable */
} kg_error;

/* Fills err (if non-NULL) with a printf-style reason; line 0, offset -1.
 * Always returns -1 so callers can `return kg_fail(err, ...)`. */
int kg_fail(kg_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Same, recording a line number (1-based). */
int kg_fail_line(kg_error *err, long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Same, recording a byte offset (0-based). */
int kg_fail_at(kg_error *err, int64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Allocation that aborts with a message on exhaustion (the tool's inputs
 * are bounded, so running out of memory is a bug, not bad input). */
void *kg_malloc(size_t n);
void *kg_calloc(size_t n, size_t size);
void *kg_realloc(void *p, size_t n);
char *kg_strdup(const char *s);
char *kg_strndup(const char *s, size_t n);
/* Returns a malloc'd printf result. */
char *kg_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#include <stdarg.h>
char *kg_vasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Growable byte buffer, always NUL-terminated after kg_buf_* calls. */
typedef struct kg_buf {
	char *data;
	size_t len, cap;
} kg_buf;

void kg_buf_append(kg_buf *b, const void *p, size_t n);
void kg_buf_puts(kg_buf *b, const char *s);
void kg_buf_printf(kg_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kg_buf_putc(kg_buf *b, char c);
void kg_buf_reset(kg_buf *b);      /* len = 0, keeps storage */
void kg_buf_free(kg_buf *b);
/* Hands the storage to the caller (NUL-terminated, never NULL); b is reset. */
char *kg_buf_steal(kg_buf *b);

/* Writes data to a new temporary file beside path (path.kgmem-XXXXXX, the
 * same file system, so rename(2) is atomic), with the given mode, synced to
 * disk. Returns 0 and the temporary's name in *tmp_out (malloc'd; the
 * caller renames or unlinks it), or -1 with err ("PATH: cannot …") and
 * nothing left behind. */
int kg_write_temp(const char *path, const void *data, size_t len, unsigned mode,
		  char **tmp_out, kg_error *err);
/* kg_write_temp then rename over path: the file is replaced whole or not
 * at all. Returns 0, or -1 with err. */
int kg_write_atomic(const char *path, const void *data, size_t len, unsigned mode, kg_error *err);

/* Case-insensitive memmem over [h, h+hn); returns pointer or NULL. */
const char *kg_memcasemem(const char *h, size_t hn, const char *needle, size_t nn);

/* Length (2–4) of the well-formed UTF-8 sequence of a non-ASCII lead byte
 * at s[0] (RFC 3629: no overlong forms, surrogates or code points above
 * U+10FFFF), or 0 when it is not one. With cut_ok, a sequence that is
 * well-formed as far as it goes but cut off by the end of s[0..n) counts
 * (its full length is returned). */
size_t kg_utf8_len(const unsigned char *s, size_t n, bool cut_ok);

/* Copies s (length n) replacing bytes that are not valid UTF-8 with '?',
 * and control characters other than tab with ' '. Returns malloc'd string. */
char *kg_sanitize_utf8(const char *s, size_t n);

#endif

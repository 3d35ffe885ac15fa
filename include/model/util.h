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
#include <signal.h>

/* Sentinel for "not stated": JSON null. Never use 0 for unknown. */
#define KG_NONE INT64_MIN

/* A transparent huge page on x86-64 and arm64 with 4 KiB pages (bytes):
 * the unit the read buffer (logscan.c reader_alloc) and the heap (main.c
 * heap_huge_pages) are advised MADV_HUGEPAGE in. */
#define KG_HUGE_PAGE (2u << 20)

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

/* Allocation that calls kg_out_of_memory on exhaustion: never returns
 * NULL. */
void *kg_malloc(size_t n);
void *kg_calloc(size_t n, size_t size);
void *kg_realloc(void *p, size_t n);
char *kg_strdup(const char *s);
/* kg_malloc with malloc's signature, for libraries' allocation hooks
 * (the JSON library's, set by the CLI), so their exhaustion is ours too. */
void *kg_hook_malloc(size_t n);
/* Running out of memory (n bytes asked for, 0 when a library reported
 * it): calls the handler set with kg_set_oom_handler — the CLI's prints
 * "out of memory" and exits with status 3 — or, without one, prints a line
 * and aborts. Never returns. */
void kg_out_of_memory(size_t n) __attribute__((noreturn));
/* Sets the handler kg_out_of_memory calls; it must not return. The library
 * never sets one. */
void kg_set_oom_handler(void (*fn)(size_t n));
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
/* Makes room for extra more bytes (and the NUL) after b->len and returns
 * where they go; the caller writes there and adds what it wrote to b->len
 * (then b->data[b->len] = '\0' if it needs the terminator). Aborts on
 * out-of-memory as kg_realloc. */
char *kg_buf_room(kg_buf *b, size_t extra);
void kg_buf_free(kg_buf *b);
/* Hands the storage to the caller (NUL-terminated, never NULL); b is reset. */
char *kg_buf_steal(kg_buf *b);

/* Writes data to a new temporary file beside path (the same directory,
 * so rename(2) is atomic): an unnamed O_TMPFILE file where the file system
 * has them (nothing to leave behind if the process is killed while it is
 * written), given the name path.kgmem-PID-N-XXXXXX once it is complete,
 * else a file of that name created with O_EXCL. mode (permission bits) is
 * applied; uid/gid (-1 = leave as created) are given to it with fchown, and
 * when that fails err says "cannot give the new file its owner and group"
 * (callers may then write in place instead). The data is fsync'ed. Returns
 * 0 and the temporary's name in *tmp_out (malloc'd; the caller renames or
 * unlinks it), or -1 with err ("PATH: cannot …") and nothing left behind. */
int kg_write_temp(const char *path, const void *data, size_t len, unsigned mode, long uid,
		  long gid, char **tmp_out, kg_error *err);
/* kg_write_temp then rename over path, with SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT and SIGPIPE held: the file is replaced whole or not at all and
 * no temporary is left behind by those signals. Returns 0, or -1 with err. */
int kg_write_atomic(const char *path, const void *data, size_t len, unsigned mode, kg_error *err);
/* Writes an output the user named (--svg): "-" and /dev/stdout are
 * standard output, /dev/stderr, /dev/fd/N and /proc/self/fd/N that
 * descriptor (written where it stands, never reopened); an existing FIFO,
 * terminal, device or regular file with several hard links is opened and
 * written in place (regular files truncated first); another existing regular file (symlinks followed to
 * it) is replaced atomically beside its real path, keeping its mode, owner
 * and group (in place when the owner cannot be kept); a new file is created
 * atomically with mode 0666 & ~umask. A failed or short write (a full
 * disk) is an error. Returns 0, or -1 with err ("PATH: cannot write: …"). */
int kg_write_output(const char *path, const void *data, size_t len, kg_error *err);
/* Writes all of data to fd (retrying short writes and EINTR). Returns 0,
 * or -1 with errno set (ENOSPC for a write that makes no progress). */
int kg_write_fd(int fd, const void *data, size_t len);
/* Holds (blocks) SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE and SIGXFSZ
 * around a write that must not leave a temporary file behind; the old mask
 * goes in *old. kg_signals_release restores it (a held signal is delivered
 * then). */
void kg_signals_hold(sigset_t *old);
void kg_signals_release(const sigset_t *old);

/* Whether the user's locale has the UTF-8 character set, read as the C
 * library would choose it (POSIX "Locale" environment variables): the
 * first non-empty of LC_ALL, LC_CTYPE, LANG names it; its codeset (after
 * '.', before '@') is UTF-8 when it reads "UTF-8" or "utf8" in any case.
 * Unset (the POSIX locale), "C", "POSIX" and every other codeset
 * (ISO-8859-1, …) are not UTF-8. */
bool kg_locale_utf8(void);

/* Copies s with the reports' own typographic glyphs in ASCII, for a
 * terminal whose locale is not UTF-8 (kg_locale_utf8): "·" → "|",
 * "…" → "...", "≤" → "<=", "≥" → ">=", "≈" → "~", "≠" → "!=", "×" → "x",
 * "–" → "-", "—" → "--", "→" → "->", "−" → "-", "µ" → "u", and the budget
 * bar's █ ▓ ▒ ░ ╳ → # % * o X. Other bytes (a log's own text) are copied
 * as they are. malloc'd. */
char *kg_ascii_glyphs(const char *s);

/* For n strings (NULL allowed, equal to nothing): first[i] = the index of
 * the first of keys[0..n) equal to keys[i], i itself when keys[i] is the
 * first of its kind. Sorts a copy: O(n log n) comparisons, for a rule set's
 * ids as for a mapping's keys. first: n entries, the caller's. Returns how
 * many i repeat an earlier string (first[i] != i). Never fails. */
size_t kg_first_equal(const char *const *keys, size_t n, size_t *first);

/* Case-insensitive memmem over [h, h+hn); returns pointer or NULL. */
const char *kg_memcasemem(const char *h, size_t hn, const char *needle, size_t nn);

/* Length (2–4) of the well-formed UTF-8 sequence of a non-ASCII lead byte
 * at s[0] (RFC 3629: no overlong forms, surrogates or code points above
 * U+10FFFF), or 0 when it is not one. With cut_ok, a sequence that is
 * well-formed as far as it goes but cut off by the end of s[0..n) counts
 * (its full length is returned). */
size_t kg_utf8_len(const unsigned char *s, size_t n, bool cut_ok);

/* Copies s (length n) replacing each byte that does not start a valid
 * UTF-8 sequence with U+FFFD, and control characters other than tab with
 * ' '. Returns malloc'd string. */
char *kg_sanitize_utf8(const char *s, size_t n);
/* Copies s (length n, may hold NULs) replacing each byte that does not
 * start a valid UTF-8 sequence with U+FFFD and keeping everything else
 * (newlines, escapes, NULs) as it is: the whole output of a reporter made
 * valid UTF-8 (JSON strings stay valid JSON). Returns malloc'd text and its
 * length in *out_len. */
char *kg_utf8_repair(const char *s, size_t n, size_t *out_len);

#endif

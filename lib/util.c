/* util.c — see include/util.h. */
#include "util.h"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include <ctype.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void vfill(kg_error *err, long line, int64_t off, const char *fmt, va_list ap)
{
	if (!err)
		return;
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	err->line = line;
	err->offset = off;
}

int kg_fail(kg_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfill(err, 0, -1, fmt, ap);
	va_end(ap);
	return -1;
}

int kg_fail_line(kg_error *err, long line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfill(err, line, -1, fmt, ap);
	va_end(ap);
	return -1;
}

int kg_fail_at(kg_error *err, int64_t offset, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfill(err, 0, offset, fmt, ap);
	va_end(ap);
	return -1;
}

static void oom_abort(size_t n)
{
	fprintf(stderr, "kgmem-diagnose: out of memory allocating %zu bytes\n", n);
	abort();
}

void *kg_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom_abort(n);
	return p;
}

void *kg_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom_abort(n * size);
	return p;
}

void *kg_realloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom_abort(n);
	return q;
}

char *kg_strdup(const char *s)
{
	return kg_strndup(s, strlen(s));
}

char *kg_strndup(const char *s, size_t n)
{
	char *p = kg_malloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *kg_vasprintf(const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	size_t len = (size_t)(n < 0 ? 0 : n);
	char *p = kg_malloc(len + 1);
	p[0] = '\0';
	if (n > 0)
		vsnprintf(p, len + 1, fmt, ap2);
	va_end(ap2);
	return p;
}

char *kg_asprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = kg_vasprintf(fmt, ap);
	va_end(ap);
	return p;
}

static void reserve(kg_buf *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + extra + 1)
		cap *= 2;
	b->data = kg_realloc(b->data, cap);
	b->cap = cap;
}

void kg_buf_append(kg_buf *b, const void *p, size_t n)
{
	reserve(b, n);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void kg_buf_puts(kg_buf *b, const char *s)
{
	kg_buf_append(b, s, strlen(s));
}

void kg_buf_putc(kg_buf *b, char c)
{
	kg_buf_append(b, &c, 1);
}

void kg_buf_printf(kg_buf *b, const char *fmt, ...)
{
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n > 0) {
		reserve(b, (size_t)n);
		vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
		b->len += (size_t)n;
	}
	va_end(ap2);
}

void kg_buf_reset(kg_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void kg_buf_free(kg_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

char *kg_buf_steal(kg_buf *b)
{
	char *p = b->data ? b->data : kg_strdup("");
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}

const char *kg_memcasemem(const char *h, size_t hn, const char *needle, size_t nn)
{
	if (nn == 0)
		return h;
	if (hn < nn)
		return NULL;
	int f0 = tolower((unsigned char)needle[0]), F0 = toupper((unsigned char)needle[0]);
	const char *end = h + hn - nn + 1;
	const char *p = h;
#if defined(__x86_64__)
	/* SSE2: 16 candidate first bytes at a time */
	const __m128i lo = _mm_set1_epi8((char)f0), up = _mm_set1_epi8((char)F0);
	for (; p + 16 <= end; p += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)p);
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, lo), _mm_cmpeq_epi8(v, up)));
		while (m) {
			const char *q = p + __builtin_ctz(m);
			m &= m - 1;
			if (strncasecmp(q, needle, nn) == 0)
				return q;
		}
	}
#endif
	for (; p < end; p++) {
		if (*p != f0 && *p != F0)
			continue;
		if (strncasecmp(p, needle, nn) == 0)
			return p;
	}
	return NULL;
}

size_t kg_utf8_len(const unsigned char *s, size_t n, bool cut_ok)
{
	unsigned char c = s[0];
	size_t len = c >= 0xc2 && c < 0xe0 ? 2 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xf0 && c < 0xf5 ? 4 : 0;
	if (!len || (n < len && !cut_ok))
		return 0;
	for (size_t k = 1; k < len && k < n; k++)
		if ((s[k] & 0xc0) != 0x80)
			return 0;
	if (n > 1) {
		unsigned char c1 = s[1];
		if ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 >= 0xa0) ||
		    (c == 0xf0 && c1 < 0x90) || (c == 0xf4 && c1 >= 0x90))
			return 0;
	}
	return len;
}

char *kg_sanitize_utf8(const char *s, size_t n)
{
	kg_buf b = {0};
	size_t i = 0;
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x80) {
			kg_buf_putc(&b, (c < 0x20 && c != '\t') || c == 0x7f ? ' ' : (char)c);
			i++;
			continue;
		}
		size_t len = kg_utf8_len((const unsigned char *)s + i, n - i, false);
		if (!len) {
			kg_buf_putc(&b, '?');
			i++;
			continue;
		}
		kg_buf_append(&b, s + i, len);
		i += len;
	}
	return kg_buf_steal(&b);
}

int kg_write_temp(const char *path, const void *data, size_t len, unsigned mode,
		  char **tmp_out, kg_error *err)
{
	char *tmp = kg_asprintf("%s.kgmem-XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		kg_fail(err, "%s: cannot create a temporary file beside it: %s", path, strerror(errno));
		free(tmp);
		return -1;
	}
	const char *p = data;
	size_t off = 0;
	bool ok = fchmod(fd, (mode_t)(mode & 07777)) == 0;
	while (ok && off < len) {
		ssize_t w = write(fd, p + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		ok = w > 0;
		off += ok ? (size_t)w : 0;
	}
	ok = ok && fsync(fd) == 0;
	int saved = errno;
	if (close(fd) != 0)
		ok = false;
	if (!ok) {
		unlink(tmp);
		kg_fail(err, "%s: cannot write: %s", path, strerror(saved ? saved : EIO));
		free(tmp);
		return -1;
	}
	*tmp_out = tmp;
	return 0;
}

int kg_write_atomic(const char *path, const void *data, size_t len, unsigned mode, kg_error *err)
{
	char *tmp;
	if (kg_write_temp(path, data, len, mode, &tmp, err) < 0)
		return -1;
	int rc = 0;
	if (rename(tmp, path) != 0) {
		kg_fail(err, "%s: cannot write: %s", path, strerror(errno));
		unlink(tmp);
		rc = -1;
	}
	free(tmp);
	return rc;
}

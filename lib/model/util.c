/* util.c — see include/model/util.h. */
#include "model/util.h"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

static void (*oom_handler)(size_t);

void kg_set_oom_handler(void (*fn)(size_t n))
{
	oom_handler = fn;
}

void kg_out_of_memory(size_t n)
{
	if (oom_handler)
		oom_handler(n);
	fprintf(stderr, "kgmem-diagnose: out of memory allocating %zu bytes\n", n);
	abort();
}

static void oom_abort(size_t n)
{
	kg_out_of_memory(n);
}

void *kg_hook_malloc(size_t n)
{
	return kg_malloc(n);
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

char *kg_buf_room(kg_buf *b, size_t extra)
{
	reserve(b, extra);
	return b->data + b->len;
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

typedef struct keyidx {
	const char *key;
	size_t i;
} keyidx;

static int keyidx_cmp(const void *a, const void *b)
{
	const keyidx *x = a, *y = b;
	int r = strcmp(x->key, y->key);
	return r ? r : (x->i > y->i) - (x->i < y->i);
}

size_t kg_first_equal(const char *const *keys, size_t n, size_t *first)
{
	keyidx *v = kg_malloc((n ? n : 1) * sizeof *v);
	size_t k = 0, repeats = 0;
	for (size_t i = 0; i < n; i++) {
		first[i] = i;
		if (keys[i])
			v[k++] = (keyidx){keys[i], i};
	}
	if (k)
		qsort(v, k, sizeof *v, keyidx_cmp); /* equal keys in index order */
	for (size_t j = 1; j < k; j++) {
		if (strcmp(v[j].key, v[j - 1].key) == 0) {
			first[v[j].i] = first[v[j - 1].i];
			repeats++;
		}
	}
	free(v);
	return repeats;
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
	/* SSE2: 16 candidate positions at a time, by their first two bytes
	 * (one byte alone stops at every 'e' of "epoch"); p + 16 <= end keeps
	 * the second load inside h[0..hn) */
	const __m128i lo = _mm_set1_epi8((char)f0), up = _mm_set1_epi8((char)F0);
	int f1 = nn > 1 ? tolower((unsigned char)needle[1]) : f0;
	int F1 = nn > 1 ? toupper((unsigned char)needle[1]) : F0;
	const __m128i lo1 = _mm_set1_epi8((char)f1), up1 = _mm_set1_epi8((char)F1);
	for (; p + 16 <= end; p += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)p);
		__m128i m0 = _mm_or_si128(_mm_cmpeq_epi8(v, lo), _mm_cmpeq_epi8(v, up));
		if (nn > 1) {
			__m128i v1 = _mm_loadu_si128((const __m128i *)(p + 1));
			m0 = _mm_and_si128(m0, _mm_or_si128(_mm_cmpeq_epi8(v1, lo1), _mm_cmpeq_epi8(v1, up1)));
		}
		unsigned m = (unsigned)_mm_movemask_epi8(m0);
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
			kg_buf_puts(&b, "\xef\xbf\xbd");
			i++;
			continue;
		}
		kg_buf_append(&b, s + i, len);
		i += len;
	}
	return kg_buf_steal(&b);
}

char *kg_utf8_repair(const char *s, size_t n, size_t *out_len)
{
	kg_buf b = {0};
	size_t i = 0, clean = 0; /* s[clean, i) is valid and not yet copied */
	while (i < n) {
		/* ASCII eight bytes at a time (most of a report) */
		while (i + 8 <= n) {
			uint64_t w;
			memcpy(&w, s + i, 8);
			if (w & UINT64_C(0x8080808080808080))
				break;
			i += 8;
		}
		if (i >= n)
			break;
		if ((unsigned char)s[i] < 0x80) {
			i++;
			continue;
		}
		size_t len = kg_utf8_len((const unsigned char *)s + i, n - i, false);
		if (len) {
			i += len;
			continue;
		}
		kg_buf_append(&b, s + clean, i - clean);
		kg_buf_puts(&b, "\xef\xbf\xbd");
		clean = ++i;
	}
	kg_buf_append(&b, s + clean, n - clean);
	*out_len = b.len;
	return kg_buf_steal(&b);
}

/* write(2) until done; false with errno on an error or a short write
 * that makes no progress (a full disk). */
static bool write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, p + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = ENOSPC;
			return false;
		}
		off += (size_t)w;
	}
	return true;
}

int kg_write_fd(int fd, const void *data, size_t len)
{
	return write_all(fd, data, len) ? 0 : -1;
}

static unsigned tmp_counter;

/* A name beside path that did not exist a moment ago: path.kgmem-PID-N-R. */
static char *tmp_name(const char *path)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	unsigned r = (unsigned)ts.tv_nsec ^ ((unsigned)getpid() << 16) ^ (++tmp_counter * 2654435761u);
	return kg_asprintf("%s.kgmem-%ld-%06x", path, (long)getpid(), r & 0xffffff);
}

void kg_signals_hold(sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGPIPE);
	sigaddset(&set, SIGXFSZ);
	sigprocmask(SIG_BLOCK, &set, old);
}

void kg_signals_release(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

int kg_write_temp(const char *path, const void *data, size_t len, unsigned mode, long uid,
		  long gid, char **tmp_out, kg_error *err)
{
	/* an unnamed file (O_TMPFILE) has no name a kill could leave behind
	 * until it is linked in, just before the caller renames it */
	char *dir = kg_strdup(path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = 0;
	else
		*slash = 0;
	char *tmp = NULL;
	bool named = false;
	int fd = -1;
#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
#endif
	if (fd < 0) {
		for (int i = 0; i < 100 && fd < 0; i++) {
			free(tmp);
			tmp = tmp_name(path);
			fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
			if (fd < 0 && errno != EEXIST)
				break;
		}
		named = fd >= 0;
	}
	free(dir);
	if (fd < 0) {
		kg_fail(err, "%s: cannot create a temporary file beside it: %s", path, strerror(errno));
		free(tmp);
		return -1;
	}
	int saved = 0;
	bool ok = true;
	if (uid >= 0 || gid >= 0) {
		ok = fchown(fd, (uid_t)uid, (gid_t)gid) == 0;
		if (!ok) {
			saved = errno;
			kg_fail(err, "%s: cannot give the new file its owner and group (%s)", path,
				strerror(saved));
		}
	}
	if (ok && !(ok = fchmod(fd, (mode_t)(mode & 07777)) == 0 && write_all(fd, data, len) &&
		    fsync(fd) == 0)) {
		saved = errno;
		kg_fail(err, "%s: cannot write: %s", path, strerror(saved ? saved : EIO));
	}
	if (ok && !named) {
		/* give the unnamed file a name beside path */
		char proc[64];
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
		ok = false;
		for (int i = 0; i < 100 && !ok; i++) {
			free(tmp);
			tmp = tmp_name(path);
			ok = linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0;
			if (!ok && errno != EEXIST)
				break;
		}
		named = ok;
		if (!ok)
			kg_fail(err, "%s: cannot create a temporary file beside it: %s", path, strerror(errno));
	}
	if (close(fd) != 0 && ok) {
		ok = false;
		kg_fail(err, "%s: cannot write: %s", path, strerror(errno));
	}
	if (!ok) {
		if (named)
			unlink(tmp);
		free(tmp);
		return -1;
	}
	*tmp_out = tmp;
	return 0;
}

int kg_write_atomic(const char *path, const void *data, size_t len, unsigned mode, kg_error *err)
{
	char *tmp;
	sigset_t old;
	kg_signals_hold(&old);
	int rc = kg_write_temp(path, data, len, mode, -1, -1, &tmp, err);
	if (rc == 0) {
		if (rename(tmp, path) != 0) {
			kg_fail(err, "%s: cannot write: %s", path, strerror(errno));
			unlink(tmp);
			rc = -1;
		}
		free(tmp);
	}
	kg_signals_release(&old);
	return rc;
}

/* In place: truncate (regular files only) and write through fd. */
static int write_in_place(const char *path, int fd, bool regular, const void *data, size_t len,
			  kg_error *err)
{
	if (regular && ftruncate(fd, 0) != 0)
		return kg_fail(err, "%s: cannot write: %s", path, strerror(errno));
	if (!write_all(fd, data, len) || (regular && fsync(fd) != 0))
		return kg_fail(err, "%s: cannot write: %s", path, strerror(errno));
	return 0;
}

/* The descriptor a path names when it is one of ours ("-", /dev/stdout,
 * /dev/stderr, /dev/fd/N, /proc/self/fd/N), else -1. Opening these anew
 * would start a regular file over at offset 0 (or truncate what the shell
 * redirected); writing to the descriptor itself appends where it is. */
static int fd_alias(const char *path)
{
	if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout"))
		return STDOUT_FILENO;
	if (!strcmp(path, "/dev/stderr"))
		return STDERR_FILENO;
	const char *num = !strncmp(path, "/dev/fd/", 8) ? path + 8 :
			  !strncmp(path, "/proc/self/fd/", 14) ? path + 14 : NULL;
	if (!num || !*num || strspn(num, "0123456789") != strlen(num) || strlen(num) > 6)
		return -1;
	int fd = atoi(num);
	return fcntl(fd, F_GETFL) >= 0 ? fd : -1;
}

int kg_write_output(const char *path, const void *data, size_t len, kg_error *err)
{
	int alias = fd_alias(path);
	if (alias >= 0)
		return write_all(alias, data, len) ? 0 :
		       kg_fail(err, "%s: cannot write: %s", alias == STDOUT_FILENO ? "standard output" : path,
			       strerror(errno));
	struct stat st;
	if (stat(path, &st) != 0) {
		if (errno != ENOENT)
			return kg_fail(err, "%s: cannot write: %s", path, strerror(errno));
		mode_t um = umask(0);
		umask(um);
		return kg_write_atomic(path, data, len, 0666 & ~um, err);
	}
	if (S_ISDIR(st.st_mode))
		return kg_fail(err, "%s: is a directory", path);
	/* FIFOs, terminals, devices, /dev/stdout and files with several
	 * names are written in place; a regular file (through any symlinks)
	 * is replaced whole, keeping its mode, owner and group */
	bool in_place = !S_ISREG(st.st_mode) || st.st_nlink > 1;
	char *real = in_place ? NULL : realpath(path, NULL);
	if (!in_place && real) {
		char *tmp;
		sigset_t old;
		kg_signals_hold(&old);
		kg_error e = {0};
		int rc = kg_write_temp(real, data, len, st.st_mode, (long)st.st_uid, (long)st.st_gid, &tmp, &e);
		if (rc == 0) {
			rc = rename(tmp, real);
			if (rc != 0) {
				kg_fail(err, "%s: cannot write: %s", path, strerror(errno));
				unlink(tmp);
			}
			free(tmp);
			kg_signals_release(&old);
			free(real);
			return rc == 0 ? 0 : -1;
		}
		kg_signals_release(&old);
		if (!strstr(e.msg, "owner and group")) {
			*err = e;
			free(real);
			return -1;
		}
		/* cannot keep the owner through a new file: write in place */
	}
	free(real);
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return kg_fail(err, "%s: cannot write: %s", path, strerror(errno));
	int rc = write_in_place(path, fd, S_ISREG(st.st_mode), data, len, err);
	if (close(fd) != 0 && rc == 0)
		rc = kg_fail(err, "%s: cannot write: %s", path, strerror(errno));
	return rc;
}

bool kg_locale_utf8(void)
{
	const char *names[] = {"LC_ALL", "LC_CTYPE", "LANG"};
	const char *loc = NULL;
	for (size_t i = 0; i < 3 && !loc; i++) {
		const char *v = getenv(names[i]);
		if (v && *v)
			loc = v;
	}
	const char *dot = loc ? strchr(loc, '.') : NULL;
	if (!dot)
		return false;
	size_t n = strcspn(dot + 1, "@");
	return (n == 5 && !strncasecmp(dot + 1, "utf-8", 5)) || (n == 4 && !strncasecmp(dot + 1, "utf8", 4));
}

static const struct {
	const char *glyph, *ascii;
} ascii_glyphs[] = {
	{"█", "#"}, {"▓", "%"}, {"▒", "*"}, {"░", "o"}, {"╳", "X"}, {"·", "|"},
	{"…", "..."}, {"≤", "<="}, {"≥", ">="}, {"≈", "~"}, {"≠", "!="}, {"×", "x"},
	{"–", "-"}, {"—", "--"}, {"→", "->"}, {"−", "-"}, {"µ", "u"},
};

char *kg_ascii_glyphs(const char *s)
{
	kg_buf b = {0};
	kg_buf_puts(&b, "");
	while (*s) {
		if ((unsigned char)*s < 0x80) {
			size_t k = 0;
			while (s[k] && (unsigned char)s[k] < 0x80)
				k++;
			kg_buf_append(&b, s, k);
			s += k;
			continue;
		}
		size_t i = 0, nglyph = sizeof ascii_glyphs / sizeof *ascii_glyphs;
		while (i < nglyph && strncmp(s, ascii_glyphs[i].glyph, strlen(ascii_glyphs[i].glyph)))
			i++;
		if (i < nglyph) {
			kg_buf_puts(&b, ascii_glyphs[i].ascii);
			s += strlen(ascii_glyphs[i].glyph);
		} else {
			kg_buf_putc(&b, *s++);
		}
	}
	return kg_buf_steal(&b);
}

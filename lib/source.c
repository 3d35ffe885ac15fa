/* source.c — see include/source.h. */
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *kg_kind_name(kg_kind k)
{
	switch (k) {
	case KG_KIND_LOG: return "log";
	case KG_KIND_PICKLE: return "snapshot";
	case KG_KIND_JSON: return "json";
	case KG_KIND_SUMMARY: return "memory_summary";
	case KG_KIND_YAML: return "config";
	case KG_KIND_ZIP: return "zip";
	case KG_KIND_EMPTY: return "empty";
	case KG_KIND_BINARY: return "binary";
	}
	return "unknown";
}

/* After a short read: true when the input really ended (no zlib error,
 * and a gzip stream reached its end), false when it was cut short. */
static bool clean_end(kg_source *src)
{
	int errnum = 0;
	gzerror(src->gz, &errnum);
	if (errnum != Z_OK && errnum != Z_STREAM_END)
		return false;
	return !(src->gzip && !gzeof(src->gz));
}

static int gz_failed(kg_source *src, kg_error *err)
{
	int errnum = 0;
	const char *msg = gzerror(src->gz, &errnum);
	if (errnum == Z_ERRNO)
		return kg_fail(err, "read error after %lld bytes: %s", (long long)src->bytes_read, strerror(errno));
	if (errnum == Z_BUF_ERROR || (msg && strstr(msg, "unexpected end")))
		return kg_fail(err, "truncated gzip data: the compressed stream ends early "
			       "(after %lld bytes of text)", (long long)gztell(src->gz));
	return kg_fail(err, "corrupt gzip data: %s", msg ? msg : "unknown error");
}

static void source_init(kg_source *src, const char *path, const char *name)
{
	memset(src, 0, sizeof *src);
	src->fd = -1;
	src->file_size = -1;
	src->path = kg_strdup(path);
	src->name = kg_strdup(name);
}

/* Fills src for an already open fd (taken over: closed on failure and by
 * kg_source_close); path and name are the strings to record. */
static int open_fd(kg_source *src, int fd, const char *path, const char *name, kg_error *err)
{
	source_init(src, path, name);
	struct stat st;
	if (fstat(fd, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			close(fd);
			return kg_fail(err, "is a directory");
		}
		if (S_ISREG(st.st_mode))
			src->file_size = st.st_size;
	}
	/* Peek the gzip magic without consuming: gzdopen decides itself, but
	 * we want to report it. */
	src->fd = fd;
	src->gz = gzdopen(fd, "rb");
	if (!src->gz) {
		close(fd);
		src->fd = -1;
		return kg_fail(err, "cannot open: %s", strerror(errno ? errno : ENOMEM));
	}
	gzbuffer(src->gz, 1 << 17);
	int n = gzread(src->gz, src->head, sizeof src->head);
	if (n < 0) {
		int r = gz_failed(src, err);
		return r;
	}
	src->headlen = (size_t)n;
	src->gzip = !gzdirect(src->gz);
	/* short read: either EOF or a gzip stream cut short */
	if ((size_t)n < sizeof src->head && !clean_end(src))
		return gz_failed(src, err);
	return 0;
}

int kg_source_open(kg_source *src, const char *path, kg_error *err)
{
	bool is_stdin = strcmp(path, "-") == 0;
	int fd = is_stdin ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		source_init(src, path, is_stdin ? "<stdin>" : path);
		return kg_fail(err, "%s", strerror(e));
	}
	return open_fd(src, fd, path, is_stdin ? "<stdin>" : path, err);
}


int kg_source_open_fd(kg_source *src, int fd, const char *name, kg_error *err)
{
	return open_fd(src, fd, name, name, err);
}

/* Not text: more than 1/8 of the bytes are NULs, control bytes other than
 * the usual whitespace/escape, or bytes that are not valid UTF-8. A log
 * with a few NULs or some Latin-1 bytes is still text. */
static bool looks_binary(const unsigned char *p, size_t n)
{
	size_t bad = 0;
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		if (c < 0x80) {
			if (c == 0 || (c < 0x20 && c != '\t' && c != '\n' && c != '\r' &&
				       c != '\f' && c != '\b' && c != 0x1b && c != '\v'))
				bad++;
			i++;
			continue;
		}
		/* a sequence cut by the end of the sniffed head is fine */
		size_t len = kg_utf8_len(p + i, n - i, true);
		if (!len) {
			bad++;
			i++;
		} else {
			i += len;
		}
	}
	return bad * 8 > n;
}

static bool starts_with(const unsigned char *p, size_t n, const char *s)
{
	size_t L = strlen(s);
	return n >= L && memcmp(p, s, L) == 0;
}

/* A standalone memory_summary(): the first non-blank line is the "|===" rule
 * and the title follows within a few lines. */
static bool looks_summary(const unsigned char *p, size_t n)
{
	size_t i = 0;
	while (i < n && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t'))
		i++;
	if (!starts_with(p + i, n - i, "|====="))
		return false;
	size_t lim = n - i < 600 ? n - i : 600;
	return kg_memcasemem((const char *)p + i, lim, "memory summary", 14) != NULL;
}

/* A YAML training config: starts with "---"/"%YAML", or its first lines are
 * all `key: value` / `- item` / comments, with at least one nested key. A
 * log line such as "Epoch: 3" alone does not make a config. */
static bool looks_yaml(const unsigned char *p, size_t n)
{
	size_t i = 0;
	while (i < n && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r'))
		i++;
	if (starts_with(p + i, n - i, "%YAML") || starts_with(p + i, n - i, "---\n"))
		return true;
	int keys = 0, nested = 0, lines = 0;
	size_t pos = i;
	while (pos < n && lines < 40) {
		const unsigned char *nl = memchr(p + pos, '\n', n - pos);
		size_t end = nl ? (size_t)(nl - p) : n;
		if (!nl && lines > 0)
			break; /* last partial line of the sniff window */
		const unsigned char *l = p + pos;
		size_t len = end - pos;
		pos = end + 1;
		while (len && (l[len - 1] == '\r' || l[len - 1] == ' '))
			len--;
		size_t ind = 0;
		while (ind < len && l[ind] == ' ')
			ind++;
		if (ind == len || l[ind] == '#')
			continue;
		lines++;
		if (l[ind] == '-' && ind + 1 < len && l[ind + 1] == ' ')
			continue;
		size_t k = ind;
		while (k < len && (l[k] == '_' || l[k] == '-' || l[k] == '.' ||
				   (l[k] >= '0' && l[k] <= '9') || ((l[k] | 32) >= 'a' && (l[k] | 32) <= 'z')))
			k++;
		if (k == ind || k >= len || l[k] != ':' || (k + 1 < len && l[k + 1] != ' '))
			return false;
		keys++;
		if (ind > 0)
			nested++;
	}
	return keys >= 3 && nested >= 1;
}

kg_kind kg_source_sniff(const kg_source *src)
{
	const unsigned char *p = src->head;
	size_t n = src->headlen;
	if (n == 0)
		return KG_KIND_EMPTY;
	if (n >= 2 && p[0] == 0x80 && p[1] >= 2 && p[1] <= 5)
		return KG_KIND_PICKLE;
	if (starts_with(p, n, "PK\x03\x04"))
		return KG_KIND_ZIP;
	size_t i = 0;
	if (starts_with(p, n, "\xef\xbb\xbf"))
		i = 3;
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
		i++;
	/* text first: random bytes that happen to start with '{' are not JSON */
	if (looks_binary(p, n))
		return KG_KIND_BINARY;
	if (i < n && p[i] == '{')
		return KG_KIND_JSON;
	if (looks_summary(p, n))
		return KG_KIND_SUMMARY;
	if (looks_yaml(p, n))
		return KG_KIND_YAML;
	return KG_KIND_LOG;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void human(double b, char *out, size_t n)
{
	if (b >= 1073741824.0)
		snprintf(out, n, "%.2f GiB", b / 1073741824.0);
	else
		snprintf(out, n, "%.1f MiB", b / 1048576.0);
}

void kg_source_set_progress(kg_source *src, bool on)
{
	src->progress = on;
	src->progress_start = src->progress_last = now_s();
}

static void show_progress(kg_source *src)
{
	double t = now_s();
	if (t - src->progress_last < 0.2)
		return;
	src->progress_last = t;
	double done = src->gzip ? (double)gzoffset(src->gz) : (double)src->bytes_read;
	char a[32], b[32], r[32];
	human(done, a, sizeof a);
	human(done / (t - src->progress_start > 1e-3 ? t - src->progress_start : 1e-3), r, sizeof r);
	if (src->file_size > 0) {
		human((double)src->file_size, b, sizeof b);
		fprintf(stderr, "\r\033[K%s: %s / %s (%s/s)", src->name, a, b, r);
	} else {
		fprintf(stderr, "\r\033[K%s: %s (%s/s)", src->name, a, r);
	}
	fflush(stderr);
}

ssize_t kg_source_read(kg_source *src, void *buf, size_t n, kg_error *err)
{
	if (src->progress)
		show_progress(src);
	if (n == 0)
		return 0;
	if (src->headpos < src->headlen) {
		size_t k = src->headlen - src->headpos;
		if (k > n)
			k = n;
		memcpy(buf, src->head + src->headpos, k);
		src->headpos += k;
		src->bytes_read += (int64_t)k;
		return (ssize_t)k;
	}
	if (src->eof || !src->gz)
		return 0;
	if (n > (1u << 30))
		n = 1u << 30;
	int r = gzread(src->gz, buf, (unsigned)n);
	if (r < 0)
		return gz_failed(src, err);
	if (r == 0) {
		if (!clean_end(src))
			return gz_failed(src, err);
		src->eof = true;
		return 0;
	}
	if ((size_t)r < n) {
		int errnum = 0;
		gzerror(src->gz, &errnum);
		if (errnum == Z_BUF_ERROR) {
			src->bytes_read += r;
			return gz_failed(src, err);
		}
	}
	src->bytes_read += r;
	return r;
}

void kg_source_close(kg_source *src)
{
	if (src->progress && src->progress_last > src->progress_start) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	if (src->gz)
		gzclose(src->gz); /* closes fd */
	else if (src->fd >= 0)
		close(src->fd);
	free(src->path);
	free(src->name);
	memset(src, 0, sizeof *src);
	src->fd = -1;
}

char *kg_source_slurp(kg_source *src, size_t max, size_t *len, kg_error *err)
{
	kg_buf b = {0};
	char tmp[65536];
	for (;;) {
		ssize_t r = kg_source_read(src, tmp, sizeof tmp, err);
		if (r < 0) {
			kg_buf_free(&b);
			return NULL;
		}
		if (r == 0)
			break;
		if (b.len + (size_t)r > max) {
			kg_buf_free(&b);
			kg_fail(err, "larger than %zu bytes", max);
			return NULL;
		}
		if (b.len + (size_t)r + 1 > b.cap) {
			/* grow without aborting: a huge input is bad input, not a bug */
			size_t cap = b.cap ? b.cap : 65536;
			while (cap < b.len + (size_t)r + 1)
				cap *= 2;
			char *q = realloc(b.data, cap);
			if (!q) {
				size_t have = b.len;
				kg_buf_free(&b);
				kg_fail(err, "too large to read into memory (%zu bytes read)", have);
				return NULL;
			}
			b.data = q;
			b.cap = cap;
		}
		kg_buf_append(&b, tmp, (size_t)r);
	}
	*len = b.len;
	return kg_buf_steal(&b);
}

/* source.c — see include/read/source.h. */
#include "read/source.h"

#include <cjson/cJSON.h>

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

#define RAW_CHUNK (1u << 17)

static void source_init(kg_source *src, const char *path, const char *name)
{
	memset(src, 0, sizeof *src);
	src->fd = -1;
	src->file_size = -1;
	src->trailing_at = -1;
	src->shrunk_to = -1;
	src->path = kg_strdup(path);
	src->name = kg_strdup(name);
}

/* Counts r raw bytes read; at the end of a regular file (r == 0), a size
 * below the one seen at open is recorded in shrunk_to. Returns r. */
static ssize_t counted(kg_source *src, ssize_t r)
{
	src->raw_read += r;
	if (r == 0 && src->file_size >= 0) {
		struct stat st;
		if (fstat(src->fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < src->file_size)
			src->shrunk_to = st.st_size;
	}
	return r;
}

/* Refills src->in from fd when it is used up. Returns the bytes available
 * (0 at end of file) or -1 with err. At the end of a regular file, a size
 * below the one seen at open is recorded in shrunk_to. */
static ssize_t raw_fill(kg_source *src, kg_error *err)
{
	if (src->inpos < src->inlen)
		return (ssize_t)(src->inlen - src->inpos);
	ssize_t r;
	do
		r = read(src->fd, src->in, RAW_CHUNK);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return kg_fail(err, "read error after %lld bytes: %s", (long long)src->raw_read, strerror(errno));
	src->inlen = (size_t)r;
	src->inpos = 0;
	return counted(src, r);
}

static int truncated_gzip(kg_source *src, kg_error *err)
{
	return kg_fail(err, "truncated gzip data: the compressed stream ends early "
		       "(after %lld bytes of text)", (long long)src->bytes_read);
}

/* Inflates into buf (gzip members one after another, as gzip -d does);
 * after the last member, bytes that do not start another member are plain
 * text (mode 2, trailing_at set). Returns the count, 0 at the end, -1. */
static ssize_t gz_read(kg_source *src, unsigned char *buf, size_t n, kg_error *err)
{
	for (;;) {
		if (src->mode == 2) {
			ssize_t r = raw_fill(src, err);
			if (r <= 0)
				return r;
			size_t k = (size_t)r < n ? (size_t)r : n;
			memcpy(buf, src->in + src->inpos, k);
			src->inpos += k;
			return (ssize_t)k;
		}
		ssize_t avail = raw_fill(src, err);
		if (avail < 0)
			return -1;
		if (avail == 0)
			return src->member_open ? truncated_gzip(src, err) : 0;
		if (!src->member_open) {
			/* between members: another one, or plain text */
			if (src->in[src->inpos] == 0x1f && (src->inlen - src->inpos < 2 ||
							    src->in[src->inpos + 1] == 0x8b)) {
				inflateReset(src->zs);
				src->member_open = true;
			} else {
				src->mode = 2;
				src->trailing_at = src->raw_read - (int64_t)(src->inlen - src->inpos);
				continue;
			}
		}
		src->zs->next_in = src->in + src->inpos;
		src->zs->avail_in = (uInt)(src->inlen - src->inpos);
		src->zs->next_out = buf;
		src->zs->avail_out = (uInt)n;
		int ret = inflate(src->zs, Z_NO_FLUSH);
		src->inpos = src->inlen - src->zs->avail_in;
		size_t produced = n - src->zs->avail_out;
		if (ret == Z_STREAM_END)
			src->member_open = false;
		else if (ret != Z_OK && ret != Z_BUF_ERROR)
			return kg_fail(err, "corrupt gzip data: %s",
				       src->zs->msg ? src->zs->msg : "invalid compressed data");
		if (produced)
			return (ssize_t)produced;
	}
}

/* Reads decompressed bytes from the stream behind the head. */
static ssize_t stream_read(kg_source *src, unsigned char *buf, size_t n, kg_error *err)
{
	if (src->mode != 0)
		return gz_read(src, buf, n, err);
	if (src->inpos < src->inlen) {
		size_t k = src->inlen - src->inpos < n ? src->inlen - src->inpos : n;
		memcpy(buf, src->in + src->inpos, k);
		src->inpos += k;
		return (ssize_t)k;
	}
	ssize_t r;
	do
		r = read(src->fd, buf, n);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return kg_fail(err, "read error after %lld bytes: %s", (long long)src->raw_read, strerror(errno));
	return counted(src, r);
}

/* Fills src for an already open fd (taken over: closed on failure and by
 * kg_source_close); path and name are the strings to record. */
static int open_fd(kg_source *src, int fd, const char *path, const char *name, kg_error *err)
{
	source_init(src, path, name);
	struct stat st;
	src->fd = fd;
	if (fstat(fd, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return kg_fail(err, "is a directory");
		if (S_ISREG(st.st_mode))
			src->file_size = st.st_size;
	}
	src->in = kg_malloc(RAW_CHUNK);
	if (raw_fill(src, err) < 0)
		return -1;
	/* the gzip magic (RFC 1952 §2.3.1: ID1 0x1f, ID2 0x8b) */
	if (src->inlen >= 2 && src->in[0] == 0x1f && src->in[1] == 0x8b) {
		src->zs = kg_calloc(1, sizeof *src->zs);
		if (inflateInit2(src->zs, 15 + 16) != Z_OK)
			return kg_fail(err, "cannot start gzip decompression");
		src->mode = 1;
		src->member_open = true;
		src->gzip = true;
	}
	while (src->headlen < sizeof src->head) {
		ssize_t r = stream_read(src, src->head + src->headlen, sizeof src->head - src->headlen, err);
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		src->headlen += (size_t)r;
	}
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

/* Not text: more than 1/8 of the bytes other than NUL are control bytes
 * other than the usual whitespace/escape, or bytes that are not valid
 * UTF-8. NULs do not count either way: a page of them is what a log looks
 * like after a node crash or a copytruncate hole, and a log with some
 * Latin-1 bytes is still text. */
static bool looks_binary(const unsigned char *p, size_t n)
{
	size_t bad = 0, nul = 0;
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		if (c < 0x80) {
			if (c == 0)
				nul++;
			else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' &&
				 c != '\f' && c != '\b' && c != 0x1b && c != '\v')
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
	return bad * 8 > n - nul;
}

static bool starts_with(const unsigned char *p, size_t n, const char *s)
{
	size_t L = strlen(s);
	return n >= L && memcmp(p, s, L) == 0;
}

/* A standalone memory_summary(): the first non-blank line is the "|===" rule,
 * the title follows within a few lines, and after the table's closing rule
 * (its third "|===" line) nothing but blank space is left in the head, which
 * holds the whole input. A log that starts with a table is a log (the
 * scanner reads tables inside logs). */
static bool looks_summary(const unsigned char *p, size_t n, bool whole)
{
	size_t i = 0;
	while (i < n && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t'))
		i++;
	if (!starts_with(p + i, n - i, "|====="))
		return false;
	size_t lim = n - i < 600 ? n - i : 600;
	if (!kg_memcasemem((const char *)p + i, lim, "memory summary", 14))
		return false;
	if (!whole)
		return false;
	int rules = 0;
	size_t pos = i;
	while (pos < n && rules < 3) {
		const unsigned char *nl = memchr(p + pos, '\n', n - pos);
		size_t end = nl ? (size_t)(nl - p) : n;
		if (starts_with(p + pos, end - pos, "|===="))
			rules++;
		pos = end + 1;
	}
	if (rules < 3)
		return false;
	for (; pos < n; pos++)
		if (p[pos] != ' ' && p[pos] != '\n' && p[pos] != '\r' && p[pos] != '\t')
			return false;
	return true;
}

/* A YAML training config: starts with "%YAML", or its first lines (after an
 * optional "---") are all `key: value` / `- item` / comments, with at least
 * three named keys, one of them nested. A log line such as "Epoch: 3"
 * alone does not make a config, nor does a log that starts with a "---"
 * rule, nor srun --label output ("0: …", " 3: …"), whose all-digit keys
 * are task numbers. */
static bool looks_yaml(const unsigned char *p, size_t n)
{
	size_t i = 0;
	while (i < n && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r'))
		i++;
	if (starts_with(p + i, n - i, "%YAML"))
		return true;
	if (starts_with(p + i, n - i, "---\n"))
		i += 4;
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
		/* an all-digit key is srun --label's task number ("3: ", padded
		 * " 3: " once there are 10 tasks), not a config's name: it
		 * neither makes nor breaks a config */
		bool digits = true;
		for (size_t d = ind; d < k && digits; d++)
			digits = l[d] >= '0' && l[d] <= '9';
		if (digits)
			continue;
		keys++;
		if (ind > 0)
			nested++;
	}
	return keys >= 3 && nested >= 1;
}

int kg_snapshot_json_key(const char *key, size_t n)
{
	if ((n == 8 && !memcmp(key, "segments", 8)) || (n == 13 && !memcmp(key, "device_traces", 13)))
		return 1;
	static const char *const stems[] = {
		"allocated_bytes", "reserved_bytes", "active", "active_bytes", "inactive_split",
		"inactive_split_bytes", "requested_bytes", "allocation", "segment", "num_ooms",
		"num_alloc_retries",
	};
	for (size_t k = 0; k < sizeof stems / sizeof stems[0]; k++) {
		size_t sl = strlen(stems[k]);
		if (n >= sl && !memcmp(key, stems[k], sl) && (n == sl || key[sl] == '.'))
			return 2;
	}
	return 0;
}

/* Whether the JSON object whose '{' is p[i] has a key kg_snapshot_json_key
 * knows at its top level, among its first n - i bytes. Strings (escapes
 * included) are skipped as such, so a '{' or a key inside one, or a key
 * of a nested object, does not count. */
static bool top_level_snapshot_key(const unsigned char *p, size_t n, size_t i)
{
	int depth = 0;
	for (size_t j = i; j < n; j++) {
		unsigned char c = p[j];
		if (c == '"') {
			size_t s = ++j;
			while (j < n && p[j] != '"')
				j += p[j] == '\\' ? 2 : 1;
			if (j >= n)
				return false;
			size_t k = j + 1;
			while (k < n && (p[k] == ' ' || p[k] == '\t' || p[k] == '\r' || p[k] == '\n'))
				k++;
			if (depth == 1 && k < n && p[k] == ':' && kg_snapshot_json_key((const char *)p + s, j - s))
				return true;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if ((c == '}' || c == ']') && --depth == 0) {
			return false;
		}
	}
	return false;
}

/* One JSON document that is an allocator snapshot or memory_stats() by
 * its shape (top_level_snapshot_key): p[i] is its '{'. A first line that
 * is a whole JSON object with more lines after it is JSON Lines (Docker
 * json-file, Vector, Fluent Bit, journalctl -o json): a log. A document
 * with such keys only nested (the tool's own JSON report, a one-record
 * spool of `run --report --label`) is text too. */
static bool looks_json_document(const unsigned char *p, size_t n, size_t i)
{
	const unsigned char *nl = memchr(p + i, '\n', n - i);
	if (nl) {
		size_t j = (size_t)(nl - p) + 1;
		while (j < n && (p[j] == ' ' || p[j] == '\t' || p[j] == '\r' || p[j] == '\n'))
			j++;
		if (j < n && p[j] == '{') {
			const char *end = NULL;
			cJSON *o = cJSON_ParseWithLengthOpts((const char *)p + i, (size_t)(nl - p) - i, &end, 0);
			bool one_line = o && cJSON_IsObject(o);
			cJSON_Delete(o);
			if (one_line)
				return false;
		}
	}
	return top_level_snapshot_key(p, n, i);
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
	/* UTF-16 with a byte order mark: text (envelope.c transcodes it) */
	if (n >= 2 && ((p[0] == 0xff && p[1] == 0xfe) || (p[0] == 0xfe && p[1] == 0xff)))
		return KG_KIND_LOG;
	size_t i = 0;
	if (starts_with(p, n, "\xef\xbb\xbf"))
		i = 3;
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
		i++;
	/* text first: random bytes that happen to start with '{' are not JSON */
	if (looks_binary(p, n))
		return KG_KIND_BINARY;
	if (i < n && p[i] == '{' && looks_json_document(p, n, i))
		return KG_KIND_JSON;
	if (looks_summary(p, n, n < sizeof src->head))
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
	double done = src->gzip ? (double)src->raw_read : (double)src->bytes_read;
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
	if (src->eof || src->fd < 0)
		return 0;
	if (n > (1u << 30))
		n = 1u << 30;
	ssize_t r = stream_read(src, buf, n, err);
	if (r < 0)
		return -1;
	if (r == 0)
		src->eof = true;
	src->bytes_read += r;
	return r;
}

void kg_source_close(kg_source *src)
{
	if (src->progress && src->progress_last > src->progress_start) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	if (src->zs) {
		inflateEnd(src->zs);
		free(src->zs);
	}
	if (src->fd >= 0)
		close(src->fd);
	free(src->in);
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

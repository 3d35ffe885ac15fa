/* envelope.c — log envelopes (see include/read/envelope.h).
 *
 * Sources of the formats:
 *   Docker json-file logging driver: one JSON object a line,
 *     {"log":"<text>\n","stream":"stderr","time":"<RFC3339Nano>"}
 *     (docs.docker.com, "JSON File logging driver").
 *   Kubernetes CRI container logs: `<RFC3339Nano> <stream> <tag> <text>`,
 *     tag `F` (full) or `P` (partial; the line continues in the next entry)
 *     (kubernetes design proposal "CRI: Log management for container
 *     stdout/stderr streams"; kubelet pkg/kubelet/kuberuntime/logs).
 *   journalctl(1) output modes short, short-iso, short-iso-precise and json
 *     (systemd journal export formats: MESSAGE may be an array of bytes).
 *   srun(1) --label: each line prefixed with the task number and ": ".
 *   UTF-16 (RFC 2781) with a byte order mark, as PowerShell's `>` writes.
 *   Hard-wrapped terminal text: a terminal (xterm, tmux, a notebook's
 *     output pane) breaks a line longer than its width W at exactly W
 *     columns and goes on at column 0 of the next row, mid-word; copying
 *     the screen keeps the break (issue 24: XLA/BFC lines of 200 columns
 *     and more, JAX's "from devic\ne: CUDA_ERROR_OUT_OF_MEMORY"). A copy
 *     of the screen's cells (tmux capture-pane, screen's hardcopy, a
 *     console's "select all") also pads every row with blanks to W: then a
 *     row is cut when its text, without the blanks, fills the width
 *     (issue 31).
 */
#include "read/envelope.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define READ_CHUNK (64u << 10)

struct kg_envelope {
	unsigned mask;
	kg_buf raw;            /* undecoded UTF-8 bytes */
	size_t raw_pos;        /* start of the unprocessed part */
	kg_buf out;            /* decoded text not yet handed out */
	size_t out_pos;
	kg_buf part;           /* CRI `P` pieces of the line being joined */
	size_t npart;
	bool passthrough;      /* inside an over-long line: copied until '\n' */
	bool eof, flushed;
	/* UTF-16 state */
	unsigned char odd;     /* the first byte of a code unit cut by a read */
	bool have_odd;
	unsigned hi;           /* a high surrogate waiting for its low half */
	bool started;          /* the first code unit (a BOM) has been seen */
	unsigned char *tmp;
	/* time stamps of the last KG_ENV_TIME_LINES decoded lines */
	char (*times)[40];
	long lines_out;        /* decoded lines so far */
	char cur_time[40];     /* the time of the line being decoded */
	/* hard-wrapped text (KG_ENV_WRAP) */
	unsigned wrap_w;       /* the width */
	bool wrap_pad;         /* rows padded with blanks to the width */
	kg_buf wrap;           /* the line being joined */
	size_t wrap_parts;     /* physical lines in it (0: none pending) */
	bool wrap_more;        /* its last part was W columns: it may go on */
};

static bool isdig(char c) { return c >= '0' && c <= '9'; }

static size_t ndigits(const char *s, size_t n, size_t i)
{
	size_t j = i;
	while (j < n && isdig(s[j]))
		j++;
	return j - i;
}

/* RFC 3339 time `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM|±HHMM)` at s; returns
 * its length or 0. */
static size_t rfc3339(const char *s, size_t n)
{
	if (n < 20 || ndigits(s, n, 0) != 4 || s[4] != '-' || ndigits(s, n, 5) != 2 || s[7] != '-' ||
	    ndigits(s, n, 8) != 2 || s[10] != 'T' || ndigits(s, n, 11) != 2 || s[13] != ':' ||
	    ndigits(s, n, 14) != 2 || s[16] != ':' || ndigits(s, n, 17) != 2)
		return 0;
	size_t i = 19;
	if (i < n && (s[i] == '.' || s[i] == ',')) {
		size_t d = ndigits(s, n, i + 1);
		if (!d)
			return 0;
		i += 1 + d;
	}
	if (i < n && s[i] == 'Z')
		return i + 1;
	if (i < n && (s[i] == '+' || s[i] == '-') && ndigits(s, n, i + 1) >= 2) {
		if (i + 3 < n && s[i + 3] == ':' && ndigits(s, n, i + 4) == 2)
			return i + 6;
		if (ndigits(s, n, i + 1) == 4)
			return i + 5;
	}
	return 0;
}

/* CRI: `<RFC3339Nano> stdout|stderr F|P <text>`. Returns the offset of the
 * text (n for an empty line) or 0; *partial for `P`. */
static size_t cri_prefix(const char *s, size_t n, bool *partial)
{
	size_t i = rfc3339(s, n);
	if (!i || i + 9 > n || s[i] != ' ')
		return 0;
	i++;
	if (memcmp(s + i, "stdout ", 7) && memcmp(s + i, "stderr ", 7))
		return 0;
	i += 7;
	if (s[i] != 'F' && s[i] != 'P')
		return 0;
	*partial = s[i] == 'P';
	i++;
	if (i == n)
		return i;
	return s[i] == ' ' ? i + 1 : 0;
}

/* journalctl short-iso(-precise): `<RFC3339> <host> <ident>[<pid>]: `, or
 * short: `Mon DD HH:MM:SS <host> <ident>[<pid>]: `. Returns the offset of
 * the text or 0. */
static size_t journal_prefix(const char *s, size_t n)
{
	size_t i = rfc3339(s, n);
	if (!i) {
		static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
		bool mon = false;
		for (int m = 0; m < 12 && n >= 16; m++)
			mon |= memcmp(s, months + 3 * m, 3) == 0;
		if (!mon || s[3] != ' ' || !(isdig(s[4]) || s[4] == ' ') || !isdig(s[5]) || s[6] != ' ' ||
		    ndigits(s, n, 7) != 2 || s[9] != ':' || ndigits(s, n, 10) != 2 || s[12] != ':' ||
		    ndigits(s, n, 13) != 2)
			return 0;
		i = 15;
		if (i < n && s[i] == '.')
			i += 1 + ndigits(s, n, i + 1);
	}
	if (i >= n || s[i] != ' ')
		return 0;
	i++;
	size_t h = i;
	while (i < n && s[i] != ' ')
		i++;
	if (i == h || i >= n)
		return 0;
	i++;
	size_t id = i;
	while (i < n && s[i] != ' ' && s[i] != '[' && s[i] != ':')
		i++;
	if (i == id || i >= n)
		return 0;
	if (s[i] == '[') {
		size_t d = ndigits(s, n, i + 1);
		if (!d || i + 1 + d >= n || s[i + 1 + d] != ']')
			return 0;
		i += 2 + d;
	}
	if (i >= n || s[i] != ':')
		return 0;
	i++;
	return i < n && s[i] == ' ' ? i + 1 : (i == n ? i : 0);
}

/* srun --label: `[spaces]<task>: `. Returns the offset of the text or 0;
 * *task is the task number. */
static size_t slurm_prefix(const char *s, size_t n, long *task)
{
	size_t i = 0;
	while (i < n && i < 8 && s[i] == ' ')
		i++;
	size_t d = ndigits(s, n, i);
	if (!d || d > 6 || i + d >= n || s[i + d] != ':')
		return 0;
	long v = 0;
	for (size_t k = i; k < i + d; k++)
		v = v * 10 + (s[k] - '0');
	*task = v;
	i += d + 1;
	if (i == n)
		return i;
	return s[i] == ' ' ? i + 1 : 0;
}

size_t kg_envelope_slurm_label(const char *s, size_t n, long *task)
{
	return slurm_prefix(s, n, task);
}

/* `[rank<task>]: ` for a task number of at most 6 digits (slurm_prefix),
 * written at d without a NUL; returns its length (at most
 * RANK_PREFIX_MAX). The same bytes as snprintf's "[rank%ld]: ", without
 * its cost on every line of an srun --label log. */
#define RANK_PREFIX_MAX 16
static size_t rank_prefix(char *d, long task)
{
	char dig[8];
	size_t nd = 0;
	do {
		dig[nd++] = (char)('0' + task % 10);
		task /= 10;
	} while (task && nd < sizeof dig);
	memcpy(d, "[rank", 5);
	for (size_t i = 0; i < nd; i++)
		d[5 + i] = dig[nd - 1 - i];
	memcpy(d + 5 + nd, "]: ", 3);
	return 8 + nd;
}

/* One srun --label line s[0..len) decoded at d: with a label of k bytes
 * (slurm_prefix), `[rank<task>]: ` and the text after it without a
 * trailing '\r'; with none (k = 0), the line as it is; then '\n'. d has
 * room for slurm_size(len) bytes; returns the bytes written. */
static size_t slurm_size(size_t len)
{
	return RANK_PREFIX_MAX + len + 1;
}

static size_t slurm_put(char *d, const char *s, size_t len, size_t k, long task)
{
	size_t w = 0, tl = len;
	if (k) {
		tl = len - k - (len > k && s[len - 1] == '\r');
		w = rank_prefix(d, task);
	}
	memcpy(d + w, s + k, tl);
	w += tl;
	d[w++] = '\n';
	return w;
}

/* Appends text's lines to out, each ending in '\n' (a trailing "\n" or
 * "\r\n" of the text ends its last line), each after `prefix`. */
static void put_lines(kg_buf *out, const char *prefix, const char *t, size_t n)
{
	if (n && t[n - 1] == '\n')
		n--;
	if (n && t[n - 1] == '\r')
		n--;
	size_t i = 0;
	for (;;) {
		const char *nl = memchr(t + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - t) : n;
		size_t le = e;
		if (le > i && t[le - 1] == '\r')
			le--;
		if (prefix)
			kg_buf_puts(out, prefix);
		kg_buf_append(out, t + i, le - i);
		kg_buf_putc(out, '\n');
		if (!nl)
			break;
		i = e + 1;
	}
}

/* The text of a journal MESSAGE given as an array of byte values. */
static bool byte_array(const cJSON *a, kg_buf *b)
{
	const cJSON *c;
	cJSON_ArrayForEach(c, a) {
		if (!cJSON_IsNumber(c) || c->valuedouble < 0 || c->valuedouble > 255)
			return false;
		kg_buf_putc(b, (char)(int)c->valuedouble);
	}
	return true;
}

/* JSON Lines: decodes one object; false when the line is not a JSON object
 * with a text field (nothing appended). */
static void json_time(const cJSON *o, char *tbuf);

static bool json_line(const char *s, size_t n, kg_buf *out, char *tbuf)
{
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	while (n > i && (s[n - 1] == ' ' || s[n - 1] == '\r' || s[n - 1] == '\t'))
		n--;
	if (n - i < 2 || s[i] != '{' || s[n - 1] != '}')
		return false;
	cJSON *o = cJSON_ParseWithLength(s + i, n - i);
	if (!o || !cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return false;
	}
	static const char *const fields[] = {"log", "message", "msg", "MESSAGE", "event"};
	const cJSON *text = NULL;
	kg_buf bytes = {0};
	bool ok = false;
	for (size_t k = 0; k < sizeof fields / sizeof fields[0] && !ok; k++) {
		text = cJSON_GetObjectItemCaseSensitive(o, fields[k]);
		if (cJSON_IsString(text))
			ok = true;
		else if (cJSON_IsArray(text) && !strcmp(fields[k], "MESSAGE"))
			ok = byte_array(text, &bytes);
	}
	if (ok && tbuf)
		json_time(o, tbuf);
	if (ok) {
		char prefix[32] = "";
		const cJSON *rank = cJSON_GetObjectItemCaseSensitive(o, "rank");
		if (cJSON_IsNumber(rank) && rank->valuedouble >= 0 && rank->valuedouble < 1e7 &&
		    rank->valuedouble == (double)(long)rank->valuedouble)
			snprintf(prefix, sizeof prefix, "[rank%ld]: ", (long)rank->valuedouble);
		const char *t = cJSON_IsString(text) ? text->valuestring : bytes.data ? bytes.data : "";
		size_t tl = cJSON_IsString(text) ? strlen(t) : bytes.len;
		put_lines(out, *prefix ? prefix : NULL, t, tl);
		static const char *const extra[] = {"exception", "exc_info", "stack_trace"};
		for (size_t k = 0; k < sizeof extra / sizeof extra[0]; k++) {
			const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, extra[k]);
			if (cJSON_IsString(x) && *x->valuestring)
				put_lines(out, *prefix ? prefix : NULL, x->valuestring, strlen(x->valuestring));
		}
	}
	kg_buf_free(&bytes);
	cJSON_Delete(o);
	return ok;
}

/* The time of a JSON log line (see kg_envelope_time) into tbuf. */
static void json_time(const cJSON *o, char *tbuf)
{
	static const char *const fields[] = {"time", "timestamp", "@timestamp", "ts"};
	for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, fields[k]);
		if (cJSON_IsString(t) && rfc3339(t->valuestring, strlen(t->valuestring))) {
			snprintf(tbuf, 40, "%s", t->valuestring);
			return;
		}
	}
	const cJSON *rt = cJSON_GetObjectItemCaseSensitive(o, "__REALTIME_TIMESTAMP");
	if (cJSON_IsString(rt) && strlen(rt->valuestring) >= 7 && strlen(rt->valuestring) < 19 &&
	    strspn(rt->valuestring, "0123456789") == strlen(rt->valuestring)) {
		long long us = strtoll(rt->valuestring, NULL, 10);
		time_t sec = (time_t)(us / 1000000);
		struct tm tm;
		if (gmtime_r(&sec, &tm) && tm.tm_year < 8000) {
			size_t k = strftime(tbuf, 40, "%Y-%m-%dT%H:%M:%S", &tm);
			snprintf(tbuf + k, 40 - k, ".%06uZ", (unsigned)(us % 1000000));
		}
	}
}

/* Text inside an envelope: a JSON object (an application logging JSON
 * under a CRI or journal envelope) is decoded too. */
static void put_text(kg_buf *out, const char *t, size_t n)
{
	if (n && t[0] == '{' && json_line(t, n, out, NULL))
		return;
	put_lines(out, NULL, t, n);
}

/* Copies the leading RFC 3339 time of s (length k) into tbuf. */
static void lead_time(const char *s, size_t n, char *tbuf)
{
	size_t k = rfc3339(s, n);
	if (tbuf && k && k < 40) {
		memcpy(tbuf, s, k);
		tbuf[k] = '\0';
	}
}

/* kg_envelope_decode_line, with the line's time into tbuf (40 bytes, left
 * alone when there is none) when tbuf is not NULL. */
static unsigned decode(unsigned mask, const char *s, size_t n, kg_buf *out, char *tbuf)
{
	size_t k;
	bool partial;
	long task;
	if (!n)
		return 0;
	if ((mask & KG_ENV_JSON) && (s[0] == '{' || s[0] == ' ') && json_line(s, n, out, tbuf))
		return KG_ENV_JSON;
	if ((mask & KG_ENV_CRI) && isdig(s[0]) && (k = cri_prefix(s, n, &partial)) != 0) {
		lead_time(s, n, tbuf);
		put_text(out, s + k, n - k);
		return KG_ENV_CRI;
	}
	if ((mask & KG_ENV_JOURNAL) && (k = journal_prefix(s, n)) != 0) {
		lead_time(s, n, tbuf);
		put_text(out, s + k, n - k);
		return KG_ENV_JOURNAL;
	}
	if ((mask & KG_ENV_SLURM) && (k = slurm_prefix(s, n, &task)) != 0) {
		out->len += slurm_put(kg_buf_room(out, slurm_size(n)), s, n, k, task);
		out->data[out->len] = '\0';
		return KG_ENV_SLURM;
	}
	return 0;
}

unsigned kg_envelope_decode_line(unsigned mask, const char *s, size_t n, kg_buf *out)
{
	return decode(mask, s, n, out, NULL);
}

/* ------------------------------------------------------------ UTF-16 */

static void put_cp(kg_buf *b, unsigned c)
{
	char u[4];
	size_t k;
	if (c < 0x80) {
		u[0] = (char)c;
		k = 1;
	} else if (c < 0x800) {
		u[0] = (char)(0xc0 | c >> 6);
		u[1] = (char)(0x80 | (c & 0x3f));
		k = 2;
	} else if (c < 0x10000) {
		u[0] = (char)(0xe0 | c >> 12);
		u[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		u[2] = (char)(0x80 | (c & 0x3f));
		k = 3;
	} else {
		u[0] = (char)(0xf0 | c >> 18);
		u[1] = (char)(0x80 | ((c >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((c >> 6) & 0x3f));
		u[3] = (char)(0x80 | (c & 0x3f));
		k = 4;
	}
	kg_buf_append(b, u, k);
}

/* Transcodes UTF-16 bytes p[0..n) to UTF-8 appended to b (RFC 2781); the
 * state carries a cut code unit or surrogate pair across calls. */
static void utf16_to_utf8(kg_envelope *env, const unsigned char *p, size_t n, kg_buf *b)
{
	bool be = env->mask & KG_ENV_UTF16BE;
	size_t i = 0;
	while (i < n) {
		unsigned char b0, b1;
		if (env->have_odd) {
			b0 = env->odd;
			b1 = p[i++];
			env->have_odd = false;
		} else {
			if (i + 1 >= n) {
				env->odd = p[i++];
				env->have_odd = true;
				break;
			}
			b0 = p[i];
			b1 = p[i + 1];
			i += 2;
		}
		unsigned u = be ? (unsigned)b0 << 8 | b1 : (unsigned)b1 << 8 | b0;
		if (!env->started) {
			env->started = true;
			if (u == 0xfeff)
				continue;
		}
		if (env->hi) {
			if (u >= 0xdc00 && u <= 0xdfff) {
				put_cp(b, 0x10000 + ((env->hi - 0xd800) << 10) + (u - 0xdc00));
				env->hi = 0;
				continue;
			}
			put_cp(b, 0xfffd);
			env->hi = 0;
		}
		if (u >= 0xd800 && u <= 0xdbff)
			env->hi = u;
		else if (u >= 0xdc00 && u <= 0xdfff)
			put_cp(b, 0xfffd);
		else
			put_cp(b, u);
	}
}

/* ------------------------------------------------------------- sniffing */

static unsigned sniff_lines(const char *p, size_t n, bool whole)
{
	size_t lines = 0, json = 0, cri = 0, journal = 0, slurm = 0;
	kg_buf scratch = {0};
	size_t pos = 0;
	while (pos < n && lines < 64) {
		const char *nl = memchr(p + pos, '\n', n - pos);
		if (!nl && !whole)
			break;
		size_t e = nl ? (size_t)(nl - p) : n;
		const char *s = p + pos;
		size_t len = e - pos;
		pos = e + 1;
		if (len && s[len - 1] == '\r')
			len--;
		bool blank = true;
		for (size_t i = 0; i < len && blank; i++)
			blank = s[i] == ' ' || s[i] == '\t' || s[i] == '\0';
		if (blank)
			continue;
		lines++;
		kg_buf_reset(&scratch);
		if (kg_envelope_decode_line(KG_ENV_JSON, s, len, &scratch))
			json++;
		else if (kg_envelope_decode_line(KG_ENV_CRI, s, len, &scratch))
			cri++;
		else if (kg_envelope_decode_line(KG_ENV_JOURNAL, s, len, &scratch))
			journal++;
		else if (kg_envelope_decode_line(KG_ENV_SLURM, s, len, &scratch))
			slurm++;
	}
	kg_buf_free(&scratch);
	unsigned mask = 0;
	if (json && json * 2 >= lines)
		mask |= KG_ENV_JSON;
	if (cri && cri * 2 >= lines)
		mask |= KG_ENV_CRI | KG_ENV_JSON;
	if (journal && journal * 2 >= lines)
		mask |= KG_ENV_JOURNAL;
	if (slurm >= 2 && slurm * 4 >= lines * 3)
		mask |= KG_ENV_SLURM;
	return mask;
}

/* ------------------------------------------------------ hard-wrapped text */

/* Columns of s[0..n) on a terminal (no trailing CR). */
static unsigned columns(const char *s, size_t n)
{
	if (n && s[n - 1] == '\r')
		n--;
	unsigned c = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char b = (unsigned char)s[i];
		if (b == '\t')
			c = (c / 8 + 1) * 8;
		else if ((b & 0xC0) != 0x80)
			c++;
	}
	return c;
}

static bool starts_word(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);
	return n >= k && !memcmp(s, w, k);
}

bool kg_wrap_continues(const char *s, size_t n)
{
	static const char *const levels[] = {"DEBUG", "INFO", "WARNING", "WARN", "ERROR", "CRITICAL", "FATAL"};
	if (n && s[n - 1] == '\r')
		n--;
	if (!n || s[0] == '\t' || s[0] == '|' || (s[0] == ' ' && (n < 2 || s[1] == ' ' || s[1] == '\t')))
		return false;
	if (ndigits(s, n, 0) == 4 && n > 7 && s[4] == '-' && ndigits(s, n, 5) == 2)
		return false; /* 2024-11-20 … */
	if (n > 5 && strchr("IWEF", s[0]) && ndigits(s, n, 1) == 4)
		return false; /* glog E1121 */
	if (s[0] == '[' && n > 1 && (isdig(s[1]) || starts_word(s + 1, n - 1, "rank")))
		return false;
	if (starts_word(s, n, "Traceback (") || starts_word(s, n, "During handling"))
		return false;
	for (size_t i = 0; i < sizeof levels / sizeof *levels; i++) {
		size_t k = strlen(levels[i]);
		if (n > k && starts_word(s, n, levels[i]) && strchr(" :]", s[k]))
			return false;
	}
	return true;
}

#define WRAP_LINES 4096 /* lines of the head measured */

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isdig(c) || c == '_';
}

/* s[0..n) without its trailing blanks (and CR) */
static size_t trim_blanks(const char *s, size_t n)
{
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	return n;
}

unsigned kg_wrap_width(const char *p, size_t n, bool whole, bool *padded)
{
	static const unsigned common[] = {80, 100, 120, 132, 160, 200, 240};
	unsigned *cols = kg_malloc(WRAP_LINES * sizeof *cols);
	size_t *at = kg_malloc(WRAP_LINES * sizeof *at), *len = kg_malloc(WRAP_LINES * sizeof *len);
	size_t nl = 0, pos = 0, at_max = 0, blank_end = 0;
	unsigned max = 0;
	while (pos < n && nl < WRAP_LINES) {
		const char *e = memchr(p + pos, '\n', n - pos);
		if (!e && !whole)
			break;
		size_t end = e ? (size_t)(e - p) : n;
		at[nl] = pos;
		len[nl] = end - pos;
		cols[nl] = columns(p + pos, end - pos);
		if (cols[nl] > max)
			max = cols[nl];
		nl++;
		pos = end + 1;
	}
	/* padded rows: nearly every row is the width, and rows end in runs of
	 * blanks (a wrapped log's row ends in a blank only where a cut fell on
	 * a space: one, not three); then each row is measured without its
	 * blanks */
	for (size_t i = 0; i < nl; i++) {
		if (cols[i] != max)
			continue;
		at_max++;
		size_t t = trim_blanks(p + at[i], len[i]);
		blank_end += len[i] - t >= 3 && p[at[i] + t] != '\r';
	}
	bool pad = max >= 60 && nl >= 3 && at_max * 10 >= nl * 9 && blank_end >= 2;
	if (pad)
		for (size_t i = 0; i < nl; i++) {
			len[i] = trim_blanks(p + at[i], len[i]);
			cols[i] = columns(p + at[i], len[i]);
		}
	*padded = pad;
	/* the longest lines, those of them followed by a line, by a line that
	 * continues them, by a shorter one that ends the wrapped line, and
	 * breaks inside a word (a letter or digit on both sides: a terminal
	 * breaks at the width, a writer at a word's end, before "# " in a
	 * comment) */
	size_t longest = 0, followed = 0, continued = 0, ended = 0, midword = 0;
	for (size_t i = 0; i < nl; i++) {
		if (cols[i] != max)
			continue;
		longest++;
		if (i + 1 >= nl || cols[i + 1] == 0)
			continue;
		followed++;
		const char *a = p + at[i], *b = p + at[i + 1];
		size_t la = len[i] && a[len[i] - 1] == '\r' ? len[i] - 1 : len[i];
		if (!kg_wrap_continues(b, len[i + 1]))
			continue;
		continued++;
		ended += cols[i + 1] < max;
		midword += la && word_char(a[la - 1]) && word_char(b[0]);
	}
	bool usual = false;
	for (size_t i = 0; i < sizeof common / sizeof *common; i++)
		usual = usual || common[i] == max;
	free(cols);
	free(at);
	free(len);
	if (max < 60 || max > 4096 || !ended || !midword || continued * 2 < followed ||
	    (longest < 2 && !usual) || (pad && !longest))
		return 0;
	return max;
}

unsigned kg_envelope_sniff(const kg_source *src)
{
	const unsigned char *p = src->head;
	size_t n = src->headlen;
	bool whole = n < sizeof src->head;
	if (n >= 2 && ((p[0] == 0xff && p[1] == 0xfe) || (p[0] == 0xfe && p[1] == 0xff))) {
		kg_envelope tmp = {.mask = p[0] == 0xff ? KG_ENV_UTF16LE : KG_ENV_UTF16BE};
		kg_buf b = {0};
		utf16_to_utf8(&tmp, p, n, &b);
		unsigned m = tmp.mask | sniff_lines(b.data ? b.data : "", b.len, whole);
		kg_buf_free(&b);
		return m;
	}
	/* the cheap test first: a plain log's lines start with none of these */
	bool maybe = false;
	size_t pos = 0;
	for (int k = 0; k < 64 && pos < n && !maybe; k++) {
		unsigned char c = p[pos];
		maybe = c == '{' || (c >= '0' && c <= '9') || c == ' ' ||
			(c >= 'A' && c <= 'Z' && n - pos > 3 && p[pos + 3] == ' ');
		const unsigned char *nl = memchr(p + pos, '\n', n - pos);
		if (!nl)
			break;
		pos = (size_t)(nl - p) + 1;
	}
	unsigned mask = maybe ? sniff_lines((const char *)p, n, whole) : 0;
	if (!mask) {
		bool pad;
		unsigned w = kg_wrap_width((const char *)p, n, whole, &pad);
		if (w)
			mask = KG_ENV_WRAP | (pad ? KG_ENV_WRAP_PAD : 0) | w << 8;
	}
	return mask;
}

const char *kg_envelope_name(unsigned mask)
{
	if (mask & KG_ENV_WRAP) {
		static char name[128];
		snprintf(name, sizeof name, "terminal text hard-wrapped at %u columns%s (wrapped lines joined)",
			 KG_ENV_WRAP_WIDTH(mask), mask & KG_ENV_WRAP_PAD ? ", rows padded with blanks" : "");
		return name;
	}
	if (mask & (KG_ENV_UTF16LE | KG_ENV_UTF16BE))
		return mask & KG_ENV_UTF16LE ? "UTF-16 LE text" : "UTF-16 BE text";
	if (mask & KG_ENV_CRI)
		return "Kubernetes CRI log lines";
	if (mask & KG_ENV_JSON)
		return "JSON log lines (Docker json-file, log shippers, journalctl -o json)";
	if (mask & KG_ENV_JOURNAL)
		return "journalctl lines";
	if (mask & KG_ENV_SLURM)
		return "Slurm srun --label lines";
	return "plain text";
}

/* ------------------------------------------------------------- streaming */

kg_envelope *kg_envelope_new(unsigned mask)
{
	kg_envelope *env = kg_calloc(1, sizeof *env);
	env->mask = mask;
	env->wrap_w = mask & KG_ENV_WRAP ? KG_ENV_WRAP_WIDTH(mask) : 0;
	env->wrap_pad = env->wrap_w && (mask & KG_ENV_WRAP_PAD);
	env->tmp = kg_malloc(READ_CHUNK);
	env->times = kg_calloc(KG_ENV_TIME_LINES, sizeof *env->times);
	return env;
}

void kg_envelope_free(kg_envelope *env)
{
	if (!env)
		return;
	kg_buf_free(&env->raw);
	kg_buf_free(&env->out);
	kg_buf_free(&env->part);
	kg_buf_free(&env->wrap);
	free(env->tmp);
	free(env->times);
	free(env);
}

static void stamp(kg_envelope *env, size_t from, const char *t);

/* Records one decoded line with no time stamp (what stamp does for a
 * single line and t = ""). */
static void stamp_none(kg_envelope *env)
{
	env->times[env->lines_out % KG_ENV_TIME_LINES][0] = '\0';
	env->lines_out++;
}

/* Ends a run of CRI `P` pieces with no `F` piece after them: the joined
 * text is one line. */
static void flush_part(kg_envelope *env)
{
	if (!env->npart)
		return;
	size_t from = env->out.len;
	put_text(&env->out, env->part.data ? env->part.data : "", env->part.len);
	stamp(env, from, "");
	kg_buf_reset(&env->part);
	env->npart = 0;
}

/* Records the time of every line appended to out since it held `from`
 * bytes. */
static void stamp(kg_envelope *env, size_t from, const char *t)
{
	size_t tl = strnlen(t, 39);   /* what snprintf(…, 40, "%s", t) kept; a copy per line is cheaper */
	for (const char *p = env->out.data + from; p && p < env->out.data + env->out.len;) {
		const char *nl = memchr(p, '\n', (size_t)(env->out.data + env->out.len - p));
		if (!nl)
			break;
		char *dst = env->times[env->lines_out % KG_ENV_TIME_LINES];
		memcpy(dst, t, tl);
		dst[tl] = '\0';
		env->lines_out++;
		p = nl + 1;
	}
}

/* Hands out the line being joined: its text, then one empty line for each
 * physical line joined to it, so later lines keep their numbers. */
static void wrap_flush(kg_envelope *env)
{
	if (!env->wrap_parts)
		return;
	size_t from = env->out.len;
	kg_buf_append(&env->out, env->wrap.data ? env->wrap.data : "", env->wrap.len);
	for (size_t i = 0; i < env->wrap_parts; i++)
		kg_buf_putc(&env->out, '\n');
	stamp(env, from, "");
	kg_buf_reset(&env->wrap);
	env->wrap_parts = 0;
	env->wrap_more = false;
}

/* One physical line of hard-wrapped text: joined to the pending line when
 * that one filled the width and this one continues it. Padded rows lose
 * their blanks first: a row whose text fills the width was cut. */
static void wrap_line(kg_envelope *env, const char *s, size_t n)
{
	if (n && s[n - 1] == '\r')
		n--;
	if (env->wrap_pad)
		n = trim_blanks(s, n);
	if (env->wrap_parts && !(env->wrap_more && kg_wrap_continues(s, n) &&
				 env->wrap.len + n <= KG_ENV_MAX_LINE))
		wrap_flush(env);
	kg_buf_append(&env->wrap, s, n);
	env->wrap_parts++;
	env->wrap_more = columns(s, n) == env->wrap_w;
	if (!env->wrap_more)
		wrap_flush(env);
}

static void one_line(kg_envelope *env, const char *s, size_t n)
{
	bool partial = false;
	if (env->wrap_w) {
		wrap_line(env, s, n);
		return;
	}
	size_t k, from = env->out.len;
	if ((env->mask & KG_ENV_CRI) && n && isdig(s[0]) && (k = cri_prefix(s, n, &partial)) != 0) {
		size_t room = env->part.len < KG_ENV_MAX_LINE ? KG_ENV_MAX_LINE - env->part.len : 0;
		size_t take = n - k < room ? n - k : room;
		kg_buf_append(&env->part, s + k, take);
		env->npart++;
		if (!partial) {
			env->npart = 0;
			put_text(&env->out, env->part.data ? env->part.data : "", env->part.len);
			kg_buf_reset(&env->part);
			char t[40] = "";
			lead_time(s, n, t);
			stamp(env, from, t);
		}
		return;
	}
	flush_part(env);
	from = env->out.len;
	char t[40] = "";
	unsigned how = decode(env->mask, s, n, &env->out, t);
	if (!how) {
		kg_buf_append(&env->out, s, n);
		kg_buf_putc(&env->out, '\n');
	}
	if (how == KG_ENV_SLURM || !how)
		stamp_none(env);   /* one line, no time (decode sets none for these) */
	else
		stamp(env, from, t);
}

/* Decodes the complete lines in raw (and, at the end, the rest). */
static void process_raw(kg_envelope *env, bool final)
{
	while (env->raw_pos < env->raw.len) {
		const char *s = env->raw.data + env->raw_pos;
		size_t avail = env->raw.len - env->raw_pos;
		const char *nl = memchr(s, '\n', avail);
		if (!nl) {
			if (final) {
				if (env->passthrough) {
					size_t from = env->out.len;
					kg_buf_append(&env->out, s, avail);
					kg_buf_putc(&env->out, '\n');
					stamp(env, from, "");
				} else
					one_line(env, s, avail);
				env->raw_pos = env->raw.len;
			} else if (avail > KG_ENV_MAX_LINE || env->passthrough) {
				/* too long to decode: its bytes pass through as text */
				flush_part(env);
				wrap_flush(env);
				kg_buf_append(&env->out, s, avail);
				env->raw_pos = env->raw.len;
				env->passthrough = true;
			}
			break;
		}
		size_t len = (size_t)(nl - s);
		if (env->passthrough) {
			size_t from = env->out.len;
			kg_buf_append(&env->out, s, len + 1);
			stamp(env, from, "");
			env->passthrough = false;
		} else {
			one_line(env, s, len);
		}
		env->raw_pos += len + 1;
	}
	if (final) {
		flush_part(env);
		wrap_flush(env);
	}
	/* keep only the unprocessed tail */
	if (env->raw_pos) {
		memmove(env->raw.data, env->raw.data + env->raw_pos, env->raw.len - env->raw_pos);
		env->raw.len -= env->raw_pos;
		env->raw_pos = 0;
	}
}

/* srun --label alone (the mask is KG_ENV_SLURM): decodes the complete lines
 * in raw straight into the caller's buffer buf[0..n), the bytes and time
 * stamps one_line gives them, without the detour through env->out. Stops
 * before a line that would not fit; returns the bytes written (0: no
 * complete line, or the first one does not fit, *blocked). Keeps raw's
 * unprocessed tail at its front. */
static size_t slurm_direct(kg_envelope *env, char *buf, size_t n, bool *blocked)
{
	size_t w = 0;
	*blocked = false;
	while (env->raw_pos < env->raw.len) {
		const char *s = env->raw.data + env->raw_pos;
		size_t avail = env->raw.len - env->raw_pos;
		const char *nl = memchr(s, '\n', avail);
		if (!nl)
			break;
		size_t len = (size_t)(nl - s), k = 0;
		long task = 0;
		if (len)
			k = slurm_prefix(s, len, &task);
		if (n - w < slurm_size(len)) {
			*blocked = w == 0;
			break;
		}
		w += slurm_put(buf + w, s, len, k, task);
		stamp_none(env);
		env->raw_pos += len + 1;
	}
	if (env->raw_pos) {
		memmove(env->raw.data, env->raw.data + env->raw_pos, env->raw.len - env->raw_pos);
		env->raw.len -= env->raw_pos;
		env->raw_pos = 0;
	}
	return w;
}

ssize_t kg_envelope_read(kg_envelope *env, kg_source *src, void *buf, size_t n, kg_error *err)
{
	bool direct = env->mask == KG_ENV_SLURM;
	while (env->out.len == env->out_pos) {
		kg_buf_reset(&env->out);
		env->out_pos = 0;
		if (direct && !env->passthrough) {
			bool blocked;
			size_t w = slurm_direct(env, buf, n, &blocked);
			if (w)
				return (ssize_t)w;
			if (blocked) {
				/* a line longer than the caller's room: through out */
				process_raw(env, false);
				continue;
			}
		}
		if (env->eof) {
			if (env->flushed)
				return 0;
			env->flushed = true;
			/* a cut code unit or a lone high surrogate at the end */
			if (env->have_odd || env->hi)
				put_cp(&env->raw, 0xfffd);
			env->have_odd = false;
			env->hi = 0;
			process_raw(env, true);
			continue;
		}
		bool utf16 = env->mask & (KG_ENV_UTF16LE | KG_ENV_UTF16BE);
		/* UTF-8 input is read straight into raw, not through tmp */
		void *into = utf16 ? (void *)env->tmp : (void *)kg_buf_room(&env->raw, READ_CHUNK);
		ssize_t r = kg_source_read(src, into, READ_CHUNK, err);
		if (r < 0)
			return -1;
		if (r == 0) {
			env->eof = true;
			continue;
		}
		if (utf16) {
			utf16_to_utf8(env, env->tmp, (size_t)r, &env->raw);
		} else {
			env->raw.len += (size_t)r;
			env->raw.data[env->raw.len] = '\0';
		}
		if (direct) {
			/* lines are decoded by slurm_direct; one too long to
			 * decode passes through here */
			if (env->passthrough || env->raw.len - env->raw_pos > KG_ENV_MAX_LINE)
				process_raw(env, false);
		} else if (env->mask & ~(unsigned)(KG_ENV_UTF16LE | KG_ENV_UTF16BE)) {
			process_raw(env, false);
		} else {
			/* transcoding only: hand the text out as it is */
			size_t from = env->out.len;
			kg_buf_append(&env->out, env->raw.data, env->raw.len);
			kg_buf_reset(&env->raw);
			stamp(env, from, "");
		}
	}
	size_t k = env->out.len - env->out_pos;
	if (k > n)
		k = n;
	memcpy(buf, env->out.data + env->out_pos, k);
	env->out_pos += k;
	return (ssize_t)k;
}

const char *kg_envelope_time(const kg_envelope *env, long line)
{
	if (!env || line < 1 || line > env->lines_out || env->lines_out - line >= KG_ENV_TIME_LINES)
		return NULL;
	const char *t = env->times[(line - 1) % KG_ENV_TIME_LINES];
	return *t ? t : NULL;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian; Howard Hinnant's
 * days_from_civil). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

int64_t kg_time_ns(const char *s)
{
	size_t n = strnlen(s, 64);
	if (n < 19 || ndigits(s, n, 0) != 4 || s[4] != '-' || ndigits(s, n, 5) != 2 || s[7] != '-' ||
	    ndigits(s, n, 8) != 2 || (s[10] != 'T' && s[10] != ' ') || ndigits(s, n, 11) != 2 ||
	    s[13] != ':' || ndigits(s, n, 14) != 2 || s[16] != ':' || ndigits(s, n, 17) != 2)
		return KG_NONE;
	int64_t y = strtol(s, NULL, 10);
	unsigned mo = (unsigned)strtol(s + 5, NULL, 10), d = (unsigned)strtol(s + 8, NULL, 10);
	if (mo < 1 || mo > 12 || d < 1 || d > 31)
		return KG_NONE;
	int64_t sec = days_from_civil(y, mo, d) * 86400 + strtol(s + 11, NULL, 10) * 3600 +
		      strtol(s + 14, NULL, 10) * 60 + strtol(s + 17, NULL, 10);
	int64_t ns = 0;
	size_t i = 19;
	if (i < n && (s[i] == '.' || s[i] == ',')) {
		size_t dd = ndigits(s, n, i + 1);
		for (size_t k = 0; k < 9; k++)
			ns = ns * 10 + (k < dd ? s[i + 1 + k] - '0' : 0);
		i += 1 + dd;
	}
	if (i < n && (s[i] == '+' || s[i] == '-') && ndigits(s, n, i + 1) >= 2) {
		int64_t off = (s[i + 1] - '0') * 10 + (s[i + 2] - '0');
		size_t j = i + 3 + (i + 3 < n && s[i + 3] == ':');
		int64_t mins = ndigits(s, n, j) >= 2 ? (s[j] - '0') * 10 + (s[j + 1] - '0') : 0;
		sec -= (s[i] == '+' ? 1 : -1) * (off * 3600 + mins * 60);
	}
	/* int64 nanoseconds reach 1677-09-21 to 2262-04-11; a year outside
	 * (a log's 0001 or a mangled 1012) is no time we can order by */
	if (sec <= INT64_MIN / 1000000000 || sec >= INT64_MAX / 1000000000)
		return KG_NONE;
	return sec * 1000000000 + ns;
}

void kg_envelope_next_input(kg_envelope *env)
{
	env->eof = false;
	env->flushed = false;
	env->started = false; /* the next file's BOM is its own */
}

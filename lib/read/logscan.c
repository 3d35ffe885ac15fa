/* logscan.c — the log scanner (see include/read/logscan.h).
 *
 * One pass, bounded memory: input is read in 4 MiB chunks into a buffer
 * that keeps 1 MiB of history. The atom prefilter (atoms.c) finds the lines
 * worth a look; only those are copied and noise-stripped (into `lines`),
 * and only a line that passes the grammars' own prefilter gets the
 * KG_OOM_WINDOW_LINES - 1 lines after it loaded as its parse window, so a
 * message wrapped over several lines is parsed as one. The frontier stays
 * that many lines behind the end of the buffer until end of input. Step,
 * epoch and the log's phase words are found by searching back only when an
 * incident or a reading needs them. No regex runs on a line unless a
 * literal prefilter passes.
 */
#include "read/logscan.h"
#include "read/atoms.h"
#include "read/atomtab.h"
#include "read/context.h"
#include "read/envelope.h"
#include "read/logfacts.h"
#include "read/modelinfo.h"
#include "read/oom.h"
#include "read/summary.h"
#include "read/traceback.h"
#include "model/util.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define MAX_FRAMES 128          /* frames kept per traceback (outermost kept) */
#define MAX_FOLLOWUPS 8
#define MAX_MESSAGE 4096
#define FOLD_LINES_SAME_TEXT 2000
#define FOLD_LINES_RELATED 40
#define ROOT_CAUSE_LINES 12     /* a rank line further below the header is not its */
#define SUMMARY_LINES 200       /* a memory_summary() table is about 40 lines */

typedef struct line_rec {
	kg_buf text;     /* noise-stripped */
	long lineno;
	int64_t rank;
	bool truncated;
} line_rec;

struct reader;

typedef struct scanner {
	kg_report *rep;
	kg_envelope *env;        /* the input's envelope decoder, or NULL */
	bool labels;             /* srun --label lines read as they are (strip_line) */
	kg_log_facts *lf;        /* readings and parallelism hints, or NULL */
	struct reader *rd;       /* the buffer, for lazy context */
	size_t cur_off;          /* offset in it of the line being processed */
	size_t cur_end;          /* offset just after that line */
	size_t readings_seen;    /* reading lines parsed */
	bool summary_active;     /* collecting a memory_summary() table */
	kg_buf summary;
	long summary_line;
	int summary_rules;       /* "|====" rules seen in it */
	size_t last_reading_off; /* input offset of the last one */
	const char *name;
	size_t first_incident;   /* index of this input's first incident */
	line_rec lines[KG_OOM_WINDOW_LINES]; /* the line being processed, then
	                            its parse window (loaded on demand) */
	size_t count;            /* lines loaded */

	/* traceback state */
	kg_frame *tb;
	size_t ntb;
	bool tb_active, tb_header, tb_expect_code;
	long tb_post;            /* incident (index+1) whose frames follow its
	                            message (VS Code's pane), or 0 */
	long tb_end_line;
	int tb_blank;
	long handling_line;      /* last "During handling of the above
	                            exception" line, 0 when none */
	long tb_handling;        /* that line, when the current traceback
	                            follows it: its exception was raised while
	                            an earlier one was handled */

	/* context */
	int64_t step, epoch;
	const char *log_phase;
	char *conf_var, *conf_value;
	long conf_line;
	long consumed_until;     /* last line used by the previous message */
	bool root_cause_open;
	long root_cause_line;
	/* follow-ups seen before any incident (attached to the next one) */
	kg_followup pending[MAX_FOLLOWUPS];
	size_t npending;

	/* the two tiers (advance): lines starting before full_until are read
	 * with every atom; past it only the OOM triggers are looked for,
	 * and one memory reading per PROBE_STRIDE (input offsets) */
	size_t full_until;
	size_t full_done;        /* where the last full region ended */
	size_t t1_done;          /* just past the last line tier 1 processed */
	size_t probe_at;         /* where tier 1 next looks for a reading */
	/* the head read lazily (kg_log_facts.head_lazy, lazy_start): its
	 * tier 2 waits for the first OOM past it (lazy_replay) */
	bool lazy;
	bool lazy_miss;          /* a probed line held no reading (process) */
	char *head;              /* the head's bytes, [0, head_end): the reader's
	                            own until it moves them (lazy_keep) */
	char *head_copy;         /* malloc'd copy, when head is one */
	size_t head_end;         /* just past the line holding HEAD_FULL */

	size_t truncated_lines;
	long first_truncated;
	size_t dropped;          /* incidents past KG_MAX_INCIDENTS */
	long first_dropped;
} scanner;

/* ---------------------------------------------------------------- noise */

static size_t strip_ansi(char *s, size_t n)
{
	if (!memchr(s, 0x1b, n))
		return n;
	size_t w = 0;
	for (size_t i = 0; i < n;) {
		if (s[i] != 0x1b) {
			s[w++] = s[i++];
			continue;
		}
		i++;
		if (i < n && s[i] == '[') { /* CSI: parameters then a final byte */
			i++;
			while (i < n && !((unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7e))
				i++;
			if (i < n)
				i++;
		} else if (i < n && s[i] == ']') { /* OSC: until BEL or ESC \ */
			i++;
			while (i < n && s[i] != 0x07 && !(s[i] == 0x1b && i + 1 < n && s[i + 1] == '\\'))
				i++;
			i += (i < n && s[i] == 0x07) ? 1 : 2;
		} else if (i < n) {
			i++; /* two-byte escape */
		}
	}
	return w;
}

static bool isdig(char c) { return c >= '0' && c <= '9'; }

/* Matches `D{k}` digits at s+i exactly k (k>0) or at least one (k=0). */
static size_t digits(const char *s, size_t n, size_t i, size_t k)
{
	size_t j = i;
	while (j < n && isdig(s[j]) && (k == 0 || j - i < k))
		j++;
	if (j == i || (k && j - i != k))
		return 0;
	return j - i;
}

/* YYYY-MM-DD[T ]HH:MM:SS[.,frac][Z|±HH:MM] — returns length or 0. */
static size_t iso_timestamp(const char *s, size_t n)
{
	size_t i = 0;
	if (!digits(s, n, 0, 4) || n < 19 || s[4] != '-' || !digits(s, n, 5, 2) || s[7] != '-' ||
	    !digits(s, n, 8, 2))
		return 0;
	i = 10;
	if (i >= n || (s[i] != 'T' && s[i] != ' '))
		return i; /* a date alone */
	i++;
	if (!digits(s, n, i, 2) || i + 8 > n || s[i + 2] != ':' || !digits(s, n, i + 3, 2) ||
	    s[i + 5] != ':' || !digits(s, n, i + 6, 2))
		return 0;
	i += 8;
	if (i < n && (s[i] == '.' || s[i] == ',')) {
		size_t d = digits(s, n, i + 1, 0);
		if (d)
			i += 1 + d;
	}
	if (i < n && s[i] == 'Z')
		i++;
	else if (i + 5 < n && (s[i] == '+' || s[i] == '-') && digits(s, n, i + 1, 2))
		i += (s[i + 3] == ':') ? 6 : 5;
	return i;
}

static size_t skip_sp(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

static bool word_at(const char *s, size_t n, size_t i, const char *w)
{
	size_t L = strlen(w);
	return i + L <= n && memcmp(s + i, w, L) == 0;
}

static const char *const levels[] = {"DEBUG", "INFO", "WARNING", "WARN", "ERROR",
				     "CRITICAL", "FATAL", "NOTICE", "TRACE", NULL};

static size_t level_word(const char *s, size_t n, size_t i)
{
	for (size_t k = 0; levels[k]; k++)
		if (word_at(s, n, i, levels[k]))
			return strlen(levels[k]);
	return 0;
}

/* One prefix at the start of s; returns its length (0 = none). */
static size_t one_prefix(const char *s, size_t n, int64_t *rank)
{
	size_t i, k;
	if (n == 0)
		return 0;
	/* timestamps: GitHub Actions, logging, TF ("…084180: "), optional ':' or '|' */
	if ((k = iso_timestamp(s, n)) != 0) {
		i = k;
		if (i < n && (s[i] == ':' || s[i] == '|'))
			i++;
		/* a timestamp is a prefix only when a separator follows it */
		size_t j = skip_sp(s, n, i);
		return (j > i || j == n || s[i - 1] == ':' || s[i - 1] == '|') ? j : 0;
	}
	/* [rankN]: / [RankN] / [defaultN]: / [2022-07-13 21:09:08,702] / [INFO] */
	if (s[0] == '[') {
		const char *close = memchr(s, ']', n < 64 ? n : 64);
		if (!close)
			return 0;
		size_t end = (size_t)(close - s);
		const char *in = s + 1;
		size_t inlen = end - 1;
		bool strip = false, rankpfx = false;
		size_t p = 0;
		if ((inlen > 4 && strncasecmp(in, "rank", 4) == 0 && (p = 4)) ||
		    (inlen > 7 && strncmp(in, "default", 7) == 0 && (p = 7))) {
			size_t q = p;
			while (q < inlen && in[q] == ' ')
				q++;
			size_t d = digits(in, inlen, q, 0);
			if (d && q + d == inlen) {
				int64_t v = 0;
				for (size_t t = q; t < q + d && t - q < 9; t++)
					v = v * 10 + (in[t] - '0');
				*rank = v;
				strip = rankpfx = true;
			}
		} else if (inlen && (isdig(in[0]) || level_word(in, inlen, 0) == inlen)) {
			strip = true;
		}
		if (!strip)
			return 0;
		i = end + 1;
		if (i < n && s[i] == ':')
			i++;
		/* `[rankN]: ` then the line as printed: one space is the
		 * prefix's, more are the line's own indentation (a traceback's
		 * code lines), kept */
		if (rankpfx && i + 1 < n && s[i] == ' ' && s[i + 1] == ' ')
			return i + 1;
		return skip_sp(s, n, i);
	}
	/* rank N: */
	if ((s[0] == 'r' || s[0] == 'R') && n > 6 && strncasecmp(s, "rank", 4) == 0) {
		i = skip_sp(s, n, 4);
		size_t d = digits(s, n, i, 0);
		if (d && i + d < n && s[i + d] == ':' && d < 8) {
			int64_t v = 0;
			for (size_t t = i; t < i + d; t++)
				v = v * 10 + (s[t] - '0');
			*rank = v;
			return skip_sp(s, n, i + d + 1);
		}
		return 0;
	}
	/* "# " of a log pasted into a comment */
	if (s[0] == '#' && n > 2 && s[1] == ' ')
		return skip_sp(s, n, 1);
	/* "> " of a log quoted in Markdown (an issue or a reply quoting it):
	 * the marker only, so a traceback keeps its indentation */
	if (s[0] == '>' && n > 2 && s[1] == ' ')
		return 2;
	/* SUBPROCESS: */
	if (word_at(s, n, 0, "SUBPROCESS: "))
		return 12;
	/* Python logging default: LEVEL:name: */
	if ((k = level_word(s, n, 0)) != 0) {
		i = k;
		if (i < n && s[i] == ':') {
			const char *c2 = memchr(s + i + 1, ':', n - i - 1 < 80 ? n - i - 1 : 80);
			if (c2) {
				size_t j = (size_t)(c2 - s);
				bool name = true;
				for (size_t t = i + 1; t < j; t++)
					if (!(isalnum((unsigned char)s[t]) || s[t] == '_' || s[t] == '.'))
						name = false;
				if (name)
					return j + 1;
			}
			return skip_sp(s, n, i + 1);
		}
		/* vLLM: LEVEL MM-DD HH:MM:SS file.py:NNN] */
		i = skip_sp(s, n, i);
		if (digits(s, n, i, 2) && i + 2 < n && s[i + 2] == '-') {
			const char *br = memchr(s + i, ']', n - i < 120 ? n - i : 120);
			if (br)
				return skip_sp(s, n, (size_t)(br - s) + 1);
		}
		/* " - " separated: LEVEL - msg */
		if (word_at(s, n, i, "- "))
			return i + 2;
		return 0;
	}
	/* "- name - LEVEL - " after a stripped timestamp */
	if (word_at(s, n, 0, "- ") || word_at(s, n, 0, "| ")) {
		size_t lim = n < 120 ? n : 120;
		for (size_t t = 2; t < lim; t++) {
			size_t lw = level_word(s, n, t);
			if (lw && s[t - 1] == ' ' && t + lw + 2 < n &&
			    (word_at(s, n, t + lw, " - ") || word_at(s, n, t + lw, " | ")))
				return t + lw + 3;
		}
		/* "- " after a timestamp; "| " starts table rows: kept */
		return s[0] == '-' ? 2 : 0;
	}
	/* glog: E1121 12:00:00.123456  1234 file.cc:12]  and TF: E external/…cc:828] */
	if ((s[0] == 'I' || s[0] == 'W' || s[0] == 'E' || s[0] == 'F') && n > 3) {
		if (digits(s, n, 1, 4) || s[1] == ' ') {
			const char *br = memchr(s, ']', n < 200 ? n : 200);
			if (br && (size_t)(br - s) > 3 && isdig(br[-1])) {
				/* the part before ']' must end in file:line */
				const char *c = br - 1;
				while (c > s && isdig(*c))
					c--;
				/* XLA's own sources (jaxlib's external/xla/) stay: the
				 * path tells its BFC allocator lines from TensorFlow's */
				if (*c == ':' && !memmem(s, (size_t)(br - s), "external/xla/", 13))
					return skip_sp(s, n, (size_t)(br - s) + 1);
			}
		}
		return 0;
	}
	/* llama.cpp: 1.06.520.077 E  */
	if (isdig(s[0])) {
		size_t d1 = digits(s, n, 0, 0);
		if (d1 && d1 < 4 && d1 < n && s[d1] == '.' && digits(s, n, d1 + 1, 2) &&
		    s[d1 + 3] == '.' && digits(s, n, d1 + 4, 3) && s[d1 + 7] == '.' &&
		    digits(s, n, d1 + 8, 3) && d1 + 13 < n && s[d1 + 11] == ' ' &&
		    strchr("IWEDF", s[d1 + 12]) && s[d1 + 13] == ' ')
			return skip_sp(s, n, d1 + 14);
		return 0;
	}
	/* (VllmWorkerProcess pid=440) */
	if (s[0] == '(') {
		const char *close = memchr(s, ')', n < 80 ? n : 80);
		if (close && memmem(s, (size_t)(close - s), "pid=", 4))
			return skip_sp(s, n, (size_t)(close - s) + 1);
		return 0;
	}
	/* docker compose: `svc-1  | ` / `svc_1 | ` */
	if (isalpha((unsigned char)s[0])) {
		size_t j = 0;
		while (j < n && j < 64 && (isalnum((unsigned char)s[j]) || s[j] == '-' || s[j] == '_' || s[j] == '.'))
			j++;
		if (j >= 3 && isdig(s[j - 1]) && (s[j - 2] == '-' || s[j - 2] == '_' || isdig(s[j - 2]))) {
			size_t t = skip_sp(s, n, j);
			if (t > j && t < n && s[t] == '|' && (t + 1 == n || s[t + 1] == ' '))
				return t + 1 < n ? t + 2 : t + 1;
		}
	}
	return 0;
}

/* `[rankN]:` after a one-word prefix the loop does not know (`worker0: `,
 * `node-3 `) or inside a list item (`* `, `  - `): within the first 48
 * bytes. Returns the length up to the line after it (0 = none). */
static size_t rank_after_prefix(const char *s, size_t n, int64_t *rank)
{
	size_t lim = n < 48 ? n : 48;
	const char *p = memmem(s, lim, " [rank", 6);
	if (!p)
		return 0;
	/* one word before it (and leading blanks): "step 5 [rank0]:" is not
	 * a prefix */
	size_t w = 0;
	while (s + w < p && s[w] == ' ')
		w++;
	if (memchr(s + w, ' ', (size_t)(p - s) - w))
		return 0;
	size_t i = (size_t)(p - s) + 6;
	size_t d = digits(s, n, i, 0);
	if (!d || d > 7 || i + d + 1 >= n || s[i + d] != ']' || s[i + d + 1] != ':')
		return 0;
	int64_t v = 0;
	for (size_t t = i; t < i + d; t++)
		v = v * 10 + (s[t] - '0');
	*rank = v;
	i += d + 2;
	return i < n && s[i] == ' ' ? i + 1 : i;
}

/* kg_strip_noise, and with `labels` (an srun --label log read as it is,
 * not through the envelope) first the line's srun label `<task>: `: the
 * same text and rank as the envelope's decoding of the line to
 * `[rank<task>]: <text>` (envelope.c slurm_put: the label and one
 * trailing '\r' dropped) followed by kg_strip_noise (one_prefix's
 * `[rankN]: ` rule: the text's own indentation kept when it starts with
 * a blank, leading blanks and tabs skipped when it starts with a tab). */
static size_t strip_line(char *line, size_t n, int64_t *rank, bool labels)
{
	int iter = 0;
	size_t off = 0;
	long task;
	size_t k = labels ? kg_envelope_slurm_label(line, n, &task) : 0;
	if (k) {
		if (n > k && line[n - 1] == '\r')
			n--;
		memmove(line, line + k, n - k);
		n = strip_ansi(line, n - k);
		*rank = task;
		if (n && line[0] == '\t')
			off = skip_sp(line, n, 0);
		iter = 1;
	} else {
		n = strip_ansi(line, n);
		/* a crash or copytruncate hole: the text after a run of NULs
		 * is the line the writer went on with */
		while (off < n && line[off] == '\0')
			off++;
	}
	for (; iter < 8 && off < n; iter++) {
		size_t m = one_prefix(line + off, n - off, rank);
		if (m == 0)
			break;
		off += m;
	}
	if (*rank == KG_NONE && n - off > 8)
		off += rank_after_prefix(line + off, n - off, rank);
	if (off) {
		memmove(line, line + off, n - off);
		n -= off;
	}
	line[n] = '\0';
	return n;
}

size_t kg_strip_noise(char *line, size_t n, int64_t *rank)
{
	return strip_line(line, n, rank, false);
}

size_t kg_strip_noise_labeled(char *line, size_t n, int64_t *rank)
{
	return strip_line(line, n, rank, true);
}

/* ------------------------------------------------------------- helpers */

static line_rec *rec_at(scanner *sc, size_t idx)
{
	return &sc->lines[idx];
}

static void frames_clear(kg_frame **v, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		kg_frame_free(&(*v)[i]);
	free(*v);
	*v = NULL;
	*n = 0;
}

static bool is_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isspace((unsigned char)s[i]))
			return false;
	return true;
}

static char *collapse(const char *s, size_t n, size_t max)
{
	kg_buf b = {0};
	bool sp = false;
	for (size_t i = 0; i < n && b.len < max; i++) {
		unsigned char c = (unsigned char)s[i];
		if (isspace(c) || c == 0) {
			sp = b.len > 0;
			continue;
		}
		if (sp)
			kg_buf_putc(&b, ' ');
		sp = false;
		kg_buf_putc(&b, (char)c);
	}
	char *raw = kg_buf_steal(&b);
	char *clean = kg_sanitize_utf8(raw, strlen(raw));
	free(raw);
	return clean;
}

/* ----------------------------------------------------------- traceback */

static void tb_reset(scanner *sc, long line, bool header)
{
	frames_clear(&sc->tb, &sc->ntb);
	sc->tb_post = 0;
	if (!header && sc->rep->nincidents > sc->first_incident) {
		kg_incident *last = &sc->rep->incidents[sc->rep->nincidents - 1];
		/* frames right under the message, innermost first: VS Code's
		 * "Exception has occurred" pane */
		if (last->nframes == 0 && line - last->line <= 3 && line > last->line)
			sc->tb_post = (long)(sc->rep->nincidents);
	}
	sc->tb_active = true;
	sc->tb_header = header;
	/* CPython prints the chained header two lines before the traceback */
	sc->tb_handling = header && sc->handling_line && line - sc->handling_line <= 3
			  ? sc->handling_line : 0;
	sc->tb_end_line = 0;
	sc->tb_expect_code = false;
	sc->tb_blank = 0;
}

static void tb_push(scanner *sc, kg_frame *f)
{
	if (sc->ntb >= MAX_FRAMES) {
		/* keep the outermost half and the most recent frames */
		kg_frame_free(&sc->tb[MAX_FRAMES / 2]);
		memmove(&sc->tb[MAX_FRAMES / 2], &sc->tb[MAX_FRAMES / 2 + 1],
			(sc->ntb - MAX_FRAMES / 2 - 1) * sizeof *sc->tb);
		sc->ntb--;
	}
	sc->tb = kg_realloc(sc->tb, (sc->ntb + 1) * sizeof *sc->tb);
	sc->tb[sc->ntb++] = *f;
}

static bool caret_line(const char *s, size_t n)
{
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '^' || s[i] == '~')
			any = true;
		else if (s[i] != ' ' && s[i] != '\t')
			return false;
	}
	return any;
}

/* Ends a traceback; frames that followed a message go to its incident,
 * reversed to outermost first. */
static void tb_end(scanner *sc, long line)
{
	sc->tb_active = false;
	sc->tb_end_line = line;
	if (!sc->tb_post || !sc->ntb)
		return;
	kg_incident *inc = &sc->rep->incidents[sc->tb_post - 1];
	sc->tb_post = 0;
	if (inc->nframes) {
		/* it got frames meanwhile (an OOM inside this traceback folded
		 * into it): keep those */
		frames_clear(&sc->tb, &sc->ntb);
		return;
	}
	for (size_t i = 0; i < sc->ntb / 2; i++) {
		kg_frame t = sc->tb[i];
		sc->tb[i] = sc->tb[sc->ntb - 1 - i];
		sc->tb[sc->ntb - 1 - i] = t;
	}
	inc->frames = sc->tb;
	inc->nframes = sc->ntb;
	sc->tb = NULL;
	sc->ntb = 0;
	const char *ph = kg_tb_phase(inc->frames, inc->nframes);
	if (ph) {
		inc->phase = ph;
		inc->phase_source = "frames";
	}
}

/* Frames of a traceback joined on one line (issue trackers, JSON logs):
 * `File "a.py", line 3, in main     x()   File "b.py", line 9, in f ...`.
 * Each frame runs to the next `File "`; the function name is its first
 * word and the rest, up to the next frame, is the code. */
static void tb_joined(scanner *sc, const char *s, size_t n)
{
	const char *p = memmem(s, n, "File \"", 6);
	while (p) {
		const char *next = memmem(p + 6, (size_t)(s + n - p - 6), "File \"", 6);
		size_t seg = (size_t)((next ? next : s + n) - p);
		kg_frame f;
		if (kg_tb_parse_frame(p, seg, &f) && f.function) {
			char *fn = f.function;
			size_t w = strcspn(fn, " \t");
			const char *code = fn + w;
			while (*code == ' ' || *code == '\t')
				code++;
			/* the last frame's code runs into the exception line: cut it
			 * at "SomethingError:" / "Exception:" */
			size_t clen = strlen(code);
			const char *ex = strstr(code, "Error: ");
			const char *ex2 = strstr(code, "Exception: ");
			if (!ex || (ex2 && ex2 < ex))
				ex = ex2;
			if (ex) {
				while (ex > code && (isalnum((unsigned char)ex[-1]) || ex[-1] == '.' || ex[-1] == '_'))
					ex--;
				clen = (size_t)(ex - code);
			}
			if (clen)
				f.code = collapse(code, clen, 300);
			fn[w] = '\0';
			tb_push(sc, &f);
		} else if (f.file) {
			kg_frame_free(&f);
		}
		p = next;
	}
}

/* Feeds one stripped line to the traceback state machine. Returns true
 * when the line belongs to the traceback (so it cannot be an exception
 * line). */
static bool tb_feed(scanner *sc, const char *s, size_t n, long line)
{
	/* CPython's implicit chaining (traceback.py _context_message) */
	if (memmem(s, n, "During handling of the above exception", 38)) {
		sc->handling_line = line;
		return true;
	}
	const char *hdr = memmem(s, n, "Traceback (most recent call last)", 33);
	if (hdr) {
		tb_reset(sc, line, true);
		/* a traceback pasted on one line: its frames follow the header */
		const char *rest = hdr + 33;
		if (memmem(rest, (size_t)(s + n - rest), "File \"", 6)) {
			tb_joined(sc, rest, (size_t)(s + n - rest));
			/* the exception text after the last frame is on this line:
			 * the traceback ends here and the OOM scan sees the line */
			sc->tb_active = false;
			sc->tb_end_line = line;
			return false;
		}
		return true;
	}
	if (n >= 6 && (memmem(s, n < 64 ? n : 64, "File ", 5) || memmem(s, n, " in ", 4) ||
		       memmem(s, n < 64 ? n : 64, "Cell In[", 8))) {
		kg_frame f;
		if (kg_tb_parse_frame(s, n, &f)) {
			if (!sc->tb_active)
				tb_reset(sc, line, false);
			tb_push(sc, &f);
			sc->tb_expect_code = true;
			sc->tb_blank = 0;
			return true;
		}
	}
	if (!sc->tb_active)
		return false;
	const char *code;
	size_t codelen;
	long arrow = kg_tb_parse_arrow(s, n, &code, &codelen);
	if (arrow && sc->ntb) {
		kg_frame *f = &sc->tb[sc->ntb - 1];
		f->line = arrow;
		free(f->code);
		f->code = collapse(code, codelen, 300);
		sc->tb_expect_code = false;
		return true;
	}
	if (is_blank(s, n)) {
		if (++sc->tb_blank > 2)
			tb_end(sc, line);
		return true;
	}
	sc->tb_blank = 0;
	if (caret_line(s, n))
		return true;
	bool indented = s[0] == ' ' || s[0] == '\t';
	/* IPython context lines: "    107 " / "--> 109" handled above */
	if (indented || (sc->ntb && isdig(s[0]) && n > 4 && (s[1] == ' ' || isdig(s[1])))) {
		if (sc->tb_expect_code && sc->ntb && indented) {
			kg_frame *f = &sc->tb[sc->ntb - 1];
			free(f->code);
			f->code = collapse(s, n, 300);
			sc->tb_expect_code = false;
		}
		return true;
	}
	if (!sc->tb_header && sc->ntb && sc->tb_expect_code) {
		/* unindented code under a header-less frame (rank-prefixed logs) */
		kg_frame *f = &sc->tb[sc->ntb - 1];
		free(f->code);
		f->code = collapse(s, n, 300);
		sc->tb_expect_code = false;
		return true;
	}
	/* anything else ends the traceback: this is the exception line */
	tb_end(sc, line);
	return false;
}

/* Frames that belong to an exception whose message starts at `line`. */
static bool tb_available(const scanner *sc, long line)
{
	if (!sc->ntb)
		return false;
	if (sc->tb_active)
		return true;
	return sc->tb_end_line && line >= sc->tb_end_line && line - sc->tb_end_line <= 3;
}

/* ----------------------------------------------------------- incidents */

static kg_incident *incidents_of(scanner *sc, size_t *n)
{
	*n = sc->rep->nincidents - sc->first_incident;
	/* no array yet: NULL, not NULL + 0 (undefined in C) */
	return sc->rep->incidents ? sc->rep->incidents + sc->first_incident : NULL;
}

static bool size_conflict(kg_size a, kg_size b)
{
	return kg_size_known(a) && kg_size_known(b) && !kg_size_near(a, b);
}

static bool memory_conflict(const kg_memory *a, const kg_memory *b)
{
	return size_conflict(a->requested, b->requested) ||
	       size_conflict(a->total_capacity, b->total_capacity) ||
	       size_conflict(a->free, b->free) || size_conflict(a->allocated, b->allocated) ||
	       size_conflict(a->reserved, b->reserved) ||
	       size_conflict(a->reserved_unallocated, b->reserved_unallocated);
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void fill_size(kg_size *dst, kg_size src)
{
	if (!kg_size_known(*dst) && kg_size_known(src))
		*dst = src;
}

/* Whether p, an earlier incident, is a bare line (no framework, no
 * figures: a report's title "CUDA_ERROR_OUT_OF_MEMORY", a driver's status
 * word) and n the message a framework printed after it: the same failure,
 * told better by n. */
static bool bare_before(const kg_incident *p, const kg_incident *n)
{
	return !p->framework && n->framework && strcmp(p->kind, "oom") == 0 && strcmp(n->kind, "oom") == 0 &&
	       !kg_size_known(p->mem.requested) && !kg_size_known(p->mem.total_capacity);
}

/* Folds `n` (just parsed) into an earlier incident when it is the same OOM
 * printed again (logger + traceback, a wrapper re-raising, a library line
 * and its framework's error). Returns the incident folded into, or NULL. */
static kg_incident *find_fold(scanner *sc, const kg_incident *n)
{
	size_t cnt;
	kg_incident *v = incidents_of(sc, &cnt);
	/* the same OOM is printed again within a few incidents, not hundreds */
	size_t stop = cnt > 64 ? cnt - 64 : 0;
	for (size_t k = cnt; k-- > stop;) {
		kg_incident *p = &v[k];
		long dist = n->line - p->line;
		if (dist > FOLD_LINES_SAME_TEXT)
			break;
		if (p->rank != n->rank || p->step != n->step || p->epoch != n->epoch)
			continue;
		if (p->header)
			continue; /* new_incident's: the message takes its place */
		/* a line no grammar knows: the message a grammar reads near it,
		 * before or after */
		bool p_unknown = !strcmp(p->kind, "oom-unrecognized"), n_unknown = !strcmp(n->kind, "oom-unrecognized");
		if ((p_unknown || n_unknown || bare_before(p, n)) && dist <= FOLD_LINES_RELATED)
			return p;
		if (p->device_index != KG_NONE && n->device_index != KG_NONE &&
		    p->device_index != n->device_index)
			continue;
		if (same_str(p->message, n->message))
			return p;
		if (dist <= FOLD_LINES_RELATED && same_str(p->framework, n->framework) &&
		    !memory_conflict(&p->mem, &n->mem) &&
		    (kg_size_near(p->mem.requested, n->mem.requested) ||
		     !kg_size_known(p->mem.requested) || !kg_size_known(n->mem.requested) ||
		     (!strcmp(p->kind, "oom-warning") && !strcmp(n->kind, "oom-warning"))))
			return p;
	}
	return NULL;
}

/* The incident n takes p's place (p stood on a traceback header or an
 * unknown line, n is the message a grammar read): p keeps its id, counts,
 * follow-ups, and its frames when n has none; the rest of p goes to n, to
 * be freed with it. */
static void adopt(kg_incident *p, kg_incident *n)
{
	kg_incident old = *p;
	*p = *n;
	if (!old.header && !p->folded) {
		p->folded = old.message; /* the unknown line's text: to be read with it */
		old.message = NULL;
	}
	p->id = old.id;
	/* a report's sentence told the failure, it is no copy of the message */
	p->duplicates = old.duplicates + !(old.header || old.prose);
	p->ooms_before = old.ooms_before;
	p->repeats_before = old.repeats_before;
	p->followups = old.followups;
	p->nfollowups = old.nfollowups;
	old.followups = NULL;
	old.nfollowups = 0;
	if (!p->nframes && old.nframes) {
		p->frames = old.frames;
		p->nframes = old.nframes;
		p->phase = old.phase;
		p->phase_source = old.phase_source;
		old.frames = NULL;
		old.nframes = 0;
	}
	if (!p->alloc_conf && old.alloc_conf) {
		p->alloc_conf = old.alloc_conf;
		p->alloc_conf_var = old.alloc_conf_var;
		p->alloc_conf_line = old.alloc_conf_line;
		old.alloc_conf = old.alloc_conf_var = NULL;
	}
	*n = old;
}

static void fold_into(kg_incident *p, kg_incident *n)
{
	if ((!strcmp(p->kind, "oom-unrecognized") && strcmp(n->kind, "oom-unrecognized") != 0) || bare_before(p, n)) {
		adopt(p, n);
		return;
	}
	if (!n->prose)
		p->duplicates++;
	if (!strcmp(n->kind, "oom-unrecognized") && strcmp(p->kind, "oom-unrecognized") != 0 && !p->folded) {
		p->folded = n->message; /* the unknown line after the message */
		n->message = NULL;
	}
	if (!strcmp(p->kind, "oom-warning") && !strcmp(n->kind, "oom")) {
		/* the allocator's warning came first; the error is the incident */
		p->kind = "oom";
		p->family = n->family;
		if (kg_size_known(n->mem.requested))
			p->mem.requested = n->mem.requested;
	}
	kg_memory *a = &p->mem;
	const kg_memory *b = &n->mem;
	fill_size(&a->requested, b->requested);
	fill_size(&a->total_capacity, b->total_capacity);
	fill_size(&a->free, b->free);
	fill_size(&a->allocated, b->allocated);
	fill_size(&a->reserved, b->reserved);
	fill_size(&a->reserved_unallocated, b->reserved_unallocated);
	fill_size(&a->process_in_use, b->process_in_use);
	fill_size(&a->allowed, b->allowed);
	fill_size(&a->private_pools, b->private_pools);
	fill_size(&a->other_allocations, b->other_allocations);
	if (!a->nprocs && b->nprocs) {
		a->procs = n->mem.procs;
		a->nprocs = n->mem.nprocs;
		n->mem.procs = NULL;
		n->mem.nprocs = 0;
	}
	if (!p->tensor && n->tensor) {
		p->tensor = n->tensor;
		n->tensor = NULL;
	}
	if (!p->status && n->status) {
		p->status = n->status;
		n->status = NULL;
	}
	if (p->device_index == KG_NONE)
		p->device_index = n->device_index;
	if (!p->device_type)
		p->device_type = n->device_type;
	if (!p->nframes && n->nframes) {
		p->frames = n->frames;
		p->nframes = n->nframes;
		n->frames = NULL;
		n->nframes = 0;
		p->phase = n->phase;
		p->phase_source = n->phase_source;
	}
	if (!p->phase) {
		p->phase = n->phase;
		p->phase_source = n->phase_source;
	}
}

static void add_followup(kg_incident *inc, const char *kind, long line, const char *text, size_t n)
{
	for (size_t i = 0; i < inc->nfollowups; i++)
		if (!strcmp(inc->followups[i].kind, kind))
			return; /* one of each kind, the first */
	if (inc->nfollowups >= MAX_FOLLOWUPS)
		return;
	inc->followups = kg_realloc(inc->followups, (inc->nfollowups + 1) * sizeof *inc->followups);
	inc->followups[inc->nfollowups++] = (kg_followup){kind, line, collapse(text, n, 300)};
}

static void resolve_context(scanner *sc, bool phase);
static const char *raw_line(const scanner *sc);

/* The time stamp of the line being processed: its envelope's, or an ISO
 * time at the start of the raw line (alone or in "[…]"), into t[40]. */
static void line_time(scanner *sc, long lineno, char *t)
{
	const char *et = sc->env ? kg_envelope_time(sc->env, lineno) : NULL;
	if (et) {
		snprintf(t, 40, "%s", et);
		return;
	}
	const char *s = raw_line(sc);
	size_t n = sc->cur_end > sc->cur_off ? sc->cur_end - sc->cur_off : 0;
	if (!s)
		return;
	size_t i = 0;
	long task;
	if (sc->labels) {
		/* after an srun --label label, read as it is (strip_line) */
		i = kg_envelope_slurm_label(s, n, &task);
	} else if (n > 8 && !memcmp(s, "[rank", 5)) {
		/* after a rank label (torchrun's, or srun --label decoded by
		 * envelope.c) */
		const char *e = memchr(s, ']', n < 16 ? n : 16);
		i = e && (size_t)(e - s) + 2 < n && e[1] == ':' ? (size_t)(e - s) + 2 + (e[2] == ' ') : 0;
	}
	if (i < n && s[i] == '[')
		i++;
	size_t k = iso_timestamp(s + i, n - i);
	if (k >= 19 && k < 40) {
		memcpy(t, s + i, k);
		t[k] = '\0';
	}
}

static void resolve_progress(struct reader *rd, bool labels, size_t off, long lineno, kg_incident *inc);

static void new_incident(scanner *sc, const line_rec *L, kg_oom *o, const char *win)
{
	resolve_context(sc, true);
	kg_incident inc;
	kg_incident_init(&inc);
	if (sc->rd)
		resolve_progress(sc->rd, sc->labels, sc->cur_off, L->lineno, &inc);
	inc.kind = o->kind ? o->kind : "oom";
	inc.header = o->header;
	inc.prose = o->prose;
	inc.family = o->family;
	inc.framework = o->framework;
	inc.device_type = o->device_type;
	inc.device_index = o->device_index;
	inc.mem = o->mem;
	o->mem.procs = NULL;
	o->mem.nprocs = 0;
	inc.tensor = o->tensor;
	o->tensor = NULL;
	inc.status = o->status;
	o->status = NULL;
	inc.path = kg_strdup(sc->name);
	inc.line = L->lineno;
	line_time(sc, L->lineno, inc.time);
	inc.rank = L->rank;
	inc.step = sc->step;
	inc.epoch = sc->epoch;
	inc.message = collapse(win + o->start, o->end - o->start, MAX_MESSAGE);
	if (sc->conf_var) {
		inc.alloc_conf_var = kg_strdup(sc->conf_var);
		inc.alloc_conf = kg_strdup(sc->conf_value);
		inc.alloc_conf_line = sc->conf_line;
	}
	if (tb_available(sc, L->lineno)) {
		inc.frames = sc->tb;
		inc.nframes = sc->ntb;
		sc->tb = NULL;
		sc->ntb = 0;
		inc.during_handling_line = sc->tb_handling;
	}
	inc.phase = kg_tb_phase(inc.frames, inc.nframes);
	inc.log_train = sc->log_phase == KG_MODE_WORD(TRAIN);
	if (inc.phase) {
		inc.phase_source = "frames";
	} else if (sc->log_phase && sc->log_phase != KG_MODE_WORD(TRAIN)) {
		inc.phase = sc->log_phase;
		inc.phase_source = "log";
	}

	/* a traceback header that named the OOM (the input's last incident):
	 * this message, however many frames later, is its own; it takes the
	 * header's place, or, when it is a copy of an earlier OOM, the header
	 * goes with it */
	kg_incident *hdr = NULL;
	if (!inc.header && strcmp(inc.kind, "oom-unrecognized") != 0 &&
	    sc->rep->nincidents > sc->first_incident) {
		kg_incident *last = &sc->rep->incidents[sc->rep->nincidents - 1];
		if (last->header && last->rank == inc.rank && inc.line - last->line <= FOLD_LINES_SAME_TEXT)
			hdr = last;
	}
	kg_incident *p = inc.header ? NULL : find_fold(sc, &inc);
	if (p) {
		fold_into(p, &inc);
		kg_incident_free(&inc);
		if (hdr) {
			kg_incident_free(hdr);
			sc->rep->nincidents--;
		}
		return;
	}
	if (hdr) {
		adopt(hdr, &inc);
		kg_incident_free(&inc);
		return;
	}
	for (size_t i = 0; i < sc->npending; i++) {
		kg_followup *f = &sc->pending[i];
		if (L->lineno - f->line <= 20)
			add_followup(&inc, f->kind, f->line, f->text, strlen(f->text));
		free(f->text);
	}
	sc->npending = 0;
	kg_report *r = sc->rep;
	if (r->nincidents - sc->first_incident >= KG_MAX_INCIDENTS) {
		/* a retry loop printing thousands of distinct OOMs: keep the
		 * first KG_MAX_INCIDENTS, count the rest (memory stays bounded) */
		if (!sc->dropped++)
			sc->first_dropped = L->lineno;
		kg_incident_free(&inc);
		return;
	}
	/* earlier OOMs of this input, and those with the very same message:
	 * only for a kept incident (at most KG_MAX_INCIDENTS compared), so a
	 * retry loop of 100,000 distinct OOMs stays linear */
	{
		size_t cnt;
		kg_incident *v = incidents_of(sc, &cnt);
		inc.ooms_before = (int)cnt;
		for (size_t k = 0; k < cnt; k++)
			inc.repeats_before += same_str(v[k].message, inc.message);
	}
	if (r->nincidents == r->incidents_cap) {
		r->incidents_cap = r->incidents_cap ? 2 * r->incidents_cap : 16;
		r->incidents = kg_realloc(r->incidents, r->incidents_cap * sizeof *r->incidents);
	}
	inc.id = (int)r->nincidents + 1;
	r->incidents[r->nincidents++] = inc;
}

/* Builds the parse window for the processed line (lines[0]): the line itself
 * plus up to KG_OOM_WINDOW_LINES-1 following lines whose leading blanks and
 * '#' comment markers are dropped (wrapped messages pasted into comments).
 * starts[k] is the window offset of line k. */
static size_t build_window(scanner *sc, kg_buf *win, size_t *starts, size_t *nlines)
{
	kg_buf_reset(win);
	size_t k = 0;
	for (size_t j = 0; j < sc->count && k < KG_OOM_WINDOW_LINES; j++, k++) {
		line_rec *L = rec_at(sc, j);
		const char *s = L->text.data ? L->text.data : "";
		size_t n = L->text.len;
		if (k > 0) {
			if (win->len >= KG_OOM_WINDOW_BYTES)
				break;
			kg_buf_putc(win, '\n');
			while (n && (*s == ' ' || *s == '\t' || *s == '#')) {
				s++;
				n--;
			}
			if (n > KG_OOM_WINDOW_BYTES)
				n = KG_OOM_WINDOW_BYTES;
		}
		starts[k] = win->len;
		kg_buf_append(win, s, n);
	}
	*nlines = k;
	return k ? rec_at(sc, 0)->text.len : 0;
}

static const char *prev_line(struct reader *rd, size_t off, size_t *len);

/* memory_summary() tables printed into the log (torch/cuda/memory.py):
 * collected from the "|====" rule above the title to the closing rule, then
 * parsed by summary.c into the report's snapshots[]. A table pasted on one
 * line with literal "\n" is parsed from that line. */
static void summary_finish(scanner *sc)
{
	sc->summary_active = false;
	kg_error e = {0};
	char name[600];
	snprintf(name, sizeof name, "%s:%ld", sc->name, sc->summary_line);
	kg_snapshot *o = kg_summary_parse(sc->summary.data, sc->summary.len, name, &e);
	if (o)
		kg_report_add_snapshot(sc->rep, o);
	else
		kg_report_note(sc->rep, "%s:%ld: memory_summary table not read: %s", sc->name,
			       sc->summary_line + (e.line > 0 ? e.line - 1 : 0), e.msg);
	kg_buf_reset(&sc->summary);
}

static void summary_start(scanner *sc, const char *s, size_t n, long line)
{
	if (memmem(s, n, "\\n|", 3)) {
		/* pasted on one line */
		kg_buf_reset(&sc->summary);
		kg_buf_append(&sc->summary, s, n);
		sc->summary_line = line;
		summary_finish(sc);
		return;
	}
	kg_buf_reset(&sc->summary);
	sc->summary_line = line;
	sc->summary_rules = 0;
	/* the rule line above the title */
	struct reader *rd = sc->rd;
	if (rd && sc->cur_off > 0) {
		size_t pl;
		const char *p = prev_line(rd, sc->cur_off, &pl);
		if (p && pl > 4) {
			char tmp[512];
			size_t m = pl < sizeof tmp ? pl : sizeof tmp - 1;
			memcpy(tmp, p, m);
			int64_t r = KG_NONE;
			m = strip_line(tmp, m, &r, sc->labels);
			size_t ind = 0;
			while (ind < m && (tmp[ind] == ' ' || tmp[ind] == '\t'))
				ind++;
			if (m - ind > 4 && !memcmp(tmp + ind, "|===", 4)) {
				kg_buf_append(&sc->summary, tmp + ind, m - ind);
				kg_buf_putc(&sc->summary, '\n');
				sc->summary_line = line - 1;
				sc->summary_rules = 1;
			}
		}
	}
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	kg_buf_append(&sc->summary, s, n);
	kg_buf_putc(&sc->summary, '\n');
	sc->summary_active = true;
}


#define READINGS_ALL 4096        /* parse every reading up to this many … */
#define READING_STRIDE (64u << 10) /* … then at most one per 64 KiB of input */
#define NEAR_READING_STRIDE (4u << 10) /* near an OOM past the head: one per 4 KiB */

static void load_window(scanner *sc);

/* The grammars over the line's window; when none reads the line and it
 * is not inside a traceback (a frame or its source: in_tb), the safety net
 * (kg_oom_unrecognized) on the line alone. */
static void scan_oom(scanner *sc, kg_buf *win, bool in_tb)
{
	line_rec *L = rec_at(sc, 0);
	if (L->lineno <= sc->consumed_until && sc->consumed_until)
		return;
	if (!kg_oom_candidate(L->text.data, L->text.len))
		return;
	bool read = false; /* a grammar read the line */
	load_window(sc);
	size_t starts[KG_OOM_WINDOW_LINES], nlines = 0;
	size_t first_len = build_window(sc, win, starts, &nlines);
	size_t off = 0;
	while (off < first_len) {
		kg_oom o;
		memset(&o, 0, sizeof o);
		if (!kg_oom_parse(win->data + off, win->len - off, first_len - off, &o))
			break;
		o.start += off;
		o.end += off;
		/* which line did the message end on? */
		size_t last = 0;
		for (size_t k = 0; k < nlines; k++)
			if (starts[k] < o.end)
				last = k;
		if (last > 0)
			sc->consumed_until = rec_at(sc, last)->lineno;
		new_incident(sc, L, &o, win->data);
		size_t next = o.end > off ? o.end : off + 1;
		kg_oom_free(&o);
		off = next;
		read = true;
	}
	kg_oom o;
	const char *raw = raw_line(sc);
	size_t rawn = raw ? sc->cur_end - sc->cur_off : 0;
	if (rawn > (64u << 10))
		rawn = 64u << 10; /* the prefix is at the start */
	if (!read && !in_tb &&
	    kg_oom_unrecognized(L->text.data, L->text.len, raw, rawn, sc->tb_end_line == L->lineno, &o)) {
		new_incident(sc, L, &o, L->text.data);
		kg_oom_free(&o);
	}
}

static void handle_followup(scanner *sc, const char *kind, const line_rec *L)
{
	size_t cnt;
	kg_incident *v = incidents_of(sc, &cnt);
	/* the latest incident on the same rank (or any rank when unknown) */
	for (size_t k = cnt; k-- > 0;) {
		if (v[k].rank == L->rank || L->rank == KG_NONE || v[k].rank == KG_NONE) {
			add_followup(&v[k], kind, L->lineno, L->text.data, L->text.len);
			return;
		}
	}
	if (sc->npending < MAX_FOLLOWUPS) {
		sc->pending[sc->npending++] =
			(kg_followup){kind, L->lineno, collapse(L->text.data, L->text.len, 300)};
	}
}

static void process(scanner *sc, uint32_t cls, kg_buf *win)
{
	line_rec *L = rec_at(sc, 0);
	const char *s = L->text.data ? L->text.data : "";
	size_t n = L->text.len;

	if (sc->summary_active) {
		/* a table may be indented (printed inside a block): the rows
		 * are read without their indentation; a table that runs on (a
		 * markdown table after the title) ends at the bound: it is
		 * neither collected nor processed in full for the rest of the log */
		size_t ind = 0;
		while (ind < n && (s[ind] == ' ' || s[ind] == '\t'))
			ind++;
		if (ind < n && s[ind] == '|' && L->lineno - sc->summary_line < SUMMARY_LINES) {
			kg_buf_append(&sc->summary, s + ind, n - ind);
			kg_buf_putc(&sc->summary, '\n');
			if (n - ind > 4 && !memcmp(s + ind, "|===", 4) && ++sc->summary_rules >= 3)
				summary_finish(sc);
			return;
		}
		summary_finish(sc);
	}
	if ((cls & A_CTX) && n > 14 && memmem(s, n, "memory summary", 14))
		summary_start(sc, s, n, L->lineno);
	/* a notebook's traceback (logfacts.h markers) */
	if (sc->lf && !sc->lf->markers.notebook_line && (cls & (A_TB | A_CTX)) &&
	    (memmem(s, n, "<ipython-input-", 15) || memmem(s, n, "Cell In[", 8)))
		sc->lf->markers.notebook_line = L->lineno;
	bool in_tb = (cls & A_TB) || sc->tb_active ? tb_feed(sc, s, n, L->lineno) : false;

	/* step, epoch and the log's phase words are resolved lazily, when an
	 * incident or a reading needs them (resolve_counters / resolve_phase) */
	size_t nread = 0; /* memory readings on this line */
	if (!in_tb && n && (cls & A_READ) && sc->lf) {
		kg_log_reading rdg[8];
		nread = kg_parse_readings(s, n, rdg, 8);
		if (nread)
			resolve_context(sc, false);
		for (size_t i = 0; i < nread; i++) {
			rdg[i].rank = L->rank;
			kg_log_facts_add_reading(sc->lf, &rdg[i], sc->step, sc->epoch, L->lineno);
		}
		/* while the head waits (lazy_replay), a probed line is read for
		 * its readings alone: one without any is read again, in full,
		 * once the head has been */
		if (sc->lazy && !nread) {
			sc->lazy_miss = true;
			return;
		}
	}
	/* platform markers, and TensorFlow's start-up lines ("totalMemory: …
	 * freeMemory: …", "… with N MB memory"), which are reading-class
	 * lines that hold no reading */
	if (!in_tb && n && sc->lf && ((cls & A_CTX) || ((cls & A_READ) && !nread)))
		kg_parse_marker(s, n, L->lineno, &sc->lf->markers);
	if (!in_tb && n && (cls & A_CTX)) {
		char *var, *val;
		if (kg_ctx_alloc_conf(s, n, &var, &val)) {
			free(sc->conf_var);
			free(sc->conf_value);
			sc->conf_var = var;
			sc->conf_value = val;
			sc->conf_line = L->lineno;
		}
		if (sc->lf) {
			int64_t jobs;
			const char *kind;
			if (kg_parse_parallel_hint(s, n, &jobs, &kind))
				kg_log_facts_add_parallel(sc->lf, jobs, kind, L->lineno);
		}
		char *cp;
		if (!sc->rep->echoed_config && kg_ctx_config_path(s, n, &cp)) {
			sc->rep->echoed_config = cp;
			sc->rep->echoed_config_where = kg_asprintf("%s:%ld", sc->name, L->lineno);
		}
		int64_t rk;
		int rc = kg_ctx_root_cause(s, n, &rk);
		if (rc == 1) {
			sc->root_cause_open = true;
			sc->root_cause_line = L->lineno;
		} else if (rc == 2 && sc->root_cause_open &&
			   L->lineno - sc->root_cause_line <= ROOT_CAUSE_LINES) {
			sc->rep->root_cause_rank = rk;
			sc->root_cause_open = false;
		}
	}
	/* batch settings and signs have atoms of their own, so a line with
	 * "batch" or "during" runs only its reader, not every context one */
	if (!in_tb && n && sc->lf && (cls & A_SIGN))
		kg_parse_signs(s, n, L->lineno, &sc->lf->markers);
	if (!in_tb && n && sc->lf && (cls & A_BATCH)) {
		kg_log_setting bh[4];
		int nb = kg_parse_settings(s, n, bh, 4);
		for (int k = 0; k < nb; k++) {
			kg_log_facts_add_setting(sc->lf, &bh[k], L->lineno);
			/* jobs per device, however the log names them */
			if (!strcmp(bh[k].role, "parallel_jobs"))
				kg_log_facts_add_parallel(sc->lf, (int64_t)bh[k].value, "parallel_jobs", L->lineno);
		}
	}
	if (n && sc->lf && ((cls & A_MODEL) || ((cls & A_READ) && !nread)))
		kg_parse_modelinfo(s, n, L->lineno, kg_log_facts_models(sc->lf));
	const char *fk = n && (cls & A_CTX) ? kg_ctx_followup(s, n) : NULL;
	size_t before = sc->rep->nincidents;
	if (cls & A_OOM)
		scan_oom(sc, win, in_tb);
	if (fk && sc->rep->nincidents == before)
		handle_followup(sc, fk, L);
}

/* --------------------------------------------------------------- reader */


/* Two tiers (issue 30). Everything the diagnosis reads around an OOM (the
 * traceback, the settings and tables pasted with it, the reporter's words,
 * batch settings, parallelism hints) only matters where there is an OOM, so
 * the scanner reads it in full only in the log's head (HEAD_FULL bytes:
 * command lines, configs, banners; once an OOM follows it when the caller
 * allows: lazy_start) and near each OOM trigger (NEAR_BEFORE
 * bytes before its line, more while a traceback goes on, and NEAR_AFTER
 * after it: follow-ups). Everywhere else, tier 1 looks only for what starts
 * an incident or must be read wherever it is: the grammars' trigger
 * literals, torchelastic's root-cause block and memory_summary() tables
 * (atomtab.h: KG_TIER1_ATOMS); and for one memory reading per PROBE_STRIDE, probing the
 * PROBE_BYTES after each stride mark (readings over the whole log show
 * growth). A log without an OOM pays for the triggers alone. */
#define HEAD_FULL (256u << 10)
#define NEAR_BEFORE (8u << 10)
#define NEAR_AFTER (4u << 10)
#define TB_BEFORE_MAX (512u << 10) /* how far back a traceback is followed */
#define PROBE_BYTES (8u << 10)
#define PROBE_STRIDE (1u << 20) /* tier 1: a reading probe per MiB */
#define LAZY_LINE_MAX (64u << 10) /* the head's last line, longer: read eagerly */

/* The atom sets, placed at build time (atoms.c: kg_atoms_place_scanner,
 * the generator writes kg_atoms_placed.h): every atom (tier 2), all but
 * the reading-only ones (tier 2 while readings are being skipped), the
 * triggers and the tier-1 atoms (tier 1), and those with the reading
 * atoms (tier 1 probing for a reading). */
#include "kg_atoms_placed.h"
static const kg_atoms *const atoms = &kg_atoms_placed[KG_ATOMS_FULL];

const kg_atoms *kg_scan_atoms(void)
{
	return atoms;
}

static const kg_atoms *quiet_atoms(void)
{
	return &kg_atoms_placed[KG_ATOMS_QUIET];
}

/* The tier-1 set, or with `probe` the same plus the reading atoms. */
static const kg_atoms *tier1_atoms(bool probe)
{
	return &kg_atoms_placed[probe ? KG_ATOMS_TIER1_READ : KG_ATOMS_TIER1];
}

#define BUF_CHUNK (4u << 20)        /* read size */
#define HISTORY (1u << 20)          /* bytes kept behind the frontier */
#define PHASE_LOOKBACK 200          /* lines searched back for a phase word */
#define PROGRESS_LOOKBACK 50        /* lines searched back for a progress line */
#define COUNTER_LOOKBACK 3000     /* lines searched back for step/epoch */

/* Lines are views into the buffer; the ones that need processing are copied
 * into `lines` (noise-stripped) right before process() sees them. */
static void load_line(scanner *sc, size_t idx, const char *p, size_t n, long lineno)
{
	line_rec *L = rec_at(sc, idx);
	kg_buf_reset(&L->text);
	bool truncated = false;
	if (n && p[n - 1] == '\r')
		n--;
	if (n > KG_MAX_LINE) {
		n = KG_MAX_LINE;
		truncated = true;
	}
	kg_buf_append(&L->text, p, n);
	L->rank = KG_NONE;
	L->text.len = strip_line(L->text.data, L->text.len, &L->rank, sc->labels);
	L->lineno = lineno;
	L->truncated = truncated;
}

typedef struct reader {
	char *buf;
	size_t len, cap;
	size_t mapped;          /* bytes mapped at map (reader_alloc), 0 if malloc'd */
	char *map;              /* the mapping; buf is past it by a pinned head (slide) */
	size_t base;            /* bytes of input before buf[0] */
	size_t pos;             /* frontier: next unprocessed line starts here */
	long pos_line;          /* line number at pos */
	bool eof;
	/* cache of resolve_counters: the answer for input before ctr_until,
	 * found from the line at ctr_from */
	size_t ctr_until, ctr_from;
	int64_t ctr_step, ctr_epoch;
	/* cache of resolve_phase: the nearest marker before ph_until */
	size_t ph_until;
	const char *ph_phase;
	long ph_line;
} reader;

#define BUF_FULL (BUF_CHUNK + HISTORY + KG_MAX_LINE + 64) /* the buffer for a large input */
#define BUF_SMALL_SLACK ((64u << 10) + 65) /* room past a small file's bytes */

/* Gives rd a buffer of cap bytes. The full-size one is mapped in 2 MiB
 * huge pages where the kernel gives them (MADV_HUGEPAGE; transparent huge
 * pages in "madvise" mode), so filling its 6 MiB costs a few page faults,
 * not ~1,500 (each 12 µs on a VM). Small buffers come from malloc. */
static void reader_alloc(reader *rd, size_t cap)
{
	rd->cap = cap;
	rd->mapped = 0;
#ifdef MADV_HUGEPAGE
	if (cap >= KG_HUGE_PAGE) {
		size_t sz = (cap + KG_HUGE_PAGE - 1) & ~(size_t)(KG_HUGE_PAGE - 1);
		char *p = mmap(NULL, sz + KG_HUGE_PAGE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED) {
			/* align to a huge page, give back the ends */
			char *a = (char *)(((uintptr_t)p + KG_HUGE_PAGE - 1) & ~(uintptr_t)(KG_HUGE_PAGE - 1));
			if (a > p)
				munmap(p, (size_t)(a - p));
			if (p + sz + KG_HUGE_PAGE > a + sz)
				munmap(a + sz, (size_t)(p + sz + KG_HUGE_PAGE - (a + sz)));
			(void)madvise(a, sz, MADV_HUGEPAGE); /* a hint: 4 KiB pages without */
			rd->buf = rd->map = a;
			rd->mapped = sz;
			return;
		}
	}
#endif
	rd->buf = kg_malloc(cap);
}

static void reader_free(reader *rd)
{
	if (rd->mapped)
		munmap(rd->map, rd->mapped);
	else
		free(rd->buf);
	rd->buf = NULL;
}

/* Buffer for src: a regular file (not gzip) that fits in less than the
 * full buffer gets one of its size plus BUF_SMALL_SLACK, so a short log
 * touches a page or two; reader_grow enlarges it if the file grows. */
static void reader_init(reader *rd, const kg_source *src)
{
	size_t cap = BUF_FULL;
	if (!src->gzip && src->file_size >= 0 &&
	    (uint64_t)src->file_size + BUF_SMALL_SLACK < BUF_FULL)
		cap = (size_t)src->file_size + BUF_SMALL_SLACK;
	reader_alloc(rd, cap);
}

/* A small buffer that is nearly full with input still coming (the file
 * grew after it was opened) becomes a full-size one. */
static void reader_grow(reader *rd)
{
	if (rd->eof || rd->cap >= BUF_FULL || rd->len + (64u << 10) + 1 < rd->cap)
		return;
	reader old = *rd;
	reader_alloc(rd, BUF_FULL);
	memcpy(rd->buf, old.buf, old.len);
	reader_free(&old);
}

static const char *line_end(const reader *rd, size_t from, size_t limit)
{
	const char *nl = memchr(rd->buf + from, '\n', limit - from);
	return nl ? nl : rd->buf + limit;
}

/* The last '\n' in buf[0..e), or NULL: memrchr in windows of 4 KiB from
 * the end, so a search costs the distance to the newline, not e (ASan's
 * memrchr checks the whole region it is given first, which made each
 * lookback cost the kept history: 100,000 OOMs took minutes under ASan). */
static const char *last_nl(const char *buf, size_t e)
{
	while (e) {
		size_t w = e < 4096 ? e : 4096;
		const char *nl = memrchr(buf + e - w, '\n', w);
		if (nl)
			return nl;
		e -= w;
	}
	return NULL;
}

/* The line before the one starting at off (without its '\n'), or NULL. */
static const char *prev_line(struct reader *rd, size_t off, size_t *len)
{
	if (off == 0)
		return NULL;
	size_t e = off - 1; /* its '\n' */
	const char *nl = last_nl(rd->buf, e);
	size_t b = nl ? (size_t)(nl - rd->buf) + 1 : 0;
	*len = e - b;
	if (*len && rd->buf[b + *len - 1] == '\r')
		(*len)--;
	return rd->buf + b;
}

/* Step and epoch at the current line: the nearest `step N` / `epoch N`
 * (and forms, context.c) searching back from it, within the kept history
 * and at most COUNTER_LOOKBACK lines. The answer is cached with the input
 * offset it holds for, so the next search only reads the lines since then
 * (a log printing a reading on every line does not rescan its history). */
/* Whether s[0..n) has a word kg_ctx_counters looks for. */
static bool counter_words(const char *s, size_t n)
{
	return kg_memcasemem(s, n, "step", 4) || kg_memcasemem(s, n, "epoch", 5) ||
	       kg_memcasemem(s, n, "iter", 4);
}

static void resolve_counters(scanner *sc, reader *rd)
{
	size_t start = sc->cur_end ? sc->cur_end : sc->cur_off;
	size_t abs_start = rd->base + start;
	int64_t step = KG_NONE, epoch = KG_NONE;
	bool have_step = false, have_epoch = false;
	/* past the head, an answer found in the head is not reused: the head
	 * may be read after the lines past it (lazy_replay), so the lines
	 * past it must not depend on it; searching back finds the same
	 * counter lines unless they are COUNTER_LOOKBACK lines away */
	size_t until = rd->ctr_until;
	if (rd->base + sc->cur_off >= HEAD_FULL && rd->ctr_from < HEAD_FULL)
		until = 0;
	size_t end = start;
	char tmp[1024];
	for (int k = 0; k < COUNTER_LOOKBACK && end > 0 && !(have_step && have_epoch); k++) {
		size_t e = end - (rd->buf[end - 1] == '\n');
		const char *nl = last_nl(rd->buf, e);
		size_t b = nl ? (size_t)(nl - rd->buf) + 1 : 0;
		if (rd->base + b < until) {
			/* the previous answer covers everything before here */
			if (!have_step)
				step = rd->ctr_step, have_step = true;
			if (!have_epoch)
				epoch = rd->ctr_epoch, have_epoch = true;
			break;
		}
		const char *p = rd->buf + b;
		size_t n = e - b;
		/* only the line's first sizeof tmp - 1 bytes are parsed, so only
		 * they are searched (a tqdm line of \r redraws can be 100 KiB),
		 * and only for the words of the counters still missing (once a
		 * step is found, most lines have one: only "epoch" matters);
		 * a line with an escape sequence there, which stripping could
		 * join into a word, is taken whenever it has any of them */
		size_t cap = n < sizeof tmp - 1 ? n : sizeof tmp - 1;
		bool go;
		if (!n)
			go = false;
		else if (memchr(p, 0x1b, cap))
			go = counter_words(p, n);
		else
			go = (!have_step && (kg_memcasemem(p, cap, "step", 4) || kg_memcasemem(p, cap, "iter", 4))) ||
			     (!have_epoch && kg_memcasemem(p, cap, "epoch", 5));
		if (go) {
			n = cap; /* kg_strip_noise writes a NUL after the line */
			memcpy(tmp, p, n);
			int64_t r = KG_NONE;
			n = strip_line(tmp, n, &r, sc->labels);
			int64_t st = KG_NONE, ep = KG_NONE;
			kg_ctx_counters(tmp, n, &st, &ep);
			if (!have_step && st != KG_NONE)
				step = st, have_step = true;
			if (!have_epoch && ep != KG_NONE)
				epoch = ep, have_epoch = true;
		}
		if (!nl)
			break;
		end = b;
	}
	sc->step = step;
	sc->epoch = epoch;
	rd->ctr_until = abs_start;
	rd->ctr_from = rd->base + sc->cur_off;
	rd->ctr_step = step;
	rd->ctr_epoch = epoch;
}

/* Searches back from the line starting at `off` for the nearest phase word
 * (at most PHASE_LOOKBACK lines, within the kept history). */
static void resolve_phase(scanner *sc, reader *rd, size_t off, long lineno)
{
	sc->log_phase = NULL;
	size_t end = off;
	char tmp[2048];
	for (int k = 0; k < PHASE_LOOKBACK && end > 0; k++) {
		size_t e = end - 1; /* the '\n' ending the previous line */
		const char *nl = last_nl(rd->buf, e);
		size_t b = nl ? (size_t)(nl - rd->buf) + 1 : 0;
		if (rd->base + b < rd->ph_until) {
			/* searched before: the cached marker, if still in reach */
			if (rd->ph_phase && lineno - rd->ph_line <= PHASE_LOOKBACK)
				sc->log_phase = rd->ph_phase;
			break;
		}
		size_t n = e - b < sizeof tmp - 1 ? e - b : sizeof tmp - 1;
		memcpy(tmp, rd->buf + b, n);
		int64_t r = KG_NONE;
		n = strip_line(tmp, n, &r, sc->labels);
		const char *ph = kg_ctx_phase_marker(tmp, n);
		if (ph) {
			sc->log_phase = ph;
			rd->ph_phase = ph;
			rd->ph_line = lineno - 1 - k;
			break;
		}
		if (!nl)
			break;
		end = b;
	}
	if (rd->base + off > rd->ph_until) {
		if (!sc->log_phase)
			rd->ph_phase = NULL;
		rd->ph_until = rd->base + off;
	}
}

/* The last progress line (context.h kg_ctx_progress) among the
 * PROGRESS_LOOKBACK lines before the one starting at `off` (line
 * `lineno`), within the kept history, into inc->progress_*. A line of tqdm
 * redraws is read at its last \r segment. Runs once per incident. */
static void resolve_progress(struct reader *rd, bool labels, size_t off, long lineno, kg_incident *inc)
{
	char tmp[2048];
	size_t n;
	const char *p;
	for (int k = 0; k < PROGRESS_LOOKBACK && (p = prev_line(rd, off, &n)); k++) {
		off = (size_t)(p - rd->buf);
		/* the last redraw that holds something */
		while (n && (p[n - 1] == '\r' || p[n - 1] == ' '))
			n--;
		const char *cr = n ? memrchr(p, '\r', n) : NULL;
		if (cr) {
			n -= (size_t)(cr + 1 - p);
			p = cr + 1;
		}
		if (n > sizeof tmp - 1)
			n = sizeof tmp - 1;
		/* before copying and cleaning the line */
		if (!n || !kg_ctx_progress_maybe(p, n))
			continue;
		memcpy(tmp, p, n);
		int64_t r = KG_NONE;
		n = strip_line(tmp, n, &r, labels);
		int64_t d, t;
		const char *kind;
		if (kg_ctx_progress(tmp, n, &d, &t, &kind)) {
			inc->progress_done = d;
			inc->progress_total = t;
			inc->progress_kind = kind;
			inc->progress_line = lineno - 1 - k;
			return;
		}
	}
}

/* Copies one raw line (a bare CR splits progress-bar segments: the last
 * segment is kept for continuation lines) into lines[idx]. */
static void load_raw(scanner *sc, size_t idx, const char *p, size_t n, long ln, bool last_seg)
{
	if (last_seg && n) {
		const char *cr = memrchr(p, '\r', n - (p[n - 1] == '\r'));
		if (cr) {
			n -= (size_t)(cr + 1 - p);
			p = cr + 1;
		}
	}
	load_line(sc, idx, p, n, ln);
}

/* Loads the lines after the current one into `lines`, for the parse
 * window; done only when a line passes the grammars' prefilter. */
static void load_window(scanner *sc)
{
	reader *rd = sc->rd;
	if (sc->count > 1)
		return;
	size_t p = sc->cur_end;
	long ln = rec_at(sc, 0)->lineno + 1;
	for (int k = 1; k < KG_OOM_WINDOW_LINES && p < rd->len; k++) {
		const char *e = line_end(rd, p, rd->len);
		load_raw(sc, sc->count++, rd->buf + p, (size_t)(e - (rd->buf + p)), ln++, true);
		if (e >= rd->buf + rd->len)
			break;
		p = (size_t)(e - rd->buf) + 1;
	}
}

/* The least distance (input bytes) between two memory readings read at
 * input offset `at`, 0 for every one: in the head all of the first
 * READINGS_ALL, then one per READING_STRIDE; near an OOM past the head
 * (tier 2 there) one per NEAR_READING_STRIDE: the readings just before the
 * OOM, without parsing every step line of a log that prints one per step
 * (tier 1 samples the rest). */
static size_t reading_stride(const scanner *sc, size_t at)
{
	if (at >= HEAD_FULL)
		return NEAR_READING_STRIDE;
	return sc->readings_seen < READINGS_ALL ? 0 : READING_STRIDE;
}

/* Processes the line at buf[off..] whose atoms gave the classes cls. */
static void full_line(scanner *sc, reader *rd, size_t off, long lineno, uint32_t cls, kg_buf *win)
{
	const char *e = line_end(rd, off, rd->len);
	size_t n = (size_t)(e - (rd->buf + off));
	/* A_OOM comes from the grammars' own trigger literals, so it already
	 * means kg_oom_candidate would say yes */
	if (!(cls & A_ALL) && !sc->tb_active)
		return;
	if ((cls & A_READ) && !(cls & (A_OOM | A_TB | A_CTX | A_BATCH | A_SIGN | A_MODEL)) && !sc->tb_active) {
		/* readings: sampled (reading_stride) */
		/* past the head, only the readings past it count (the head
		 * may be read later: lazy_replay) */
		size_t stride = reading_stride(sc, rd->base + off);
		if (stride && rd->base + off - sc->last_reading_off < stride &&
		    !(rd->base + off >= HEAD_FULL && sc->last_reading_off < HEAD_FULL))
			return;
		sc->readings_seen++;
		sc->last_reading_off = rd->base + off;
	}
	sc->count = 0;
	sc->cur_off = off;
	sc->cur_end = e >= rd->buf + rd->len ? rd->len : (size_t)(e - rd->buf) + 1;
	load_raw(sc, sc->count++, rd->buf + off, n, lineno, false);
	line_rec *L = rec_at(sc, 0);
	if (L->truncated) {
		if (!sc->truncated_lines)
			sc->first_truncated = lineno;
		sc->truncated_lines++;
	}
	process(sc, sc->tb_active ? A_ALL : cls, win);
}

/* The raw bytes of the line being processed (in the reader's buffer). */
static const char *raw_line(const scanner *sc)
{
	return sc->rd ? sc->rd->buf + sc->cur_off : NULL;
}

static void resolve_context(scanner *sc, bool phase)
{
	resolve_counters(sc, sc->rd);
	if (phase)
		resolve_phase(sc, sc->rd, sc->cur_off, rec_at(sc, 0)->lineno);
}

/* Makes room: keeps HISTORY bytes of lines before the frontier (for the
 * lazy step/epoch and phase searches). pin: bytes at the buffer's front
 * left where they are (a head that waits: lazy_keep); the buffer then
 * starts past them. */
static void slide(reader *rd, size_t pin)
{
	size_t keep_from = rd->pos > HISTORY ? rd->pos - HISTORY : 0;
	char *to = rd->buf + pin;
	memmove(to, rd->buf + keep_from, rd->len - keep_from);
	rd->buf = to;
	rd->len -= keep_from;
	rd->pos -= keep_from;
	rd->base += keep_from;
}

/* How far lines may be processed now: up to the start of the line that
 * still lacks KG_OOM_WINDOW_LINES-1 complete lines after it (all of it at
 * end of input). */
static size_t safe_limit(const reader *rd)
{
	if (rd->eof)
		return rd->len;
	size_t e = rd->len;
	for (int k = 0; k < KG_OOM_WINDOW_LINES; k++) {
		const char *nl = e ? memrchr(rd->buf + rd->pos, '\n', e - rd->pos) : NULL;
		if (!nl)
			return rd->pos;
		e = (size_t)(nl - rd->buf);
		if (e <= rd->pos)
			return rd->pos;
	}
	return e + 1;
}

/* Buffer offset up to which reading lines are being skipped (sampling
 * after READINGS_ALL, or no log facts wanted); 0 when they are not. */
static size_t quiet_end(const scanner *sc, const reader *rd, size_t limit)
{
	if (!sc->lf)
		return limit;
	size_t stride = reading_stride(sc, rd->base + rd->pos);
	if (!stride)
		return 0;
	size_t end = sc->last_reading_off + stride;
	return end > rd->base ? end - rd->base : 0;
}

/* Whether a raw line belongs to a Python traceback's body: indented (a
 * frame or its code), the header, or a chained exception's joint, after
 * the noise a logger or launcher puts in front. */
static bool traceback_body(const char *p, size_t n, bool labels)
{
	char tmp[256];
	if (n > sizeof tmp - 1)
		n = sizeof tmp - 1;
	memcpy(tmp, p, n);
	int64_t r = KG_NONE;
	size_t m = strip_line(tmp, n, &r, labels);
	if (m && (tmp[0] == ' ' || tmp[0] == '\t'))
		return true;
	return (m >= 9 && !memcmp(tmp, "Traceback", 9)) || (m >= 6 && !memcmp(tmp, "During", 6)) ||
	       (m >= 14 && !memcmp(tmp, "The above exce", 14));
}

/* Tier 2 starts near an OOM trigger: the line at buf[ls] (line number
 * lineno) holds one. Puts the frontier NEAR_BEFORE bytes before it (at a
 * line start, never before the kept history or a region already read in
 * full), further back while a traceback goes on (at most TB_BEFORE_MAX),
 * and reads in full up to NEAR_AFTER bytes past the line's end. */
static void enter_near(scanner *sc, reader *rd, size_t ls, size_t le, long lineno)
{
	size_t lo = sc->full_done > rd->base ? sc->full_done - rd->base : 0;
	size_t r = ls > lo + NEAR_BEFORE ? ls - NEAR_BEFORE : lo;
	if (r > lo && rd->buf[r - 1] != '\n') {
		const char *nl = memchr(rd->buf + r, '\n', ls - r);
		r = nl ? (size_t)(nl - rd->buf) + 1 : ls;
	}
	/* the traceback this OOM may end: back to its header */
	size_t tb_lo = ls > TB_BEFORE_MAX ? ls - TB_BEFORE_MAX : 0;
	if (tb_lo < lo)
		tb_lo = lo;
	while (r > tb_lo) {
		size_t len;
		const char *p = prev_line(rd, r, &len);
		if (!p || (size_t)(p - rd->buf) < tb_lo || !traceback_body(p, len, sc->labels))
			break;
		r = (size_t)(p - rd->buf);
	}
	long back = 0;
	for (const char *q = rd->buf + r; (q = memchr(q, '\n', (size_t)(rd->buf + ls - q))) != NULL; q++)
		back++;
	rd->pos = r;
	rd->pos_line = lineno - back;
	size_t until = rd->base + le + NEAR_AFTER;
	if (until > sc->full_until)
		sc->full_until = until;
}

static void advance(scanner *sc, reader *rd, size_t limit, kg_buf *win);

/* The head read lazily (issue 30): a log without an OOM pays nothing for
 * the head's context (configs, command lines, model names, settings: all
 * only read for an incident). When the caller allows it
 * (kg_log_facts.head_lazy) and the head, [0, head_end), is whole in the
 * first buffer, tier 1 runs from byte 0, looking in the head for the
 * triggers, the tier-1 atoms and the traceback atoms too
 * (KG_ATOMS_HEAD_LAZY). A hit there ends it at once: the scan starts
 * again at byte 0 as an eager one (nothing was processed yet). Past the
 * head, the first trigger or tier-1 context line, or a probed line that
 * holds no reading, reads the head first (lazy_replay), from the bytes
 * the reader left in place or a copy (lazy_keep). What
 * the head's tier 2 sets is then what an eager scan has: no traceback,
 * root-cause block or summary table can be open at its end (their atoms
 * would have ended the laziness), the readings probed past it go after
 * its own, and the lines past it never use what the head set
 * (resolve_counters, full_line's sampling). */
static void lazy_start(scanner *sc, reader *rd, size_t limit)
{
	if (!sc->lf || !sc->lf->head_lazy || rd->base || rd->pos)
		return;
	size_t end;
	if (rd->len <= HEAD_FULL) {
		if (!rd->eof)
			return;
		end = rd->len;
	} else if (rd->buf[HEAD_FULL - 1] == '\n') {
		end = HEAD_FULL;
	} else {
		/* the line holding HEAD_FULL, when it is not very long */
		size_t room = rd->len - HEAD_FULL < LAZY_LINE_MAX ? rd->len - HEAD_FULL : LAZY_LINE_MAX;
		const char *nl = memchr(rd->buf + HEAD_FULL, '\n', room);
		if (!nl)
			return;
		end = (size_t)(nl - rd->buf) + 1;
	}
	if (end > limit)
		return;
	sc->head = rd->buf;
	sc->head_end = end;
	sc->lazy = true;
	sc->full_until = 0;
}

/* Before the reader moves its bytes (slide, reader_grow): keeps the head
 * that still waits. A full-size buffer's first slide leaves it where it is
 * and moves the reader's window past it (returns the bytes to pin: the
 * mapping is rounded up to huge pages, so there is room, and nothing is
 * copied or faulted in; a copy would cost a 2 MiB page, or 64 small ones
 * at ~12 µs each on a VM). Otherwise (a small buffer about to grow) it
 * keeps a copy of its own. Returns 0 when nothing is pinned. */
static size_t lazy_keep(scanner *sc, reader *rd)
{
	if (!sc->lazy || sc->head != rd->buf)
		return 0;
	if (rd->cap == BUF_FULL && rd->mapped) {
		size_t pin = (sc->head_end + 63) & ~(size_t)63;
		if (rd->len + BUF_CHUNK <= rd->cap)
			return 0; /* no slide this time: the head stays in view */
		if ((size_t)(rd->buf - rd->map) + pin + rd->cap <= rd->mapped)
			return pin;
	}
	sc->head = sc->head_copy = kg_malloc(sc->head_end);
	memcpy(sc->head, rd->buf, sc->head_end);
	return 0;
}

static void lazy_stop(scanner *sc)
{
	sc->lazy = false;
	sc->head = NULL;
	free(sc->head_copy);
	sc->head_copy = NULL;
}

/* Reads the waiting head in tier 2 (see lazy_start), then puts back what
 * the probes past it set after what it set. */
static void lazy_replay(scanner *sc, reader *rd, kg_buf *win)
{
	kg_log_facts *lf = sc->lf;
	kg_log_reading *probed = lf->readings;
	size_t nprobed = lf->nreadings;
	lf->readings = NULL;
	lf->nreadings = lf->cap = 0;
	size_t seen = sc->readings_seen, last = sc->last_reading_off;
	int64_t step = sc->step, epoch = sc->epoch;
	size_t trunc = sc->truncated_lines;
	long first_trunc = sc->first_truncated;
	size_t t1_done = sc->t1_done, probe_at = sc->probe_at;
	sc->readings_seen = sc->last_reading_off = 0;
	sc->step = sc->epoch = KG_NONE;
	sc->truncated_lines = 0;
	sc->first_truncated = 0;
	sc->t1_done = sc->full_done = 0;
	sc->full_until = HEAD_FULL;
	sc->lazy = false;

	reader hr;
	memset(&hr, 0, sizeof hr);
	hr.buf = sc->head;
	hr.len = hr.cap = sc->head_end;
	hr.pos_line = 1;
	hr.eof = true;
	sc->rd = &hr;
	advance(sc, &hr, hr.len, win);
	sc->rd = rd;

	sc->t1_done = t1_done;
	sc->probe_at = probe_at;
	sc->full_done = sc->head_end; /* as tier 1 sets it past an eager head */
	for (size_t i = 0; i < nprobed; i++)
		kg_log_facts_add_reading(lf, &probed[i], probed[i].step, probed[i].epoch, probed[i].line);
	free(probed);
	sc->readings_seen += seen;
	if (seen) {
		sc->last_reading_off = last;
		sc->step = step;
		sc->epoch = epoch;
	}
	if (trunc) {
		if (!sc->truncated_lines)
			sc->first_truncated = first_trunc;
		sc->truncated_lines += trunc;
	}
	lazy_stop(sc);
}

/* Tier 1 from the frontier towards `limit` (see HEAD_FULL): the next line
 * with a trigger starts tier 2 near it (enter_near); a tier-1 context line
 * or a probed reading is processed where it is. Returns false when the
 * frontier reached `limit`. */
static bool tier1(scanner *sc, reader *rd, size_t limit, kg_buf *win)
{
	size_t from = rd->pos;
	size_t abs_from = rd->base + from;
	bool probe = false;
	size_t lim = limit;
	if (sc->lf) {
		if (abs_from >= sc->probe_at + PROBE_BYTES)
			sc->probe_at = abs_from; /* came past a whole probe (tier 2) */
		if (abs_from >= sc->probe_at) {
			probe = true;
			size_t pe = sc->probe_at + PROBE_BYTES - rd->base;
			if (pe < lim)
				lim = pe;
		} else if (sc->probe_at - rd->base < lim) {
			lim = sc->probe_at - rd->base;
		}
	}
	/* a probe starts and ends with whole lines */
	if (lim < limit && rd->buf[lim - 1] != '\n') {
		const char *e = line_end(rd, lim, limit);
		lim = e < rd->buf + limit ? (size_t)(e - rd->buf) + 1 : limit;
	}
	uint32_t cls;
	size_t nl;
	bool in_head = sc->lazy && abs_from < sc->head_end;
	if (in_head && sc->head_end - rd->base < lim)
		lim = sc->head_end - rd->base;
	size_t hit = kg_atoms_find_lines(in_head ? &kg_atoms_placed[KG_ATOMS_HEAD_LAZY] : tier1_atoms(probe),
					 rd->buf, lim, from, &cls, &nl);
	if (in_head && hit < lim) {
		/* the head has something to read: read it now (lazy_start) */
		lazy_stop(sc);
		sc->full_until = HEAD_FULL;
		rd->pos = 0;
		rd->pos_line = 1;
		return true;
	}
	if (hit >= lim) {
		rd->pos_line += (long)nl;
		rd->pos = lim;
		if (lim >= limit)
			return false;
		if (probe)
			sc->probe_at += PROBE_STRIDE; /* none in this probe */
		else if (!in_head) /* past a lazy head: the first probe is an eager scan's */
			sc->probe_at = rd->base + lim; /* the probe's first line */
		return true;
	}
	rd->pos_line += (long)nl;
	const char *b = hit > from ? memrchr(rd->buf + from, '\n', hit - from) : NULL;
	size_t ls = b ? (size_t)(b - rd->buf) + 1 : from;
	const char *e = line_end(rd, ls, rd->len);
	size_t le = (size_t)(e - rd->buf);
	if (sc->lazy && (cls & (A_OOM | A_CTX)))
		lazy_replay(sc, rd, win);
	if (cls & A_OOM) {
		enter_near(sc, rd, ls, le, rd->pos_line);
		return true;
	}
	if (cls & A_READ)
		sc->probe_at = rd->base + le + PROBE_STRIDE;
	size_t seen = sc->readings_seen, last = sc->last_reading_off, trunc = sc->truncated_lines;
	long first_trunc = sc->first_truncated;
	full_line(sc, rd, ls, rd->pos_line, cls, win);
	if (sc->lazy_miss) {
		/* undo what full_line counted, read the head, read the line */
		sc->lazy_miss = false;
		sc->readings_seen = seen;
		sc->last_reading_off = last;
		sc->truncated_lines = trunc;
		sc->first_truncated = first_trunc;
		lazy_replay(sc, rd, win);
		full_line(sc, rd, ls, rd->pos_line, cls, win);
	}
	sc->t1_done = rd->base + le + 1;
	if (le >= rd->len) {
		rd->pos = rd->len;
		return false;
	}
	rd->pos = le + 1;
	rd->pos_line++;
	return true;
}

/* Runs the frontier forward to `limit`. In tier 2 (the head, near an OOM,
 * or while a traceback, a root-cause block or a memory_summary() table is
 * open): finds the next line with an atom (counting the lines passed on
 * the way), works out every atom class on it and hands it to full_line.
 * While readings are skipped, the search leaves the reading-only atoms
 * out, so reading lines stop it only once per READING_STRIDE. Elsewhere,
 * tier 1 (tier1()). */
static void advance(scanner *sc, reader *rd, size_t limit, kg_buf *win)
{
	while (rd->pos < limit) {
		size_t from = rd->pos;
		/* torchelastic's root-cause block closes on its rank line; when
		 * that line is not recognised (a prefix before it: srun --label,
		 * a timestamp), close it ROOT_CAUSE_LINES below its header, where
		 * a rank line no longer counts, instead of never (every later
		 * line would go through full_line) */
		if (sc->root_cause_open && rd->pos_line - sc->root_cause_line > ROOT_CAUSE_LINES)
			sc->root_cause_open = false;
		bool full = sc->tb_active || sc->root_cause_open || sc->summary_active;
		if (!full && rd->base + from >= sc->full_until) {
			if (sc->full_done < rd->base + from && sc->full_until > sc->full_done)
				sc->full_done = rd->base + from;
			if (!tier1(sc, rd, limit, win))
				return;
			continue;
		}
		/* tier 2 ends with the line holding full_until */
		size_t end = limit;
		if (!full && sc->full_until - rd->base < limit) {
			size_t region = sc->full_until - rd->base;
			if (rd->buf[region - 1] == '\n') {
				end = region;
			} else {
				const char *e0 = line_end(rd, region, limit);
				end = e0 < rd->buf + limit ? (size_t)(e0 - rd->buf) + 1 : limit;
			}
		}
		size_t hit = from, nl = 0;
		uint32_t cls = A_ALL;
		if (!full) {
			size_t quiet = quiet_end(sc, rd, end);
			size_t lim = quiet > from && quiet < end ? quiet : end;
			hit = kg_atoms_find_lines(quiet > from ? quiet_atoms() : atoms, rd->buf, lim, from, &cls, &nl);
			if (hit >= lim && lim < end) {
				/* readings count again from the line holding `lim`:
				 * go on from its start with every atom */
				const char *b = memrchr(rd->buf + from, '\n', lim - from);
				size_t ls = b ? (size_t)(b - rd->buf) + 1 : from;
				if (ls > from) {
					rd->pos_line += (long)nl; /* none in [ls, lim) */
					rd->pos = ls;
					continue;
				}
				hit = kg_atoms_find_lines(atoms, rd->buf, end, from, &cls, &nl);
			}
		}
		rd->pos_line += (long)nl;
		if (hit >= end) {
			rd->pos = end;
			if (end >= limit)
				return;
			continue;
		}
		/* the line holding the hit, and the classes of every atom on it */
		const char *b = hit > from ? memrchr(rd->buf + from, '\n', hit - from) : NULL;
		size_t ls = b ? (size_t)(b - rd->buf) + 1 : from;
		const char *e = line_end(rd, ls, rd->len);
		size_t le = (size_t)(e - rd->buf);
		{
			/* inside a traceback, a root-cause block or a summary
			 * table every line is read for those (and for an OOM);
			 * the other readers only where their atoms are */
			cls = full ? (uint32_t)(A_OOM | A_TB | A_CTX) : 0;
			for (size_t scan = ls; scan < le;) {
				uint32_t c2;
				size_t h2 = kg_atoms_find(atoms, rd->buf, le, scan, &c2);
				if (h2 >= le)
					break;
				cls |= c2;
				scan = h2 + 1;
			}
		}
		/* a line tier 1 already read: not its reading again */
		if (rd->base + ls < sc->t1_done)
			cls &= ~(uint32_t)A_READ;
		if (cls & A_ALL)
			full_line(sc, rd, ls, rd->pos_line, cls, win);
		if (cls & A_OOM) {
			size_t until = rd->base + le + NEAR_AFTER;
			if (until > sc->full_until)
				sc->full_until = until;
		}
		if (le >= rd->len) {
			rd->pos = rd->len;
			return;
		}
		rd->pos = le + 1;
		rd->pos_line++;
	}
}

static void scanner_free(scanner *sc)
{
	free(sc->head_copy);
	kg_buf_free(&sc->summary);
	for (size_t i = 0; i < KG_OOM_WINDOW_LINES; i++)
		kg_buf_free(&sc->lines[i].text);
	frames_clear(&sc->tb, &sc->ntb);
	free(sc->conf_var);
	free(sc->conf_value);
	for (size_t i = 0; i < sc->npending; i++)
		free(sc->pending[i].text);
}

#define NUL_RUN_MAX (256u << 20) /* NUL bytes in a row that end the read */

/* How the input is read: through the envelope decoder when it has one
 * (plain text never goes through it), and with a watch on runs of NUL
 * bytes when its head holds any (a crash or copytruncate hole is text;
 * /dev/zero or a gzip bomb of zeros is not, and must not run forever). */
typedef struct scan_input {
	kg_source **srcs;    /* the files of one log, read one after another */
	size_t nsrc, cur;
	long *first_line;    /* line number at which each file starts */
	long lines;          /* newlines handed out (counted for nsrc > 1) */
	char last;           /* the last byte handed out */
	kg_envelope *env;
	bool nul_watch;
	bool saw_text;       /* a byte other than NUL was read */
	uint64_t nul_run;    /* NUL bytes in a row at the end of what was read */
	uint64_t offset;     /* text bytes read */
} scan_input;

static ssize_t scan_read(scan_input *in, void *buf, size_t n, kg_error *err)
{
	ssize_t r;
	for (;;) {
		kg_source *src = in->srcs[in->cur];
		r = in->env ? kg_envelope_read(in->env, src, buf, n, err) : kg_source_read(src, buf, n, err);
		if (r != 0 || in->cur + 1 >= in->nsrc)
			break;
		/* the next file of the log: its first line starts a line */
		if (in->offset && in->last != '\n') {
			*(char *)buf = '\n';
			r = 1;
			break;
		}
		in->cur++;
		in->first_line[in->cur] = in->lines + 1;
		if (in->env)
			kg_envelope_next_input(in->env);
	}
	if (r <= 0)
		return r;
	const unsigned char *p = buf;
	in->last = (char)p[r - 1];
	if (in->nsrc > 1) {
		for (const unsigned char *q = p; (q = memchr(q, '\n', (size_t)(p + r - q))) != NULL; q++)
			in->lines++;
	}
	in->offset += (uint64_t)r;
	if (!in->nul_watch)
		return r;
	size_t k = (size_t)r;
	while (k && p[k - 1] == 0)
		k--;
	if (k) {
		in->saw_text = true;
		in->nul_run = (uint64_t)r - k;
	} else {
		in->nul_run += (uint64_t)r;
	}
	if (in->nul_run > NUL_RUN_MAX)
		return kg_fail_at(err, (int64_t)(in->offset - in->nul_run),
				  "more than %u MiB of NUL bytes in a row: not a log", NUL_RUN_MAX >> 20);
	return r;
}

/* A line number of the chained stream as (file index, line in that file). */
static size_t chain_line(const scan_input *in, long *line)
{
	size_t k = 0;
	while (k + 1 < in->nsrc && in->first_line[k + 1] && *line >= in->first_line[k + 1])
		k++;
	*line -= in->first_line[k] - 1;
	return k;
}

/* Gives the incidents of a log in several files their file and line. */
static void chain_fixup(const scan_input *in, kg_report *rep, size_t first)
{
	for (size_t i = first; i < rep->nincidents; i++) {
		kg_incident *inc = &rep->incidents[i];
		size_t k = chain_line(in, &inc->line);
		free(inc->path);
		inc->path = kg_strdup(in->srcs[k]->name);
		for (size_t f = 0; f < inc->nfollowups; f++)
			chain_line(in, &inc->followups[f].line);
		if (inc->alloc_conf_line > 0)
			chain_line(in, &inc->alloc_conf_line);
	}
}

int kg_scan_log(kg_source *src, kg_report *rep, kg_log_facts *lf, kg_error *err)
{
	return kg_scan_logs(&src, 1, rep, lf, err);
}

int kg_scan_logs(kg_source **srcs, size_t nsrc, kg_report *rep, kg_log_facts *lf, kg_error *err)
{
	kg_source *src = srcs[0];
	kg_error e = {0};
	/* the OOM grammars compile on first use (kg_oom_parse) */
	if (kg_context_init(&e) < 0)
		return kg_fail(err, "internal error compiling patterns: %s", e.msg);
	scanner sc;
	memset(&sc, 0, sizeof sc);

	sc.rep = rep;
	sc.lf = lf;
	sc.name = src->name;
	sc.first_incident = rep->nincidents;
	sc.step = sc.epoch = KG_NONE;
	sc.full_until = HEAD_FULL;
	sc.probe_at = HEAD_FULL;
	/* envelopes (container, shipper, scheduler) are decided once per input
	 * from its head, so the loop below is the same for plain text */
	unsigned env_mask = kg_envelope_sniff(src);
	/* srun --label alone is read as it is: strip_line drops each line's
	 * label where the envelope would rewrite it to `[rankN]: `, so the
	 * bytes are not copied line by line on their way in (issue 30) */
	sc.labels = env_mask == KG_ENV_SLURM;
	kg_envelope *env = env_mask && !sc.labels ? kg_envelope_new(env_mask) : NULL;
	sc.env = env;
	scan_input in = {.srcs = srcs, .nsrc = nsrc, .env = env,
			 .nul_watch = memchr(src->head, 0, src->headlen) != NULL};
	in.first_line = kg_calloc(nsrc, sizeof *in.first_line);
	in.first_line[0] = 1;
	for (size_t k = 1; k < nsrc; k++)
		in.nul_watch |= memchr(srcs[k]->head, 0, srcs[k]->headlen) != NULL;

	reader rd;
	memset(&rd, 0, sizeof rd);
	reader_init(&rd, src);
	rd.pos_line = 1;
	sc.rd = &rd;
	kg_buf win = {0};
	int rc = 0;
	bool first = true;
	while (!rd.eof) {
		size_t pin = lazy_keep(&sc, &rd);
		reader_grow(&rd);
		if (rd.len + BUF_CHUNK > rd.cap)
			slide(&rd, pin);
		size_t want = rd.cap - rd.len - 1;
		if (want > BUF_CHUNK)
			want = BUF_CHUNK;
		size_t got = 0;
		while (got < want) {
			ssize_t r = scan_read(&in, rd.buf + rd.len + got, want - got, err);
			if (r < 0) {
				rc = -1;
				rd.eof = true;
				break;
			}
			if (r == 0) {
				rd.eof = true;
				break;
			}
			got += (size_t)r;
		}
		rd.len += got;
		size_t limit = safe_limit(&rd);
		bool full = rd.cap - rd.len - 1 < (64u << 10);
		if (limit <= rd.pos && !rd.eof && full) {
			/* the buffer is full and no line has a complete parse window
			 * after it: process the complete lines there are (their
			 * windows are shorter), or cut a line that fills the buffer */
			const char *last = memrchr(rd.buf + rd.pos, '\n', rd.len - rd.pos);
			if (last) {
				limit = (size_t)(last - rd.buf) + 1;
			} else {
				/* keep the first KG_MAX_LINE bytes of this line, drop the rest */
				if (!sc.truncated_lines)
					sc.first_truncated = rd.pos_line;
				sc.truncated_lines++;
				rd.buf[rd.pos + KG_MAX_LINE] = '\n';
				rd.len = rd.pos + KG_MAX_LINE + 1;
				char tmp[65536];
				for (;;) {
					ssize_t r = scan_read(&in, tmp, sizeof tmp, err);
					if (r <= 0) {
						if (r < 0)
							rc = -1;
						rd.eof = true;
						break;
					}
					const char *q = memchr(tmp, '\n', (size_t)r);
					if (q) {
						size_t rest = (size_t)r - (size_t)(q + 1 - tmp);
						memcpy(rd.buf + rd.len, q + 1, rest);
						rd.len += rest;
						break;
					}
				}
				limit = safe_limit(&rd);
			}
		}
		if (first)
			lazy_start(&sc, &rd, limit);
		first = false;
		advance(&sc, &rd, limit, &win);
	}
	advance(&sc, &rd, rd.len, &win);
	if (sc.tb_active)
		tb_end(&sc, rd.pos_line);
	if (sc.summary_active)
		summary_finish(&sc);
	if (sc.dropped)
		kg_report_note(rep, "%s:%ld: %zu more OOM incident%s not kept (the first %d of this input are reported)",
			       sc.name, sc.first_dropped, sc.dropped, sc.dropped == 1 ? "" : "s", KG_MAX_INCIDENTS);
	if (sc.truncated_lines)
		kg_report_note(rep, "%s:%ld: %zu line%s longer than %u bytes; only the first %u bytes of each were matched",
			       sc.name, sc.first_truncated, sc.truncated_lines,
			       sc.truncated_lines == 1 ? "" : "s", KG_MAX_LINE, KG_MAX_LINE);
	if (env_mask)
		kg_report_note(rep, "%s: read as %s", sc.name, kg_envelope_name(env_mask));
	if (in.nul_watch && !in.saw_text && rc == 0)
		kg_report_note(rep, "%s: only NUL bytes (a crash or copytruncate hole): no log text", sc.name);
	for (size_t k = 0; k < nsrc; k++) {
		const kg_source *s = srcs[k];
		if (s->trailing_at >= 0)
			kg_report_note(rep, "%s: byte %lld: plain text after the gzip data; read as text too",
				       s->name, (long long)s->trailing_at);
		if (s->shrunk_to >= 0)
			kg_report_note(rep, "%s: the file shrank while it was read (%lld bytes when opened, %lld at the end); "
				       "read to its end (%lld bytes)", s->name, (long long)s->file_size,
				       (long long)s->shrunk_to, (long long)s->bytes_read);
	}
	if (nsrc > 1) {
		chain_fixup(&in, rep, sc.first_incident);
		if (rc < 0)
			snprintf(err->path, sizeof err->path, "%s", srcs[in.cur]->name);
	}
	free(in.first_line);
	kg_envelope_free(env);
	reader_free(&rd);
	kg_buf_free(&win);
	scanner_free(&sc);
	return rc;
}

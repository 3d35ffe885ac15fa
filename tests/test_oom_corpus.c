/* Corpus test for oom.c: every real OOM text of testdata/corpus/dev.jsonl
 * (copied from ../shared/corpus, sources in testdata/SOURCES.md) must parse,
 * and every value its `expect` states about the message must come out to
 * the byte.
 *
 * The scanner's part is imitated the way logscan.c does it before calling
 * the grammars: each line loses a leading `YYYY-MM-DD HH:MM:SS` timestamp,
 * a `[rankN]:` prefix, leading whitespace and '#' comment markers; the
 * first line where kg_oom_candidate() holds and kg_oom_parse() returns 1 is
 * the incident, its window that line plus the next 11.
 *
 * Usage: test_oom_corpus dev.jsonl */
#include "tap.h"
#include "cases.h"
#include "read/oom.h"
#include "model/util.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdlib.h>

static int expect_total, expect_ok;

/* Strips what the scanner strips ahead of the grammars; returns the new
 * start within line[0..*n). */
static const char *strip(const char *p, size_t *n)
{
	bool again = true;
	while (again) {
		again = false;
		while (*n && (isspace((unsigned char)*p) || *p == '#'))
			p++, (*n)--, again = true;
		/* 2024-11-20 14:37:16 */
		if (*n >= 19 && isdigit((unsigned char)p[0]) && p[4] == '-' && p[7] == '-' &&
		    p[10] == ' ' && p[13] == ':' && p[16] == ':' && isdigit((unsigned char)p[18]))
			p += 19, *n -= 19, again = true;
		if (*n > 7 && memcmp(p, "[rank", 5) == 0) {
			size_t i = 5;
			while (i < *n && isdigit((unsigned char)p[i]))
				i++;
			if (i > 5 && i + 1 < *n && p[i] == ']' && p[i + 1] == ':')
				p += i + 2, *n -= i + 2, again = true;
		}
	}
	return p;
}

typedef struct line {
	const char *p;
	size_t n;
} line;

static size_t split(const char *text, line **out)
{
	size_t cap = 16, k = 0;
	line *v = kg_malloc(cap * sizeof *v);
	const char *p = text;
	for (;;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (k == cap)
			v = kg_realloc(v, (cap *= 2) * sizeof *v);
		v[k].n = n;
		v[k].p = strip(p, &v[k].n);
		k++;
		if (!nl)
			break;
		p = nl + 1;
	}
	*out = v;
	return k;
}

/* Builds the window of line i: it and the next 11 lines, joined by '\n'. */
static void window(line *v, size_t nl, size_t i, kg_buf *w)
{
	kg_buf_reset(w);
	for (size_t j = i; j < nl && j < i + KG_OOM_WINDOW_LINES; j++) {
		if (j > i)
			kg_buf_putc(w, '\n');
		kg_buf_append(w, v[j].p, v[j].n);
	}
}

/* A message cut at every byte (a log limit, a notebook's truncation) must
 * parse or not, never read outside the window or give a range outside it.
 * Each prefix is copied to its own exact-size heap block so that a read
 * past n is caught by valgrind/ASan. Returns how many prefixes parsed. */
static int cut_everywhere(const kg_buf *w, size_t first_len)
{
	int parsed = 0;
	bool bounded = true;
	for (size_t n = 0; n <= w->len; n++) {
		char *cut = kg_malloc(n ? n : 1);
		memcpy(cut, w->data, n);
		kg_oom o;
		size_t fl = first_len < n ? first_len : n;
		if (kg_oom_parse(cut, n, fl, &o) == 1) {
			parsed++;
			bounded &= o.start < fl && o.end <= n && o.start < o.end;
			kg_oom_free(&o);
		}
		free(cut);
	}
	TAP_OK(bounded, "every cut of the window parses inside its bounds (%d of %zu cuts parse)",
	       parsed, w->len + 1);
	return parsed;
}

/* Finds the first incident; returns its line index or -1. A traceback
 * header that names the OOM (kg_oom.header) is the incident only when no
 * message follows it: the scanner folds the header into the message. */
static long find(line *v, size_t nl, kg_oom *o)
{
	long header = -1;
	kg_oom h;
	for (size_t i = 0; i < nl; i++) {
		if (!kg_oom_candidate(v[i].p, v[i].n))
			continue;
		kg_buf w = {0};
		window(v, nl, i, &w);
		int rc = kg_oom_parse(w.data, w.len, v[i].n, o);
		TAP_OK(rc == 0 || (o->start < v[i].n && o->end <= w.len && o->start < o->end),
		       "line %zu: message range inside the window", i + 1);
		if (rc == 1)
			cut_everywhere(&w, v[i].n);
		kg_buf_free(&w);
		if (rc == 1 && o->header && header < 0) {
			h = *o;
			header = (long)i;
		} else if (rc == 1 && o->header) {
			kg_oom_free(o);
		} else if (rc == 1) {
			if (header >= 0)
				kg_oom_free(&h);
			return (long)i;
		}
	}
	if (header >= 0)
		*o = h;
	return header;
}

static const kg_size *mem_field(const kg_oom *o, const char *name)
{
	static const struct { const char *key; size_t off; } f[] = {
		{"requested_bytes", offsetof(kg_memory, requested)},
		{"total_capacity_bytes", offsetof(kg_memory, total_capacity)},
		{"free_bytes", offsetof(kg_memory, free)},
		{"allocated_bytes", offsetof(kg_memory, allocated)},
		{"reserved_bytes", offsetof(kg_memory, reserved)},
		{"reserved_unallocated_bytes", offsetof(kg_memory, reserved_unallocated)},
		{"process_in_use_bytes", offsetof(kg_memory, process_in_use)},
		{"allowed_bytes", offsetof(kg_memory, allowed)},
		{"private_pools_bytes", offsetof(kg_memory, private_pools)},
		{"other_allocations_bytes", offsetof(kg_memory, other_allocations)},
	};
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		if (strcmp(f[i].key, name) == 0)
			return (const kg_size *)((const char *)&o->mem + f[i].off);
	return NULL;
}

static void check_one(const char *id, const kg_oom *o, const cJSON *e)
{
	const char *k = e->string;
	bool ok;
	expect_total++;
	if (strcmp(k, "rank") == 0) {
		expect_total--; /* the scanner's, from the stripped prefix */
		return;
	} else if (strncmp(k, "memory.", 7) == 0 && strcmp(k, "memory.other_processes") != 0) {
		const kg_size *s = mem_field(o, k + 7);
		long long want = (long long)e->valuedouble;
		ok = s && cJSON_IsNumber(e) && s->bytes == want;
		TAP_OK(ok, "%s %s = %lld", id, k, want);
		if (!ok)
			printf("#   got %lld\n", s ? (long long)s->bytes : -1LL);
	} else if (strcmp(k, "memory.other_processes") == 0) {
		int n = cJSON_GetArraySize(e);
		ok = (size_t)n == o->mem.nprocs;
		for (int i = 0; ok && i < n; i++) {
			const cJSON *p = cJSON_GetArrayItem(e, i);
			long long pid = (long long)cJSON_GetObjectItem(p, "pid")->valuedouble;
			long long b = (long long)cJSON_GetObjectItem(p, "in_use_bytes")->valuedouble;
			bool hit = false;
			for (size_t j = 0; j < o->mem.nprocs; j++)
				hit |= o->mem.procs[j].pid == pid && o->mem.procs[j].in_use.bytes == b;
			ok = hit;
		}
		TAP_OK(ok, "%s other_processes: the same %d {pid, bytes} (got %zu)", id, n, o->mem.nprocs);
	} else if (strcmp(k, "device.index") == 0) {
		ok = o->device_index == (int64_t)e->valuedouble;
		TAP_EQ_I64(o->device_index, (int64_t)e->valuedouble, "%s device.index", id);
	} else if (strcmp(k, "status") == 0) {
		ok = o->status && strcmp(o->status, e->valuestring) == 0;
		TAP_EQ_STR(o->status, e->valuestring, "%s status", id);
	} else if (strcmp(k, "tensor.dtype") == 0) {
		ok = o->tensor && strcmp(o->tensor->dtype, e->valuestring) == 0;
		TAP_EQ_STR(o->tensor ? o->tensor->dtype : NULL, e->valuestring, "%s tensor.dtype", id);
	} else if (strcmp(k, "tensor.shape") == 0) {
		int n = cJSON_GetArraySize(e);
		ok = o->tensor && o->tensor->ndim == (size_t)n;
		for (int i = 0; ok && i < n; i++)
			ok = o->tensor->shape[i] == (int64_t)cJSON_GetArrayItem(e, i)->valuedouble;
		TAP_OK(ok, "%s tensor.shape (%d dims)", id, n);
	} else {
		ok = false;
		TAP_OK(false, "%s: expect key %s is not the parser's", id, k);
	}
	if (ok)
		expect_ok++;
}

/* The corpus labels layouts by where a text came from (rocm, multirank,
 * xpu); the grammar's family for those is DESIGN §4's. */
static const char *want_family(const char *corpus_family)
{
	static const char *const map[][2] = {
		{"pytorch1", "pytorch1"}, {"pytorch2", "pytorch2"}, {"multirank", "pytorch2"},
		{"rocm", "pytorch2"}, {"cublas", "cublas"}, {"cudnn", "cudnn"},
		{"cuda_runtime", "cuda_runtime"}, {"jax", "jax"}, {"mps", "mps"},
		{"tensorflow", "tensorflow"},
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcmp(map[i][0], corpus_family) == 0)
			return map[i][1];
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s dev.jsonl\n", argv[0]);
		return 2;
	}
	kg_error err = {0};
	TAP_OK(kg_oom_init(&err) == 0, "grammars compile %s", err.msg);
	char *all = tc_slurp(argv[1]);
	TAP_OK(all != NULL, "read %s", argv[1]);
	if (!all)
		return tap_done();
	int records = 0, parsed = 0;
	for (char *p = all, *nl; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		cJSON *r = cJSON_Parse(p);
		if (!r)
			continue;
		const char *id = cJSON_GetObjectItem(r, "id")->valuestring;
		const char *fam = cJSON_GetObjectItem(r, "family")->valuestring;
		const char *text = cJSON_GetObjectItem(r, "text")->valuestring;
		if (strcmp(fam, "memory_summary") == 0) {
			cJSON_Delete(r);
			continue;
		}
		records++;
		line *v;
		size_t nlines = split(text, &v);
		kg_oom o;
		long at = find(v, nlines, &o);
		if (strcmp(id, "oth-0005") == 0) {
			/* DeepSpeed "allocator cache flushes" warning: not an OOM */
			TAP_OK(at < 0, "%s: no OOM in a DeepSpeed cache-flush warning", id);
			if (at >= 0)
				kg_oom_free(&o);
		} else {
			TAP_OK(at >= 0, "%s (%s) parses", id, fam);
			if (at >= 0) {
				parsed++;
				const char *wf = want_family(fam);
				if (wf)
					TAP_EQ_STR(o.family, wf, "%s family", id);
				cJSON *e;
				cJSON_ArrayForEach(e, cJSON_GetObjectItem(r, "expect"))
					check_one(id, &o, e);
				kg_oom_free(&o);
			}
		}
		free(v);
		cJSON_Delete(r);
	}
	printf("# %d of %d records parsed; %d of %d expect values reproduced\n",
	       parsed, records, expect_ok, expect_total);
	TAP_EQ_I64(expect_ok, expect_total, "every expect value reproduced");
	free(all);
	kg_oom_fini();
	return tap_done();
}

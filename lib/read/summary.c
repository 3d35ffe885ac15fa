/* summary.c — see include/read/summary.h. Layout from torch/cuda/memory.py
 * memory_summary() (formats.md §2): rows " {name:<21} | c | p | a | f |",
 * size cells f"{sz:6d} {prefix}" (2.0+, binary prefixes, truncating
 * division) or "{:7d} {}" with B/KB/MB/GB (pre-2.0, still powers of 1024),
 * count cells f"{cnt:7d} {prefix} " with prefixes "", K, M (×1000). Cells
 * are split on '|', never by column, because wide values widen the line. */
#include "read/summary.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *label, *stat;
	bool bytes, pools;
} rows[] = {
	{"Allocated memory", "allocated_bytes", true, true},
	{"Active memory", "active_bytes", true, true},
	{"Requested memory", "requested_bytes", true, true},
	{"GPU reserved memory", "reserved_bytes", true, true},
	{"Non-releasable memory", "inactive_split_bytes", true, true},
	{"Allocations", "allocation", false, true},
	{"Active allocs", "active", false, true},
	{"GPU reserved segments", "segment", false, true},
	{"Non-releasable allocs", "inactive_split", false, true},
	{"Oversize allocations", "oversize_allocations", false, false},
	{"Oversize GPU segments", "oversize_segments", false, false},
};

static const char *const metrics[4] = {"current", "peak", "allocated", "freed"};

static void trim(const char **s, size_t *n)
{
	while (*n && isspace((unsigned char)**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && isspace((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

static bool eq(const char *s, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

/* One cell: digits, spaces, optional unit. Returns 0 and the lower-bound
 * value, or -1. */
static int cell_value(const char *s, size_t n, bool bytes, double *out)
{
	trim(&s, &n);
	size_t i = 0;
	double v = 0;
	if (i == n || !isdigit((unsigned char)s[i]))
		return -1;
	while (i < n && isdigit((unsigned char)s[i]))
		v = v * 10 + (s[i++] - '0');
	while (i < n && s[i] == ' ')
		i++;
	const char *u = s + i;
	size_t un = n - i;
	if (bytes) {
		static const char *const bin[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
		static const char *const old[] = {"B", "KB", "MB", "GB", "TB", "PB"};
		for (int k = 0; k < 6; k++) {
			if (eq(u, un, bin[k]) || eq(u, un, old[k])) {
				*out = v * (double)(1ULL << (10 * k));
				return 0;
			}
		}
		return -1;
	}
	if (un == 0)
		*out = v;
	else if (eq(u, un, "K"))
		*out = v * 1000;
	else if (eq(u, un, "M"))
		*out = v * 1000000;
	else
		return -1;
	return 0;
}

/* Integer after "label" inside line (e.g. "CUDA OOMs: 3"); -1 if absent. */
static long long header_int(const char *l, size_t n, const char *label)
{
	const char *p = kg_memcasemem(l, n, label, strlen(label));
	if (!p)
		return -1;
	p += strlen(label);
	const char *end = l + n;
	while (p < end && (*p == ' ' || *p == ':'))
		p++;
	if (p == end || !isdigit((unsigned char)*p))
		return -1;
	long long v = 0;
	while (p < end && isdigit((unsigned char)*p) && v < (1LL << 53))
		v = v * 10 + (*p++ - '0');
	return v;
}

kg_snapshot *kg_summary_parse(const char *text, size_t n, const char *path, kg_error *err)
{
	/* A table pasted on one line keeps its line breaks as literal "\n". */
	char *owned = NULL;
	if (!memchr(text, '\n', n) || (kg_memcasemem(text, n, "\\n|", 3) && !kg_memcasemem(text, n, "|\n|", 3))) {
		kg_buf b = {0};
		for (size_t i = 0; i < n; i++) {
			if (text[i] == '\\' && i + 1 < n && text[i + 1] == 'n') {
				kg_buf_putc(&b, '\n');
				i++;
			} else {
				kg_buf_putc(&b, text[i]);
			}
		}
		n = b.len;
		text = owned = kg_buf_steal(&b);
	}

	kg_snapshot *o = kg_snapshot_new(path, KG_MEMORY_SUMMARY);
	long long device = -1, ooms = -1, retries = -1;
	int cur = -1;   /* index into rows[] of the last main row */
	int found = 0;
	long lineno = 0;
	const char *p = text, *end = text + n;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		lineno++;
		const char *bar = memchr(p, '|', (size_t)(le - p));
		const char *l = bar;
		size_t ln = bar ? (size_t)(le - bar) : 0;
		p = nl ? nl + 1 : end;
		if (!bar)
			continue;
		long long v;
		if (device < 0 && (v = header_int(l, ln, "device ID")) >= 0)
			device = v;
		if ((v = header_int(l, ln, "CUDA OOMs")) >= 0)
			ooms = v;
		if ((v = header_int(l, ln, "cudaMalloc retries")) >= 0)
			retries = v;
		/* split on '|' */
		const char *f[8];
		size_t fl[8];
		int nf = 0;
		const char *q = l + 1;
		while (q < le && nf < 8) {
			const char *nb = memchr(q, '|', (size_t)(le - q));
			if (!nb)
				break;
			f[nf] = q;
			fl[nf] = (size_t)(nb - q);
			nf++;
			q = nb + 1;
		}
		if (nf != 5)
			continue;
		const char *lab = f[0];
		size_t labn = fl[0];
		trim(&lab, &labn);
		const char *pool = "all";
		int r = -1;
		if (eq(lab, labn, "from large pool") || eq(lab, labn, "from small pool")) {
			if (cur < 0 || !rows[cur].pools)
				continue;
			r = cur;
			pool = lab[5] == 'l' ? "large_pool" : "small_pool";
		} else {
			for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++)
				if (eq(lab, labn, rows[k].label))
					r = (int)k;
			if (r < 0)
				continue;   /* the "Metric | Cur Usage" header */
			cur = r;
		}
		for (int c = 0; c < 4; c++) {
			double val;
			if (cell_value(f[c + 1], fl[c + 1], rows[r].bytes, &val) < 0) {
				kg_snapshot_free(o);
				free(owned);
				kg_fail_line(err, lineno, "memory_summary: cannot read the %s cell of row '%s'",
					     metrics[c], rows[r].label);
				return NULL;
			}
			char key[96];
			if (rows[r].pools)
				snprintf(key, sizeof key, "%s.%s.%s", rows[r].stat, pool, metrics[c]);
			else
				snprintf(key, sizeof key, "%s.%s", rows[r].stat, metrics[c]);
			kg_snapshot_add_stat(o, key, val, true);
		}
		found++;
	}
	free(owned);
	if (!found) {
		kg_snapshot_free(o);
		kg_fail_line(err, lineno ? lineno : 1, "memory_summary: no metric rows found");
		return NULL;
	}
	if (ooms >= 0)
		kg_snapshot_add_stat(o, "num_ooms", (double)ooms, false);
	if (retries >= 0)
		kg_snapshot_add_stat(o, "num_alloc_retries", (double)retries, false);
	o->device = device >= 0 ? device : KG_NONE;
	return o;
}

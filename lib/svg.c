/* svg.c — see include/svg.h. Plain SVG 1.1 (polyline, rect, line, text),
 * sizes labelled the way c10 format_size prints them (kg_size_format). */
#include "svg.h"
#include "snapshot.h"
#include "units.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define W 960.0
#define PLOT_L 90.0
#define PLOT_R 30.0
#define PLOT_H 220.0

/* ---- text ---------------------------------------------------------------- */

/* Appends s XML-escaped: & < > " ' as entities, invalid UTF-8 replaced and
 * control characters (not allowed in XML 1.0) dropped. */
static void put_text(kg_buf *b, const char *s)
{
	char *clean = kg_sanitize_utf8(s, strlen(s));
	for (const char *p = clean; *p; p++) {
		unsigned char c = (unsigned char)*p;
		switch (c) {
		case '&': kg_buf_puts(b, "&amp;"); break;
		case '<': kg_buf_puts(b, "&lt;"); break;
		case '>': kg_buf_puts(b, "&gt;"); break;
		case '"': kg_buf_puts(b, "&quot;"); break;
		case '\'': kg_buf_puts(b, "&apos;"); break;
		default:
			if (c >= 0x20 || c == '\t')
				kg_buf_putc(b, (char)c);
		}
	}
	free(clean);
}

static void text_at(kg_buf *b, double x, double y, const char *attrs, const char *s)
{
	kg_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" %s>", x, y, attrs);
	put_text(b, s);
	kg_buf_puts(b, "</text>\n");
}

static const char *size_str(int64_t bytes, char *buf, size_t n)
{
	return kg_size_format(bytes < 0 ? 0 : bytes, buf, n);
}

/* ---- line chart ---------------------------------------------------------- */

typedef struct series {
	const char *name, *color;
	double *x, *y;
	size_t n;
} series;

typedef struct marker {
	double x;
	char label[96];
	const char *color;
} marker;

/* Draws one panel at y = top; returns its height. Markers are vertical
 * lines with a label; peak (when peak_y >= 0) is a dot on the first
 * series at (peak_x, peak_y). */
static double chart(kg_buf *b, double top, const char *title, const char *xname,
		    const series *ss, size_t ns, const marker *ms, size_t nm, double peak_x,
		    double peak_y)
{
	double x0 = INFINITY, x1 = -INFINITY, y1 = 0;
	for (size_t i = 0; i < ns; i++)
		for (size_t k = 0; k < ss[i].n; k++) {
			x0 = fmin(x0, ss[i].x[k]);
			x1 = fmax(x1, ss[i].x[k]);
			y1 = fmax(y1, ss[i].y[k]);
		}
	for (size_t i = 0; i < nm; i++) {
		x0 = fmin(x0, ms[i].x);
		x1 = fmax(x1, ms[i].x);
	}
	if (!isfinite(x0))
		x0 = 0, x1 = 1;
	if (x1 <= x0)
		x1 = x0 + 1;
	if (y1 <= 0)
		y1 = 1;
	y1 *= 1.08;
	double pt = top + 40, pw = W - PLOT_L - PLOT_R;
#define PX(v) (PLOT_L + ((v) - x0) / (x1 - x0) * pw)
#define PY(v) (pt + PLOT_H - (v) / y1 * PLOT_H)
	text_at(b, 20, top + 18, "font-size=\"13\" font-weight=\"bold\"", title);
	kg_buf_printf(b, "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		      "fill=\"#fafafa\" stroke=\"#999\"/>\n", PLOT_L, pt, pw, PLOT_H);
	char sb[64], lb[160];
	for (int t = 0; t <= 4; t++) {
		double v = y1 / 1.08 * t / 4, y = PY(v);
		kg_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			      PLOT_L, y, PLOT_L + pw, y);
		text_at(b, PLOT_L - 6, y + 4, "font-size=\"10\" text-anchor=\"end\"",
			size_str((int64_t)llround(v), sb, sizeof sb));
	}
	for (int t = 0; t <= 4; t++) {
		double v = x0 + (x1 - x0) * t / 4;
		snprintf(lb, sizeof lb, "%.0f", v);
		text_at(b, PX(v), pt + PLOT_H + 14, "font-size=\"10\" text-anchor=\"middle\"", lb);
	}
	text_at(b, PLOT_L + pw / 2, pt + PLOT_H + 30, "font-size=\"11\" text-anchor=\"middle\"", xname);
	for (size_t i = 0; i < ns; i++) {
		if (!ss[i].n)
			continue;
		kg_buf_printf(b, "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
			      ss[i].color);
		for (size_t k = 0; k < ss[i].n; k++)
			kg_buf_printf(b, "%s%.1f,%.1f", k ? " " : "", PX(ss[i].x[k]), PY(ss[i].y[k]));
		kg_buf_puts(b, "\"/>\n");
		double lx = PLOT_L + 10 + 170.0 * (double)i;
		kg_buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"4\" fill=\"%s\"/>\n",
			      lx, top + 28, ss[i].color);
		text_at(b, lx + 18, top + 33, "font-size=\"11\"", ss[i].name);
	}
	for (size_t i = 0; i < nm; i++) {
		double x = PX(ms[i].x);
		kg_buf_printf(b, "<line class=\"oom\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			      "stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>\n",
			      x, pt, x, pt + PLOT_H, ms[i].color);
		bool right = x > PLOT_L + pw - 160;
		text_at(b, right ? x - 3 : x + 3, pt + 12 + 12.0 * (double)(i % 4),
			right ? "font-size=\"10\" fill=\"#c00\" text-anchor=\"end\""
			      : "font-size=\"10\" fill=\"#c00\"", ms[i].label);
	}
	if (peak_y >= 0) {
		kg_buf_printf(b, "<circle class=\"peak\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"none\" "
			      "stroke=\"#000\" stroke-width=\"1.5\"/>\n", PX(peak_x), PY(peak_y));
		snprintf(lb, sizeof lb, "peak %s", size_str((int64_t)llround(peak_y), sb, sizeof sb));
		double tx = PX(peak_x) > PLOT_L + pw - 90 ? PX(peak_x) - 6 : PX(peak_x) + 6;
		text_at(b, tx, PY(peak_y) - 6, PX(peak_x) > PLOT_L + pw - 90
			? "font-size=\"10\" text-anchor=\"end\"" : "font-size=\"10\"", lb);
	}
#undef PX
#undef PY
	return 40 + PLOT_H + 45;
}

/* ---- snapshots ----------------------------------------------------------- */

static const char *state_color(const char *s)
{
	return !strcmp(s, "active_allocated") ? "#d62728"
	     : !strcmp(s, "active_pending_free") ? "#ff9f1c"
	     : !strcmp(s, "inactive") ? "#9ecae1" : "#bbbbbb";
}

/* Segments packed left to right in rows of W − 2·20 px; scale so the
 * largest segment fills at most a row and the whole map takes ≤ ~12 rows. */
static double segment_map(kg_buf *b, double top, const kg_segment_view *map, size_t nmap)
{
	double total = 0, largest = 0, rw = W - 40, rh = 16, gap = 3;
	for (size_t i = 0; i < nmap; i++) {
		double sz = (double)map[i].total_size;
		total += sz > 0 ? sz : 0;
		largest = fmax(largest, sz);
	}
	if (largest <= 0)
		return 0;
	double bpp = fmax(largest, total / 12) / rw;  /* bytes per pixel */
	char lb[200], sb[64];
	snprintf(lb, sizeof lb, "Segment map: %d largest segments, largest first (width ∝ bytes; 1 px = %s)",
		 (int)nmap, size_str((int64_t)bpp, sb, sizeof sb));
	text_at(b, 20, top + 18, "font-size=\"14\" font-weight=\"bold\"", lb);
	static const char *const states[] = {"active_allocated", "active_pending_free", "inactive"};
	for (int i = 0; i < 3; i++) {
		kg_buf_printf(b, "<rect x=\"%d\" y=\"%.1f\" width=\"12\" height=\"10\" fill=\"%s\"/>\n",
			      20 + 190 * i, top + 26, state_color(states[i]));
		text_at(b, 36 + 190 * i, top + 35, "font-size=\"11\"", states[i]);
	}
	double x = 0, y = top + 46;
	for (size_t i = 0; i < nmap; i++) {
		const kg_segment_view *s = &map[i];
		double w = fmax(2, (double)s->total_size / bpp);
		if (x > 0 && x + w > rw) {
			x = 0;
			y += rh + gap;
		}
		double ox = 20 + x, sz = (double)s->total_size;
		for (size_t k = 0; k < s->nruns && sz > 0; k++) {
			double rwid = w * (double)s->runs[k].bytes / sz;
			kg_buf_printf(b, "<rect class=\"block\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"/>\n",
				      ox, y, rwid, rh, state_color(s->runs[k].state));
			ox += rwid;
		}
		kg_buf_printf(b, "<rect class=\"segment\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
			      "fill=\"none\" stroke=\"#333\" stroke-width=\"0.5\"><title>",
			      20 + x, y, w, rh);
		snprintf(lb, sizeof lb, "%s segment, %s", s->segment_type ? s->segment_type : "unknown",
			 size_str((int64_t)sz, sb, sizeof sb));
		put_text(b, lb);
		kg_buf_puts(b, "</title></rect>\n");
		x += w + 1;
	}
	return y + rh + 20 - top;
}

static double snapshot_panels(kg_buf *b, double top, const kg_snapshot *snap)
{
	double h = 0;
	const char *path = snap->path;
	for (size_t di = 0; di < snap->ndevices; di++) {
		const kg_snapshot_device *d = &snap->devices[di];
		const kg_snapshot_trace *tr = &d->trace;
		char title[512];
		size_t n = tr->npoints;
		if (tr->entries > 0 && n > 0) {
			series ss[2] = {{"requested (allocated)", "#1f77b4", NULL, NULL, 0},
					{"reserved", "#2ca02c", NULL, NULL, 0}};
			for (int k = 0; k < 2; k++) {
				ss[k].x = kg_malloc(n * sizeof(double));
				ss[k].y = kg_malloc(n * sizeof(double));
			}
			for (size_t i = 0; i < n; i++) {
				const kg_series_point *p = &tr->points[i];
				for (int k = 0; k < 2; k++) {
					ss[k].x[ss[k].n] = (double)p->entry;
					ss[k].y[ss[k].n++] = (double)(k ? p->reserved_bytes : p->requested_bytes);
				}
			}
			size_t nm = 0;
			marker *ms = kg_calloc(tr->noom_entries + 1, sizeof *ms);
			for (size_t oi = 0; oi < tr->noom_entries; oi++) {
				char sb[64];
				int64_t sz = oi < tr->noom ? tr->oom[oi].size_bytes : KG_NONE;
				ms[nm].x = (double)tr->oom_entries[oi];
				ms[nm].color = "#c00";
				if (sz != KG_NONE)
					snprintf(ms[nm].label, sizeof ms[nm].label, "OOM (%s)", size_str(sz, sb, sizeof sb));
				else
					snprintf(ms[nm].label, sizeof ms[nm].label, "OOM");
				nm++;
			}
			int64_t pe = tr->peak_entry;
			int64_t pk = tr->peak_requested_bytes;
			snprintf(title, sizeof title, "%s, device %lld: trace replay, %lld entries",
				 path ? path : "snapshot", (long long)d->device, (long long)tr->entries);
			h += chart(b, top + h, title, "trace entry", ss, 2, ms, nm,
				   pe != KG_NONE ? (double)pe : 0, pe != KG_NONE && pk != KG_NONE ? (double)pk : -1);
			free(ms);
			for (int k = 0; k < 2; k++) {
				free(ss[k].x);
				free(ss[k].y);
			}
		}
		if (d->nsegment_map > 0)
			h += segment_map(b, top + h, d->segment_map, d->nsegment_map);
	}
	return h;
}

/* ---- logs ---------------------------------------------------------------- */

static double log_panel(kg_buf *b, double top, const kg_report *rep, const kg_log_facts *lf,
			size_t inc0, size_t inc1)
{
	if (!lf->nreadings)
		return 0;
	bool all_step = true, all_epoch = true;
	for (size_t i = 0; i < lf->nreadings; i++) {
		all_step = all_step && lf->readings[i].step != KG_NONE;
		all_epoch = all_epoch && lf->readings[i].epoch != KG_NONE;
	}
	const char *xname = all_step ? "step" : all_epoch ? "epoch" : "reading";
	static const char *const names[] = {"allocated", "reserved", "max allocated", "max reserved"};
	static const char *const colors[] = {"#1f77b4", "#2ca02c", "#9467bd", "#8c564b"};
	series ss[4];
	double *xs = kg_malloc(lf->nreadings * sizeof *xs);
	for (size_t i = 0; i < lf->nreadings; i++)
		xs[i] = all_step ? (double)lf->readings[i].step
		      : all_epoch ? (double)lf->readings[i].epoch : (double)i;
	size_t ns = 0;
	for (int k = 0; k < 4; k++) {
		series s = {names[k], colors[k], kg_malloc(lf->nreadings * sizeof(double)),
			    kg_malloc(lf->nreadings * sizeof(double)), 0};
		for (size_t i = 0; i < lf->nreadings; i++) {
			const kg_reading *r = &lf->readings[i];
			if ((int)r->kind != k || r->value.bytes == KG_NONE)
				continue;
			s.x[s.n] = xs[i];
			s.y[s.n++] = (double)r->value.bytes;
		}
		if (s.n) {
			ss[ns++] = s;
		} else {
			free(s.x);
			free(s.y);
		}
	}
	size_t nm = 0;
	marker *ms = kg_calloc(inc1 - inc0 + 1, sizeof *ms);
	const char *path = "log";
	for (size_t i = inc0; i < inc1; i++) {
		const kg_incident *inc = &rep->incidents[i];
		path = inc->path ? inc->path : path;
		size_t at = 0;
		for (size_t k = 0; k < lf->nreadings && lf->readings[k].line <= inc->line; k++)
			at = k;
		ms[nm].x = xs[at];
		ms[nm].color = "#c00";
		snprintf(ms[nm].label, sizeof ms[nm].label, "%s #%d (line %ld)",
			 inc->kind && !strcmp(inc->kind, "oom-warning") ? "OOM warning" : "OOM", inc->id, inc->line);
		nm++;
	}
	char title[512];
	snprintf(title, sizeof title, "%s: memory readings over %ss (%zu readings)", path, xname, lf->nreadings);
	double h = chart(b, top, title, xname, ss, ns, ms, nm, 0, -1);
	free(ms);
	for (size_t k = 0; k < ns; k++) {
		free(ss[k].x);
		free(ss[k].y);
	}
	free(xs);
	return h;
}

/* ---- document ------------------------------------------------------------ */

char *kg_svg_render(const kg_report *rep, const kg_log_facts *lfs, const size_t *logs_first,
		    size_t nlogs)
{
	kg_buf body = {0};
	double h = 10;
	for (size_t i = 0; i < rep->nsnapshots; i++)
		if (rep->snapshots[i]->kind == KG_SNAPSHOT)
			h += snapshot_panels(&body, h, rep->snapshots[i]);
	for (size_t i = 0; i < nlogs; i++)
		h += log_panel(&body, h, rep, &lfs[i], logs_first[i], logs_first[i + 1]);
	if (h <= 10) {
		text_at(&body, 20, 40, "font-size=\"14\"",
			"No memory readings in the log and no allocator snapshot trace to draw.");
		h = 60;
	}
	kg_buf out = {0};
	kg_buf_printf(&out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" height=\"%.0f\" "
		      "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n"
		      "<title>kgmem-diagnose memory picture</title>\n"
		      "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n", W, h + 10, W, h + 10);
	if (body.len)
		kg_buf_append(&out, body.data, body.len);
	kg_buf_puts(&out, "</svg>\n");
	kg_buf_free(&body);
	return kg_buf_steal(&out);
}

int kg_svg_write(const kg_report *rep, const kg_log_facts *lfs, const size_t *logs_first,
		 size_t nlogs, const char *path, kg_error *err)
{
	char *svg = kg_svg_render(rep, lfs, logs_first, nlogs);
	int rc = kg_write_output(path, svg, strlen(svg), err);
	free(svg);
	return rc;
}

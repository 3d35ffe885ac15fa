/* svg.c — see include/report/svg.h. Plain SVG 1.1 (g, polyline, rect, line,
 * circle, text, title), sizes labelled the way c10 format_size prints them
 * (kg_size_format), the allocator's vocabulary (reserved, allocated,
 * active, inactive, segment, block). Deterministic: the same report gives
 * the same bytes. */
#include "report/svg.h"
#include "diagnose/budget.h"
#include "model/snapshot.h"
#include "model/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 960.0
#define MARGIN 20.0
#define PLOT_L 90.0
#define PLOT_R 30.0
#define PLOT_H 220.0
#define MAX_POINTS 2001     /* per polyline */
#define MAX_BUDGETS 8       /* incidents whose budget is drawn */
#define MAX_CAPTION 8       /* incidents named in the caption */
#define CAPTION_CHARS 125   /* characters per caption line (12 px sans-serif in 920 px) */

/* Colours: one per quantity, the same in every panel. Cached-unused memory
 * (reserved − allocated) is the inactive blocks of the segment map. */
#define C_ALLOCATED "#1f77b4"
#define C_RESERVED "#2ca02c"
#define C_MAX_ALLOCATED "#9467bd"
#define C_MAX_RESERVED "#8c564b"
#define C_INACTIVE "#fdbf6f"
#define C_PENDING "#cab2d6"
#define C_NON_PYTORCH "#7f7f7f"
#define C_OTHERS "#e377c2"
#define C_UNACCOUNTED "#bcbd22"
#define C_FREE "#f0f0f0"
#define C_UNKNOWN "#bbbbbb"
#define C_REQUEST "#d62728"
#define C_CAPACITY "#e6550d"
#define C_OOM "#cc0000"

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

/* Code points in s[0, n) (UTF-8 continuation bytes not counted). */
static size_t cps(const char *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += ((unsigned char)s[i] & 0xC0) != 0x80;
	return k;
}

/* Writes s as lines of at most maxch code points, broken at spaces (a word
 * longer than a line is cut), from baseline y, lh apart; returns the number
 * of lines. SVG 1.1 text does not wrap by itself. */
static int text_wrapped(kg_buf *b, double x, double y, double lh, const char *attrs, const char *s,
			size_t maxch)
{
	int lines = 0;
	size_t len = strlen(s), at = 0;
	while (at < len) {
		while (at < len && s[at] == ' ')
			at++;
		if (at >= len)
			break;
		size_t end = at, brk = 0, k = 0;
		while (end < len && k < maxch) {
			end++;
			while (end < len && ((unsigned char)s[end] & 0xC0) == 0x80)
				end++;
			k++;
			if (end < len && s[end] == ' ')
				brk = end;
		}
		if (end < len && s[end] != ' ' && brk > at)
			end = brk;
		char *line = kg_malloc(end - at + 1);
		memcpy(line, s + at, end - at);
		line[end - at] = '\0';
		text_at(b, x, y + lh * lines, attrs, line);
		free(line);
		lines++;
		at = end;
	}
	return lines;
}

static const char *size_str(double bytes, char *buf, size_t n)
{
	return kg_size_format(bytes < 0 ? 0 : kg_clamp_i64(round(bytes)), buf, n);
}

/* Estimated width in px of s at font-size 11 (sans-serif averages ~0.6 em). */
static double text_w(const char *s)
{
	return 6.6 * (double)cps(s, strlen(s));
}

/* ---- axes ---------------------------------------------------------------- */

/* Byte axis from 0: the step is the smallest power of two (bytes) that
 * covers vmax (plus 3 % headroom) in at most 7 intervals, so the ticks read
 * 0, 2.00 GiB, 4.00 GiB, … or 0, 512.00 MiB, 1.00 GiB, …; returns the step
 * and sets *nint. */
static double bytes_step(double vmax, int *nint)
{
	double step = 1, top = vmax * 1.03;
	while (ceil(top / step) > 7)
		step *= 2;
	*nint = (int)ceil(top / step);
	if (*nint < 1)
		*nint = 1;
	return step;
}

/* Count axis (steps, epochs, entries): 1, 2 or 5 × 10^k, at least 1, with
 * at most 8 intervals over span. */
static double count_step(double span)
{
	for (double p = 1;; p *= 10)
		for (int m = 1; m <= 5; m += m == 1 ? 1 : 3)
			if (span / (m * p) <= 8 || p > 1e17)
				return m * p;
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
} marker;

typedef struct hline {
	double y;
	char label[96];
} hline;

typedef struct chart_spec {
	const char *title, *xname;
	const char *note;           /* a line under the title, or NULL */
	const series *ss;
	size_t ns;
	const marker *ms;           /* OOM marks */
	size_t nm;
	const hline *caps;          /* device capacity lines */
	size_t ncaps;
	double peak_x, peak_y;      /* peak_y < 0: no peak */
} chart_spec;

/* One legend entry at *lx (advanced past it): a swatch (a filled box, or a
 * line when dash is set) and its name. */
static void legend_entry(kg_buf *b, double *lx, double y, const char *color, const char *dash,
			 const char *name)
{
	if (dash)
		kg_buf_printf(b, "<line class=\"legend\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			      "stroke=\"%s\" stroke-width=\"2\"%s%s%s/>\n", *lx, y - 4, *lx + 16, y - 4, color,
			      *dash ? " stroke-dasharray=\"" : "", dash, *dash ? "\"" : "");
	else
		kg_buf_printf(b, "<rect class=\"legend\" x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"10\" fill=\"%s\"/>\n",
			      *lx, y - 9, color);
	text_at(b, *lx + 20, y, "font-size=\"11\"", name);
	*lx += 20 + text_w(name) + 18;
}

/* Draws one chart panel at y = top (class "chart"): title, note, legend
 * (each series once, then capacity, OOM and peak when drawn), the plot with
 * byte ticks (class "ytick") and count ticks (class "xtick"), the series
 * (class "series"), capacity lines (class "capacity"), OOM marks (class
 * "oom") and the peak (class "peak"). Returns its height. */
static double chart(kg_buf *b, double top, const chart_spec *c)
{
	double x0 = INFINITY, x1 = -INFINITY, ymax = 0;
	for (size_t i = 0; i < c->ns; i++)
		for (size_t k = 0; k < c->ss[i].n; k++) {
			x0 = fmin(x0, c->ss[i].x[k]);
			x1 = fmax(x1, c->ss[i].x[k]);
			ymax = fmax(ymax, c->ss[i].y[k]);
		}
	for (size_t i = 0; i < c->nm; i++) {
		x0 = fmin(x0, c->ms[i].x);
		x1 = fmax(x1, c->ms[i].x);
	}
	for (size_t i = 0; i < c->ncaps; i++)
		ymax = fmax(ymax, c->caps[i].y);
	if (!isfinite(x0))
		x0 = 0, x1 = 1;
	if (x1 <= x0)
		x1 = x0 + 1;
	double pad = (x1 - x0) * 0.02;  /* marks at the ends stay off the frame */
	x0 -= pad;
	x1 += pad;
	if (ymax <= 0)
		ymax = 1;
	int nint;
	double ystep = bytes_step(ymax, &nint), y1 = ystep * nint;
	kg_buf_puts(b, "<g class=\"chart\">\n");
	text_at(b, MARGIN, top + 18, "font-size=\"13\" font-weight=\"bold\"", c->title);
	double ly = top + 34;
	if (c->note)
		ly += 14.0 * text_wrapped(b, MARGIN, ly, 14, "font-size=\"11\" fill=\"#444\"", c->note, 140) + 2;
	double lx = PLOT_L;
	static const char *const dashes[] = {"", "4 3"};
	for (size_t i = 0; i < c->ns; i++)
		if (c->ss[i].n)
			legend_entry(b, &lx, ly, c->ss[i].color, NULL, c->ss[i].name);
	if (c->ncaps)
		legend_entry(b, &lx, ly, C_CAPACITY, dashes[0], "device capacity");
	if (c->nm)
		legend_entry(b, &lx, ly, C_OOM, dashes[1], "OOM");
	double pt = ly + 10, pw = W - PLOT_L - PLOT_R;
#define PX(v) (PLOT_L + ((v) - x0) / (x1 - x0) * pw)
#define PY(v) (pt + PLOT_H - (v) / y1 * PLOT_H)
	kg_buf_printf(b, "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		      "fill=\"#fafafa\" stroke=\"#999\"/>\n", PLOT_L, pt, pw, PLOT_H);
	char sb[64], lb[200];
	for (int t = 0; t <= nint; t++) {
		double v = ystep * t, y = PY(v);
		kg_buf_printf(b, "<line class=\"ytick\" x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\" stroke=\"#ddd\"/>\n",
			      PLOT_L, y, PLOT_L + pw, y);
		text_at(b, PLOT_L - 6, y + 4, "class=\"ytick\" font-size=\"10\" text-anchor=\"end\"",
			size_str(v, sb, sizeof sb));
	}
	double xstep = count_step(x1 - x0 - 2 * pad);
	for (double v = ceil(x0 / xstep) * xstep; v <= x1 + 1e-9; v += xstep) {
		if (fabs(v) < xstep / 2)
			v = 0;  /* not "-0" */
		double x = PX(v);
		kg_buf_printf(b, "<line class=\"xtick\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#999\"/>\n",
			      x, pt + PLOT_H, x, pt + PLOT_H + 4);
		snprintf(lb, sizeof lb, "%.0f", v);
		text_at(b, x, pt + PLOT_H + 15, "class=\"xtick\" font-size=\"10\" text-anchor=\"middle\"", lb);
	}
	text_at(b, PLOT_L + pw / 2, pt + PLOT_H + 31, "font-size=\"11\" text-anchor=\"middle\"", c->xname);
	for (size_t i = 0; i < c->ns; i++) {
		if (!c->ss[i].n)
			continue;
		kg_buf_printf(b, "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
			      c->ss[i].color);
		for (size_t k = 0; k < c->ss[i].n; k++)
			kg_buf_printf(b, "%s%.1f,%.1f", k ? " " : "", PX(c->ss[i].x[k]), PY(c->ss[i].y[k]));
		kg_buf_puts(b, "\"/>\n");
	}
	for (size_t i = 0; i < c->ncaps; i++) {
		double y = PY(c->caps[i].y);
		kg_buf_printf(b, "<line class=\"capacity\" x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\" "
			      "stroke=\"%s\" stroke-width=\"2\"/>\n", PLOT_L, y, PLOT_L + pw, y, C_CAPACITY);
		text_at(b, PLOT_L + 4, y - 5, "font-size=\"10\" fill=\"" C_CAPACITY "\"",
			c->caps[i].label);
	}
	/* OOM labels in up to 4 rows from the bottom, each where it does not
	 * overlap the one before it in that row (else the mark stays unlabelled) */
	double row_end[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
	for (size_t i = 0; i < c->nm; i++) {
		double x = PX(c->ms[i].x);
		kg_buf_printf(b, "<line class=\"oom\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" "
			      "stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>\n",
			      x, pt, x, pt + PLOT_H, C_OOM);
		double tw = text_w(c->ms[i].label) * 10 / 11;
		bool right = x + 4 + tw > PLOT_L + pw;
		double a = right ? x - 4 - tw : x + 4;
		for (int r = 0; r < 4; r++) {
			if (a < row_end[r] + 6)
				continue;
			row_end[r] = a + tw;
			text_at(b, right ? x - 4 : x + 4, pt + PLOT_H - 8 - 12.0 * r,
				right ? "font-size=\"10\" fill=\"" C_OOM "\" text-anchor=\"end\""
				      : "font-size=\"10\" fill=\"" C_OOM "\"", c->ms[i].label);
			break;
		}
	}
	if (c->peak_y >= 0) {
		double px = PX(c->peak_x), py = PY(c->peak_y);
		kg_buf_printf(b, "<circle class=\"peak\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"none\" "
			      "stroke=\"#000\" stroke-width=\"1.5\"/>\n", px, py);
		snprintf(lb, sizeof lb, "peak %s", size_str(c->peak_y, sb, sizeof sb));
		bool right = px > PLOT_L + pw - 90;
		text_at(b, right ? px - 6 : px + 6, py - 6,
			right ? "font-size=\"10\" text-anchor=\"end\"" : "font-size=\"10\"", lb);
	}
#undef PX
#undef PY
	kg_buf_puts(b, "</g>\n");
	return pt - top + PLOT_H + 45;
}

/* ---- the memory budget at an OOM ----------------------------------------- */

static const char *const part_class[6] = {"allocated", "cached-unused", "non-pytorch",
					  "other-processes", "unaccounted", "free"};
static const char *const part_color[6] = {C_ALLOCATED, C_INACTIVE, C_NON_PYTORCH,
					  C_OTHERS, C_UNACCOUNTED, C_FREE};

static const char *where(const kg_incident *inc, char *buf, size_t n)
{
	if (inc->line > 0)
		snprintf(buf, n, "%s:%ld", inc->path ? inc->path : "?", inc->line);
	else
		snprintf(buf, n, "%s", inc->path ? inc->path : "?");
	return buf;
}

/* The budget of one incident (kg_budget, budget.h) as a stacked bar (class
 * "budget"): the device's capacity (class "budget-frame") split into its
 * parts (class "budget-part PART", width ∝ bytes, in kg_budget_parts
 * order), and under it the failed request (class "budget-request") drawn
 * from where free memory starts at the same scale, past the capacity
 * edge by what did not fit. Returns its height (0 when the capacity is
 * not known). */
static double budget_panel(kg_buf *b, double top, const kg_incident *inc)
{
	const kg_budget *bu = &inc->budget;
	if (bu->capacity == KG_NONE || bu->capacity <= 0)
		return 0;
	char lb[600], sb[64], tb[64], wb[300];
	snprintf(lb, sizeof lb, "OOM #%d (%s): device memory at the failure, width \xE2\x88\x9D bytes",
		 inc->id, where(inc, wb, sizeof wb));
	kg_buf_puts(b, "<g class=\"budget\">\n");
	text_at(b, MARGIN, top + 18, "font-size=\"13\" font-weight=\"bold\"", lb);
	if (!bu->consistent) {
		text_at(b, MARGIN, top + 36, "font-size=\"11\"",
			kg_budget_line(bu, NULL, lb, sizeof lb) ? lb : "the message's numbers contradict each other");
		kg_buf_puts(b, "</g>\n");
		return 48;
	}
	kg_budget_part p[6];
	size_t np = kg_budget_parts(bu, p);
	double before_free = 0, sum = 0;
	for (size_t i = 0; i < np; i++) {
		if (p[i].kind == 5)
			before_free = sum;
		sum += (double)p[i].bytes;
	}
	bool has_free = false;
	for (size_t i = 0; i < np; i++)
		has_free |= p[i].kind == 5;
	if (!has_free)
		before_free = sum;
	bool req = bu->requested != KG_NONE && bu->requested > 0;
	double cap = (double)bu->capacity;
	double extent = fmax(cap, fmax(sum, req ? before_free + (double)bu->requested : 0));
	double scale = (W - 2 * MARGIN) / extent;  /* px per byte */
	double bx = MARGIN, by = top + 44, bh = 24, rh = 12, ry = by + bh + 4;
	double cx = bx + cap * scale;
	snprintf(lb, sizeof lb, "capacity %s", size_str(cap, sb, sizeof sb));
	text_at(b, cx, top + 36, cx > W - 80 ? "font-size=\"10\" text-anchor=\"end\""
		: "font-size=\"10\" text-anchor=\"middle\"", lb);
	/* the capacity edge under the bar and the request */
	kg_buf_printf(b, "<line class=\"budget-capacity\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" "
		      "stroke=\"#333\" stroke-width=\"1\" stroke-dasharray=\"3 2\"/>\n", cx, by - 4, cx, ry + rh + 4);
	/* whole pixels (boundaries rounded from the exact running sum, so each
	 * part is its bytes' width within a pixel); the frame first: the parts
	 * cover its inner half */
	kg_buf_puts(b, "<g shape-rendering=\"crispEdges\">\n");
	kg_buf_printf(b, "<rect class=\"budget-frame\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" "
		      "fill=\"none\" stroke=\"#333\" stroke-width=\"1\"/>\n", bx, by, round(cap * scale), bh);
	double cum = 0;
	for (size_t i = 0; i < np; i++) {
		double x = round(bx + cum * scale);
		cum += (double)p[i].bytes;
		kg_buf_printf(b, "<rect class=\"budget-part %s\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" "
			      "fill=\"%s\"><title>", part_class[p[i].kind], x, by, round(bx + cum * scale) - x, bh,
			      part_color[p[i].kind]);
		snprintf(lb, sizeof lb, "%s %s", size_str((double)p[i].bytes, sb, sizeof sb), p[i].what);
		put_text(b, lb);
		kg_buf_puts(b, "</title></rect>\n");
	}
	if (req) {
		double x = round(bx + before_free * scale);
		kg_buf_printf(b, "<rect class=\"budget-request\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" "
			      "fill=\"%s\"/>\n", x, ry, round(bx + (before_free + (double)bu->requested) * scale) - x,
			      rh, C_REQUEST);
	}
	kg_buf_puts(b, "</g>\n");
	double ty = ry + rh + 18;
	if (req) {
		if (bu->free != KG_NONE)
			snprintf(lb, sizeof lb, "requested %s %s %s free%s (drawn from where free memory starts)",
				 size_str((double)bu->requested, sb, sizeof sb), bu->requested > bu->free ? ">" : "\xE2\x89\xA4",
				 size_str((double)bu->free, tb, sizeof tb),
				 bu->requested > bu->free ? ": it does not fit" : "");
		else
			snprintf(lb, sizeof lb, "requested %s (drawn from where free memory starts)",
				 size_str((double)bu->requested, sb, sizeof sb));
		double lx = MARGIN;
		legend_entry(b, &lx, ty, C_REQUEST, NULL, lb);
		ty += 17;
	}
	double lx = MARGIN;
	for (size_t i = 0; i < np; i++) {
		snprintf(lb, sizeof lb, "%s %s", size_str((double)p[i].bytes, sb, sizeof sb), p[i].what);
		if (lx + 20 + text_w(lb) > W - MARGIN) {
			lx = MARGIN;
			ty += 17;
		}
		legend_entry(b, &lx, ty, part_color[p[i].kind], NULL, lb);
	}
	kg_buf_puts(b, "</g>\n");
	return ty + 14 - top;
}

/* ---- the diagnosis as a caption ------------------------------------------ */

/* The diagnosis of each incident (at most MAX_CAPTION): where, what (the
 * text report's headline, report.h kg_incident_headline) and the verdict
 * (cause, confidence), as a caption (class "caption"). Returns its height. */
static double caption(kg_buf *b, double top, const kg_report *rep)
{
	kg_buf_puts(b, "<g class=\"caption\">\n");
	double y = top + 18;
	if (!rep->nincidents) {
		text_at(b, MARGIN, y, "font-size=\"13\"", "No OOM incident diagnosed.");
		kg_buf_puts(b, "</g>\n");
		return 30;
	}
	char wb[300], vb[96];
	for (size_t i = 0; i < rep->nincidents && i < MAX_CAPTION; i++) {
		const kg_incident *inc = &rep->incidents[i];
		char *head = kg_incident_headline(inc, KG_HEADLINE_TIME);
		kg_buf l = {0};
		kg_buf_printf(&l, "%s #%d at %s: %s",
			      !inc->kind || !strcmp(inc->kind, "oom") || !strcmp(inc->kind, "oom-suspected") ? "OOM"
			      : !strcmp(inc->kind, "oom-warning") ? "OOM warning" : "OOM (unknown message)",
			      inc->id, where(inc, wb, sizeof wb), head);
		free(head);
		int n = text_wrapped(b, MARGIN, y, 16, "font-size=\"12\" font-weight=\"bold\"", l.data, CAPTION_CHARS);
		kg_buf_free(&l);
		y += 16.0 * n;
		kg_incident_verdict(inc, vb, sizeof vb);
		kg_buf_printf(&l, "diagnosis: %s", vb);
		text_at(b, MARGIN + 12, y, "font-size=\"12\"", l.data);
		kg_buf_free(&l);
		y += 20;
	}
	if (rep->nincidents > MAX_CAPTION) {
		snprintf(wb, sizeof wb, "… and %zu more incidents (the text report lists every one)",
			 rep->nincidents - MAX_CAPTION);
		text_at(b, MARGIN, y, "font-size=\"12\"", wb);
		y += 20;
	}
	kg_buf_puts(b, "</g>\n");
	return y - top;
}

/* ---- snapshots ----------------------------------------------------------- */

static const char *state_color(const char *s)
{
	return !strcmp(s, "active_allocated") ? C_ALLOCATED
	     : !strcmp(s, "active_pending_free") ? C_PENDING
	     : !strcmp(s, "inactive") ? C_INACTIVE : C_UNKNOWN;
}

static int state_index(const char *s)
{
	return !strcmp(s, "active_allocated") ? 0 : !strcmp(s, "active_pending_free") ? 1
	     : !strcmp(s, "inactive") ? 2 : 3;
}

#define MAP_W (W - 2 * MARGIN)
#define MAP_ROWS 16
#define MAP_RH 14.0
#define MAP_RGAP 4.0
#define MAP_MIN_PX 2.0

/* Rows the segment map takes at bpp bytes per pixel: segments wider than
 * MAP_MIN_PX one by one, 1 px apart, a segment that does not fit the row's
 * rest starting the next row; then one cell for the narrower ones. Sets
 * *shown to how many are drawn one by one. */
static int map_rows(const kg_segment_view *map, size_t n, double agg, double bpp, size_t *shown)
{
	double x = 0;
	int rows = 1;
	size_t k = 0;
	for (; k < n; k++) {
		double w = (double)map[k].total_size / bpp;
		if (w < MAP_MIN_PX)
			break;
		if (x > 0 && x + w > MAP_W)
			x = 0, rows++;
		x += w + 1;
	}
	*shown = k;
	for (size_t i = k; i < n; i++)
		agg += (double)map[i].total_size;
	if (agg > 0 && x > 0 && x + fmax(MAP_MIN_PX, agg / bpp) > MAP_W)
		rows++;
	return rows;
}

/* Runs [x, x + w) px of one cell: the runs' bytes at bpp, boundaries
 * rounded to whole pixels from the cell's exact start (so the pixels of a
 * state add up to its bytes / bpp within a pixel per cell). */
static void map_cell(kg_buf *b, double x, double y, double bpp, const kg_segment_run *runs, size_t nruns,
		     double total)
{
	double c = 0;
	for (size_t k = 0; k < nruns; k++) {
		double a = round(x + c / bpp);
		c += (double)runs[k].bytes;
		double e = round(x + fmin(c, total) / bpp);
		if (e > a)
			kg_buf_printf(b, "<rect class=\"block\" x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill=\"%s\"/>\n",
				      a, y, e - a, MAP_RH, state_color(runs[k].state));
	}
}

/* The segment map of one device (class "segment-map"): every segment,
 * largest first, width ∝ bytes, its blocks in address order coloured by
 * state (active_allocated, active_pending_free, inactive); segments
 * narrower than MAP_MIN_PX (and those past the loader's limit) summed into
 * one last cell underlined. The scale is chosen so the map takes at most
 * MAP_ROWS rows. Returns its height. */
static double segment_map(kg_buf *b, double top, const kg_snapshot_device *d)
{
	const kg_segment_view *map = d->segment_map;
	size_t n = d->nsegment_map;
	double total = (double)d->segment_rest.total_size, largest = 0;
	for (size_t i = 0; i < n; i++) {
		total += (double)map[i].total_size;
		largest = fmax(largest, (double)map[i].total_size);
	}
	if (total <= 0)
		return 0;
	double bpp = fmax(largest / MAP_W, total / (MAP_W * 12));
	size_t shown = 0;
	for (int i = 0; i < 100 && map_rows(map, n, (double)d->segment_rest.total_size, bpp, &shown) > MAP_ROWS; i++)
		bpp *= 1.25;
	/* the aggregate: the narrow segments and the loader's rest, by state */
	static const char *const states[4] = {"active_allocated", "active_pending_free", "inactive", "unknown"};
	int64_t agg_state[4] = {0};
	double agg = 0;
	size_t nagg = d->nsegment_rest + (n - shown);
	for (size_t i = shown; i <= n; i++) {
		const kg_segment_view *s = i < n ? &map[i] : &d->segment_rest;
		agg += (double)s->total_size;
		for (size_t k = 0; k < s->nruns; k++)
			agg_state[state_index(s->runs[k].state)] += s->runs[k].bytes;
	}
	char lb[400], sb[64], tb[64], ub[64], vb[64];
	int64_t nseg = (int64_t)n + (int64_t)d->nsegment_rest;
	snprintf(lb, sizeof lb, "Segment map, device %lld: all %lld segments, largest first "
		 "(width \xE2\x88\x9D bytes; 1 px = %s)", (long long)d->device, (long long)nseg,
		 size_str(bpp, sb, sizeof sb));
	kg_buf_puts(b, "<g class=\"segment-map\">\n");
	text_at(b, MARGIN, top + 18, "font-size=\"13\" font-weight=\"bold\"", lb);
	snprintf(lb, sizeof lb, "%s reserved: %s allocated, %s inactive (cached, free); fragmentation %.2f = "
		 "1 \xE2\x88\x92 largest inactive block %s / %s inactive",
		 size_str((double)d->reserved_bytes, sb, sizeof sb), size_str((double)d->allocated_bytes, tb, sizeof tb),
		 size_str((double)d->inactive_bytes, ub, sizeof ub), d->fragmentation,
		 size_str((double)d->largest_free_block_bytes, vb, sizeof vb), ub);
	text_at(b, MARGIN, top + 34, "font-size=\"11\" fill=\"#444\"", lb);
	double lx = MARGIN, ly = top + 52;
	legend_entry(b, &lx, ly, C_ALLOCATED, NULL, "active_allocated");
	legend_entry(b, &lx, ly, C_PENDING, NULL, "active_pending_free");
	legend_entry(b, &lx, ly, C_INACTIVE, NULL, "inactive (cached, free)");
	if (nagg) {
		snprintf(lb, sizeof lb, "underlined: %zu segment%s narrower than %.0f px, %s, in one cell", nagg,
			 nagg == 1 ? "" : "s", MAP_MIN_PX, size_str(agg, sb, sizeof sb));
		text_at(b, lx, ly, "font-size=\"11\"", lb);
	}
	kg_buf_puts(b, "<g shape-rendering=\"crispEdges\">\n");
	double x = 0, y = top + 62;
	for (size_t i = 0; i < shown; i++) {
		const kg_segment_view *s = &map[i];
		double w = (double)s->total_size / bpp;
		if (x > 0 && x + w > MAP_W) {
			x = 0;
			y += MAP_RH + MAP_RGAP;
		}
		kg_buf_printf(b, "<g class=\"segment\"><title>");
		snprintf(lb, sizeof lb, "%s segment, %s", s->segment_type ? s->segment_type : "unknown",
			 size_str((double)s->total_size, sb, sizeof sb));
		put_text(b, lb);
		kg_buf_puts(b, "</title>\n");
		if (s->nruns)
			map_cell(b, MARGIN + x, y, bpp, s->runs, s->nruns, (double)s->total_size);
		else
			map_cell(b, MARGIN + x, y, bpp, &(kg_segment_run){s->total_size, "unknown"}, 1,
				 (double)s->total_size);
		kg_buf_puts(b, "</g>\n");
		x += w + 1;
	}
	if (agg > 0) {
		double w = fmax(MAP_MIN_PX, agg / bpp);
		if (x > 0 && x + w > MAP_W) {
			x = 0;
			y += MAP_RH + MAP_RGAP;
		}
		kg_segment_run runs[4];
		size_t nr = 0;
		for (int k = 0; k < 4; k++)
			if (agg_state[k] > 0)
				runs[nr++] = (kg_segment_run){agg_state[k], states[k]};
		kg_buf_printf(b, "<g class=\"segment aggregate\"><title>");
		snprintf(lb, sizeof lb, "%zu segments narrower than %.0f px, %s", nagg, MAP_MIN_PX,
			 size_str(agg, sb, sizeof sb));
		put_text(b, lb);
		kg_buf_puts(b, "</title>\n");
		map_cell(b, MARGIN + x, y, agg / w, runs, nr, agg);
		kg_buf_printf(b, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"2\" fill=\"#000\"/>\n",
			      round(MARGIN + x), y + MAP_RH + 1, fmax(MAP_MIN_PX, round(w)));
		kg_buf_puts(b, "</g>\n");
	}
	kg_buf_puts(b, "</g>\n</g>\n");
	return y + MAP_RH + 20 - top;
}

/* The capacity of device dev stated by an incident of the report (the
 * first with one), with where it was stated; KG_NONE when none does. */
static int64_t incident_capacity(const kg_report *rep, int64_t dev, char *wb, size_t n)
{
	for (size_t i = 0; i < rep->nincidents; i++) {
		const kg_incident *inc = &rep->incidents[i];
		if (inc->budget.capacity != KG_NONE && inc->budget.capacity > 0 &&
		    (inc->device_index == dev || inc->device_index == KG_NONE)) {
			where(inc, wb, n);
			return inc->budget.capacity;
		}
	}
	return KG_NONE;
}

static double snapshot_panels(kg_buf *b, double top, const kg_report *rep, const kg_snapshot *snap)
{
	double h = 0;
	const char *path = snap->path;
	for (size_t di = 0; di < snap->ndevices; di++) {
		const kg_snapshot_device *d = &snap->devices[di];
		const kg_snapshot_trace *tr = &d->trace;
		char title[512], note[600], wb[300], sb[64];
		size_t n = tr->npoints;
		if (tr->entries > 0 && n > 0) {
			series ss[2] = {{"requested", C_ALLOCATED, NULL, NULL, 0},
					{"reserved", C_RESERVED, NULL, NULL, 0}};
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
				int64_t sz = oi < tr->noom ? tr->oom[oi].size_bytes : KG_NONE;
				ms[nm].x = (double)tr->oom_entries[oi];
				if (sz != KG_NONE)
					snprintf(ms[nm].label, sizeof ms[nm].label, "OOM (%s)", size_str((double)sz, sb, sizeof sb));
				else
					snprintf(ms[nm].label, sizeof ms[nm].label, "OOM");
				nm++;
			}
			/* the capacity an OOM message of the case states for this
			 * device; one below what the device reserved is another
			 * device's (inputs of different runs) and is not drawn */
			hline cap = {0};
			int64_t cb = incident_capacity(rep, d->device, wb, sizeof wb);
			int64_t most = tr->peak_reserved_bytes > d->reserved_bytes ? tr->peak_reserved_bytes
										    : d->reserved_bytes;
			const char *what = "requested = live blocks' requested sizes, replayed over device_traces";
			if (cb == KG_NONE) {
				snprintf(note, sizeof note, "%s; device capacity: not recorded in the snapshot "
					 "(no capacity line)", what);
			} else if (cb < most) {
				snprintf(note, sizeof note, "%s; device capacity: not recorded in the snapshot, and "
					 "the %s stated at %s is less than it reserved (no capacity line)", what,
					 size_str((double)cb, sb, sizeof sb), wb);
				cb = KG_NONE;
			} else {
				cap.y = (double)cb;
				snprintf(cap.label, sizeof cap.label, "capacity %s", size_str(cap.y, sb, sizeof sb));
				snprintf(note, sizeof note, "%s; device capacity as the OOM message at %s states it",
					 what, wb);
			}
			int64_t pe = tr->peak_entry, pk = tr->peak_requested_bytes;
			snprintf(title, sizeof title, "%s, device %lld: trace replay, %lld entries",
				 path ? path : "snapshot", (long long)d->device, (long long)tr->entries);
			chart_spec c = {title, "trace entry", note, ss, 2, ms, nm, &cap, cb != KG_NONE,
					pe != KG_NONE ? (double)pe : 0,
					pe != KG_NONE && pk != KG_NONE ? (double)pk : -1};
			h += chart(b, top + h, &c);
			free(ms);
			for (int k = 0; k < 2; k++) {
				free(ss[k].x);
				free(ss[k].y);
			}
		}
		if (d->has_segment_map)
			h += segment_map(b, top + h, d);
	}
	return h;
}

/* ---- logs ---------------------------------------------------------------- */

/* Keeps at most MAX_POINTS points of s: consecutive buckets, each drawn as
 * its largest reading (peaks survive). */
static void downsample(series *s)
{
	if (s->n <= MAX_POINTS)
		return;
	size_t per = (s->n + MAX_POINTS - 1) / MAX_POINTS, m = 0;
	for (size_t a = 0; a < s->n; a += per) {
		size_t best = a;
		for (size_t k = a; k < s->n && k < a + per; k++)
			if (s->y[k] > s->y[best])
				best = k;
		s->x[m] = s->x[best];
		s->y[m++] = s->y[best];
	}
	s->n = m;
}

/* The readings one job printed on one rank: a run. A log may hold several
 * jobs (one after another: the step counts again from a lower number, or a
 * fatal OOM ended the last one) and several ranks ([rankN]: prefixes): each
 * is its own run, and its own curve, never joined to another's. */
typedef struct run {
	int64_t rank;
	size_t *rd, nrd;            /* reading indices */
	size_t *inc, ninc;          /* incident indices (into rep->incidents) */
	bool dead;                  /* a fatal OOM ended it */
	double last_x;              /* the last reading's step (or epoch) */
} run;

#define MAX_RUN_CHARTS 8        /* runs drawn per log */

/* An OOM that ended the run (not a retried "oom-warning"). */
static bool fatal(const kg_incident *inc)
{
	return kg_incident_severity(inc) == KG_SEV_ERROR;
}

/* The step of a reading, else its epoch, else -1 (no restart can be seen). */
static double run_x(const kg_log_reading *r)
{
	return r->step != KG_NONE ? (double)r->step : r->epoch != KG_NONE ? (double)r->epoch : -1;
}

/* Splits lf's readings into runs and gives each incident of
 * rep->incidents[inc0, inc1) to the run open on its rank at its line (the
 * latest run when its rank is unknown). Returns the count; *out malloc'd. */
static size_t split_runs(const kg_report *rep, const kg_log_facts *lf, size_t inc0, size_t inc1, run **out)
{
	run *v = NULL;
	size_t nv = 0, last = (size_t)-1;
	size_t i = 0, j = inc0;
	while (i < lf->nreadings || j < inc1) {
		bool take_inc = j < inc1 && (i >= lf->nreadings || rep->incidents[j].line < lf->readings[i].line);
		if (take_inc) {
			const kg_incident *inc = &rep->incidents[j];
			size_t at = (size_t)-1;
			for (size_t k = nv; k-- > 0 && at == (size_t)-1;)
				if (!v[k].dead && (inc->rank == KG_NONE || v[k].rank == KG_NONE || v[k].rank == inc->rank))
					at = k;
			if (inc->rank == KG_NONE)
				at = last != (size_t)-1 && !v[last].dead ? last : at;
			if (at != (size_t)-1) {
				run *r = &v[at];
				r->inc = kg_realloc(r->inc, (r->ninc + 1) * sizeof *r->inc);
				r->inc[r->ninc++] = j;
				r->dead = fatal(inc);
			}
			j++;
			continue;
		}
		const kg_log_reading *rd = &lf->readings[i];
		double x = run_x(rd);
		size_t at = (size_t)-1;
		for (size_t k = nv; k-- > 0 && at == (size_t)-1;)
			if (v[k].rank == rd->rank)
				at = k;
		if (at == (size_t)-1 || v[at].dead || (x >= 0 && v[at].last_x >= 0 && x < v[at].last_x)) {
			v = kg_realloc(v, (nv + 1) * sizeof *v);
			v[nv] = (run){.rank = rd->rank, .last_x = -1};
			at = nv++;
		}
		run *r = &v[at];
		r->rd = kg_realloc(r->rd, (r->nrd + 1) * sizeof *r->rd);
		r->rd[r->nrd++] = i;
		if (x >= 0)
			r->last_x = x;
		last = at;
		i++;
	}
	*out = v;
	return nv;
}

/* One run's readings as a chart, its incidents marked: each reading kind
 * over steps when every reading of the run has a step, else over epochs,
 * else over reading number; each OOM at its own step or epoch when the
 * incident knows it, else halfway after the last reading before its line.
 * what names the run in the title ("" for a log with one run). */
static double run_chart(kg_buf *b, double top, const kg_report *rep, const kg_log_facts *lf,
			const run *ru, const char *what)
{
	bool all_step = true, all_epoch = true;
	for (size_t i = 0; i < ru->nrd; i++) {
		all_step = all_step && lf->readings[ru->rd[i]].step != KG_NONE;
		all_epoch = all_epoch && lf->readings[ru->rd[i]].epoch != KG_NONE;
	}
	const char *xname = all_step ? "step" : all_epoch ? "epoch" : "reading";
	static const char *const names[] = {"allocated", "reserved", "max allocated", "max reserved"};
	static const char *const colors[] = {C_ALLOCATED, C_RESERVED, C_MAX_ALLOCATED, C_MAX_RESERVED};
	series ss[4];
	double *xs = kg_malloc(ru->nrd * sizeof *xs);
	for (size_t i = 0; i < ru->nrd; i++) {
		const kg_log_reading *r = &lf->readings[ru->rd[i]];
		xs[i] = all_step ? (double)r->step : all_epoch ? (double)r->epoch : (double)(i + 1);
	}
	size_t ns = 0;
	for (int k = 0; k < 4; k++) {
		series s = {names[k], colors[k], kg_malloc(ru->nrd * sizeof(double)),
			    kg_malloc(ru->nrd * sizeof(double)), 0};
		for (size_t i = 0; i < ru->nrd; i++) {
			const kg_log_reading *r = &lf->readings[ru->rd[i]];
			if ((int)r->kind != k || r->value.bytes == KG_NONE)
				continue;
			s.x[s.n] = xs[i];
			s.y[s.n++] = (double)r->value.bytes;
		}
		downsample(&s);
		if (s.n) {
			ss[ns++] = s;
		} else {
			free(s.x);
			free(s.y);
		}
	}
	/* Each OOM at its own step or epoch when the incident knows it (the
	 * readings are printed at the end of an epoch or step; an OOM in the
	 * next one belongs there, not at the last reading); else halfway
	 * between the last reading before its line and the next one. */
	size_t nm = 0, ncaps = 0;
	marker *ms = kg_calloc(ru->ninc + 1, sizeof *ms);
	hline caps[4];
	const char *path = "log";
	char sb[64];
	for (size_t q = 0; q < ru->ninc; q++) {
		const kg_incident *inc = &rep->incidents[ru->inc[q]];
		path = inc->path ? inc->path : path;
		int64_t own = all_step ? inc->step : all_epoch ? inc->epoch : KG_NONE;
		if (own != KG_NONE) {
			ms[nm].x = (double)own;
		} else {
			size_t k = 0;
			bool before = false;
			while (k < ru->nrd && lf->readings[ru->rd[k]].line <= inc->line)
				k++, before = true;
			/* k: the first reading after the OOM */
			if (!before)
				ms[nm].x = xs[0] - (ru->nrd > 1 ? (xs[1] - xs[0]) / 2 : 0.5);
			else if (k < ru->nrd)
				ms[nm].x = (xs[k - 1] + xs[k]) / 2;
			else
				ms[nm].x = xs[k - 1] + (k > 1 ? (xs[k - 1] - xs[k - 2]) / 2 : 0.5);
		}
		const char *kind = fatal(inc) ? "OOM" : "OOM warning";
		if (own != KG_NONE)
			snprintf(ms[nm].label, sizeof ms[nm].label, "%s #%d, %s %lld (line %ld)", kind, inc->id,
				 xname, (long long)own, inc->line);
		else
			snprintf(ms[nm].label, sizeof ms[nm].label, "%s #%d (line %ld)", kind, inc->id, inc->line);
		nm++;
		int64_t cb = inc->budget.capacity;
		bool seen = cb == KG_NONE || cb <= 0;
		for (size_t c = 0; c < ncaps && !seen; c++)
			seen = caps[c].y == (double)cb;
		if (!seen && ncaps < 4) {
			caps[ncaps].y = (double)cb;
			if (inc->device_index != KG_NONE)
				snprintf(caps[ncaps].label, sizeof caps[ncaps].label, "capacity %s (device %lld)",
					 size_str((double)cb, sb, sizeof sb), (long long)inc->device_index);
			else
				snprintf(caps[ncaps].label, sizeof caps[ncaps].label, "capacity %s",
					 size_str((double)cb, sb, sizeof sb));
			ncaps++;
		}
	}
	char title[640], note[400];
	snprintf(title, sizeof title, "%s: memory readings over %ss (%zu readings)%s", path, xname, ru->nrd, what);
	if (ncaps)
		snprintf(note, sizeof note, "device capacity as the OOM message states it");
	else
		snprintf(note, sizeof note, "device capacity: %s (no capacity line)",
			 ru->ninc ? "not stated by the OOM message" : "no OOM message states it");
	chart_spec c = {title, xname, note, ss, ns, ms, nm, caps, ncaps, 0, -1};
	double h = chart(b, top, &c);
	free(ms);
	for (size_t k = 0; k < ns; k++) {
		free(ss[k].x);
		free(ss[k].y);
	}
	free(xs);
	return h;
}

/* The charts of one log: one per run that ended in (or printed) an OOM of
 * the log; every run when the log has none (at most MAX_RUN_CHARTS). */
static double log_panel(kg_buf *b, double top, const kg_report *rep, const kg_log_facts *lf,
			size_t inc0, size_t inc1)
{
	if (!lf->nreadings)
		return 0;
	run *v;
	size_t nv = split_runs(rep, lf, inc0, inc1, &v);
	bool any_inc = false;
	for (size_t k = 0; k < nv; k++)
		any_inc = any_inc || v[k].ninc;
	size_t shown = 0, skipped = 0, wanted = 0;
	for (size_t k = 0; k < nv; k++)
		wanted += !any_inc || v[k].ninc;
	double h = 0;
	for (size_t k = 0; k < nv; k++) {
		const run *ru = &v[k];
		if (any_inc && !ru->ninc) {
			skipped++;
			continue;
		}
		if (shown >= MAX_RUN_CHARTS)
			continue;
		char what[160] = "", rk[48] = "";
		if (ru->rank != KG_NONE)
			snprintf(rk, sizeof rk, ", rank %lld", (long long)ru->rank);
		if (wanted > 1 && ru->ninc)
			snprintf(what, sizeof what, ": the run that ended in OOM #%d%s",
				 rep->incidents[ru->inc[ru->ninc - 1]].id, rk);
		else if (wanted > 1)
			snprintf(what, sizeof what, ": run %zu of %zu%s", shown + 1, wanted, rk);
		else if (*rk)
			snprintf(what, sizeof what, ": %s", rk + 2);
		h += run_chart(b, top + h, rep, lf, ru, what);
		shown++;
	}
	if (skipped || wanted > shown) {
		char lb[200];
		snprintf(lb, sizeof lb, "%zu more run%s of readings not drawn (%s)", skipped + wanted - shown,
			 skipped + wanted - shown == 1 ? "" : "s",
			 wanted > shown ? "at most 8 charts a log" : "no OOM of theirs in this log");
		text_at(b, MARGIN, top + h + 14, "font-size=\"12\" class=\"runs-left\"", lb);
		h += 24;
	}
	for (size_t k = 0; k < nv; k++) {
		free(v[k].rd);
		free(v[k].inc);
	}
	free(v);
	return h;
}

/* ---- document ------------------------------------------------------------ */

char *kg_svg_render(const kg_report *rep, const kg_log_facts *lfs, const size_t *logs_first,
		    size_t nlogs)
{
	kg_buf body = {0};
	double h = 6;
	h += caption(&body, h, rep);
	double drawn = h;
	size_t nb = 0, left = 0;
	for (size_t i = 0; i < rep->nincidents; i++) {
		const kg_budget *bu = &rep->incidents[i].budget;
		if (nb >= MAX_BUDGETS) {
			left += bu->capacity != KG_NONE && bu->capacity > 0;
			continue;
		}
		double bh = budget_panel(&body, h, &rep->incidents[i]);
		nb += bh > 0;
		h += bh;
	}
	if (left) {
		char lb[120];
		snprintf(lb, sizeof lb, "… the memory budgets of %zu more incidents are not drawn "
			 "(the text report gives each one)", left);
		text_at(&body, MARGIN, h + 14, "font-size=\"12\"", lb);
		h += 24;
	}
	for (size_t i = 0; i < rep->nsnapshots; i++)
		if (rep->snapshots[i]->kind == KG_SNAPSHOT)
			h += snapshot_panels(&body, h, rep, rep->snapshots[i]);
	for (size_t i = 0; i < nlogs; i++)
		h += log_panel(&body, h, rep, &lfs[i], logs_first[i], logs_first[i + 1]);
	if (h <= drawn) {
		text_at(&body, MARGIN, h + 20, "font-size=\"13\"",
			"No memory readings in the log and no allocator snapshot trace to draw.");
		h += 36;
	}
	kg_buf out = {0};
	kg_buf_printf(&out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" height=\"%.0f\" "
		      "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n"
		      "<title>kgmem-diagnose memory picture</title>\n"
		      "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n", W, ceil(h + 10), W, ceil(h + 10));
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

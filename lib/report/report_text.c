/* report_text.c — the text report. Headlines follow the compiler
 * convention that editors and CI problem matchers parse:
 *     FILE:LINE: SEVERITY: message [rule-or-cause]
 * then indented evidence (`= …`) and remedies (`help: …`). */
#include "report/report.h"
#include "diagnose/budget.h"
#include "diagnose/differential.h"
#include "model/snapshot.h"
#include "model/util.h"


#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_RED "\033[1;31m"
#define C_YELLOW "\033[1;35m"
#define C_CYAN "\033[1;36m"
#define C_GREEN "\033[1;32m"
#define C_DIM "\033[2m"

typedef struct out {
	FILE *f;
	bool color;
	int width;         /* wrap at this many columns; 0 = never */
	bool ascii;        /* ASCII glyphs (kg_ascii_glyphs): not a UTF-8 locale */
} out;

static const char *col(const out *o, const char *c)
{
	return o->color ? c : "";
}

static const char *sev_word(enum kg_severity s)
{
	return s == KG_SEV_NONE ? "note" : kg_severity_name(s);
}

static const char *sev_color(enum kg_severity s)
{
	return s == KG_SEV_ERROR ? C_RED : s == KG_SEV_WARNING ? C_YELLOW : C_CYAN;
}

static const char *sz(kg_size s, char *buf, size_t n)
{
	return kg_size_format(s.bytes, buf, n);
}

/* Prints one logical line (no newline in text), wrapped at o->width
 * (kg_text_wrap, include/report/report.h). */
static void emit_line(const out *o, const char *text);
static void emit(const out *o, const char *text)
{
	if (!o->ascii) {
		emit_line(o, text);
		return;
	}
	char *a = kg_ascii_glyphs(text);
	emit_line(o, a);
	free(a);
}

void kg_text_wrap(FILE *f, const char *text, int width)
{
	if (width <= 0) {
		fprintf(f, "%s\n", text);
		return;
	}
	size_t indent = strspn(text, " ") + 4;
	if ((int)indent > width / 2)
		indent = 4;
	const char *p = text;
	int colw = 0;
	bool first = true;
	while (*p) {
		/* the next word, with the spaces before it */
		const char *w = p;
		while (*w == ' ')
			w++;
		const char *e = w;
		int ww = 0;
		while (*e && *e != ' ') {
			if (*e == '\033') {
				while (*e && *e != 'm')
					e++;
				if (*e)
					e++;
				continue;
			}
			if (((unsigned char)*e & 0xC0) != 0x80)
				ww++;
			e++;
		}
		int sp = (int)(w - p);
		if (!first && colw > (int)indent && colw + sp + ww > width) {
			fprintf(f, "\n%*s", (int)indent, "");
			colw = (int)indent;
			sp = 0;
		}
		fprintf(f, "%.*s", sp, p);
		colw += sp;
		/* the word; one wider than what is left of the line (a long
		 * path) is broken at the width, by characters */
		for (const char *c = w; c < e;) {
			if (*c == '\033') {
				const char *m = c;
				while (m < e && *m != 'm')
					m++;
				if (m < e)
					m++;
				fprintf(f, "%.*s", (int)(m - c), c);
				c = m;
				continue;
			}
			const char *n = c + 1;
			while (n < e && ((unsigned char)*n & 0xC0) == 0x80)
				n++;
			if (colw >= width) {
				fprintf(f, "\n%*s", (int)indent, "");
				colw = (int)indent;
			}
			fprintf(f, "%.*s", (int)(n - c), c);
			colw++;
			c = n;
		}
		first = false;
		p = e;
	}
	fputc('\n', f);
}

static void emit_line(const out *o, const char *text)
{
	kg_text_wrap(o->f, text, o->width);
}

static void emitf(const out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emitf(const out *o, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof small) {
		emit(o, small);
		return;
	}
	char *big = kg_malloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	emit(o, big);
	free(big);
}

static void evidence(const out *o, const char *fmt_prefix, const char *text)
{
	emitf(o, "  %s=%s %s%s", col(o, C_DIM), col(o, C_RESET), fmt_prefix, text);
}

static void memory_lines(const out *o, const kg_incident *inc)
{
	const kg_memory *m = &inc->mem;
	char a[64], b[64];
	kg_buf line = {0};
	if (kg_size_known(m->total_capacity) || kg_size_known(m->free)) {
		kg_buf_printf(&line, "device");
		if (inc->device_index != KG_NONE)
			kg_buf_printf(&line, " %lld", (long long)inc->device_index);
		kg_buf_puts(&line, ":");
		if (kg_size_known(m->total_capacity))
			kg_buf_printf(&line, " %s total capacity", sz(m->total_capacity, a, sizeof a));
		if (kg_size_known(m->free))
			kg_buf_printf(&line, "%s %s free", kg_size_known(m->total_capacity) ? "," : "",
				      sz(m->free, b, sizeof b));
		if (kg_size_known(m->allowed))
			kg_buf_printf(&line, ", %s allowed", sz(m->allowed, a, sizeof a));
		evidence(o, "", line.data);
		kg_buf_reset(&line);
	}
	bool any = false;
#define PART(field, label) do { \
	if (kg_size_known(m->field)) { \
		kg_buf_printf(&line, "%s%s " label, any ? ", " : "", sz(m->field, a, sizeof a)); \
		any = true; \
	} } while (0)
	PART(allocated, "allocated");
	PART(reserved, "reserved in total");
	PART(reserved_unallocated, "reserved but unallocated");
	PART(private_pools, "in private pools");
	PART(other_allocations, "other allocations");
	PART(process_in_use, "in use by this process");
#undef PART
	if (any) {
		evidence(o, "memory: ", line.data);
		kg_buf_reset(&line);
	}
	if (m->nprocs) {
		for (size_t i = 0; i < m->nprocs && i < 8; i++) {
			if (m->procs[i].pid != KG_NONE)
				kg_buf_printf(&line, "%spid %lld %s", i ? ", " : "", (long long)m->procs[i].pid,
					      sz(m->procs[i].in_use, a, sizeof a));
			else
				kg_buf_printf(&line, "%s%s", i ? ", " : "", sz(m->procs[i].in_use, a, sizeof a));
		}
		if (m->nprocs > 8)
			kg_buf_printf(&line, ", … (%zu in all)", m->nprocs);
		evidence(o, "other processes on the device: ", line.data);
		kg_buf_reset(&line);
	}
	if (inc->tensor) {
		kg_buf_puts(&line, "[");
		for (size_t i = 0; i < inc->tensor->ndim; i++)
			kg_buf_printf(&line, "%s%lld", i ? ", " : "", (long long)inc->tensor->shape[i]);
		kg_buf_puts(&line, "]");
		if (inc->tensor->dtype[0])
			kg_buf_printf(&line, " %s", inc->tensor->dtype);
		if (inc->tensor->bytes != KG_NONE)
			kg_buf_printf(&line, " = %s", kg_size_format(inc->tensor->bytes, a, sizeof a));
		evidence(o, "tensor: ", line.data);
		kg_buf_reset(&line);
	}
	kg_buf_free(&line);
}

/* The budget bar's glyphs, by kg_budget_part.kind: allocated, cached
 * unused, non-PyTorch, other processes, unaccounted, free; then the
 * request drawn over the bar. */
static const char *const bar_glyph[6] = {"█", "▓", "▒", "░", "?", "·"};
static const char *const request_glyph = "╳";
/* The same in ASCII, for a locale that is not UTF-8 (kg_text_style.ascii):
 * # allocated, % cached unused, * non-PyTorch, o other processes,
 * ? unaccounted, . free, X the request (none of them a sign the budget
 * line's arithmetic uses). */
static const char *const bar_glyph_ascii[6] = {"#", "%", "*", "o", "?", "."};
#define BAR_CELLS 32
#define BAR_OVERFLOW 8

/* "= [█████████████████████▓▓▓▓▒░╳╳╳╳]╳╳ ╳ 19.99 GiB requested > 17.52 GiB
 * free": the capacity in BAR_CELLS cells split by part (each
 * known part at least one cell, the largest absorbs rounding), and the
 * request drawn from where free memory starts at the same scale, past
 * the bracket (the capacity) by as much as it did not fit (at most
 * BAR_OVERFLOW cells, then "…"); the capacity in words after the bar
 * unless sum_follows (the budget's sum on the next line starts with it)
 * and a request is drawn. Nothing when the capacity is unknown or the
 * parts contradict each other. */
static void budget_bar(const out *o, const kg_budget *b, bool sum_follows)
{
	kg_budget_part p[6];
	size_t np = kg_budget_parts(b, p);
	if (b->capacity == KG_NONE || b->capacity <= 0 || np == 0 || !b->consistent)
		return;
	int cells[6], total = 0, big = 0;
	for (size_t i = 0; i < np; i++) {
		double c = (double)p[i].bytes * BAR_CELLS / (double)b->capacity;
		cells[i] = p[i].bytes > 0 && c < 1 ? 1 : (int)(c + 0.5);
		total += cells[i];
		if (cells[i] > cells[big])
			big = (int)i;
	}
	cells[big] += BAR_CELLS - total;
	if (cells[big] < 0)
		return;
	/* the cell each glyph goes in */
	const char *cell[BAR_CELLS + BAR_OVERFLOW];
	int nc = 0, free_at = -1;
	for (size_t i = 0; i < np; i++) {
		if (p[i].kind == 5 && free_at < 0)
			free_at = nc;
		for (int c = 0; c < cells[i]; c++)
			cell[nc++] = (o->ascii ? bar_glyph_ascii : bar_glyph)[p[i].kind];
	}
	if (free_at < 0)
		free_at = nc;
	bool more = false, request = b->requested != KG_NONE && b->requested > 0;
	if (request) {
		double c = (double)b->requested * BAR_CELLS / (double)b->capacity;
		int rc = c < 1 ? 1 : (int)(c + 0.5);
		if (free_at + rc > BAR_CELLS + BAR_OVERFLOW) {
			rc = BAR_CELLS + BAR_OVERFLOW - free_at;
			more = true;
		}
		for (int i = free_at; i < free_at + rc; i++)
			cell[i] = request_glyph;
		if (free_at + rc > nc)
			nc = free_at + rc;
	}
	kg_buf l = {0};
	char t[32], u[32];
	kg_buf_puts(&l, "[");
	for (int i = 0; i < nc; i++) {
		kg_buf_puts(&l, cell[i]);
		if (i == BAR_CELLS - 1)
			kg_buf_puts(&l, "]");
	}
	if (more)
		kg_buf_puts(&l, "…");
	/* the capacity, unless the budget's sum on the next line starts
	 * with it */
	if (!sum_follows || !request)
		kg_buf_printf(&l, " %s%s", kg_size_format(b->capacity, t, sizeof t), request ? ";" : "");
	if (request) {
		kg_buf_printf(&l, " %s %s requested", request_glyph, kg_size_format(b->requested, t, sizeof t));
		if (b->free != KG_NONE) {
			/* the sign true of the sizes as printed */
			kg_size_format(b->free, u, sizeof u);
			bool same = !strcmp(t, u);
			kg_buf_printf(&l, " %s %s free", b->requested > b->free ? (same ? "≥" : ">") : "≤", u);
			/* "Tried to allocate" is the segment the allocator asked
			 * the driver for (c10 get_allocation_size: a request of
			 * at most 1 MiB takes a 2 MiB segment, below 10 MiB a
			 * 20 MiB one, else rounded up to 2 MiB); when it is not
			 * more than the free memory the driver reported, the
			 * driver refused it anyway */
			if (b->requested <= b->free)
				kg_buf_puts(&l, ", yet the driver refused the segment");
		}
	}
	evidence(o, "", l.data);
	kg_buf_free(&l);
}

/* "= differential: eval-blowup 0.80 (medium) · capacity 0.11 · other
 * 0.09 · fragmentation ruled out" (kg_differential_text), and, when
 * undetermined, what would tell the most probable one. */
static void differential_line(const out *o, const kg_incident *inc)
{
	size_t top = 0;
	char *d = kg_differential_text(inc, &top);
	if (!d)
		return;
	evidence(o, "differential: ", d);
	free(d);
	if (!inc->cause) {
		/* the most probable hypothesis, as the line above shows first */
		const kg_hypothesis *h = &inc->differential[top];
		if (!h->ruled_out && h->to_confirm) {
			kg_buf b = {0};
			kg_buf_printf(&b, "%s would need %s", h->cause, h->to_confirm);
			evidence(o, "to tell: ", b.data);
			kg_buf_free(&b);
		}
	}
}

/* --verbose: where, phase, allocator config, follow-ups, and every finding
 * with its message, evidence and the remedies not shown yet. */
static void incident_detail(const out *o, const kg_incident *inc, kg_titles *done)
{
	memory_lines(o, inc);
	if (inc->nframes) {
		/* the innermost frame of the user's code says where it happened */
		const kg_frame *f = &inc->frames[inc->nframes - 1];
		for (size_t i = inc->nframes; i-- > 0;) {
			const char *file = inc->frames[i].file ? inc->frames[i].file : "";
			if (!strstr(file, "site-packages") && !strstr(file, "dist-packages") &&
			    !strstr(file, "/torch/") && !strstr(file, "\\torch\\")) {
				f = &inc->frames[i];
				break;
			}
		}
		kg_buf b = {0};
		kg_buf_printf(&b, "%s", f->file ? f->file : "?");
		if (f->line)
			kg_buf_printf(&b, ":%ld", f->line);
		if (f->function)
			kg_buf_printf(&b, " in %s", f->function);
		if (f->code)
			kg_buf_printf(&b, ": %s", f->code);
		evidence(o, "at ", b.data);
		kg_buf_free(&b);
	}
	if (inc->phase) {
		char b[128];
		snprintf(b, sizeof b, "%s (from the %s)", inc->phase,
			 inc->phase_source && !strcmp(inc->phase_source, "frames") ? "traceback" : "log");
		evidence(o, "phase: ", b);
	}
	if (inc->mode) {
		char b[160];
		snprintf(b, sizeof b, "%s (%s)", inc->mode, inc->mode_why ? inc->mode_why : "");
		evidence(o, "job: ", b);
	}
	if (inc->alloc_conf_var) {
		char b[600];
		snprintf(b, sizeof b, "%s=%s (line %ld)", inc->alloc_conf_var,
			 inc->alloc_conf ? inc->alloc_conf : "", inc->alloc_conf_line);
		evidence(o, "allocator config echoed in the log: ", b);
	}
	for (size_t i = 0; i < inc->nfollowups; i++) {
		char b[64];
		snprintf(b, sizeof b, "%s (line %ld)", inc->followups[i].kind, inc->followups[i].line);
		evidence(o, "then: ", b);
	}
	for (size_t k = 0; k < inc->nfindings; k++) {
		const kg_finding *f = &inc->findings[k];
		enum kg_severity fs = kg_finding_shown_severity(inc, f);
		emitf(o, "  %s%s:%s %s [%s]", col(o, sev_color(fs)), sev_word(fs),
		      col(o, C_RESET), f->title ? f->title : "", f->rule ? f->rule : "");
		if (f->message)
			emitf(o, "    %s", f->message);
		for (size_t i = 0; i < f->nevidence; i++)
			emitf(o, "    %s=%s %s", col(o, C_DIM), col(o, C_RESET), f->evidence[i]);
		for (size_t i = 0; i < f->nremedies; i++) {
			const kg_remedy *r = &f->remedies[i];
			if (!kg_title_new(done, r->title))
				continue;
			char *act = kg_remedy_instruction(r);
			emitf(o, "    %shelp:%s %s", col(o, C_GREEN), col(o, C_RESET), act);
			free(act);
			const char *rest = r->code ? kg_remedy_code_rest(r->code) : NULL;
			if (rest && *rest)
				emitf(o, "          %s", rest);
			if (r->caveat)
				emitf(o, "          caveat: %s", r->caveat);
		}
	}
}

static void incident_text(const out *o, const kg_incident *inc, bool quiet, bool verbose)
{
	enum kg_severity sev = kg_incident_severity(inc);
	char *head = kg_incident_headline(inc, KG_HEADLINE_TIME);
	/* the cause and how sure before the message, so that they are within
	 * a terminal's first columns: "error[eval-blowup, high]:" */
	char verdict[96];
	kg_incident_verdict_brief(inc, verdict, sizeof verdict);
	/* FILE:LINE: for a log; FILE: for an incident without a line (an
	 * allocator snapshot's trace) */
	char where[32] = "";
	if (inc->line > 0)
		snprintf(where, sizeof where, ":%ld", inc->line);
	emitf(o, "%s%s%s:%s %s%s[%s]:%s %s%s%s", col(o, C_BOLD), inc->path ? inc->path : "?",
	      where, col(o, C_RESET), col(o, sev_color(sev)), sev_word(sev), verdict, col(o, C_RESET),
	      col(o, C_BOLD), head, col(o, C_RESET));
	free(head);
	if (quiet)
		return;
	kg_titles done = {0};
	/* line 2: the one action */
	const kg_finding *cf = kg_incident_cause_finding(inc), *af = kg_incident_action_finding(inc);
	if (af && af->nremedies) {
		const kg_remedy *r = &af->remedies[0];
		char *act = kg_remedy_instruction(r);
		emitf(o, "  %shelp:%s %s", col(o, C_GREEN), col(o, C_RESET), act);
		free(act);
		/* undetermined: the rest of the command that gets the input (a
		 * fallback finding's, category none; a leaning hypothesis's
		 * remedy is an action, not a command to run) */
		const char *rest = !inc->cause && kg_finding_no_cause(af) && r->code ? kg_remedy_code_rest(r->code) : NULL;
		if (rest && *rest)
			emitf(o, "        %s", rest);
		kg_title_new(&done, r->title);
	}
	/* the budget and the arithmetic */
	char bl[600];
	bool has_budget = kg_budget_line(&inc->budget, !inc->budget.consistent ? NULL :
					 o->ascii ? bar_glyph_ascii : bar_glyph, bl, sizeof bl) != NULL;
	budget_bar(o, &inc->budget, has_budget);
	if (has_budget)
		evidence(o, "", bl);
	if (cf)
		for (size_t i = 0; i < cf->nevidence && i < 2; i++)
			evidence(o, "", cf->evidence[i]);
	/* undetermined: the leaning hypothesis's first line when it gives the
	 * action, else what the message does hold (the fallback finding about
	 * no hypothesis, rules/general.yaml) unless the budget shows it;
	 * undetermined, af is one of those two (kg_incident_action_finding) */
	if (!inc->cause && af && af->nevidence && !kg_finding_no_cause(af))
		evidence(o, "", af->evidence[0]);
	for (size_t k = 0; !inc->cause && !has_budget && k < inc->nfindings; k++) {
		const kg_finding *f = &inc->findings[k];
		if (f->supports || !kg_finding_no_cause(f))
			continue;
		for (size_t i = 0; i < f->nevidence; i++)
			evidence(o, "", f->evidence[i]);
	}
	differential_line(o, inc);
	if (inc->duplicates) {
		char b[96];
		snprintf(b, sizeof b, "%d more cop%s of this message folded into this incident",
			 inc->duplicates, inc->duplicates == 1 ? "y" : "ies");
		evidence(o, "", b);
	}
	if (verbose) {
		incident_detail(o, inc, &done);
		return;
	}
	/* the other remedies for the cause, titles only, each once */
	kg_buf also = {0};
	for (size_t k = 0; cf && k < inc->nfindings; k++) {
		const kg_finding *f = &inc->findings[k];
		if (!kg_finding_supports(f, inc->cause))
			continue;
		for (size_t i = 0; i < f->nremedies; i++)
			if (kg_title_new(&done, f->remedies[i].title))
				kg_buf_printf(&also, "%s%s", also.data ? " · " : "", f->remedies[i].title);
	}
	if (also.data)
		emitf(o, "  %salso:%s %s", col(o, C_GREEN), col(o, C_RESET), also.data);
	kg_buf_free(&also);
}

/* The stat called key, formatted like c10 format_size, or "?". */
static const char *stat_size(const kg_snapshot *s, const char *key, char *buf, size_t n)
{
	const kg_stat *v = kg_snapshot_stat(s, key);
	return v ? kg_size_format(kg_clamp_i64(v->value), buf, n) : "?";
}

static void snapshot_line(const out *o, const kg_snapshot *snap)
{
	const char *ps = snap->path, *ks = kg_snapshot_kind_name(snap->kind);
	char a[32], b[32], c[32];
	if (snap->ndevices == 0) {
		emitf(o, "%s%s:%s %s: %s allocated (peak %s), %s reserved", col(o, C_BOLD), ps,
			col(o, C_RESET), ks, stat_size(snap, "allocated_bytes.all.current", a, sizeof a),
			stat_size(snap, "allocated_bytes.all.peak", c, sizeof c),
			stat_size(snap, "reserved_bytes.all.current", b, sizeof b));
		return;
	}
	for (size_t i = 0; i < snap->ndevices; i++) {
		const kg_snapshot_device *d = &snap->devices[i];
		emitf(o, "%s%s:%s snapshot, device %d: %s reserved, %s allocated, largest free block %s, fragmentation %.2f",
			col(o, C_BOLD), ps, col(o, C_RESET), (int)d->device,
			kg_size_format(d->reserved_bytes, a, sizeof a), kg_size_format(d->allocated_bytes, b, sizeof b),
			kg_size_format(d->largest_free_block_bytes, c, sizeof c), d->fragmentation);
	}
}

void kg_report_text(const kg_report *r, FILE *f, const kg_text_style *style)
{
	out o = {f, style && style->color, style ? style->width : 0, style && style->ascii};
	bool quiet = style && style->quiet, verbose = style && style->verbose;
	/* notes about the input: after the incidents, so that line 1 is the
	 * first verdict; first when there is no incident */
	for (size_t i = 0; !quiet && r->nincidents == 0 && i < r->nnotes; i++)
		emitf(&o, "%s%s%s", col(&o, C_DIM), r->notes[i], col(&o, C_RESET));
	for (size_t i = 0; i < r->nincidents; i++)
		incident_text(&o, &r->incidents[i], quiet, verbose);
	/* snapshots, memory_stats and memory_summary tables: one line each
	 * (the full view is `kgmem-diagnose snapshot`); not with -q, which
	 * prints one line per incident and nothing else */
	for (size_t i = 0; !quiet && i < r->nsnapshots; i++)
		snapshot_line(&o, r->snapshots[i]);
	for (size_t i = 0; !quiet && r->nincidents > 0 && i < r->nnotes; i++)
		emitf(&o, "%s%s%s", col(&o, C_DIM), r->notes[i], col(&o, C_RESET));
	if (style && style->diff) {
		for (size_t i = 0; i < r->npatches; i++)
			fputs(r->patches[i].diff, f);
		/* without a config a note says to pass one */
		if (r->npatches == 0 && r->nconfigs)
			fprintf(f, "%sno config change to suggest%s\n", col(&o, C_DIM), col(&o, C_RESET));
	}
	if (quiet)
		return;
	if (r->nincidents == 0 && r->nsnapshots > 0)
		return;
	if (r->nincidents == 0 && r->nsnapshots == 0) {
		kg_buf nb = {0};
		kg_buf_puts(&nb, "no out-of-memory incident found");
		for (size_t i = 0; i < r->ninputs; i++)
			kg_buf_printf(&nb, "%s%s", i ? ", " : " in ", r->inputs[i].name);
		emit(&o, nb.data);
		kg_buf_free(&nb);
		return;
	}
	/* incidents by severity, then by cause (most frequent first, in
	 * first-seen order on ties) */
	int e, w, inf;
	kg_report_counts(r, &e, &w, &inf);
	kg_buf b = {0};
	kg_buf_printf(&b, "%zu incident%s: %d error%s", r->nincidents, r->nincidents == 1 ? "" : "s", e,
		      e == 1 ? "" : "s");
	if (w)
		kg_buf_printf(&b, ", %d warning%s", w, w == 1 ? "" : "s");
	if (inf)
		kg_buf_printf(&b, ", %d note%s", inf, inf == 1 ? "" : "s");
	const char *undetermined = "undetermined";
	const char **causes = kg_calloc(r->nincidents, sizeof *causes);
	int *counts = kg_calloc(r->nincidents, sizeof *counts);
	size_t nc = 0;
	for (size_t i = 0; i < r->nincidents; i++) {
		const char *c = r->incidents[i].cause ? r->incidents[i].cause : undetermined;
		size_t j = 0;
		while (j < nc && strcmp(causes[j], c))
			j++;
		if (j == nc)
			causes[nc++] = c;
		counts[j]++;
	}
	for (size_t done = 0; done < nc; done++) {
		size_t best = 0;
		for (size_t j = 0; j < nc; j++)
			if (counts[j] > counts[best])
				best = j;
		kg_buf_printf(&b, "%s%d %s", done ? ", " : "; by cause: ", counts[best], causes[best]);
		counts[best] = -1;
	}
	free(causes);
	free(counts);
	if (r->first_failed_rank != KG_NONE)
		kg_buf_printf(&b, "; rank %lld failed first", (long long)r->first_failed_rank);
	if (r->root_cause_rank != KG_NONE)
		kg_buf_printf(&b, "; torchelastic names rank %lld as the root cause", (long long)r->root_cause_rank);
	if (!verbose)
		kg_buf_puts(&b, " (--verbose for every finding)");
	emit(&o, b.data);
	kg_buf_free(&b);
}

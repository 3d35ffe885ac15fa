/* report_text.c — the text report. Headlines follow the compiler
 * convention that editors and CI problem matchers parse:
 *     FILE:LINE: SEVERITY: message [rule-or-cause]
 * then indented evidence (`= …`) and remedies (`help: …`). */
#include "report.h"
#include "budget.h"
#include "snapshot.h"
#include "util.h"


#include <ctype.h>
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

static void evidence(const out *o, const char *fmt_prefix, const char *text)
{
	fprintf(o->f, "  %s=%s %s%s\n", col(o, C_DIM), col(o, C_RESET), fmt_prefix, text);
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

/* "= differential: eval-blowup 14 (high) · capacity 3 · fragmentation
 * ruled out", and, when undetermined, what would tell. */
static void differential_line(const out *o, const kg_incident *inc)
{
	if (!inc->ndifferential)
		return;
	kg_buf b = {0};
	for (size_t i = 0; i < inc->ndifferential; i++) {
		const kg_hypothesis *h = &inc->differential[i];
		kg_buf_printf(&b, "%s%s", i ? " · " : "", h->cause);
		if (h->ruled_out)
			kg_buf_puts(&b, " ruled out");
		else if (h->confidence)
			kg_buf_printf(&b, " %d (%s)", h->score, h->confidence);
		else
			kg_buf_printf(&b, " %d", h->score);
	}
	evidence(o, "differential: ", b.data);
	kg_buf_reset(&b);
	if (!inc->cause) {
		const kg_hypothesis *h = &inc->differential[0];
		if (!h->ruled_out && h->to_confirm) {
			kg_buf_printf(&b, "%s would need %s", h->cause, h->to_confirm);
			evidence(o, "to tell: ", b.data);
		}
	}
	kg_buf_free(&b);
}

static void incident_text(const out *o, const kg_incident *inc, bool quiet)
{
	enum kg_severity sev = kg_incident_severity(inc);
	char *head = kg_incident_headline(inc, false);
	char verdict[96];
	if (inc->cause)
		snprintf(verdict, sizeof verdict, "%s, %s confidence", inc->cause,
			 inc->confidence ? inc->confidence : kg_vocab_word(&kg_confidences, KG_CONFIDENCE_LOW));
	else
		snprintf(verdict, sizeof verdict, "cause undetermined");
	/* FILE:LINE: for a log; FILE: for an incident without a line (an
	 * allocator snapshot's trace) */
	char where[32] = "";
	if (inc->line > 0)
		snprintf(where, sizeof where, ":%ld", inc->line);
	fprintf(o->f, "%s%s%s:%s %s%s:%s %s%s%s [%s]\n", col(o, C_BOLD), inc->path ? inc->path : "?",
		where, col(o, C_RESET), col(o, sev_color(sev)), sev_word(sev), col(o, C_RESET),
		col(o, C_BOLD), head, col(o, C_RESET), verdict);
	free(head);
	if (quiet)
		return;
	memory_lines(o, inc);
	char bl[512];
	if (kg_budget_line(&inc->budget, bl, sizeof bl))
		evidence(o, "budget: ", bl);
	differential_line(o, inc);
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
	if (inc->duplicates) {
		char b[96];
		snprintf(b, sizeof b, "%d more cop%s of this message folded into this incident",
			 inc->duplicates, inc->duplicates == 1 ? "y" : "ies");
		evidence(o, "", b);
	}
	for (size_t k = 0; k < inc->nfindings; k++) {
		const kg_finding *f = &inc->findings[k];
		fprintf(o->f, "  %s%s:%s %s [%s]\n", col(o, sev_color(f->severity)), sev_word(f->severity),
			col(o, C_RESET), f->title ? f->title : "", f->rule ? f->rule : "");
		if (f->message)
			fprintf(o->f, "    %s\n", f->message);
		for (size_t i = 0; i < f->nevidence; i++)
			fprintf(o->f, "    %s=%s %s\n", col(o, C_DIM), col(o, C_RESET), f->evidence[i]);
		for (size_t i = 0; i < f->nremedies; i++) {
			const kg_remedy *r = &f->remedies[i];
			fprintf(o->f, "    %shelp:%s %s\n", col(o, C_GREEN), col(o, C_RESET), r->title ? r->title : "");
			for (size_t e = 0; e < r->nenv; e++)
				fprintf(o->f, "          %s=%s\n", r->env_names[e], r->env_values[e]);
			for (size_t e = 0; e < r->nset; e++)
				fprintf(o->f, "          set %s: %s\n", r->set_roles[e], r->set_values[e]);
			if (r->code)
				fprintf(o->f, "          %s\n", r->code);
			if (r->caveat)
				fprintf(o->f, "          caveat: %s\n", r->caveat);
		}
	}
}

/* The stat called key, formatted like c10 format_size, or "?". */
static const char *stat_size(const kg_snapshot *s, const char *key, char *buf, size_t n)
{
	const kg_stat *v = kg_snapshot_stat(s, key);
	return v ? kg_size_format((int64_t)v->value, buf, n) : "?";
}

static void snapshot_line(const out *o, const kg_snapshot *snap)
{
	const char *ps = snap->path, *ks = kg_snapshot_kind_name(snap->kind);
	char a[32], b[32], c[32];
	if (snap->ndevices == 0) {
		fprintf(o->f, "%s%s:%s %s: %s allocated (peak %s), %s reserved\n", col(o, C_BOLD), ps,
			col(o, C_RESET), ks, stat_size(snap, "allocated_bytes.all.current", a, sizeof a),
			stat_size(snap, "allocated_bytes.all.peak", c, sizeof c),
			stat_size(snap, "reserved_bytes.all.current", b, sizeof b));
		return;
	}
	for (size_t i = 0; i < snap->ndevices; i++) {
		const kg_snapshot_device *d = &snap->devices[i];
		fprintf(o->f, "%s%s:%s snapshot, device %d: %s reserved, %s allocated, largest free block %s, fragmentation %.2f\n",
			col(o, C_BOLD), ps, col(o, C_RESET), (int)d->device,
			kg_size_format(d->reserved_bytes, a, sizeof a), kg_size_format(d->allocated_bytes, b, sizeof b),
			kg_size_format(d->largest_free_block_bytes, c, sizeof c), d->fragmentation);
	}
}

void kg_report_text(const kg_report *r, FILE *f, const kg_text_style *style)
{
	out o = {f, style && style->color};
	bool quiet = style && style->quiet;
	for (size_t i = 0; i < r->nnotes; i++)
		fprintf(f, "%s%s%s\n", col(&o, C_DIM), r->notes[i], col(&o, C_RESET));
	for (size_t i = 0; i < r->nincidents; i++)
		incident_text(&o, &r->incidents[i], quiet);
	/* snapshots, memory_stats and memory_summary tables: one line each
	 * (the full view is `kgmem-diagnose snapshot`) */
	for (size_t i = 0; i < r->nsnapshots; i++)
		snapshot_line(&o, r->snapshots[i]);
	if (style && style->diff) {
		for (size_t i = 0; i < r->npatches; i++)
			fputs(r->patches[i].diff, f);
		if (r->npatches == 0)
			fprintf(f, "%sno config change to suggest%s\n", col(&o, C_DIM), col(&o, C_RESET));
	}
	if (quiet)
		return;
	if (r->nincidents == 0 && r->nsnapshots > 0)
		return;
	if (r->nincidents == 0 && r->nsnapshots == 0) {
		fprintf(f, "no out-of-memory incident found");
		for (size_t i = 0; i < r->ninputs; i++)
			fprintf(f, "%s%s", i ? ", " : " in ", r->inputs[i].name);
		fprintf(f, "\n");
		return;
	}
	int e, w, inf;
	kg_report_counts(r, &e, &w, &inf);
	fprintf(f, "%zu incident%s: %d error%s, %d warning%s, %d info%s", r->nincidents,
		r->nincidents == 1 ? "" : "s", e, e == 1 ? "" : "s", w, w == 1 ? "" : "s", inf,
		inf == 1 ? "" : "s");
	if (r->first_failed_rank != KG_NONE)
		fprintf(f, "; rank %lld failed first", (long long)r->first_failed_rank);
	if (r->root_cause_rank != KG_NONE)
		fprintf(f, "; torchelastic names rank %lld as the root cause", (long long)r->root_cause_rank);
	fprintf(f, "\n");
}

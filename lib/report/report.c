/* report.c — the incident's headline and verdict, as every output format
 * prints them (see include/report/report.h). */
#include "report/report.h"
#include "diagnose/differential.h"
#include "model/util.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_size(kg_buf *b, const char *before, kg_size s, const char *after)
{
	char tmp[64];
	kg_buf_puts(b, before);
	kg_buf_puts(b, kg_size_format(s.bytes, tmp, sizeof tmp));
	kg_buf_puts(b, after);
}

/* "; F free of T; P in use by this process; A allocated, U reserved but
 * unallocated; N processes listed", the first item after sep0. Returns
 * whether it wrote anything. */
static bool memory_items(kg_buf *b, const kg_memory *m, const char *sep0)
{
	size_t start = b->len;
#define SEP (b->len == start ? sep0 : "; ")
	if (kg_size_known(m->free) && kg_size_known(m->total_capacity)) {
		put_size(b, SEP, m->free, " free of ");
		put_size(b, "", m->total_capacity, "");
	} else if (kg_size_known(m->total_capacity)) {
		put_size(b, SEP, m->total_capacity, " total capacity");
	}
	if (kg_size_known(m->process_in_use))
		put_size(b, SEP, m->process_in_use, " in use by this process");
	bool alloc = kg_size_known(m->allocated), unal = kg_size_known(m->reserved_unallocated);
	if (alloc || unal) {
		kg_buf_puts(b, SEP);
		if (alloc)
			put_size(b, "", m->allocated, " allocated");
		if (unal)
			put_size(b, alloc ? ", " : "", m->reserved_unallocated, " reserved but unallocated");
	} else if (kg_size_known(m->reserved)) {
		put_size(b, SEP, m->reserved, " reserved");
	}
	if (m->nprocs)
		kg_buf_printf(b, "%s%zu process%s listed", SEP, m->nprocs, m->nprocs == 1 ? "" : "es");
#undef SEP
	return b->len != start;
}

char *kg_incident_verdict_brief(const kg_incident *inc, char *buf, size_t n)
{
	if (inc->cause)
		snprintf(buf, n, "%s, %s", inc->cause,
			 inc->confidence ? inc->confidence : kg_vocab_word(&kg_confidences, KG_CONFIDENCE_LOW));
	else
		snprintf(buf, n, "undetermined");
	return buf;
}

char *kg_incident_verdict(const kg_incident *inc, char *buf, size_t n)
{
	if (!inc->cause) {
		snprintf(buf, n, "cause undetermined");
		return buf;
	}
	char brief[96];
	snprintf(buf, n, "%s confidence", kg_incident_verdict_brief(inc, brief, sizeof brief));
	return buf;
}

char *kg_incident_headline(const kg_incident *inc, unsigned flags)
{
	kg_buf b = {0};
	const char *head = kg_family_headline(inc->family);
	if (inc->prose) /* kg_incident.prose */
		head = kg_vocab_index(&kg_families, inc->family) == KG_FAMILY_OOM_KILLER
			       ? "a kill the report tells in words (SIGKILL: the OOM killer)"
			       : "an out-of-memory failure the report tells in words";
	if (!head) {
		char dev[16] = "";
		size_t i = 0;
		for (; inc->device_type && inc->device_type[i] && i + 1 < sizeof dev; i++)
			dev[i] = (char)toupper((unsigned char)inc->device_type[i]);
		dev[i] = '\0';
		kg_buf_printf(&b, "%s out of memory", dev[0] ? dev : "CUDA");
	} else if (kg_vocab_index(&kg_families, inc->family) == KG_FAMILY_TENSORFLOW && inc->kind &&
		   strcmp(inc->kind, "oom-warning") == 0) {
		kg_buf_puts(&b, "TensorFlow allocator ran out of memory (retried, not fatal)");
	} else {
		kg_buf_puts(&b, head);
	}
	/* the line the tool does not know is the whole of what it read */
	bool unrecognized = kg_vocab_index(&kg_families, inc->family) == KG_FAMILY_UNRECOGNIZED;
	if (unrecognized && inc->message && *inc->message) {
		size_t n = strlen(inc->message);
		kg_buf_puts(&b, ": ");
		kg_buf_append(&b, inc->message, n > 200 ? 200 : n);
		if (n > 200)
			kg_buf_puts(&b, "…");
	}
	if (inc->status)
		kg_buf_printf(&b, " (%s)", inc->status);
	bool said = kg_size_known(inc->mem.requested);
	if (said)
		/* an open upper bound ("more than 1EB memory") is a lower bound */
		put_size(&b, inc->mem.requested.hi == INT64_MAX && inc->mem.requested.lo == inc->mem.requested.bytes
				     ? ": tried to allocate more than "
				     : ": tried to allocate ",
			 inc->mem.requested, "");
	if (inc->device_index != KG_NONE)
		kg_buf_printf(&b, " on %s:%lld", inc->device_type ? inc->device_type : "device",
			      (long long)inc->device_index);
	if (flags & KG_HEADLINE_MEMORY) {
		said |= memory_items(&b, &inc->mem, said ? "; " : ": ");
		if (!said && !unrecognized && inc->message && *inc->message) {
			size_t n = strlen(inc->message);
			kg_buf_puts(&b, ": ");
			kg_buf_append(&b, inc->message, n > 200 ? 200 : n);
			if (n > 200)
				kg_buf_puts(&b, "…");
		}
	}
	const char *sep = " (";
	if (inc->rank != KG_NONE) {
		kg_buf_printf(&b, "%srank %lld", sep, (long long)inc->rank);
		sep = ", ";
	}
	if (inc->phase) {
		kg_buf_printf(&b, "%sduring %s", sep, inc->phase);
		sep = ", ";
	}
	if (inc->epoch != KG_NONE) {
		kg_buf_printf(&b, "%sepoch %lld", sep, (long long)inc->epoch);
		sep = ", ";
	}
	if (inc->step != KG_NONE) {
		kg_buf_printf(&b, "%sstep %lld", sep, (long long)inc->step);
		sep = ", ";
	}
	if ((flags & KG_HEADLINE_TIME) && inc->time[0]) {
		kg_buf_printf(&b, "%sat %s", sep, inc->time);
		sep = ", ";
	}
	if (sep[0] == ',')
		kg_buf_putc(&b, ')');
	return kg_buf_steal(&b);
}

bool kg_title_new(kg_titles *t, const char *title)
{
	if (!title)
		return false;
	for (size_t k = 0; k < t->n; k++)
		if (!strcmp(t->v[k], title))
			return false;
	if (t->n < sizeof t->v / sizeof *t->v)
		t->v[t->n++] = title;
	return true;
}

/* p as printed with two decimals (kg_prob_format), as a number: what a
 * reader adds up. */
static double printed_p(double p)
{
	if (p <= 0 || p < 0.005)
		return 0;
	if (p >= 0.995)
		return p >= 1 ? 1 : 0.99;
	return round(p * 100) / 100;
}

char *kg_differential_text(const kg_incident *inc, size_t *top)
{
	size_t nd = inc->ndifferential;
	if (!nd)
		return NULL;
	/* the live hypotheses by probability (open ones, appended to the
	 * differential last, among them), then the ruled-out ones */
	size_t *ord = kg_malloc(nd * sizeof *ord), no = 0;
	for (size_t i = 0; i < nd; i++) {
		if (inc->differential[i].ruled_out)
			continue;
		size_t k = no++;
		while (k && inc->differential[ord[k - 1]].p < inc->differential[i].p) {
			ord[k] = ord[k - 1];
			k--;
		}
		ord[k] = i;
	}
	size_t live = no;
	for (size_t i = 0; i < nd; i++)
		if (inc->differential[i].ruled_out)
			ord[no++] = i;
	kg_buf b = {0};
	double shown = 0;
	char pb[16];
	for (size_t j = 0; j < nd; j++) {
		const kg_hypothesis *h = &inc->differential[ord[j]];
		if (j == live) {
			/* the causes no evidence named share the rest: the
			 * numbers read as one distribution */
			double rest = 1 - shown;
			if (rest >= 0.005)
				kg_buf_printf(&b, "%sother %s", j ? " · " : "", kg_prob_format(rest, pb, sizeof pb));
		}
		kg_buf_printf(&b, "%s%s", b.len ? " · " : "", h->cause);
		if (h->ruled_out) {
			kg_buf_puts(&b, " ruled out");
			continue;
		}
		shown += printed_p(h->p);
		kg_buf_printf(&b, " %s", kg_prob_format(h->p, pb, sizeof pb));
		if (h->open)
			kg_buf_puts(&b, " open");
		else if (h->confidence)
			kg_buf_printf(&b, " (%s)", h->confidence);
	}
	if (live == nd && 1 - shown >= 0.005)
		kg_buf_printf(&b, " · other %s", kg_prob_format(1 - shown, pb, sizeof pb));
	if (top)
		*top = ord[0];
	free(ord);
	return kg_buf_steal(&b);
}

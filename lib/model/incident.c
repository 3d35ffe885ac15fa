/* incident.c — see include/model/incident.h. */
#include "model/incident.h"
#include "model/util.h"
#include "model/vocab.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static void memory_init(kg_memory *m)
{
	kg_size n = kg_size_none();
	m->requested = m->total_capacity = m->free = m->allocated = n;
	m->reserved = m->reserved_unallocated = m->process_in_use = n;
	m->allowed = m->private_pools = m->other_allocations = n;
	m->procs = NULL;
	m->nprocs = 0;
}

void kg_incident_init(kg_incident *inc)
{
	memset(inc, 0, sizeof *inc);
	memory_init(&inc->mem);
	inc->kind = "oom";
	inc->device_index = KG_NONE;
	inc->rank = inc->step = inc->epoch = KG_NONE;
	inc->progress_done = inc->progress_total = KG_NONE;
	kg_budget *b = &inc->budget;
	b->capacity = b->free = b->allocated = b->cached_unused = KG_NONE;
	b->non_pytorch = b->other_processes = b->unaccounted = b->requested = KG_NONE;
}

void kg_differential_free(kg_incident *inc)
{
	for (size_t i = 0; i < inc->ndifferential; i++) {
		kg_hypothesis *h = &inc->differential[i];
		for (size_t k = 0; k < h->nevidence; k++) {
			free(h->evidence[k].text);
			free(h->evidence[k].source);
		}
		free(h->evidence);
	}
	free(inc->differential);
	inc->differential = NULL;
	inc->ndifferential = 0;
}

enum kg_severity kg_incident_severity(const kg_incident *inc)
{
	return inc->kind && (!strcmp(inc->kind, "oom-warning") || !strcmp(inc->kind, "oom-unrecognized"))
		       ? KG_SEV_WARNING : KG_SEV_ERROR;
}

bool kg_finding_supports(const kg_finding *f, const char *cause)
{
	return cause && f->supports && !f->refutes && !strcmp(f->supports, cause);
}

enum kg_severity kg_finding_shown_severity(const kg_incident *inc, const kg_finding *f)
{
	if (!f->supports || f->refutes || f->severity <= KG_SEV_INFO)
		return f->severity;
	if (inc->cause && strcmp(f->supports, inc->cause) != 0)
		return KG_SEV_INFO;
	for (size_t i = 0; i < inc->ndifferential; i++)
		if (inc->differential[i].ruled_out && !strcmp(inc->differential[i].cause, f->supports))
			return KG_SEV_INFO;
	return f->severity;
}

bool kg_finding_no_cause(const kg_finding *f)
{
	return f->category && kg_vocab_index(&kg_categories, f->category) == KG_CATEGORY_NONE;
}

const kg_finding *kg_incident_cause_finding(const kg_incident *inc)
{
	const kg_finding *best = NULL;
	for (size_t k = 0; inc->cause && k < inc->nfindings; k++) {
		const kg_finding *f = &inc->findings[k];
		if (kg_finding_supports(f, inc->cause) && (!best || f->strength > best->strength))
			best = f;
	}
	return best;
}

const kg_finding *kg_incident_action_finding(const kg_incident *inc)
{
	if (inc->cause)
		return kg_incident_cause_finding(inc);
	const kg_hypothesis *top = inc->ndifferential ? &inc->differential[0] : NULL;
	for (size_t k = 0; top && !top->open && !top->ruled_out && k < inc->nfindings; k++) {
		const kg_finding *f = &inc->findings[k];
		if (f->nremedies && kg_finding_supports(f, top->cause) && f->category &&
		    !kg_finding_no_cause(f))
			return f;
	}
	for (size_t k = 0; k < inc->nfindings; k++) {
		const kg_finding *f = &inc->findings[k];
		if (f->nremedies && kg_finding_no_cause(f))
			return f;
	}
	return NULL;
}

void kg_memory_free(kg_memory *m)
{
	free(m->procs);
	memory_init(m);
}

void kg_memory_copy(kg_memory *dst, const kg_memory *src)
{
	free(dst->procs);
	*dst = *src;
	if (src->nprocs) {
		dst->procs = kg_malloc(src->nprocs * sizeof *src->procs);
		memcpy(dst->procs, src->procs, src->nprocs * sizeof *src->procs);
	} else {
		dst->procs = NULL;
	}
}

void kg_frame_free(kg_frame *f)
{
	free(f->file);
	free(f->function);
	free(f->code);
}

/* Length of text's first sentence, without its final period. */
static size_t first_sentence(const char *text)
{
	bool tick = false;
	size_t n = strlen(text);
	for (size_t i = 0; i < n; i++) {
		if (text[i] == '`')
			tick = !tick;
		else if (!tick && text[i] == '.' && text[i + 1] == ' ' &&
			 (isupper((unsigned char)text[i + 2]) || text[i + 2] == '`'))
			return i;
	}
	while (n && (text[n - 1] == '.' || text[n - 1] == ' ' || text[n - 1] == '\n'))
		n--;
	return n;
}

const char *kg_remedy_code_rest(const char *code)
{
	const char *p = code + first_sentence(code);
	while (*p == '.' || *p == ' ' || *p == '\n')
		p++;
	return p;
}

char *kg_remedy_instruction(const kg_remedy *r)
{
	kg_buf b = {0};
	const char *text = r->code ? r->code : r->title ? r->title : "";
	kg_buf_append(&b, text, first_sentence(text));
	const char *sep = ": ";
	for (size_t e = 0; e < r->nenv; e++) {
		char *kv = kg_asprintf("%s=%s", r->env_names[e], r->env_values[e]);
		if (!strstr(b.data ? b.data : "", kv)) {
			kg_buf_printf(&b, "%s%s", sep, kv);
			sep = "; ";
		}
		free(kv);
	}
	for (size_t e = 0; r->set_keys && e < r->nset; e++) {
		if (!r->set_keys[e])
			continue;
		char *kv = kg_asprintf("%s: %s", r->set_keys[e], r->set_values[e]);
		if (!strstr(b.data ? b.data : "", kv)) {
			kg_buf_printf(&b, "%sset %s", sep, kv);
			sep = "; ";
		}
		free(kv);
	}
	return kg_buf_steal(&b);
}

void kg_remedy_free(kg_remedy *r)
{
	free(r->title);
	for (size_t i = 0; i < r->nenv; i++) {
		free(r->env_names[i]);
		free(r->env_values[i]);
	}
	free(r->env_names);
	free(r->env_values);
	for (size_t i = 0; i < r->nset; i++) {
		free(r->set_roles[i]);
		free(r->set_values[i]);
		if (r->set_keys)
			free(r->set_keys[i]);
	}
	free(r->set_keys);
	free(r->set_roles);
	free(r->set_values);
	free(r->code);
	free(r->caveat);
}

void kg_finding_free(kg_finding *f)
{
	free(f->rule);
	free(f->category);
	free(f->title);
	free(f->message);
	for (size_t i = 0; i < f->nevidence; i++)
		free(f->evidence[i]);
	free(f->evidence);
	for (size_t i = 0; i < f->nremedies; i++)
		kg_remedy_free(&f->remedies[i]);
	free(f->remedies);
}

void kg_incident_free(kg_incident *inc)
{
	for (size_t i = 0; i < inc->nfindings; i++)
		kg_finding_free(&inc->findings[i]);
	free(inc->findings);
	kg_differential_free(inc);
	kg_memory_free(&inc->mem);
	if (inc->tensor) {
		free(inc->tensor->shape);
		free(inc->tensor);
	}
	free(inc->status);
	free(inc->message);
	free(inc->folded);
	free(inc->path);
	free(inc->alloc_conf);
	free(inc->alloc_conf_var);
	for (size_t i = 0; i < inc->nframes; i++)
		kg_frame_free(&inc->frames[i]);
	free(inc->frames);
	for (size_t i = 0; i < inc->nfollowups; i++)
		free(inc->followups[i].text);
	free(inc->followups);
	memset(inc, 0, sizeof *inc);
}

/* budget.c — see include/diagnose/budget.h. */
#include "diagnose/budget.h"
#include "model/units.h"

#include <stdio.h>
#include <string.h>

static int64_t bytes_of(const kg_facts *f, const char *name)
{
	const kg_fact *x = kg_facts_get(f, name);
	if (!x || x->type != KG_FACT_BYTES)
		return KG_NONE;
	return x->num < 0 ? 0 : kg_clamp_i64(x->num + 0.5);
}

void kg_budget_from_facts(kg_budget *b, const kg_facts *f)
{
	b->capacity = bytes_of(f, "oom.total_capacity");
	b->free = bytes_of(f, "oom.free");
	b->allocated = bytes_of(f, "oom.allocated");
	b->cached_unused = bytes_of(f, "oom.reserved_unallocated");
	b->non_pytorch = bytes_of(f, "budget.non_pytorch");
	b->other_processes = bytes_of(f, "budget.other_processes");
	b->unaccounted = bytes_of(f, "budget.unaccounted");
	b->requested = bytes_of(f, "oom.requested");
	b->split_uncertain = kg_facts_get(f, "budget.context_or_others") != NULL;
	const kg_fact *c = kg_facts_get(f, "budget.consistent");
	b->consistent = !c || c->num != 0;
}

size_t kg_budget_parts(const kg_budget *b, kg_budget_part out[6])
{
	const struct { int64_t v; const char *what; } parts[] = {
		{b->allocated, "allocated"},
		{b->cached_unused, "cached unused"},
		{b->non_pytorch, "non-PyTorch (this process)"},
		{b->other_processes, "other processes"},
		{b->unaccounted, b->split_uncertain ? "CUDA context + other processes" : "unaccounted"},
		{b->free, "free"},
	};
	size_t n = 0;
	for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
		if (parts[i].v == KG_NONE || (parts[i].v == 0 && i >= 2 && i <= 4))
			continue;
		out[n++] = (kg_budget_part){parts[i].v, parts[i].what, (int)i};
	}
	return n;
}

char *kg_budget_line(const kg_budget *b, const char *const *glyphs, char *buf, size_t n)
{
	if (b->capacity == KG_NONE || n == 0)
		return NULL;
	char t[32];
	size_t len = 0;
	len += (size_t)snprintf(buf + len, n - len, "%s =", kg_size_format(b->capacity, t, sizeof t));
	kg_budget_part p[6];
	size_t np = kg_budget_parts(b, p);
	for (size_t i = 0; i < np && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s%s %s %s", i ? " +" : "",
					glyphs ? " " : "", glyphs ? glyphs[p[i].kind] : "",
					kg_size_format(p[i].bytes, t, sizeof t), p[i].what);
	if (len < n && !b->consistent)
		snprintf(buf + len, n - len, " (these numbers contradict each other)");
	return buf;
}

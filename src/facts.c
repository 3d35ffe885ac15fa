/* facts.c — see include/facts.h. */
#include "facts.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static kg_fact *slot(kg_facts *f, const char *name)
{
	for (size_t i = 0; i < f->n; i++) {
		if (strcmp(f->v[i].name, name) == 0) {
			free(f->v[i].str);
			free(f->v[i].provenance);
			f->v[i].str = NULL;
			f->v[i].provenance = NULL;
			return &f->v[i];
		}
	}
	f->v = kg_realloc(f->v, (f->n + 1) * sizeof *f->v);
	kg_fact *x = &f->v[f->n++];
	memset(x, 0, sizeof *x);
	x->name = kg_strdup(name);
	return x;
}

void kg_facts_set_bytes(kg_facts *f, const char *name, kg_size s, const char *prov)
{
	if (!kg_size_known(s))
		return;
	kg_fact *x = slot(f, name);
	x->type = KG_FACT_BYTES;
	x->num = (double)s.bytes;
	x->lo = (double)s.lo;
	x->hi = (double)s.hi;
	x->provenance = prov ? kg_strdup(prov) : NULL;
}

void kg_facts_set_num(kg_facts *f, const char *name, kg_fact_type type, double v, const char *prov)
{
	kg_fact *x = slot(f, name);
	x->type = type;
	x->num = x->lo = x->hi = v;
	x->provenance = prov ? kg_strdup(prov) : NULL;
}

void kg_facts_set_str(kg_facts *f, const char *name, const char *s, const char *prov)
{
	kg_fact *x = slot(f, name);
	x->type = KG_FACT_STRING;
	x->str = kg_strdup(s);
	x->provenance = prov ? kg_strdup(prov) : NULL;
}

const kg_fact *kg_facts_get(const kg_facts *f, const char *name)
{
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->v[i].name, name) == 0)
			return &f->v[i];
	return NULL;
}

void kg_facts_free(kg_facts *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].name);
		free(f->v[i].str);
		free(f->v[i].provenance);
	}
	free(f->v);
	f->v = NULL;
	f->n = 0;
}

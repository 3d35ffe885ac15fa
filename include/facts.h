/* facts.h — named, typed facts with provenance (DESIGN §2). Everything the
 * rules may use is a fact: parsed numbers of an incident, snapshot metrics,
 * config values by role, --set overrides, calculator outputs. Names are
 * stable, dotted, lower-case (`oom.requested`, `config.eval_batch_size`,
 * `calc.full_ranking.bytes`); the registry of known names lives in facts.c
 * (kg_fact_names) and in kgmem-rules(5). */
#ifndef KG_FACTS_H
#define KG_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "units.h"

typedef enum kg_fact_type {
	KG_FACT_BYTES,   /* num = bytes; lo/hi = printed-size interval */
	KG_FACT_COUNT,   /* num = a count (entities, steps, pids, …) */
	KG_FACT_RATIO,   /* num in [0, 1] typically (fragmentation, share) */
	KG_FACT_STRING,  /* str */
	KG_FACT_BOOL,    /* num = 0 or 1 */
} kg_fact_type;

typedef struct kg_fact {
	char *name;
	kg_fact_type type;
	double num;            /* value for BYTES/COUNT/RATIO/BOOL */
	double lo, hi;         /* uncertainty interval (== num when exact) */
	char *str;             /* value for STRING */
	char *provenance;      /* "crash.log:1234", "cfg.yaml:12", "--set", … */
} kg_fact;

typedef struct kg_facts {
	kg_fact *v;
	size_t n;
} kg_facts;

/* Setters replace an existing fact of the same name. prov may be NULL. */
void kg_facts_set_bytes(kg_facts *f, const char *name, kg_size s, const char *prov);
void kg_facts_set_num(kg_facts *f, const char *name, kg_fact_type type, double v, const char *prov);
void kg_facts_set_str(kg_facts *f, const char *name, const char *s, const char *prov);
const kg_fact *kg_facts_get(const kg_facts *f, const char *name);
void kg_facts_free(kg_facts *f);

#endif

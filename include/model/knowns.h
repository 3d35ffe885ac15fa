/* knowns.h — the numbers `explain` may multiply into a size: each with its
 * label as the user knows it (a config key, a dataset's entity count, a
 * dtype width) and its kind. Filled from a config (read/config.h) and
 * used by the calculators (diagnose/calc.h). */
#ifndef KG_KNOWNS_H
#define KG_KNOWNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum kg_known_kind {
	KG_KNOWN_CONSTANT,  /* small constants: components, K and V, … */
	KG_KNOWN_BATCH,     /* batch sizes */
	KG_KNOWN_COUNT,     /* negatives, sequence length, heads, layers, … */
	KG_KNOWN_DATASET,   /* entities, relations, vocabulary */
	KG_KNOWN_DIM,       /* embedding / hidden dimensions */
	KG_KNOWN_OTHER,     /* anything else from a config or a message */
	KG_KNOWN_DTYPE,     /* element width in bytes */
} kg_known_kind;

/* One number explain may use: value, its label as shown to the user
 * ("data.test_bs", "WN18RR entities", "float32") and its kind. */
typedef struct kg_known {
	int64_t value;
	char *label;
	kg_known_kind kind;
	bool preferred;     /* e.g. the config's own dtype: ranked first */
} kg_known;

typedef struct kg_knowns {
	kg_known *v;
	size_t n;
} kg_knowns;

void kg_knowns_add(kg_knowns *k, int64_t value, const char *label, kg_known_kind kind);
/* Adds the usual constants (2, 3, 4 as components) and dtype widths
 * 1, 2, 4, 8 (named by preferred_dtype, when given, at its width). */
void kg_knowns_add_defaults(kg_knowns *k, const char *preferred_dtype);
void kg_knowns_free(kg_knowns *k);

#endif

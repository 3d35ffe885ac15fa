/* budget.h — the memory budget of an incident (DIAGNOSIS §1): the device's
 * capacity split into free, this process's PyTorch memory (allocated and
 * cached-unused), its non-PyTorch memory, other processes and what stays
 * unaccounted. The arithmetic is done once, as derived facts in facts.c
 * (budget.*, oom.*); this module copies it into the typed kg_budget that
 * the reporters print. */
#ifndef KG_BUDGET_H
#define KG_BUDGET_H

#include "model/facts.h"
#include "model/incident.h"

/* Fills b from facts after kg_facts_derive(): every part in bytes (the
 * printed value's nearest byte), KG_NONE where the facts do not give it.
 * split_uncertain is set when this process's in-use memory is not stated
 * (PyTorch 1.x; or 2.x listing several processes, none named this one,
 * when other_processes is the least the others hold): unaccounted then
 * holds the CUDA context and other processes together. Never fails. */
void kg_budget_from_facts(kg_budget *b, const kg_facts *facts);

/* One part of the budget: bytes and what it is ("allocated", "cached
 * unused", "non-PyTorch (this process)", "other processes",
 * "unaccounted" or "CUDA context + other processes", "free"). */
typedef struct kg_budget_part {
	int64_t bytes;
	const char *what;
	int kind;          /* index in the full order below, 0–5 */
} kg_budget_part;

/* The known parts in the order the text report draws them: allocated,
 * cached unused, non-PyTorch, other processes, unaccounted, free (non-PyTorch,
 * other processes and unaccounted left out when zero, every one left out
 * when unknown). Fills out (at most 6) and returns how many. */
size_t kg_budget_parts(const kg_budget *b, kg_budget_part out[6]);

/* Formats the budget as one line ("23.56 GiB = 22.95 GiB allocated + …
 * + 15.88 MiB free", the parts of kg_budget_parts) into buf (n bytes,
 * NUL-terminated, cut if short); with glyphs (6 strings, or NULL), each
 * part's glyph comes before it. Returns buf, or NULL when the capacity is
 * not known. */
char *kg_budget_line(const kg_budget *b, const char *const *glyphs, char *buf, size_t n);

#endif

/* budget.h — the memory budget of an incident (DIAGNOSIS §1): the device's
 * capacity split into free, this process's PyTorch memory (allocated and
 * cached-unused), its non-PyTorch memory, other processes and what stays
 * unaccounted. The arithmetic is done once, as derived facts in facts.c
 * (budget.*, oom.*); this module copies it into the typed kg_budget that
 * the reporters print. */
#ifndef KG_BUDGET_H
#define KG_BUDGET_H

#include "facts.h"
#include "incident.h"

/* Fills b from facts after kg_facts_derive(): every part in bytes (the
 * printed value's nearest byte), KG_NONE where the facts do not give it.
 * split_uncertain is set when this process's in-use memory is not stated
 * (PyTorch 1.x): unaccounted then holds the CUDA context and other
 * processes together. Never fails. */
void kg_budget_from_facts(kg_budget *b, const kg_facts *facts);

/* Formats the budget as one line ("23.56 GiB = 15.88 MiB free + 22.95 GiB
 * allocated + …") into buf (n bytes, NUL-terminated, cut if short).
 * Returns buf, or NULL when the capacity is not known. */
char *kg_budget_line(const kg_budget *b, char *buf, size_t n);

#endif

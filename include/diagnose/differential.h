/* differential.h — the differential diagnosis (DIAGNOSIS §3): the fired
 * rules' evidence summed per hypothesis, the incident's cause and its
 * confidence. Rules say what they are evidence about (`supports:` or
 * `refutes:` a cause, with a `strength`); this module weighs them.
 *
 * Weights: decisive 8, strong 3, weak 1; evidence against subtracts the
 * same, and decisive evidence against rules the hypothesis out.
 * Refinement: eval-blowup, checkpoint, leak, activation-peak and oversize
 * say *why* this process filled the device, so when one of them has at
 * least strong support of its own it also takes the evidence for
 * capacity (the generic "this process's own memory filled the device").
 * Order: score, then the category order of vocab/category.def (most
 * specific first). Cause: the first hypothesis when its score is at least strong;
 * else NULL (undetermined). Confidence: high with decisive evidence, none
 * against and no rival of strong support; medium when at least 2 points
 * ahead of the next; low otherwise. */
#ifndef KG_DIFFERENTIAL_H
#define KG_DIFFERENTIAL_H

#include <stddef.h>
#include "model/incident.h"

/* The causes are the categories of include/model/vocab/category.def except
 * `none`, most specific first (the tie order). */

/* The static cause word equal to name, or NULL for `none` or an unknown
 * word. */
const char *kg_cause_find(const char *name);

/* The word of a strength (vocab/strength.def); "" for none. */
const char *kg_strength_name(enum kg_strength s);
/* The strength named s, or KG_STRENGTH_NONE for "none" or an unknown
 * word. */
enum kg_strength kg_strength_find(const char *s);

/* Rebuilds inc->differential, inc->cause and inc->confidence from
 * inc->findings (each finding's supports/refutes/strength). Findings
 * without a hypothesis (cascade, none) are left out. */
void kg_differential_build(kg_incident *inc);

/* For an undetermined incident: adds f's hypothesis (f->supports, from a
 * fallback rule that says the message leaves it open) to the end of the
 * differential as open, with f's title as its evidence (strength none),
 * unless the differential already holds that cause. Leaves the cause and
 * confidence alone. No-op when inc has a cause or f supports nothing. */
void kg_differential_add_open(kg_incident *inc, const kg_finding *f);

#endif

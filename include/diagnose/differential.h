/* differential.h — the differential diagnosis (DIAGNOSIS §3, §9): the
 * fired rules' evidence weighed per hypothesis as log-odds, a posterior
 * probability per cause, the incident's cause and its confidence. Rules
 * say what they are evidence about (`supports:` or `refutes:` a cause,
 * with a `strength`); this module weighs them.
 *
 * Prior: per cause, from rules/priors.yaml (how often each cause settles
 * real reports); uniform when no priors were loaded. Once an item speaks
 * for a cause its prior counts at weight 1/2 (its square root): the ratios
 * below were measured as how often an item's cause is the settled one.
 * Likelihood ratio of an item: decisive ×100, strong ×20, weak ×2.5
 * (strong measured on bench/causes: DIAGNOSIS §9's ×10 left a cause of
 * prior < 0.09 under 0.5 on one strong item that names it 71 % of the time);
 * evidence against ÷10, and decisive evidence against rules the cause out
 * (probability 0). Items about one cause say the same thing and count
 * once: the strongest for it, the strongest against it.
 * Refinement: eval-blowup, checkpoint, leak, activation-peak and oversize
 * (and a rule that says `refines: capacity`) say *why* this process
 * filled the device, so when one of them has at least strong support of
 * its own it also takes capacity's ratio (the generic "this process's own
 * memory filled the device" is as likely under it); evidence against
 * capacity (this process's memory did not fill the device) counts against
 * each of them (÷10) that has no strong evidence of its own.
 * Posterior: prior × ratio normalised over every cause not ruled out
 * (softmax of the log-odds). Order: posterior, then the category order of
 * vocab/category.def (most specific first).
 * Level of the first hypothesis: high at p ≥ 0.95 with a decisive item, a
 * second item of its own at strong or above, and none against; medium at p ≥ 0.8 with a strong (or decisive) item and no
 * rival (the next hypothesis, capacity excepted when refined) with an item
 * as strong and none against it at strong or above; low at p ≥ 0.5; else the incident's cause is NULL
 * (undetermined) and the differential lists what is open. */
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

/* The posterior thresholds of the levels (DIAGNOSIS §9). */
#define KG_P_HIGH 0.95
#define KG_P_MEDIUM 0.8
#define KG_P_LOW 0.5

/* The likelihood ratio an item of strength s carries for its cause: 100,
 * 20, 2.5 (none: 1). */
double kg_strength_ratio(enum kg_strength s);

/* A posterior as the reports print it, into buf (n ≥ 8): two decimals
 * ("0.97"), "<0.01" below 0.005 (but above 0), ">0.99" from 0.995 (but
 * below 1), "0" and "1" exactly. Returns buf. */
char *kg_prob_format(double p, char *buf, size_t n);

/* Rebuilds inc->differential, inc->cause and inc->confidence from
 * inc->findings (each finding's supports/refutes/strength). prior: one
 * probability per category (index KG_CATEGORY_*; `none`'s is ignored; a
 * cause with prior 0 is never named), or NULL for uniform. The
 * differential lists the causes some finding names, most probable first,
 * each with its posterior p over all causes. Findings without a
 * hypothesis (supports: none) are left out. */
void kg_differential_build(kg_incident *inc, const double *prior);

/* For an undetermined incident: adds f's hypothesis (f->supports, from a
 * fallback rule that says the message leaves it open) to the end of the
 * differential as open, with f's title as its evidence (strength none),
 * unless the differential already holds that cause. Leaves the cause and
 * confidence alone. No-op when inc has a cause or f supports nothing. */
void kg_differential_add_open(kg_incident *inc, const kg_finding *f);

#endif

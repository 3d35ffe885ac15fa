/* calcfacts.h — the closed forms the diagnosis evaluates as facts (DESIGN
 * §2, issue 12 scope 5): one table (lib/diagnose/calcfacts.c) of each form's input
 * facts and its calculator in calc.h, so a form runs whenever its inputs
 * are known (config roles, --set, dataset registry) and its result is a
 * fact the rules compare with the failed request:
 *
 *   calc.full_ranking.bytes  eval batch × entities × dim × components × dtype
 *                            (+ .formula, .max_batch)
 *   calc.negatives.bytes     train batch × negatives × dim × components × dtype
 *   calc.logits.bytes        batch × seq_len × vocab × dtype
 *   calc.attention.bytes     batch × heads × seq_len² × dtype
 *   estimate.*               the model's weights, training state and KV
 *                            cache against the card (estimate.h)
 *
 * The `calc` command evaluates the same calc.h functions from its own
 * arguments. dtype bytes come from config.precision (4, "float32,
 * assumed", when not given); KG model components from config.model
 * (kg_model_components; unknown model: no full-ranking or negatives). */
#ifndef KG_CALCFACTS_H
#define KG_CALCFACTS_H

#include "model/facts.h"

/* Evaluates every form whose inputs are facts in f and sets its outputs
 * (kind "calculated"). For logits and attention the batch is
 * config.eval_batch_size during evaluation (phase eval), else
 * config.train_batch_size. Never fails; a form whose product overflows
 * int64 sets nothing. */
void kg_calc_facts(kg_facts *f);

#endif

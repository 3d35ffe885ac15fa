/* estimate.h — the model's size against the card (issue 31, item 5): what
 * the log says about the model (read/modelinfo.h: model.*, gpu.*, host.ram)
 * turned into bytes, in closed form, beside the card's capacity:
 *
 *   estimate.card          bytes   the card: oom.total_capacity, else
 *                                  nvidia-smi's total (log.smi.total), else
 *                                  the GPU the log names (gpu.memory)
 *   estimate.card.source   string  which of them, in words
 *   estimate.weights       bytes   params × bytes per parameter at the
 *                                  weights' precision (model.precision,
 *                                  else config.precision, else 2 B: 16-bit,
 *                                  "assumed"); + .formula, the arithmetic
 *   estimate.training      bytes   in training (model.mode "train", or the
 *                                  phase backward/optimizer) without
 *                                  adapters: params × 16 B, weights,
 *                                  gradients and Adam's state (mixed
 *                                  precision: 2 + 2 + 12 for the fp32
 *                                  master weights, momentum and variance;
 *                                  fp32: 4 + 4 + 8; Rajbhandari et al.
 *                                  2020, arXiv:1910.02054 §3.1; calc.h
 *                                  kg_calc_adam), 10 B with an 8-bit
 *                                  optimizer; its interval starts at 8 B
 *                                  (weights, gradients and both moments all
 *                                  16-bit), the least any Adam keeps.
 *                                  With adapters (LoRA, PEFT) or a 4/8-bit
 *                                  base: the weights + the printed
 *                                  trainable count × 16 B, or nothing.
 *                                  Not with SGD named. + .formula
 *   estimate.kv_cache      bytes   2 × layers × KV heads × head dim ×
 *                                  context × 2 B, one sequence at the
 *                                  context the log sets (calc.h
 *                                  kg_calc_kv_cache); + .formula
 *   estimate.model         bytes   what the model holds in its mode:
 *                                  training's state, else the weights
 *                                  (+ one sequence's KV cache when
 *                                  known); + .formula
 *
 * Every size keeps the interval its inputs allow (a name's size rounds,
 * model.params lo..hi), so `>` in a rule holds for every value they allow. */
#ifndef KG_ESTIMATE_H
#define KG_ESTIMATE_H

#include "model/facts.h"

/* Sets the estimate.* facts that the facts in f allow (provenance
 * "calculated"). Never fails; sets nothing it cannot compute. Run by
 * kg_calc_facts (calcfacts.h) with the other closed forms. */
void kg_estimate_facts(kg_facts *f);

/* Writes a parameter count as the report prints it: "7.0 B", "124 M",
 * "859.5 M", "6.74 B" (three significant digits, four for a printed count
 * when `exact`). Returns buf. */
char *kg_params_format(double params, bool exact, char *buf, size_t n);

#endif

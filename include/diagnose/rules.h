/* rules.h — the rules engine (DESIGN §2–§3, kgmem-rules(5)). Rules are
 * data: YAML files (libyaml), one list of rules per file, one file per
 * category of DESIGN §2a. The engine is code: it compiles every `when`
 * expression and `{…}` placeholder once at load time, evaluates them per
 * incident against its facts (facts.h), and fills the incident's findings
 * and cause.
 *
 * Evidence and cause. Each rule is evidence for (`supports:`) or against
 * (`refutes:`) one hypothesis, with a `strength` (include/model/vocab/strength.def);
 * rules of the categories cascade and none, and `supports: none`, are
 * advice only. kg_rules_apply fires every rule, then differential.c sums
 * the evidence into the incident's differential, cause and confidence
 * (DIAGNOSIS §3). Rules are ordered by category in the order of
 * include/model/vocab/category.def (the most specific cause first), then by file
 * and position; findings are listed with the cause's evidence first, then
 * most severe first, ties in rule order.
 *
 * Missing facts. A `when` that is unknown does not fire. A rule whose
 * title or message needs a fact that is missing does not fire either
 * (no message with holes); an evidence line, a remedy's env or set entry,
 * its code or caveat that needs a missing fact is left out, and a remedy
 * left with no title or with none of env, set and code is left out.
 * `fallback: true` rules fire only when the differential names no cause. */
#ifndef KG_RULES_H
#define KG_RULES_H

#include <stdio.h>
#include "model/facts.h"
#include "model/incident.h"
#include "model/util.h"
#include "model/paths.h"

typedef struct kg_ruleset kg_ruleset;

/* Loads rule files from each of dirs in turn (a directory: its *.yaml and
 * *.yml files in name order, except keys.yaml and datasets.yaml, which
 * are data; or a single file). A rule whose id was
 * loaded from an earlier dir replaces it; the same id twice within one
 * dir is an error. On the first invalid file returns NULL with err->msg
 * "FILE:LINE:COL: reason" (err->line 0). */
kg_ruleset *kg_rules_load(const char *const *dirs, size_t ndirs, kg_error *err);

/* Validates every file under paths (as kg_rules_load reads them) and
 * writes one "FILE:LINE:COL: reason" line per problem to errs: YAML syntax,
 * missing or unknown keys, unknown category or severity, unknown fact
 * names, expression syntax, bad regexes, conditions that can never fire,
 * remedies with nothing to do. Returns the number of problems (0: valid). */
int kg_rules_check(const char *const *paths, size_t npaths, FILE *errs);

/* Frees inc's findings and differential, evaluates every rule against
 * facts, and fills inc->findings, inc->differential, inc->cause and
 * inc->confidence (see above). Never fails. */
void kg_rules_apply(const kg_ruleset *rs, kg_incident *inc, const kg_facts *facts);

size_t kg_rules_count(const kg_ruleset *rs);
/* One line per rule: "ID  SEVERITY  CATEGORY  TITLE". */
void kg_rules_list(const kg_ruleset *rs, FILE *out);
/* A rule in full (as written, with its file:line). Returns -1 if no rule
 * has that id. */
int kg_rules_show(const kg_ruleset *rs, const char *id, FILE *out);

void kg_rules_free(kg_ruleset *rs);

#endif

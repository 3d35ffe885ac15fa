/* fuzz_config.c — libFuzzer harness for the YAML config reader and the patch
 * planner (config.h, patch.h): parses the input as a training config with
 * the shipped registries (rules/keys.yaml, datasets.yaml); when it parses,
 * plans setting two roles and renders the unified diff.
 *
 * Patch oracle (issue 14): the edits are sorted, disjoint and inside the
 * old text; every byte outside the edited spans is unchanged (the new text
 * is the old one with exactly those spans replaced); the new text re-parses;
 * every key the edit did not target keeps its value and no key is lost. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "read/config.h"
#include "kg_build.h"
#include "report/patch.h"

static void oracle(const kg_config *c, const kg_patch *p, const char *const *roles, size_t nroles)
{
	/* bytes outside the edits: walk both texts edit by edit */
	size_t at = 0, nat = 0;
	for (size_t i = 0; i < p->nedits; i++) {
		const struct kg_patch_edit *e = &p->edits[i];
		if (e->start < at || e->end < e->start || e->end > p->old_len)
			abort();
		size_t keep = e->start - at, tl = strlen(e->text);
		if (nat + keep + tl > p->new_len || memcmp(p->old_text + at, p->new_text + nat, keep) != 0 ||
		    memcmp(p->new_text + nat + keep, e->text, tl) != 0)
			abort();
		nat += keep + tl;
		at = e->end;
	}
	if (p->new_len - nat != p->old_len - at ||
	    memcmp(p->old_text + at, p->new_text + nat, p->old_len - at) != 0)
		abort();
	/* the result re-parses, and keys the edit did not target keep their values */
	kg_error err = {0};
	kg_config *n = kg_config_parse("fuzz.yaml", p->new_text, p->new_len, KG_SOURCE_RULES_DIR, &err);
	if (!n)
		abort(); /* kg_patch_make promised a parsing result */
	for (size_t i = 0; i < c->n; i++) {
		const kg_config_entry *o = &c->v[i];
		/* a key of a role being set (the planner also edits a role's key
		 * whose value is not a number) */
		bool target = false;
		for (size_t r = 0; r < nroles; r++)
			target |= o->role >= 0 && !strcmp(c->roles[o->role].name, roles[r]);
		/* the same key: the occ-th entry with this dotted path ("a.b: 1"
		 * and "a: {b: 2}" share one) */
		size_t occ = 0;
		for (size_t k = 0; k < i; k++)
			occ += !strcmp(c->v[k].path, o->path);
		const kg_config_entry *m = NULL;
		for (size_t k = 0; k < n->n && !m; k++)
			if (!strcmp(n->v[k].path, o->path) && occ-- == 0)
				m = &n->v[k];
		if (!m)
			abort(); /* a key was lost */
		if (!target && o->kind == KG_CFG_SCALAR &&
		    (m->kind != KG_CFG_SCALAR || strcmp(m->value, o->value) != 0))
			abort(); /* another key's value changed */
	}
	kg_config_free(n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 65536)
		size = 65536;
	kg_error err = {0};
	kg_config *c = kg_config_parse("fuzz.yaml", (const char *)data, size,
				       KG_SOURCE_RULES_DIR, &err);
	if (!c) {
		if (!err.msg[0])
			abort(); /* a refusal without a reason */
		return 0;
	}
	const char *roles[] = {"train_batch_size", "grad_accum_steps"};
	const char *values[] = {"16", "4"};
	kg_patch *p = kg_patch_make(c, roles, values, 2, &err);
	if (p) {
		oracle(c, p, roles, 2);
		free(kg_patch_diff(p));
		kg_patch_free(p);
	}
	kg_config_free(c);
	return 0;
}

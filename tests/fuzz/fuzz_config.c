/* fuzz_config.c — libFuzzer harness for the YAML config reader and the patch
 * planner (config.h, patch.h): parses the input as a training config with
 * the shipped registries (rules/keys.yaml, datasets.yaml); when it parses,
 * plans setting two roles and renders the unified diff. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "kg_build.h"
#include "patch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 65536)
		size = 65536;
	kg_error err = {0};
	kg_config *c = kg_config_parse("fuzz.yaml", (const char *)data, size,
				       KG_SOURCE_RULES_DIR, &err);
	if (!c)
		return 0;
	const char *roles[] = {"train_batch_size", "grad_accum_steps"};
	const char *values[] = {"16", "4"};
	kg_patch *p = kg_patch_make(c, roles, values, 2, &err);
	if (p) {
		free(kg_patch_diff(p));
		kg_patch_free(p);
	}
	kg_config_free(c);
	return 0;
}

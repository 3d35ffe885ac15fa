/* fuzz_expr.c — libFuzzer harness for the rule-expression language
 * (expr.h): compiles the input as a `when` expression and, when it
 * compiles, evaluates it against a fixed set of facts (a string fact for
 * matches(), sizes with intervals, counts, ratios) and formats the result.
 * Compile errors must report an offset inside the source. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "diagnose/expr.h"
#include "model/facts.h"
#include "model/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static kg_facts facts;
	static int ready;
	if (!ready) {
		kg_size req;
		kg_size_parse_str("20.00 MiB", &req);
		kg_facts_set_bytes(&facts, "oom.requested", req, "fuzz");
		kg_facts_set_bytes(&facts, "oom.total_capacity", kg_size_exact(25297357373), "fuzz");
		kg_facts_set_bytes(&facts, "oom.allocated", kg_size_exact(24642374861), "fuzz");
		kg_facts_set_str(&facts, "oom.message", "CUDA out of memory. Tried to allocate 20.00 MiB aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "fuzz");
		kg_facts_set_num(&facts, "log.parallel_jobs", KG_FACT_COUNT, 8, "fuzz");
		ready = 1;
	}
	if (size > 4096)
		size = 4096;
	char *src = malloc(size + 1);
	memcpy(src, data, size);
	src[size] = 0;
	kg_error err = {0};
	size_t off = 0;
	kg_expr *e = kg_expr_compile(src, &err, &off);
	if (!e) {
		if (off > strlen(src) || !err.msg[0])
			abort(); /* an error must say why and point inside the text */
	} else {
		kg_value v = kg_expr_eval(e, &facts);
		char buf[128];
		kg_value_format(v, buf, sizeof buf);
		(void)kg_expr_truth(e, &facts);
		for (size_t i = 0; i < kg_expr_nfacts(e); i++)
			if (!kg_expr_fact(e, i))
				abort();
		kg_expr_free(e);
	}
	free(src);
	return 0;
}

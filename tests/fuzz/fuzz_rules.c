/* fuzz_rules.c — libFuzzer harness for the rule loader (rules.h): the input
 * is one rule file, read from a memfd by its /proc/self/fd path as
 * `rules check FILE` and `--rules FILE` read it (kg_rules_check, then
 * kg_rules_load); a set that loads is applied to an incident with fixed
 * facts (every template rendered, every remedy offered). Checks: the
 * loader refuses only what the checker finds a problem in (the checker
 * has a few checks of its own), with a located "FILE:LINE:COL: reason",
 * and no error path leaks (LeakSanitizer; issue 34). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "diagnose/rules.h"
#include "model/facts.h"
#include "model/incident.h"
#include "model/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	static kg_facts facts;
	if (!devnull) {
		devnull = fopen("/dev/null", "w");
		kg_size req;
		kg_size_parse_str("20.00 MiB", &req);
		kg_facts_set_bytes(&facts, "oom.requested", req, "fuzz");
		kg_facts_set_bytes(&facts, "oom.total_capacity", kg_size_exact(25297357373), "fuzz");
		kg_facts_set_bytes(&facts, "oom.free", kg_size_exact(8388608), "fuzz");
		kg_facts_set_bytes(&facts, "oom.allocated", kg_size_exact(24642374861), "fuzz");
		kg_facts_set_bytes(&facts, "oom.reserved_unallocated", kg_size_exact(536870912), "fuzz");
		kg_facts_set_str(&facts, "oom.message", "CUDA out of memory. Tried to allocate 20.00 MiB", "fuzz");
		kg_facts_set_num(&facts, "config.eval_batch_size", KG_FACT_COUNT, 128, "fuzz");
	}
	int fd = memfd_create("fuzz.yaml", MFD_CLOEXEC);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	const char *paths[] = {path};
	int problems = kg_rules_check(paths, 1, devnull);
	kg_error err = {0};
	kg_ruleset *rs = kg_rules_load(paths, 1, &err);
	if (!rs) {
		/* refused: the checker saw it too, and the reason is located */
		if (problems == 0 || strncmp(err.msg, path, strlen(path)) || err.msg[strlen(path)] != ':')
			abort();
	} else {
		kg_incident inc;
		kg_incident_init(&inc);
		kg_rules_apply(rs, &inc, &facts);
		kg_rules_list(rs, devnull);
		kg_incident_free(&inc);
		kg_rules_free(rs);
	}
	close(fd);
	return 0;
}

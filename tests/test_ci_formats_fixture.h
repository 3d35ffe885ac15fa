/* test_ci_formats_fixture.h — the report the CI-format tests print: seed
 * 004's incident (testdata/seeds/004_*.txt: PyTorch 2.x OOM on a 23.56 GiB
 * GPU shared by 4 Optuna trials, 16.00 MiB requested with 1.41 GiB reserved
 * but unallocated, then a device-side assert) with the findings the rules
 * engine gives it (fragmentation and parallelism), plus an incident from
 * standard input with no findings yet. The log path holds ':' and ',' and
 * the texts hold '%', CR, LF and backticks, to exercise every escape. */
#ifndef KG_TEST_CI_FORMATS_FIXTURE_H
#define KG_TEST_CI_FORMATS_FIXTURE_H

#include <cjson/cJSON.h>
#include <stdlib.h>

#include "model/incident.h"
#include "report/report.h"
#include "model/util.h"

#define FIXTURE_LOG "runs/trial,7:gpu0/tune.log"

static kg_size fixture_size(const char *printed)
{
	kg_size s;
	if (kg_size_parse_str(printed, &s) != 0)
		abort();
	return s;
}

static char **fixture_strv(size_t n, const char *const *v)
{
	char **out = kg_calloc(n, sizeof *out);
	for (size_t i = 0; i < n; i++)
		out[i] = kg_strdup(v[i]);
	return out;
}

static void fixture_report(kg_report *r)
{
	kg_report_init(r);
	r->ninputs = 2;
	r->inputs = kg_calloc(2, sizeof *r->inputs);
	r->inputs[0] = (kg_input){kg_strdup(FIXTURE_LOG), kg_strdup(FIXTURE_LOG), "log", 48213, false};
	r->inputs[1] = (kg_input){kg_strdup("-"), kg_strdup("<stdin>"), "log", 912, false};

	r->nincidents = 2;
	r->incidents = kg_calloc(2, sizeof *r->incidents);
	kg_incident *a = &r->incidents[0];
	kg_incident_init(a);
	a->id = 1;
	a->kind = "oom";
	a->family = "pytorch2";
	a->framework = "pytorch";
	a->path = kg_strdup(FIXTURE_LOG);
	a->line = 4242;
	a->device_type = "cuda";
	a->device_index = 0;
	a->step = 120;
	a->phase = "backward";
	a->cause = "fragmentation";
	a->mem.requested = fixture_size("16.00 MiB");
	a->mem.total_capacity = fixture_size("23.56 GiB");
	a->mem.free = fixture_size("33.56 MiB");
	a->mem.process_in_use = fixture_size("22.88 GiB");
	a->mem.allocated = fixture_size("21.13 GiB");
	a->mem.reserved_unallocated = fixture_size("1.41 GiB");
	a->message = kg_strdup("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 16.00 MiB. "
			       "GPU 0 has a total capacity of 23.56 GiB of which 33.56 MiB is free. "
			       "Process has 22.88 GiB memory in use. Of the allocated memory 21.13 GiB "
			       "is allocated by PyTorch, and 1.41 GiB is reserved by PyTorch but unallocated. "
			       "See ```docs``` | here");
	a->nfollowups = 1;
	a->followups = kg_calloc(1, sizeof *a->followups);
	a->followups[0] = (kg_followup){"device-side-assert", 4250,
		kg_strdup("torch.AcceleratorError: CUDA error: device-side assert triggered")};

	a->nfindings = 2;
	a->findings = kg_calloc(2, sizeof *a->findings);
	kg_finding *f = &a->findings[0];
	f->rule = kg_strdup("fragmentation.reserved-unallocated");
	f->category = kg_strdup("fragmentation");
	f->severity = KG_SEV_ERROR;
	f->supports = "fragmentation";
	f->title = kg_strdup("Cached memory could have served the request, but not in one block");
	f->message = kg_strdup("1.41 GiB is reserved by PyTorch but unallocated, more than the "
			       "16.00 MiB requested, yet no cached block was large enough.");
	f->nevidence = 1;
	f->evidence = fixture_strv(1, (const char *const[]){
		"1.41 GiB reserved but unallocated >= 16.00 MiB requested"});
	f->nremedies = 1;
	f->remedies = kg_calloc(1, sizeof *f->remedies);
	f->remedies[0].title = kg_strdup("Let the allocator grow segments instead of stranding free blocks");
	f->remedies[0].nenv = 1;
	f->remedies[0].env_names = fixture_strv(1, (const char *const[]){"PYTORCH_CUDA_ALLOC_CONF"});
	f->remedies[0].env_values = fixture_strv(1, (const char *const[]){"expandable_segments:True"});
	f->remedies[0].caveat = kg_strdup("experimental; known to break some custom all-reduce and RDMA paths");

	f = &a->findings[1];
	f->rule = kg_strdup("parallelism.parallel-trials");
	f->category = kg_strdup("parallelism");
	f->severity = KG_SEV_WARNING;
	f->supports = "parallelism";
	f->title = kg_strdup("Parallel trials share one device");
	f->message = kg_strdup("4 parallel trials share one 23.56 GiB GPU: 97% in use.\r\nEach trial needs ~6 GiB.");
	f->nremedies = 1;
	f->remedies = kg_calloc(1, sizeof *f->remedies);
	f->remedies[0].title = kg_strdup("Run as many trials as fit");
	f->remedies[0].nset = 1;
	f->remedies[0].set_roles = fixture_strv(1, (const char *const[]){"parallel_jobs"});
	f->remedies[0].set_values = fixture_strv(1, (const char *const[]){"3"});
	/* the loaded config's own key for the role (configs/tune.yaml) */
	f->remedies[0].set_keys = fixture_strv(1, (const char *const[]){"n_jobs"});

	kg_incident *b = &r->incidents[1];
	kg_incident_init(b);
	b->id = 2;
	b->kind = "oom-warning";
	b->family = "tensorflow";
	b->framework = "tensorflow";
	b->path = kg_strdup("<stdin>");
	b->line = 17;
	b->message = kg_strdup("Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.15GiB "
			       "with freed_by_count=0.");
	b->mem.requested = fixture_size("2.15GiB");

	kg_report_add_patch(r, "configs/tune.yaml", "--- a/configs/tune.yaml\n+++ b/configs/tune.yaml\n"
			    "@@ -3,1 +3,1 @@\n-n_jobs: 4\n+n_jobs: 3\n");
	kg_report_note(r, "line 9001 of %s is longer than 1 MiB; kept its first 1 MiB", FIXTURE_LOG);
}

#endif

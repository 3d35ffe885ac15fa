/* test_rules.c — the rules engine and the shipped rule set on hand-built
 * incidents that reproduce the seed stories (testdata/seeds/), plus the
 * checker on bad rule files (testdata/rules-bad/) and --rules overrides. */
#include "facts.h"
#include "incident.h"
#include "logfacts.h"
#include "rules.h"
#include "tap.h"
#include "units.h"

#include <stdlib.h>

static kg_ruleset *RS;
static char TD[1024], RULES[1024];

static kg_size sz(const char *s)
{
	kg_size v = kg_size_none();
	if (kg_size_parse_str(s, &v) < 0)
		abort();
	return v;
}

/* A 2.x incident with the message's sizes (NULL: not stated). */
static void pt2(kg_incident *inc, long line, const char *req, const char *total, const char *free_,
		const char *proc, const char *alloc, const char *ru)
{
	kg_incident_init(inc);
	inc->family = "pytorch2";
	inc->device_type = "cuda";
	inc->line = line;
	const char *v[] = {req, total, free_, proc, alloc, ru};
	kg_size *dst[] = {&inc->mem.requested, &inc->mem.total_capacity, &inc->mem.free,
			  &inc->mem.process_in_use, &inc->mem.allocated, &inc->mem.reserved_unallocated};
	for (int i = 0; i < 6; i++)
		if (v[i])
			*dst[i] = sz(v[i]);
}

static void frame(kg_incident *inc, const char *file, long line, const char *fn, const char *code)
{
	inc->frames = kg_realloc(inc->frames, (inc->nframes + 1) * sizeof *inc->frames);
	kg_frame *f = &inc->frames[inc->nframes++];
	f->file = kg_strdup(file);
	f->line = line;
	f->function = kg_strdup(fn);
	f->code = code ? kg_strdup(code) : NULL;
}

static const kg_finding *finding(const kg_incident *inc, const char *rule)
{
	for (size_t i = 0; i < inc->nfindings; i++)
		if (!strcmp(inc->findings[i].rule, rule))
			return &inc->findings[i];
	return NULL;
}

/* A finding that is evidence *for* cat (a refutation does not count). */
static bool has_category(const kg_incident *inc, const char *cat)
{
	for (size_t i = 0; i < inc->nfindings; i++)
		if (!strcmp(inc->findings[i].category, cat) && !inc->findings[i].refutes)
			return true;
	return false;
}

/* No remedy of any finding advises empty_cache() (seed 002's myth). */
static bool remedies_avoid_empty_cache(const kg_incident *inc)
{
	for (size_t i = 0; i < inc->nfindings; i++) {
		const kg_finding *f = &inc->findings[i];
		for (size_t k = 0; k < f->nremedies; k++) {
			const kg_remedy *r = &f->remedies[k];
			if (strstr(r->title, "empty_cache") || (r->code && strstr(r->code, "empty_cache")))
				return false;
			for (size_t e = 0; e < r->nenv; e++)
				if (strstr(r->env_values[e], "empty_cache"))
					return false;
		}
	}
	return true;
}

static const char *set_value(const kg_finding *f, const char *role)
{
	for (size_t k = 0; f && k < f->nremedies; k++)
		for (size_t s = 0; s < f->remedies[k].nset; s++)
			if (!strcmp(f->remedies[k].set_roles[s], role))
				return f->remedies[k].set_values[s];
	return NULL;
}

static void dump(const kg_incident *inc)
{
	for (size_t i = 0; i < inc->nfindings; i++)
		printf("#   finding %s (%s, sev %d)\n", inc->findings[i].rule,
		       inc->findings[i].category, inc->findings[i].severity);
}

static void run(kg_incident *inc, kg_facts *f, const char *const *sets, size_t nsets)
{
	kg_facts_from_incident(inc, "seed.log", f);
	kg_error err = {0};
	for (size_t i = 0; i < nsets; i++)
		if (kg_facts_set_arg(f, sets[i], &err) < 0)
			printf("# --set failed: %s\n", err.msg);
	kg_rules_apply(RS, inc, f);
	dump(inc);
}

/* Seeds 000/001: WN18RR full-ranking evaluation at step 10000; seed 000
 * called it fragmentation. */
static void seed_eval(bool with_calc)
{
	kg_incident inc;
	pt2(&inc, 1234, "19.99 GiB", "79.15 GiB", "12.30 GiB", "66.85 GiB", "63.78 GiB", "2.73 GiB");
	inc.step = 10000;
	inc.phase = "eval";
	inc.phase_source = "frames";
	frame(&inc, "train.py", 88, "main", "trainer.fit()");
	frame(&inc, "runner/trainer.py", 301, "evaluate", "m = self._eval_one_dim(loader, d)");
	frame(&inc, "runner/trainer.py", 212, "_eval_one_dim", "torch.stack([re_s, im_s])");
	kg_facts f = {0};
	const char *sets[] = {"dataset.entities=40943",
			      "calc.full_ranking.bytes=21464350720",
			      "calc.full_ranking.max_batch=16"};
	run(&inc, &f, sets, with_calc ? 3 : 1);
	TAP_EQ_STR(inc.cause, "eval-blowup", "seed 000/001%s: cause eval-blowup", with_calc ? " (calc)" : "");
	TAP_OK(!has_category(&inc, "fragmentation"),
	       "no fragmentation finding: 2.73 GiB reserved-unallocated < 19.99 GiB requested");
	const kg_finding *e = finding(&inc, "eval-blowup.eval-phase");
	TAP_OK(e != NULL, "eval-phase rule fired");
	TAP_OK(e && e->severity == KG_SEV_ERROR, "as an error");
	bool phase_ev = false;
	for (size_t i = 0; e && i < e->nevidence; i++)
		if (strstr(e->evidence[i], "phase eval (from the frames), step 10,000"))
			phase_ev = true;
	TAP_OK(phase_ev, "evidence says where the phase came from");
	bool frame_ev = false;
	for (size_t i = 0; e && i < e->nevidence; i++)
		if (strstr(e->evidence[i], "_eval_one_dim"))
			frame_ev = true;
	TAP_OK(frame_ev, "evidence names the innermost frame");
	const kg_finding *nf = finding(&inc, "fragmentation.not-enough-cached");
	TAP_OK(nf && nf->refutes && nf->nevidence == 1 &&
	       strstr(nf->evidence[0], "2.73 GiB cached + 12.30 GiB free < 19.99 GiB requested: not fragmentation"),
	       "evidence against fragmentation, said aloud: %s", nf && nf->nevidence ? nf->evidence[0] : "");
	TAP_EQ_STR(inc.confidence, with_calc ? "high" : "medium",
		   "confidence %s", with_calc ? "high with the closed form" : "medium from the phase alone");
	if (with_calc) {
		const kg_finding *fr = finding(&inc, "eval-blowup.full-ranking");
		TAP_OK(fr != NULL, "full-ranking rule fired (calc ≈ request)");
		TAP_EQ_STR(set_value(fr, "eval_batch_size"), "16", "remedy sets eval_batch_size to the calculated max");
		TAP_OK(fr && fr->nevidence == 2 && strstr(fr->evidence[1], "40,943 entities"),
		       "evidence formats the entity count");
		TAP_EQ_STR(inc.findings[0].rule, "eval-blowup.full-ranking", "most specific finding first");
	} else {
		TAP_OK(!finding(&inc, "eval-blowup.full-ranking"), "no calc: full-ranking rule stays silent");
		TAP_EQ_STR(set_value(e, "eval_batch_size"), NULL, "no eval_batch_size value without the calculator");
		TAP_OK(e && e->nremedies == 4, "remedy survives by its code text (%zu remedies)", e ? e->nremedies : 0);
	}
	TAP_OK(remedies_avoid_empty_cache(&inc), "no remedy advises empty_cache()");
	kg_facts_free(&f);
	kg_incident_free(&inc);
}

/* Seed 004: 16 MiB request with 1.41 GiB reserved-unallocated, 4 parallel
 * Optuna trials, a device-side assert after the OOM. */
static void seed_004(void)
{
	kg_incident inc;
	pt2(&inc, 5120, "16.00 MiB", "23.56 GiB", "33.56 MiB", "22.88 GiB", "21.13 GiB", "1.41 GiB");
	inc.followups = kg_calloc(1, sizeof *inc.followups);
	inc.followups[0].kind = "device-side-assert";
	inc.followups[0].line = 5119;
	inc.followups[0].text = kg_strdup("torch.AcceleratorError: CUDA error: device-side assert triggered");
	inc.nfollowups = 1;
	kg_log_facts lf;
	kg_log_facts_init(&lf);
	int64_t jobs;
	const char *kind;
	const char *line = "Trials: 6000 | Parallel: 4 | Epochs: 100 | Patience: 20";
	if (kg_parse_parallel_hint(line, strlen(line), &jobs, &kind))
		kg_log_facts_add_parallel(&lf, jobs, kind, 12);
	kg_facts f = {0};
	kg_facts_from_log(&lf, "seed.log", inc.line, &f);
	run(&inc, &f, NULL, 0);
	/* DIAGNOSIS: four in-process trials of about 5.7 GiB each; 3 fit */
	TAP_EQ_STR(inc.cause, "parallelism", "seed 004: cause parallelism");
	TAP_EQ_STR(inc.confidence, "medium", "seed 004: medium confidence");
	const kg_finding *p = finding(&inc, "parallelism.in-process-jobs");
	TAP_OK(p != NULL, "seed 004: the jobs run inside this process");
	TAP_EQ_STR(set_value(p, "parallel_jobs"), "3", "3 jobs of 5.72 GiB fit in 23.56 GiB, not 1");
	TAP_OK(p && p->nevidence == 3 && strstr(p->evidence[1], "/ 4 = 5.72 GiB per job"),
	       "evidence: per-job bytes = process / jobs: %s", p && p->nevidence > 1 ? p->evidence[1] : "");
	TAP_EQ_STR(inc.findings[0].rule, "parallelism.in-process-jobs", "the cause's evidence first");
	const kg_finding *fr = finding(&inc, "fragmentation.minor");
	TAP_OK(fr != NULL && fr->strength == KG_STRENGTH_WEAK,
	       "fragmentation named as a weak contributor (1.41 GiB is 6 %% of the device)");
	TAP_OK(fr && fr->nremedies == 0, "no allocator setting offered for a minor contributor");
	TAP_OK(!finding(&inc, "fragmentation.stranded-share"), "1.41 GiB cached ≥ 16 MiB is not why it died");
	const kg_finding *c = finding(&inc, "cascade.device-side-assert");
	TAP_OK(c != NULL, "seed 004: device-side assert reported as its own problem");
	TAP_OK(c && strstr(c->message, "index out of range") && strstr(c->message, "poisons the CUDA context"),
	       "it is a kernel assertion that poisons the context");
	TAP_OK(!finding(&inc, "cascade.after-oom"), "not called a consequence of the OOM");
	TAP_OK(remedies_avoid_empty_cache(&inc), "no remedy advises empty_cache()");
	bool in_diff = false;
	for (size_t i = 0; i < inc.ndifferential; i++)
		in_diff |= !strcmp(inc.differential[i].cause, "fragmentation");
	TAP_OK(in_diff, "fragmentation is in the differential");
	kg_log_facts_free(&lf);
	kg_facts_free(&f);
	kg_incident_free(&inc);
}

/* Seed 003: 2.35 GiB in backward on a 16 GB card. */
static void seed_003(bool with_config)
{
	kg_incident inc;
	pt2(&inc, 77, "2.35 GiB", "15.89 GiB", "363.12 MiB", NULL, NULL, NULL);
	inc.epoch = 0;   /* "Epoch 0 | Batch 30/200" */
	inc.phase = "backward";
	inc.phase_source = "frames";
	frame(&inc, "train_test.py", 210, "<module>", "model.train_loop(epoch, base_loader, optimizer)");
	frame(&inc, "methods/meta_template.py", 88, "train_loop", "loss.backward()");
	frame(&inc, "torch/_tensor.py", 626, "backward", NULL);
	kg_facts f = {0};
	const char *sets[] = {"config.train_batch_size=16"};
	run(&inc, &f, sets, with_config ? 1 : 0);
	TAP_EQ_STR(inc.cause, "activation-peak", "seed 003: cause activation-peak");
	const kg_finding *a = finding(&inc, "activation-peak.early-backward");
	TAP_OK(a && strstr(a->message, "backward"), "in phase backward");
	bool caveat = false;
	for (size_t k = 0; a && k < a->nremedies; k++)
		if (a->remedies[k].caveat && strstr(a->remedies[k].caveat, "does not cut activation memory"))
			caveat = true;
	TAP_OK(caveat, "with the accumulation caveat");
	if (with_config) {
		TAP_EQ_STR(set_value(a, "train_batch_size"), "8", "micro-batch halved");
		TAP_EQ_STR(set_value(a, "grad_accum_steps"), "2", "accumulation doubled");
	} else {
		TAP_EQ_STR(set_value(a, "train_batch_size"), NULL, "no config: no invented batch size");
	}
	TAP_OK(!has_category(&inc, "fragmentation"), "no fragmentation without reserved numbers");
	TAP_OK(remedies_avoid_empty_cache(&inc), "no remedy advises empty_cache()");
	kg_facts_free(&f);
	kg_incident_free(&inc);
}

/* Seed 002: memory grows across epochs until the OOM. */
static void seed_002(void)
{
	kg_incident inc;
	pt2(&inc, 60, "1.20 GiB", "23.65 GiB", "905.44 MiB", "22.75 GiB", "21.96 GiB", "455.12 MiB");
	inc.phase = "forward";
	inc.epoch = 6;
	frame(&inc, "scripts/04_train_model.py", 301, "train_epoch", "out = model(batch)");
	kg_log_facts lf;
	kg_log_facts_init(&lf);
	const char *lines[] = {
		"Epoch 1 | Memory: 6.12GB allocated, 7.00GB reserved",
		"Epoch 2 | Memory: 9.31GB allocated, 10.20GB reserved",
		"Epoch 3 | Memory: 12.55GB allocated, 13.40GB reserved",
		"Epoch 4 | Memory: 15.70GB allocated, 16.60GB reserved",
		"Epoch 5 | Memory: 18.84GB allocated, 19.80GB reserved",
	};
	kg_reading rd[4];
	for (int i = 0; i < 5; i++) {
		size_t n = kg_parse_readings(lines[i], strlen(lines[i]), rd, 4);
		for (size_t k = 0; k < n; k++)
			kg_log_facts_add_reading(&lf, &rd[k], KG_NONE, KG_NONE, 10 * (i + 1));
	}
	kg_facts f = {0};
	kg_facts_from_log(&lf, "seed.log", inc.line, &f);
	run(&inc, &f, NULL, 0);
	TAP_EQ_STR(inc.cause, "leak", "seed 002: cause leak");
	const kg_finding *l = finding(&inc, "leak.allocated-growth");
	TAP_OK(l && strstr(l->message, "6.12 GiB") && strstr(l->message, "18.84 GiB"),
	       "message shows the growth: %s", l ? l->message : "");
	bool slope = false;
	for (size_t i = 0; l && i < l->nevidence; i++)
		if (strstr(l->evidence[i], "per epoch"))
			slope = true;
	TAP_OK(slope, "evidence gives the slope per epoch");
	TAP_OK(l && l->nevidence == 3, "the per-step line is left out (no steps): %zu", l ? l->nevidence : 0);
	TAP_OK(remedies_avoid_empty_cache(&inc), "no remedy advises empty_cache()");
	kg_log_facts_free(&lf);
	kg_facts_free(&f);
	kg_incident_free(&inc);

	/* the same incident without the readings is not called a leak */
	kg_incident_init(&inc);
	inc.family = "pytorch2";
	inc.mem.requested = sz("1.20 GiB");
	inc.phase = "forward";
	run(&inc, &f, NULL, 0);
	TAP_OK(!has_category(&inc, "leak"), "no readings: no leak");
	kg_facts_free(&f);
	kg_incident_free(&inc);
}

static void fallback_and_host(void)
{
	kg_incident inc;
	kg_incident_init(&inc);
	inc.family = "jax";
	inc.mem.requested = sz("8589934592");
	kg_facts f = {0};
	run(&inc, &f, NULL, 0);
	TAP_EQ_I64(inc.nfindings, 1, "bare JAX request: one finding");
	TAP_EQ_STR(inc.nfindings ? inc.findings[0].rule : NULL, "general.not-enough-evidence",
		   "explicit not-enough-evidence");
	TAP_EQ_STR(inc.cause, NULL, "and no cause");
	kg_facts_free(&f);
	kg_incident_free(&inc);

	kg_incident_init(&inc);
	inc.family = "pytorch_cpu";
	inc.device_type = "cpu";
	inc.mem.requested = sz("1073741824");
	inc.message = kg_strdup("RuntimeError: [enforce fail at alloc_cpu.cpp:75] DefaultCPUAllocator: can't allocate memory: you tried to allocate 1073741824 bytes.");
	run(&inc, &f, NULL, 0);
	TAP_EQ_STR(inc.cause, "host-oom", "DefaultCPUAllocator: host-oom");
	kg_facts_free(&f);
	kg_incident_free(&inc);

	kg_incident_init(&inc);
	inc.family = "pytorch1";
	inc.mem.requested = sz("20.00 MiB");
	inc.mem.total_capacity = sz("7.93 GiB");
	inc.mem.allocated = sz("6.00 GiB");
	inc.mem.free = sz("14.88 MiB");
	inc.mem.reserved = sz("6.00 GiB");
	inc.alloc_conf = kg_strdup("max_split_size_mb:512");
	inc.alloc_conf_var = kg_strdup("PYTORCH_ALLOC_CONF");
	run(&inc, &f, NULL, 0);
	TAP_OK(finding(&inc, "alloc-conf.new-name-old-torch") != NULL, "PYTORCH_ALLOC_CONF on 1.x flagged");
	TAP_OK(finding(&inc, "alloc-conf.max-split-without-fragmentation") != NULL,
	       "max_split_size_mb with nothing reserved-unallocated flagged");
	TAP_OK(!has_category(&inc, "fragmentation"), "1.x: reserved == allocated, not fragmentation");
	kg_facts_free(&f);
	kg_incident_free(&inc);
}

static char *check_output(const char *name)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/rules-bad/%s", TD, name);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	const char *paths[] = {path};
	int n = kg_rules_check(paths, 1, m);
	fclose(m);
	/* strip the directory so the expectation is stable */
	char *rel = strstr(buf, "rules-bad/");
	char *out = kg_strdup(rel ? rel : buf);
	free(buf);
	if (n != 1) {
		printf("# %d problems: %s", n, out);
	}
	return out;
}

static void bad_rules(void)
{
	static const struct { const char *file, *want; } cases[] = {
		{"unknown-fact.yaml", "rules-bad/unknown-fact.yaml:5:37: when: unknown fact 'oom.requsted' (see 'kgmem-diagnose rules facts')\n"},
		{"yaml-syntax.yaml", "rules-bad/yaml-syntax.yaml:6:12: YAML syntax: mapping values are not allowed in this context\n"},
		{"expr-syntax.yaml", "rules-bad/expr-syntax.yaml:5:52: when: expected ')' to close the '(' opened 43 bytes earlier\n"},
		{"bad-regex.yaml", "rules-bad/bad-regex.yaml:5:47: when: bad regex: missing closing parenthesis\n"},
		{"unreachable-remedy.yaml", "rules-bad/unreachable-remedy.yaml:8:7: unreachable remedy: it has none of env, set or code, so it can never tell the user what to do\n"},
		{"never-fires.yaml", "rules-bad/never-fires.yaml:5:9: when: condition reads no fact and is never true: the rule can never fire\n"},
		{"template-fact.yaml", "rules-bad/template-fact.yaml:6:40: message: unknown fact 'oom.frees' (see 'kgmem-diagnose rules facts')\n"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *got = check_output(cases[i].file);
		TAP_EQ_STR(got, cases[i].want, "rules check rejects %s with file:line:col", cases[i].file);
		free(got);
	}
	const char *shipped[] = {RULES};
	TAP_EQ_I64(kg_rules_check(shipped, 1, stdout), 0, "the shipped rules pass rules check");
	kg_error err = {0};
	char bad[1200];
	snprintf(bad, sizeof bad, "%s/rules-bad", TD);
	const char *dirs[] = {bad};
	TAP_OK(kg_rules_load(dirs, 1, &err) == NULL && strstr(err.msg, "rules-bad/"),
	       "kg_rules_load fails with a located error: %s", err.msg);
}

static void overrides(void)
{
	char extra[1200];
	snprintf(extra, sizeof extra, "%s/rules-extra", TD);
	const char *dirs[] = {RULES, extra};
	kg_error err = {0};
	kg_ruleset *rs = kg_rules_load(dirs, 2, &err);
	TAP_OK(rs != NULL, "shipped + extra load: %s", err.msg);
	if (!rs)
		return;
	TAP_EQ_I64(kg_rules_count(rs), kg_rules_count(RS) + 1, "same id replaces, a new id adds");
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	TAP_EQ_I64(kg_rules_show(rs, "cascade.after-oom", m), 0, "show finds the rule");
	fclose(m);
	TAP_OK(strstr(buf, "Replaced cascade rule") && strstr(buf, "rules-extra/override.yaml:2"),
	       "the replacement, with its file:line");
	free(buf);
	kg_rules_free(rs);
}

int main(void)
{
	const char *td = getenv("KG_TESTDATA"), *rd = getenv("KG_RULES");
	snprintf(TD, sizeof TD, "%s", td ? td : "testdata");
	snprintf(RULES, sizeof RULES, "%s", rd ? rd : "rules");
	kg_error err = {0};
	const char *dirs[] = {RULES};
	RS = kg_rules_load(dirs, 1, &err);
	TAP_OK(RS != NULL, "shipped rules load: %s", err.msg);
	if (!RS)
		return tap_done();
	seed_eval(false);
	seed_eval(true);
	seed_004();
	seed_003(false);
	seed_003(true);
	seed_002();
	fallback_and_host();
	bad_rules();
	overrides();
	kg_rules_free(RS);
	return tap_done();
}

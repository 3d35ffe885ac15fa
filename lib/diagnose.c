/* diagnose.c — the main job (DESIGN §2 data flow):
 *
 *   inputs ──sniff──► parsers ──► evidence ──► facts ──► rules ──► findings ──► patches
 *
 * Every input is opened and sniffed (source.c); logs go to the scanner
 * (logscan.c), YAML configs to config.c; then, per incident, facts are
 * gathered (facts.c from the incident, logfacts.c from the log around it,
 * config.c, the calculators of calc.c, --set last), the rules engine
 * (rules.c) fills findings and the cause, and remedies that set config
 * roles become one patch per config file (patch.c). */
#include "diagnose.h"
#include "budget.h"
#include "calc.h"
#include "config.h"
#include "facts.h"
#include "logfacts.h"
#include "logscan.h"
#include "patch.h"
#include "rules.h"
#include "snapshot.h"
#include "source.h"
#include "svg.h"
#include "util.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct run {
	const kg_options *opt;
	kg_report *rep;
	kg_config **configs;
	size_t nconfigs;
	kg_log_facts *lfs;      /* one per log input, indexed like logs_first */
	size_t *logs_first;     /* index of each log's first incident */
	size_t nlogs;
} run;

static kg_input *add_input(kg_report *rep, const kg_source *src, kg_kind kind)
{
	rep->inputs = kg_realloc(rep->inputs, (rep->ninputs + 1) * sizeof *rep->inputs);
	kg_input *in = &rep->inputs[rep->ninputs++];
	in->path = kg_strdup(src->path);
	in->name = kg_strdup(src->name);
	in->kind = kg_kind_name(kind);
	in->bytes = src->bytes_read;
	in->gzip = src->gzip;
	return in;
}

static int add_config(run *R, const char *path, kg_error *err)
{
	kg_config *c = kg_config_load(path, err);
	if (!c)
		return -1;
	for (size_t i = 0; i < c->nwarnings; i++)
		kg_report_note(R->rep, "%s", c->warnings[i]);
	R->configs = kg_realloc(R->configs, (R->nconfigs + 1) * sizeof *R->configs);
	R->configs[R->nconfigs++] = c;
	return 0;
}

/* One input: returns 0, or -1 with err filled. */
static int one_input(run *R, const char *path, kg_error *err)
{
	const kg_options *opt = R->opt;
	kg_report *rep = R->rep;
	kg_source src;
	if (kg_source_open(&src, path, err) < 0) {
		kg_source_close(&src);
		return -1;
	}
	kg_kind kind = kg_source_sniff(&src);
	/* progress: always, never, or only for inputs over 64 MiB */
	bool progress = opt->progress == 1 ||
		(opt->progress == 2 && (src.file_size > (64 << 20) || (src.file_size < 0 && src.gzip)));
	kg_source_set_progress(&src, progress);
	int rc = 0;
	switch (kind) {
	case KG_KIND_LOG: {
		R->lfs = kg_realloc(R->lfs, (R->nlogs + 1) * sizeof *R->lfs);
		R->logs_first = kg_realloc(R->logs_first, (R->nlogs + 2) * sizeof *R->logs_first);
		kg_log_facts_init(&R->lfs[R->nlogs]);
		R->logs_first[R->nlogs] = rep->nincidents;
		rc = kg_scan_log(&src, rep, &R->lfs[R->nlogs], err);
		R->nlogs++;
		R->logs_first[R->nlogs] = rep->nincidents;
		add_input(rep, &src, kind);
		break;
	}
	case KG_KIND_YAML:
		/* a config named without --config is still a config */
		add_input(rep, &src, kind);
		kg_source_close(&src);
		return add_config(R, path, err);
	case KG_KIND_EMPTY:
		rc = kg_fail(err, "empty input: no log text to read");
		break;
	case KG_KIND_BINARY:
		rc = kg_fail_at(err, 0, "binary data: not a text log, allocator snapshot, JSON or YAML config");
		break;
	case KG_KIND_ZIP:
		rc = kg_fail_at(err, 0, "a zip archive (torch.save output?); write the snapshot with "
				"torch.cuda.memory._dump_snapshot() instead");
		break;
	case KG_KIND_PICKLE:
	case KG_KIND_JSON:
	case KG_KIND_SUMMARY: {
		kg_snapshot *snap = kg_snapshot_load_ex(&src, kind, opt->svg ? KG_SNAP_SERIES : 0, err);
		if (!snap) {
			rc = -1;
			break;
		}
		kg_input *in = add_input(rep, &src, kind);
		in->kind = kg_snapshot_kind_name(snap->kind);
		kg_report_add_snapshot(rep, snap);
		break;
	}
	}
	kg_source_close(&src);
	return rc;
}

static void first_failed_rank(kg_report *rep)
{
	for (size_t i = 0; i < rep->nincidents; i++) {
		if (rep->incidents[i].rank != KG_NONE) {
			rep->first_failed_rank = rep->incidents[i].rank;
			return;
		}
	}
}

/* Calculators that run before the rules, only where their inputs are known
 * (DESIGN §2). Full ranking (formats.md §8.7): batch × entities × dim ×
 * components × dtype bytes, and the largest eval batch whose tensor fits in
 * one block the failed allocation could have had: a new segment (free on
 * the device) or a cached one (at most the reserved-but-unallocated bytes),
 * whichever is larger — their sum is not one block. The other temporaries
 * of the scoring step shrink with the batch too, so this bound is safe. */
static void calculators(kg_facts *f)
{
	/* copy what is needed first: setting a fact may move the others */
	const kg_fact *x;
	if (!(x = kg_facts_get(f, "config.eval_batch_size")) || x->type == KG_FACT_STRING)
		return;
	int64_t bs = (int64_t)x->num;
	if (!(x = kg_facts_get(f, "dataset.entities")))
		return;
	int64_t ent = (int64_t)x->num;
	if (!(x = kg_facts_get(f, "config.embedding_dim")) || x->type == KG_FACT_STRING)
		return;
	int64_t dim = (int64_t)x->num;
	x = kg_facts_get(f, "config.model");
	if (!x || !x->str)
		return;
	char model[64];
	snprintf(model, sizeof model, "%s", x->str);
	int comp = kg_model_components(model);
	if (comp <= 0)
		return; /* an unknown model: no guess */
	int width = 4;
	char dtype[40] = "float32, assumed";
	x = kg_facts_get(f, "config.precision");
	if (x && x->str) {
		const char *canon = NULL;
		int w = kg_dtype_bytes(x->str, &canon);
		if (w > 0) {
			width = w;
			snprintf(dtype, sizeof dtype, "%s", canon ? canon : x->str);
		}
	}
	char bkey[128] = "eval batch", dkey[128] = "embedding dim", dname[64] = "dataset";
	if ((x = kg_facts_get(f, "config.eval_batch_size.key")) && x->str)
		snprintf(bkey, sizeof bkey, "%s", x->str);
	if ((x = kg_facts_get(f, "config.embedding_dim.key")) && x->str)
		snprintf(dkey, sizeof dkey, "%s", x->str);
	if ((x = kg_facts_get(f, "dataset.name")) && x->str)
		snprintf(dname, sizeof dname, "%s", x->str);
	int64_t budget = -1;
	if ((x = kg_facts_get(f, "oom.free"))) {
		budget = (int64_t)x->lo;
		const kg_fact *ru = kg_facts_get(f, "oom.reserved_unallocated");
		if (ru && (int64_t)ru->lo > budget)
			budget = (int64_t)ru->lo;
	}

	int64_t bytes = kg_calc_full_ranking(bs, ent, dim, comp, width);
	if (bytes <= 0)
		return;
	kg_facts_set_bytes(f, "calc.full_ranking.bytes", kg_size_exact(bytes), "calculated");
	/* the arithmetic, with where each number came from */
	char formula[640];
	snprintf(formula, sizeof formula, "%d (%s components) × %lld (%s) × %lld (%s entities) × %lld (%s) × %d B (%s)",
		 comp, model, (long long)bs, bkey, (long long)ent, dname, (long long)dim, dkey, width, dtype);
	kg_facts_set_str(f, "calc.full_ranking.formula", formula, "calculated");
	if (budget >= 0) {
		int64_t mb = kg_solve_full_ranking_batch(budget, ent, dim, comp, width, 0);
		if (mb > 0)
			kg_facts_set_num(f, "calc.full_ranking.max_batch", KG_FACT_COUNT, (double)mb, "calculated");
	}
}

/* Applies every --set NAME=VALUE; -1 with err on the first bad one. */
static int set_args(const kg_options *opt, kg_facts *f, kg_error *err)
{
	for (size_t s = 0; s < opt->nsets; s++)
		if (kg_facts_set_arg(f, opt->sets[s], err) < 0)
			return -1;
	return 0;
}

/* An OOM recorded in an allocator snapshot's trace (action "oom": the
 * failed request's size and the device's free bytes) is an incident of
 * its own when no log gave one (with a log it is the log's OOM again).
 * Sizes from the snapshot's device state at the dump. */
static void snapshot_incidents(run *R)
{
	kg_report *rep = R->rep;
	if (rep->nincidents)
		return;
	for (size_t sn = 0; sn < rep->nsnapshots; sn++) {
		const kg_snapshot *snap = rep->snapshots[sn];
		for (size_t d = 0; d < snap->ndevices; d++) {
			const kg_snapshot_device *dev = &snap->devices[d];
			for (size_t k = 0; k < dev->trace.noom; k++) {
				const kg_trace_oom *o = &dev->trace.oom[k];
				kg_incident inc;
				kg_incident_init(&inc);
				inc.family = KG_FAMILY_WORD(SNAPSHOT_TRACE);
				inc.framework = KG_FRAMEWORK_WORD(PYTORCH);
				inc.device_type = KG_DEVICE_WORD(CUDA);
				inc.path = kg_strdup(snap->path ? snap->path : "<snapshot>");
				inc.device_index = dev->device;
				if (o->size_bytes != KG_NONE)
					inc.mem.requested = kg_size_exact(o->size_bytes);
				if (o->device_free_bytes != KG_NONE)
					inc.mem.free = kg_size_exact(o->device_free_bytes);
				inc.mem.allocated = kg_size_exact(dev->allocated_bytes);
				inc.mem.reserved = kg_size_exact(dev->reserved_bytes);
				inc.message = kg_strdup("allocator snapshot trace: oom");
				rep->incidents = kg_realloc(rep->incidents, (rep->nincidents + 1) * sizeof *rep->incidents);
				inc.id = (int)rep->nincidents + 1;
				rep->incidents[rep->nincidents++] = inc;
			}
		}
	}
	rep->incidents_cap = rep->nincidents;
}

static int apply_rules(run *R, kg_error *err, bool *usage)
{
	const kg_options *opt = R->opt;
	const char **dirs = kg_malloc((opt->nrules_dirs + 1) * sizeof *dirs);
	size_t nd = 0;
	dirs[nd++] = kg_rules_dir();
	for (size_t i = 0; i < opt->nrules_dirs; i++)
		dirs[nd++] = opt->rules_dirs[i];
	kg_ruleset *rs = kg_rules_load(dirs, nd, err);
	free(dirs);
	if (!rs)
		return -1;
	int rc = 0;
	size_t li = 0;
	for (size_t i = 0; i < R->rep->nincidents && rc == 0; i++) {
		kg_incident *inc = &R->rep->incidents[i];
		/* the log this incident came from, if any */
		while (li < R->nlogs && i >= R->logs_first[li + 1])
			li++;
		bool from_log = li < R->nlogs && i >= R->logs_first[li] && i < R->logs_first[li + 1];
		kg_facts f = {0};
		kg_facts_from_incident(inc, inc->path, &f);
		if (from_log)
			kg_facts_from_log(&R->lfs[li], inc->path, inc->line, &f);
		for (size_t c = 0; c < R->nconfigs; c++)
			kg_config_facts(R->configs[c], &f);
		/* snapshots and memory_stats/summary tables of the same case */
		for (size_t sn = 0; sn < R->rep->nsnapshots; sn++)
			kg_snapshot_facts(R->rep->snapshots[sn], &f);
		/* --set before the calculators (their inputs) and again after
		 * them (it wins over calculated values too) */
		if (set_args(opt, &f, err) < 0) {
			*usage = true;
			rc = -1;
		} else {
			calculators(&f);
			set_args(opt, &f, err);
			kg_budget_from_facts(&inc->budget, &f);
			kg_rules_apply(rs, inc, &f);
		}
		kg_facts_free(&f);
	}
	kg_rules_free(rs);
	return rc;
}

/* Remedies that set config roles become one patch per config: the first
 * (most severe) finding that sets a role wins. Only numeric values are
 * written; a role the config does not have is inserted by the planner. */
/* Names each remedy's roles by the loaded configs' own keys (the first
 * config that has the role), so that advice reads `set data.test_bs: 64`
 * like the diff it goes with. */
static void name_config_keys(run *R)
{
	for (size_t i = 0; i < R->rep->nincidents; i++) {
		kg_incident *inc = &R->rep->incidents[i];
		for (size_t k = 0; k < inc->nfindings; k++) {
			for (size_t r = 0; r < inc->findings[k].nremedies; r++) {
				kg_remedy *rem = &inc->findings[k].remedies[r];
				for (size_t s = 0; s < rem->nset; s++) {
					for (size_t c = 0; c < R->nconfigs; c++) {
						const kg_config_entry *e = kg_config_role(R->configs[c], rem->set_roles[s]);
						if (!e || !e->path)
							continue;
						if (!rem->set_keys)
							rem->set_keys = kg_calloc(rem->nset, sizeof *rem->set_keys);
						rem->set_keys[s] = kg_strdup(e->path);
						break;
					}
				}
			}
		}
	}
}

static int plan_patches(run *R, kg_error *err)
{
	if (R->nconfigs == 0)
		return 0;
	const char **roles = NULL, **values = NULL;
	size_t n = 0;
	for (size_t i = 0; i < R->rep->nincidents; i++) {
		const kg_incident *inc = &R->rep->incidents[i];
		for (size_t k = 0; k < inc->nfindings; k++) {
			const kg_finding *fd = &inc->findings[k];
			for (size_t r = 0; r < fd->nremedies; r++) {
				const kg_remedy *rem = &fd->remedies[r];
				for (size_t s = 0; s < rem->nset; s++) {
					char *end = NULL;
					strtod(rem->set_values[s], &end);
					if (!end || *end || end == rem->set_values[s])
						continue;
					bool dup = false;
					for (size_t j = 0; j < n; j++)
						dup |= !strcmp(roles[j], rem->set_roles[s]);
					if (dup)
						continue;
					roles = kg_realloc(roles, (n + 1) * sizeof *roles);
					values = kg_realloc(values, (n + 1) * sizeof *values);
					roles[n] = rem->set_roles[s];
					values[n] = rem->set_values[s];
					n++;
				}
			}
		}
	}
	int rc = 0;
	for (size_t c = 0; c < R->nconfigs && n; c++) {
		kg_config *cfg = R->configs[c];
		/* only roles this config has a key for, or can take */
		const char **cr = kg_malloc(n * sizeof *cr), **cv = kg_malloc(n * sizeof *cv);
		size_t cn = 0;
		for (size_t j = 0; j < n; j++) {
			const kg_config_entry *e = kg_config_role(cfg, roles[j]);
			if (e && !(e->value && strcmp(e->value, values[j]) == 0)) {
				cr[cn] = roles[j];
				cv[cn++] = values[j];
			}
		}
		if (cn) {
			kg_error e = {0};
			kg_patch *p = kg_patch_make(cfg, cr, cv, cn, &e);
			if (!p) {
				kg_report_note(R->rep, "%s: no patch: %s", cfg->path, e.msg);
			} else {
				char *diff = kg_patch_diff(p);
				if (diff && *diff) {
					kg_patch_result *pr = kg_report_add_patch(R->rep, cfg->path, diff);
					if (R->opt->apply) {
						if (kg_patch_apply(p, err) < 0) {
							rc = -1;
						} else {
							pr->applied = true;
							kg_report_note(R->rep, "%s: written; the old text is in %s.orig",
								       cfg->path, cfg->path);
						}
					}
				}
				free(diff);
				kg_patch_free(p);
			}
		}
		free(cr);
		free(cv);
	}
	free(roles);
	free(values);
	return rc;
}

enum kg_status kg_diagnose(const char *const *paths, size_t npaths, const kg_options *opt,
			   kg_report *rep, kg_error *err)
{
	run R = {.opt = opt, .rep = rep};
	enum kg_status status = KG_STATUS_OK;
#define FAIL(code, name) do { \
	if (status == KG_STATUS_OK) { \
		status = (code); \
		*err = e; \
		snprintf(err->path, sizeof err->path, "%s", (name)); \
	} } while (0)

	for (size_t i = 0; i < opt->nconfigs; i++) {
		kg_error e = {0};
		if (add_config(&R, opt->configs[i], &e) < 0)
			FAIL(KG_STATUS_INPUT, opt->configs[i]);
	}
	/* a config the user named that cannot be read stops the run: advice
	 * without it would silently differ from what was asked for */
	bool config_failed = status != 0;
	for (size_t i = 0; !config_failed && i < npaths; i++) {
		kg_error e = {0};
		if (one_input(&R, paths[i], &e) < 0)
			FAIL(KG_STATUS_INPUT, strcmp(paths[i], "-") ? paths[i] : "<stdin>");
	}
	snapshot_incidents(&R);
	first_failed_rank(rep);
	/* no --config: a config the log names, if it is there (DESIGN §2) */
	if (R.nconfigs == 0 && rep->echoed_config && rep->nincidents) {
		if (access(rep->echoed_config, R_OK) == 0) {
			kg_error e = {0};
			if (add_config(&R, rep->echoed_config, &e) == 0)
				kg_report_note(rep, "%s: using the config %s named there (pass --config to choose another)",
					       rep->echoed_config_where, rep->echoed_config);
			else
				kg_report_note(rep, "%s: the config %s named there could not be read: %s",
					       rep->echoed_config_where, rep->echoed_config, e.msg);
		} else {
			kg_report_note(rep, "%s: the log names the config %s, which is not here; pass it with --config for config-aware advice",
				       rep->echoed_config_where, rep->echoed_config);
		}
	}
	if (status == 0 || rep->nincidents) {
		kg_error e = {0};
		bool usage = false;
		if (apply_rules(&R, &e, &usage) < 0)
			FAIL(usage ? KG_STATUS_USAGE : KG_STATUS_INPUT, usage ? "--set" : "rules");
	}
	name_config_keys(&R);
	if (status == 0) {
		kg_error e = {0};
		if (plan_patches(&R, &e) < 0)
			FAIL(KG_STATUS_INPUT, "--apply");
	}
	if (opt->svg) {
		/* written even when an input failed: it shows what was read */
		kg_error e = {0};
		if (kg_svg_write(rep, R.lfs, R.logs_first, R.nlogs, opt->svg, &e) < 0)
			FAIL(KG_STATUS_INPUT, opt->svg);
		for (size_t s = 0; s < rep->nsnapshots; s++)
			kg_snapshot_strip_detail(rep->snapshots[s]);
	}
#undef FAIL
	for (size_t i = 0; i < R.nconfigs; i++)
		kg_config_free(R.configs[i]);
	free(R.configs);
	for (size_t i = 0; i < R.nlogs; i++)
		kg_log_facts_free(&R.lfs[i]);
	free(R.lfs);
	free(R.logs_first);
	return status;
}

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
#include "run/pipeline.h"
#include "run/runinfo.h"
#include "diagnose/budget.h"
#include "diagnose/calcfacts.h"
#include "read/config.h"
#include "read/envelope.h"
#include "read/inputs.h"
#include "model/facts.h"
#include "read/logfacts.h"
#include "read/logscan.h"
#include "report/patch.h"
#include "diagnose/rules.h"
#include "read/snapshot.h"
#include "read/source.h"
#include "report/svg.h"
#include "model/util.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct run {
	const kg_options *opt;
	kg_report *rep;
	kg_config **configs;
	size_t nconfigs;
	kg_log_facts *lfs;      /* one per log input, indexed like logs_first */
	size_t *logs_first;     /* index of each log's first incident */
	size_t nlogs;
	bool one_path;          /* the run names one path (not a directory: in_dir) */
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

/* A person's sentence reporting an OOM ("I keep getting CUDA out of
 * memory", kg_incident.prose) is an incident only where the log holds no
 * other: a message read beside it is the same failure, told better. Drops
 * the prose incidents from index `first` on when another is there, and
 * numbers the rest again. */
static void drop_prose(kg_report *rep, size_t first)
{
	bool other = false;
	for (size_t i = first; i < rep->nincidents; i++)
		other |= !rep->incidents[i].prose;
	if (!other)
		return;
	size_t k = first;
	for (size_t i = first; i < rep->nincidents; i++) {
		if (rep->incidents[i].prose) {
			kg_incident_free(&rep->incidents[i]);
			continue;
		}
		rep->incidents[k] = rep->incidents[i];
		rep->incidents[k].id = (int)k + 1;
		k++;
	}
	rep->nincidents = k;
}

/* One log, in one file or several read as one stream (kg_scan_logs), with
 * its log facts; path_rank for incidents whose lines name no rank.
 * lazy: the log's head may be read only when an OOM follows it
 * (kg_log_facts.head_lazy): when it is the run's only log and no --svg
 * draws its readings (patch planning reads every log's printed batch). */
static int scan_logs(run *R, kg_source **srcs, size_t n, int64_t path_rank, bool lazy, kg_error *err)
{
	kg_report *rep = R->rep;
	R->lfs = kg_realloc(R->lfs, (R->nlogs + 1) * sizeof *R->lfs);
	R->logs_first = kg_realloc(R->logs_first, (R->nlogs + 2) * sizeof *R->logs_first);
	kg_log_facts_init(&R->lfs[R->nlogs]);
	R->lfs[R->nlogs].head_lazy = lazy && R->one_path && n == 1 && !R->opt->svg;
	R->logs_first[R->nlogs] = rep->nincidents;
	int rc = kg_scan_logs(srcs, n, rep, &R->lfs[R->nlogs], err);
	drop_prose(rep, R->logs_first[R->nlogs]);
	for (size_t i = R->logs_first[R->nlogs]; i < rep->nincidents && path_rank != KG_NONE; i++)
		if (rep->incidents[i].rank == KG_NONE)
			rep->incidents[i].rank = path_rank;
	R->nlogs++;
	R->logs_first[R->nlogs] = rep->nincidents;
	for (size_t k = 0; k < n; k++)
		add_input(rep, srcs[k], KG_KIND_LOG);
	return rc;
}

/* Rotated copies of one log (files[0..n), oldest first) read as one
 * stream when every one of them is text; returns 1 when it did (rc in
 * *rc), 0 to read them one by one instead. */
static int rotated_chain(run *R, const kg_input_file *files, size_t n, int *rc, kg_error *err)
{
	kg_source *srcs = kg_calloc(n, sizeof *srcs);
	kg_source **ptrs = kg_calloc(n, sizeof *ptrs);
	bool text = true;
	size_t opened = 0;
	for (; opened < n && text; opened++) {
		kg_error e = {0};
		ptrs[opened] = &srcs[opened];
		text = kg_source_open(&srcs[opened], files[opened].path, &e) == 0 &&
		       kg_source_sniff(&srcs[opened]) == KG_KIND_LOG;
	}
	if (text)
		*rc = scan_logs(R, ptrs, n, files[0].rank, false, err);
	for (size_t k = 0; k < opened; k++)
		kg_source_close(&srcs[k]);
	free(srcs);
	free(ptrs);
	return text;
}

/* One input: returns 0, or -1 with err filled. path_rank (KG_NONE: none)
 * is the rank its path names, for incidents whose lines name none; in_dir:
 * a file found in a directory, where what is not text is skipped with a
 * note instead of failing the run. */
static int one_input(run *R, const char *path, int64_t path_rank, bool in_dir, kg_error *err)
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
	/* standard input is read once: what looks like a YAML config there
	 * (an srun-labelled or key: value log head) is scanned as the log it
	 * almost always is; a config is named with --config */
	if (kind == KG_KIND_YAML && !strcmp(path, "-"))
		kind = KG_KIND_LOG;
	switch (kind) {
	case KG_KIND_LOG: {
		kg_source *one = &src;
		rc = scan_logs(R, &one, 1, path_rank, !in_dir, err);
		break;
	}
	case KG_KIND_YAML: {
		/* a config named without --config is still a config; one whose
		 * name does not say YAML (a .log) is said to be read so, since
		 * no OOM will be looked for in it */
		add_input(rep, &src, kind);
		size_t nl = strlen(src.name);
		bool yaml_name = (nl >= 5 && !strcasecmp(src.name + nl - 5, ".yaml")) ||
				 (nl >= 4 && !strcasecmp(src.name + nl - 4, ".yml"));
		if (!yaml_name)
			kg_report_note(rep, "%s: read as a YAML config (its first lines are all keys), "
				       "not searched as a log", src.name);
		kg_source_close(&src);
		if (!in_dir)
			return add_config(R, path, err);
		/* in a directory a config that cannot be read is skipped with a
		 * note, as a file that is not a log is: the others still count */
		kg_error e = {0};
		if (add_config(R, path, &e) < 0) {
			if (e.line > 0)
				kg_report_note(rep, "%s:%ld: skipped: %s", path, e.line, e.msg);
			else
				kg_report_note(rep, "%s: skipped: %s", path, e.msg);
		}
		return 0;
	}
	case KG_KIND_EMPTY:
		/* nothing to diagnose is not an error (issue 13) */
		add_input(rep, &src, kind);
		kg_report_note(rep, "%s: no log text (the input is empty)", src.name);
		break;
	case KG_KIND_BINARY:
	case KG_KIND_ZIP:
		if (in_dir)
			kg_report_note(rep, "%s: skipped: %s, not a log", src.name,
				       kind == KG_KIND_ZIP ? "a zip archive" : "binary data");
		else if (kind == KG_KIND_BINARY)
			rc = kg_fail_at(err, 0, "binary data: not a text log, allocator snapshot, JSON or YAML config");
		else
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

/* The rank that failed first: by the incidents' time stamps where those
 * with a rank have them; else, for logs in several files (whose reading
 * order says nothing of time), torchelastic's root-cause rank; else the
 * first in reading order. With logs in several files and more than one
 * rank, a note names the order. */
typedef struct timed_inc {
	int64_t t;   /* ns since the epoch (kg_time_ns), or KG_NONE */
	size_t i;    /* index in rep->incidents */
} timed_inc;

static int timed_cmp(const void *pa, const void *pb)
{
	const timed_inc *a = pa, *b = pb;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i; /* reading order breaks ties */
}

static void first_failed_rank(kg_report *rep, size_t nlogs)
{
	size_t n = rep->nincidents, k = 0;
	timed_inc *ti = kg_malloc((n + 1) * sizeof *ti);
	size_t *order = kg_malloc((n + 1) * sizeof *order);
	bool timed = true;
	for (size_t i = 0; i < n; i++) {
		if (rep->incidents[i].rank == KG_NONE)
			continue;
		ti[k] = (timed_inc){kg_time_ns(rep->incidents[i].time), i};
		timed &= ti[k].t != KG_NONE;
		k++;
	}
	if (timed && k > 1)
		qsort(ti, k, sizeof *ti, timed_cmp);
	for (size_t j = 0; j < k; j++)
		order[j] = ti[j].i;
	free(ti);
	if (k && (timed || nlogs < 2 || rep->root_cause_rank == KG_NONE)) {
		rep->first_failed_rank = rep->incidents[order[0]].rank;
	} else if (k) {
		rep->first_failed_rank = rep->root_cause_rank;
		/* the root cause's first incident leads the order */
		for (size_t j = 0; j < k; j++) {
			if (rep->incidents[order[j]].rank == rep->root_cause_rank) {
				size_t x = order[j];
				memmove(order + 1, order, j * sizeof *order);
				order[0] = x;
				break;
			}
		}
	}
	if (nlogs >= 2 && k) {
		kg_buf b = {0};
		int64_t seen[16];
		size_t ns = 0;
		for (size_t j = 0; j < k && ns < 16; j++) {
			const kg_incident *inc = &rep->incidents[order[j]];
			bool dup = false;
			for (size_t q = 0; q < ns; q++)
				dup |= seen[q] == inc->rank;
			if (dup)
				continue;
			seen[ns++] = inc->rank;
			kg_buf_printf(&b, "%s rank %lld (%s:%ld%s%s)", ns == 1 ? "" : ",", (long long)inc->rank,
				      inc->path, inc->line, inc->time[0] ? ", " : "", inc->time);
		}
		if (ns >= 2)
			kg_report_note(rep, "ranks failed in this order (%s):%s",
				       timed ? "by time stamp" : rep->root_cause_rank != KG_NONE
				       ? "the root cause first, then reading order" : "reading order; the lines have no time stamps",
				       b.data);
		kg_buf_free(&b);
	}
	free(order);
}

/* One path from the command line: a directory is every file under it
 * (inputs.c: reading order, ranks from the paths). Returns 0, or -1 with
 * err and the failing file's name in failed. */
static int one_path(run *R, const char *path, size_t npaths, kg_error *err, char *failed, size_t fn)
{
	struct stat st;
	snprintf(failed, fn, "%s", strcmp(path, "-") ? path : "<stdin>");
	if (!strcmp(path, "-") || stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return one_input(R, path, npaths > 1 ? kg_path_rank(path) : KG_NONE, false, err);
	kg_input_file *fs;
	size_t nf;
	if (kg_dir_files(path, &fs, &nf, err) < 0)
		return -1;
	if (!nf)
		kg_report_note(R->rep, "%s: no files in the directory", path);
	int rc = 0;
	for (size_t k = 0; k < nf;) {
		/* rotated copies of one log: one stream, so context carries */
		size_t j = k + 1;
		while (j < nf && kg_same_rotation(fs[k].path, fs[j].path))
			j++;
		kg_error e = {0};
		int r = 0;
		if (j - k > 1 && rotated_chain(R, fs + k, j - k, &r, &e)) {
			if (r < 0 && rc == 0) {
				*err = e;
				snprintf(failed, fn, "%s", e.path[0] ? e.path : fs[k].path);
				rc = -1;
			}
			k = j;
			continue;
		}
		if (one_input(R, fs[k].path, fs[k].rank, true, &e) < 0 && rc == 0) {
			*err = e;
			snprintf(failed, fn, "%s", fs[k].path);
			rc = -1;
		}
		k++;
	}
	kg_input_files_free(fs, nf);
	return rc;
}

/* Applies every --set NAME=VALUE; -1 with err on the first bad one. */
static int set_args(const kg_options *opt, kg_facts *f, kg_error *err)
{
	for (size_t s = 0; s < opt->nsets; s++)
		if (kg_facts_set_arg(f, opt->sets[s], err) < 0)
			return -1;
	return 0;
}

/* Every --set checked before any input is read, so a bad one is reported
 * before anything is printed or written: the value must parse as its
 * fact's type (facts.c), sizes and ratios must not be negative, counts must
 * be whole numbers, at least 1 for dataset.* and config.* (a batch, a dim,
 * an entity count), at least 0 otherwise (a rank, a step). */
static int check_sets(const kg_options *opt, kg_error *err)
{
	for (size_t s = 0; s < opt->nsets; s++) {
		kg_facts f = {0};
		int rc = kg_facts_set_arg(&f, opt->sets[s], err);
		for (size_t i = 0; rc == 0 && i < f.n; i++) {
			const kg_fact *x = &f.v[i];
			const char *val = strchr(opt->sets[s], '=') + 1;
			bool sized = !strncmp(x->name, "dataset.", 8) || !strncmp(x->name, "config.", 7);
			/* "0" reads as false for a dataset.* or config.* name */
			bool zero = sized && x->type == KG_FACT_BOOL && strspn(val, "0") == strlen(val);
			if (zero || (x->type == KG_FACT_COUNT &&
				     (x->num != x->num || x->num != (double)kg_clamp_i64(x->num) ||
				      x->num < (sized ? 1 : 0))))
				rc = kg_fail(err, "--set %s: '%s' is not a %s whole number", x->name, val,
					     sized ? "positive" : "non-negative");
			else if ((x->type == KG_FACT_BYTES || x->type == KG_FACT_RATIO) &&
				 (x->num != x->num || x->lo < 0 || x->num < 0))
				rc = kg_fail(err, "--set %s: '%s' is negative", x->name, val);
		}
		kg_facts_free(&f);
		if (rc < 0)
			return -1;
	}
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

/* The last line with text in the file at path (its last \r-redraw, at
 * most out_n - 1 bytes), into out; "" when there is none or it cannot
 * be read. Reads the last 4 KiB only. */
static void last_line(const char *path, char *out, size_t out_n)
{
	out[0] = 0;
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return;
	char buf[4096];
	size_t n = 0;
	if (fseek(fp, 0, SEEK_END) == 0) {
		long end = ftell(fp);
		if (end > (long)sizeof buf)
			fseek(fp, end - (long)sizeof buf, SEEK_SET);
		else
			rewind(fp);
		n = fread(buf, 1, sizeof buf, fp);
	}
	fclose(fp);
	while (n && strchr("\n\r \t", buf[n - 1]))
		n--;
	size_t b = n;
	while (b && buf[b - 1] != '\n' && buf[b - 1] != '\r')
		b--;
	size_t len = n - b < out_n - 1 ? n - b : out_n - 1;
	memcpy(out, buf + b, len);
	out[len] = 0;
}

/* A host OOM that left no message: during `kgmem-diagnose run` the
 * kernel's OOM killer ended a process in the job's memory cgroup (its
 * memory.events oom_kill grew, Documentation/admin-guide/cgroup-v2.rst)
 * and the output holds no OOM line, because SIGKILL leaves the program no
 * word to say (a real one: testdata/gpu/host-kill.log). The kill is the
 * incident, on the log, as a scheduler's "oom-kill event" line would be;
 * host-oom.run-cgroup-kill reads the count. Without it the report held
 * no incident, --fail-on passed it, and the text said "no out-of-memory
 * incident" under a "host out of memory" heading. */
static void run_incident(run *R)
{
	const kg_run_info *ri = R->opt->run;
	kg_report *rep = R->rep;
	if (rep->nincidents || !ri || ri->oom_kill_before < 0 || ri->oom_kill_after <= ri->oom_kill_before)
		return;
	const char *path = "<output>";
	for (size_t i = 0; i < rep->ninputs; i++)
		if (!strcmp(rep->inputs[i].kind, kg_kind_name(KG_KIND_LOG))) {
			path = rep->inputs[i].path;
			break;
		}
	const char *sig = ri->signal ? kg_signal_name(ri->signal) : NULL;
	/* where the output stopped: a loading bar says the job was loading */
	char last[256];
	last_line(path, last, sizeof last);
	kg_incident inc;
	kg_incident_init(&inc);
	inc.family = KG_FAMILY_WORD(OOM_KILLER);
	inc.device_type = KG_DEVICE_WORD(CPU);
	inc.path = kg_strdup(path);
	inc.message = kg_asprintf("run: the kernel's OOM killer ended %lld process%s in the job's memory cgroup "
				  "(memory.events oom_kill %lld -> %lld)%s%s%s%s",
				  (long long)(ri->oom_kill_after - ri->oom_kill_before),
				  ri->oom_kill_after - ri->oom_kill_before == 1 ? "" : "es",
				  (long long)ri->oom_kill_before, (long long)ri->oom_kill_after,
				  sig ? "; the command ended by " : "", sig ? sig : "",
				  last[0] ? "; its output's last line: " : "", last);
	inc.status = kg_strdup("cgroup oom_kill");
	rep->incidents = kg_realloc(rep->incidents, (rep->nincidents + 1) * sizeof *rep->incidents);
	inc.id = (int)rep->nincidents + 1;
	rep->incidents[rep->nincidents++] = inc;
	rep->incidents_cap = rep->nincidents;
	/* it is the first log's (run has one): its facts, the whole log's */
	for (size_t k = 1; k <= R->nlogs; k++)
		R->logs_first[k] = rep->nincidents;
}

static int apply_rules(run *R, kg_error *err, bool *usage)
{
	const kg_options *opt = R->opt;
	size_t nset;
	const char *const *set = kg_rules_dirs(&nset);
	const char **dirs = kg_malloc((nset + opt->nrules_dirs) * sizeof *dirs);
	size_t nd = 0;
	for (size_t i = 0; i < nset; i++)
		dirs[nd++] = set[i];
	for (size_t i = 0; i < opt->nrules_dirs; i++)
		dirs[nd++] = opt->rules_dirs[i];
	kg_ruleset *rs = kg_rules_load(dirs, nd, err);
	free(dirs);
	if (!rs)
		return -1;
	/* the case's facts (configs, then snapshots and memory_stats/summary
	 * tables) do not depend on the incident: read once */
	kg_facts cf = {0};
	for (size_t c = 0; c < R->nconfigs; c++)
		kg_config_facts(R->configs[c], &cf);
	for (size_t sn = 0; sn < R->rep->nsnapshots; sn++)
		kg_snapshot_facts(R->rep->snapshots[sn], &cf);
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
		/* an incident with no line (run_incident: the log stopped) has
		 * the whole log before it */
		long before = inc->line > 0 ? inc->line : LONG_MAX;
		if (from_log)
			kg_facts_from_log(&R->lfs[li], inc->path, before, &f);
		kg_facts_merge(&f, &cf);
		/* the batch the log printed is the one that ran: it wins over
		 * the config file's, which a patch may have changed since */
		if (from_log)
			kg_facts_settings_from_log(&R->lfs[li], inc->path, before, &f);
		/* the derived facts that read the settings, now that the
		 * config's and the log's are in */
		kg_facts_derive_settings(&f);
		/* what `run` read at the OOM (NVML, the cgroup) */
		kg_facts_from_run(opt->run, inc, &f);
		/* --set before the calculators (their inputs) and again after
		 * them (it wins over calculated values too) */
		if (set_args(opt, &f, err) < 0) {
			*usage = true;
			rc = -1;
		} else {
			kg_calc_facts(&f);
			set_args(opt, &f, err);
			kg_budget_from_facts(&inc->budget, &f);
			kg_rules_apply(rs, inc, &f);
		}
		kg_facts_free(&f);
	}
	kg_facts_free(&cf);
	kg_rules_free(rs);
	return rc;
}

/* Appends s to b quoted for a POSIX shell (as is when it needs no quotes). */
static void shell_word(kg_buf *b, const char *s)
{
	bool plain = *s != 0;
	for (const char *q = s; *q; q++)
		plain &= strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@%+=:,./_-", *q) != NULL;
	kg_buf_putc(b, ' ');
	if (plain) {
		kg_buf_puts(b, s);
		return;
	}
	kg_buf_putc(b, '\'');
	for (const char *q = s; *q; q++) {
		if (*q == '\'')
			kg_buf_puts(b, "'\\''");
		else
			kg_buf_putc(b, *q);
	}
	kg_buf_putc(b, '\'');
}

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

/* Remedies that set config roles become one patch per config: those of
 * the findings that support the incident's cause (a finding about another
 * hypothesis, or an undetermined incident, changes nothing); the
 * strongest finding that sets a role wins, the first on ties. Only numeric values are
 * written; a role the config does not have is inserted by the planner.
 * --apply writes only configs the user named with --config: a config that
 * a log (or a positional argument) brought in gets its diff and, in a note,
 * the command that would apply it (issue 14: no log decides what is
 * written). */
/* The roles whose new value a rule computes from their current one. */
static bool batch_role(const char *role)
{
	return !strcmp(role, "train_batch_size") || !strcmp(role, "eval_batch_size") ||
	       !strcmp(role, "grad_accum_steps");
}

/* Whether a log printed the role's value (logfacts.h: the batch that ran). */
static bool log_printed(const run *R, const char *role)
{
	for (size_t l = 0; l < R->nlogs; l++)
		for (size_t i = 0; i < R->lfs[l].nbatch; i++)
			if (!strcmp(R->lfs[l].batch[i].role, role))
				return true;
	return false;
}

static int plan_patches(run *R, kg_error *err)
{
	R->rep->nconfigs = R->nconfigs;
	if (R->nconfigs == 0) {
		/* --diff and --apply edit a config: say which to pass (issue 32) */
		if ((R->opt->diff || R->opt->apply) && R->rep->nincidents)
			kg_report_note(R->rep, "%s: no training config was given, so there is nothing to %s: "
				       "pass it with --config FILE to get the action as a patch",
				       R->opt->apply ? "--apply" : "--diff", R->opt->apply ? "write" : "compare");
		return 0;
	}
	const char **roles = NULL, **values = NULL;
	size_t n = 0;
	for (size_t i = 0; i < R->rep->nincidents; i++) {
		const kg_incident *inc = &R->rep->incidents[i];
		/* the strongest evidence first: a closed form's value over a
		 * rule of thumb's (halving) */
		for (int st = KG_STRENGTH_DECISIVE; st >= KG_STRENGTH_NONE; st--)
		for (size_t k = 0; k < inc->nfindings; k++) {
			const kg_finding *fd = &inc->findings[k];
			if (!kg_finding_supports(fd, inc->cause) || (int)fd->strength != st)
				continue;
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
	/* the newest log read from a file (0: none, or only stdin) */
	time_t log_mtime = 0;
	bool log_stdin = false;
	for (size_t k = 0; k < R->rep->ninputs; k++) {
		struct stat st;
		if (!R->rep->inputs[k].kind || strcmp(R->rep->inputs[k].kind, "log") != 0)
			continue;
		if (!R->rep->inputs[k].path || !strcmp(R->rep->inputs[k].path, "-"))
			log_stdin = true;
		else if (stat(R->rep->inputs[k].path, &st) == 0 && st.st_mtime > log_mtime)
			log_mtime = st.st_mtime;
	}
	int rc = 0;
	for (size_t c = 0; c < R->nconfigs && n; c++) {
		kg_config *cfg = R->configs[c];
		/* a batch value computed from the config's own batch (halved,
		 * doubled) is right only for the config that ran: when the log
		 * does not print that batch and the config was changed after
		 * the log was written (a patch applied), it is not patched again */
		struct stat cst;
		bool changed_since = log_mtime && stat(cfg->path, &cst) == 0 && cst.st_mtime > log_mtime;
		/* a log from standard input has no time to compare with: a
		 * backup an earlier --apply left beside the config says it was
		 * patched since it ran */
		if (!log_mtime && log_stdin)
			changed_since = kg_patch_has_backup(cfg->path);
		/* only roles this config has a key for, or can take */
		const char **cr = kg_malloc(n * sizeof *cr), **cv = kg_malloc(n * sizeof *cv);
		size_t cn = 0;
		kg_buf have = {0}, stale = {0};
		for (size_t j = 0; j < n; j++) {
			const kg_config_entry *e = kg_config_role(cfg, roles[j]);
			if (e && changed_since && batch_role(roles[j]) && !log_printed(R, roles[j])) {
				kg_buf_printf(&stale, "%s%s", stale.data ? ", " : "", e->path ? e->path : roles[j]);
				continue;
			}
			if (e && !(e->value && strcmp(e->value, values[j]) == 0)) {
				cr[cn] = roles[j];
				cv[cn++] = values[j];
			} else if (e && e->path) {
				kg_buf_printf(&have, "%s%s: %s", have.data ? ", " : "", e->path, values[j]);
			}
		}
		/* the values come from the log's run: a config patched since
		 * already has them, and a second --apply writes nothing */
		if (!cn && have.data)
			kg_report_note(R->rep, "%s: already has %s; nothing to change%s", cfg->path, have.data,
				       R->opt->apply ? ", not written" : "");
		if (stale.data && log_mtime)
			kg_report_note(R->rep, "%s: changed after the log was written, and the log does not print "
				       "%s: its value may not be the one that ran; not changed", cfg->path, stale.data);
		else if (stale.data)
			kg_report_note(R->rep, "%s: a backup beside it (.orig) says an earlier --apply patched it, "
				       "and the log on standard input does not print %s: its value may not be the "
				       "one that ran; not changed (pass the log as a file to compare their times)",
				       cfg->path, stale.data);
		kg_buf_free(&have);
		kg_buf_free(&stale);
		if (cn) {
			kg_error e = {0};
			kg_patch *p = kg_patch_make(cfg, cr, cv, cn, &e);
			if (!p) {
				kg_report_note(R->rep, "%s: no patch: %s", cfg->path, e.msg);
			} else {
				char *diff = kg_patch_diff(p);
				if (diff && *diff) {
					kg_patch_result *pr = kg_report_add_patch(R->rep, cfg->path, diff);
					bool named = false;
					for (size_t k = 0; k < R->opt->nconfigs; k++)
						named |= !strcmp(R->opt->configs[k], cfg->path);
					if (!named) {
						kg_buf cmd = {0};
						kg_buf_puts(&cmd, "kgmem-diagnose");
						for (size_t k = 0; k < R->opt->nrules_dirs; k++) {
							kg_buf_puts(&cmd, " --rules");
							shell_word(&cmd, R->opt->rules_dirs[k]);
						}
						for (size_t k = 0; k < R->opt->nsets; k++) {
							kg_buf_puts(&cmd, " --set");
							shell_word(&cmd, R->opt->sets[k]);
						}
						kg_buf_puts(&cmd, " --apply --config");
						shell_word(&cmd, cfg->path);
						for (size_t k = 0; k < R->rep->ninputs; k++)
							if (strcmp(R->rep->inputs[k].path, cfg->path))
								shell_word(&cmd, R->rep->inputs[k].path);
						kg_report_note(R->rep, "%s: %snot given with --config; to apply: %s",
							       cfg->path, R->opt->apply ? "not written: " : "",
							       cmd.data);
						kg_buf_free(&cmd);
					} else if (R->opt->apply) {
						char *backup = NULL;
						if (kg_patch_apply(p, &backup, err) < 0) {
							rc = -1;
						} else {
							pr->applied = true;
							kg_report_note(R->rep, "%s: written; the old text is in %s",
								       cfg->path, backup);
						}
						free(backup);
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
	run R = {.opt = opt, .rep = rep, .one_path = npaths == 1};
	enum kg_status status = KG_STATUS_OK;
#define FAIL(code, name) do { \
	if (status == KG_STATUS_OK) { \
		status = (code); \
		*err = e; \
		snprintf(err->path, sizeof err->path, "%s", (name)); \
	} } while (0)

	{
		kg_error e = {0};
		if (check_sets(opt, &e) < 0) {
			*err = e;
			snprintf(err->path, sizeof err->path, "--set");
			return KG_STATUS_USAGE;
		}
	}
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
		char failed[1024];
		if (one_path(&R, paths[i], npaths, &e, failed, sizeof failed) < 0)
			FAIL(KG_STATUS_INPUT, failed);
	}
	snapshot_incidents(&R);
	run_incident(&R);
	first_failed_rank(rep, R.nlogs);
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
			kg_report_note(rep, "%s: the log names the config %s, not found here: pass it with --config",
				       rep->echoed_config_where, rep->echoed_config);
		}
	}
	/* with no incident the rules have nothing to apply to: the shipped
	 * set is not even read (most jobs' logs; two thirds of a small log's
	 * run time). Rules the user named (--rules, KGMEM_RULES_PATH) are
	 * still loaded, so a bad one fails every run, as documented. */
	bool user_rules = opt->nrules_dirs || kg_rules_path_set();
	if ((status == 0 || rep->nincidents) && (rep->nincidents || user_rules)) {
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
		if (kg_svg_write(rep, R.lfs, R.logs_first, R.nlogs, opt->svg, &e) < 0) {
			/* the writer's reason starts with the path, which
			 * err->path names already: name it once */
			size_t pl = strlen(opt->svg);
			if (!strncmp(e.msg, opt->svg, pl) && !strncmp(e.msg + pl, ": ", 2))
				memmove(e.msg, e.msg + pl + 2, strlen(e.msg + pl + 2) + 1);
			FAIL(KG_STATUS_INPUT, opt->svg);
		}
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

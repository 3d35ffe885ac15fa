/* runinfo.c — readings at the moment of an OOM and the run's record on the
 * report (include/runinfo.h); report_json.c prints it as "run". */
#include "runinfo.h"
#include "units.h"
#include "util.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void kg_time_iso(char *buf, size_t n)
{
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	size_t k = strftime(buf, n, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + k, n - k, ".%03ldZ", ts.tv_nsec / 1000000);
}

void kg_reading_take(kg_reading *e, const char *trigger, long line, pid_t pid,
			 const char *nvml_library)
{
	*e = (kg_reading){.trigger = trigger, .line = line};
	kg_time_iso(e->time, sizeof e->time);
	kg_cgroup_read(&e->cgroup, pid, NULL, NULL);
	kg_host_mem_read(&e->host, NULL);
	kg_gpu_probe(&e->gpu, nvml_library, NULL);
}

void kg_reading_free(kg_reading *e)
{
	kg_gpu_state_free(&e->gpu);
}

const char *kg_signal_name(int sig)
{
	switch (sig) {
	case SIGHUP: return "SIGHUP";
	case SIGINT: return "SIGINT";
	case SIGQUIT: return "SIGQUIT";
	case SIGILL: return "SIGILL";
	case SIGABRT: return "SIGABRT";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGKILL: return "SIGKILL";
	case SIGSEGV: return "SIGSEGV";
	case SIGPIPE: return "SIGPIPE";
	case SIGALRM: return "SIGALRM";
	case SIGTERM: return "SIGTERM";
	case SIGUSR1: return "SIGUSR1";
	case SIGUSR2: return "SIGUSR2";
	case SIGXCPU: return "SIGXCPU";
	default: return NULL;
	}
}

static char *dup_or_null(const char *s)
{
	return s ? kg_strdup(s) : NULL;
}

static char **dup_words(char *const *v, size_t n)
{
	char **out = kg_calloc(n ? n : 1, sizeof *out);
	for (size_t i = 0; i < n; i++)
		out[i] = kg_strdup(v[i]);
	return out;
}

kg_run_info *kg_run_copy(const kg_run_info *ri)
{
	kg_run_info *c = kg_malloc(sizeof *c);
	*c = *ri;
	c->argv = dup_words(ri->argv, ri->argc);
	c->labels = dup_words(ri->labels, ri->nlabels);
	c->log = dup_or_null(ri->log);
	c->snapshot_dir = dup_or_null(ri->snapshot_dir);
	c->readings = kg_calloc(ri->nreadings ? ri->nreadings : 1, sizeof *c->readings);
	for (size_t i = 0; i < ri->nreadings; i++) {
		kg_reading *d = &c->readings[i];
		const kg_reading *e = &ri->readings[i];
		*d = *e;
		d->gpu.devices = kg_calloc(e->gpu.ndevices ? e->gpu.ndevices : 1, sizeof *d->gpu.devices);
		if (e->gpu.ndevices)
			memcpy(d->gpu.devices, e->gpu.devices, e->gpu.ndevices * sizeof *d->gpu.devices);
		d->gpu.procs = kg_calloc(e->gpu.nprocs ? e->gpu.nprocs : 1, sizeof *d->gpu.procs);
		if (e->gpu.nprocs)
			memcpy(d->gpu.procs, e->gpu.procs, e->gpu.nprocs * sizeof *d->gpu.procs);
	}
	return c;
}

void kg_run_free(kg_run_info *ri)
{
	if (!ri)
		return;
	for (size_t i = 0; i < ri->argc; i++)
		free(ri->argv[i]);
	free(ri->argv);
	for (size_t i = 0; i < ri->nlabels; i++)
		free(ri->labels[i]);
	free(ri->labels);
	free(ri->log);
	free(ri->snapshot_dir);
	for (size_t i = 0; i < ri->nreadings; i++)
		kg_reading_free(&ri->readings[i]);
	free(ri->readings);
	free(ri);
}

static void gib(char *buf, size_t n, int64_t b)
{
	if (b < 0)
		snprintf(buf, n, "?");
	else
		snprintf(buf, n, "%.2f GiB", (double)b / (1024.0 * 1024 * 1024));
}

void kg_run_attach(kg_report *rep, const kg_run_info *ri)
{
	kg_run_free(rep->run);
	rep->run = kg_run_copy(ri);
	char a[32], b[32];
	for (size_t i = 0; i < ri->nreadings; i++) {
		const kg_reading *e = &ri->readings[i];
		bool at_oom = !strcmp(e->trigger, "oom-message");
		if (!at_oom && strcmp(e->trigger, "exit") != 0)
			continue;
		if (!at_oom) {
			/* after a host OOM kill: the cgroup and host lines */
		} else if (!e->gpu.available) {
			kg_report_note(rep, "run: at the OOM (%s, output line %ld): %s", e->time, e->line,
				       e->gpu.note[0] ? e->gpu.note : "NVML not available");
		} else {
			for (size_t d = 0; d < e->gpu.ndevices; d++) {
				gib(a, sizeof a, e->gpu.devices[d].used_bytes);
				gib(b, sizeof b, e->gpu.devices[d].total_bytes);
				kg_report_note(rep, "run: at the OOM (%s, output line %ld): GPU %u%s%s: %s of %s used",
					       e->time, e->line, e->gpu.devices[d].index,
					       e->gpu.devices[d].name[0] ? " " : "", e->gpu.devices[d].name, a, b);
			}
			for (size_t p = 0; p < e->gpu.nprocs; p++) {
				const kg_gpu_proc *pr = &e->gpu.procs[p];
				gib(a, sizeof a, pr->used_bytes);
				kg_report_note(rep, "run: GPU %u process %lld (%s) holds %s%s", pr->device,
					       (long long)pr->pid, pr->name[0] ? pr->name : "name unknown", a,
					       pr->pid == ri->pid ? " (the wrapped command)" : "");
			}
			if (e->gpu.note[0])
				kg_report_note(rep, "run: %s", e->gpu.note);
		}
		if (e->cgroup.found) {
			gib(a, sizeof a, e->cgroup.current_bytes);
			if (e->cgroup.max_bytes >= 0)
				gib(b, sizeof b, e->cgroup.max_bytes);
			else
				snprintf(b, sizeof b, "no limit");
			char pk[32];
			gib(pk, sizeof pk, e->cgroup.peak_bytes);
			kg_report_note(rep, "run: %s: cgroup %s (v%d): %s in use, peak %s, limit %s",
				       at_oom ? "at the OOM" : "at exit", e->cgroup.path, e->cgroup.version,
				       a, pk, b);
		}
		if (e->host.found) {
			gib(a, sizeof a, e->host.available_bytes);
			gib(b, sizeof b, e->host.total_bytes);
			kg_report_note(rep, "run: host memory: %s available of %s", a, b);
		}
		break; /* the first moment; every moment is in the JSON */
	}
	if (ri->oom_kill_before >= 0 && ri->oom_kill_after > ri->oom_kill_before)
		kg_report_note(rep, "run: the kernel's OOM killer fired %lld time(s) in this job's cgroup during the run "
			       "(oom_kill %lld -> %lld): host memory ran out, not GPU memory%s",
			       (long long)(ri->oom_kill_after - ri->oom_kill_before),
			       (long long)ri->oom_kill_before, (long long)ri->oom_kill_after,
			       ri->signal == SIGKILL ? "; the command was killed by SIGKILL" : "");
	else if (ri->oom_kill_before < 0 && ri->signal == SIGKILL)
		kg_report_note(rep, "run: the command was killed by SIGKILL and the cgroup's oom_kill count could not be read, "
			       "so a host OOM kill can neither be confirmed nor ruled out");
}

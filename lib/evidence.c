/* evidence.c — evidence at the moment of an OOM and the "run" report object
 * (include/evidence.h). */
#include "evidence.h"
#include "units.h"
#include "util.h"

#include <cjson/cJSON.h>
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

void kg_evidence_collect(kg_evidence *e, const char *trigger, long line, pid_t pid,
			 const char *nvml_library)
{
	*e = (kg_evidence){.trigger = trigger, .line = line};
	kg_time_iso(e->time, sizeof e->time);
	kg_cgroup_read(&e->cgroup, pid, NULL, NULL);
	kg_host_mem_read(&e->host, NULL);
	kg_gpu_probe(&e->gpu, nvml_library, NULL);
}

void kg_evidence_free(kg_evidence *e)
{
	kg_gpu_state_free(&e->gpu);
}

static cJSON *num_or_null(int64_t v)
{
	if (v < 0)
		return cJSON_CreateNull();
	char buf[32];
	snprintf(buf, sizeof buf, "%lld", (long long)v);
	return cJSON_CreateRaw(buf);
}

static cJSON *evidence_json(const kg_evidence *e)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "time", e->time);
	cJSON_AddStringToObject(o, "trigger", e->trigger);
	cJSON_AddItemToObject(o, "line", e->line > 0 ? num_or_null(e->line) : cJSON_CreateNull());

	cJSON *g = cJSON_AddObjectToObject(o, "gpu");
	cJSON_AddBoolToObject(g, "available", e->gpu.available);
	cJSON_AddItemToObject(g, "note", e->gpu.note[0] ? cJSON_CreateString(e->gpu.note) : cJSON_CreateNull());
	cJSON *devs = cJSON_AddArrayToObject(g, "devices");
	for (size_t i = 0; i < e->gpu.ndevices; i++) {
		const kg_gpu_device *d = &e->gpu.devices[i];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddNumberToObject(x, "index", d->index);
		cJSON_AddItemToObject(x, "name", d->name[0] ? cJSON_CreateString(d->name) : cJSON_CreateNull());
		cJSON_AddItemToObject(x, "uuid", d->uuid[0] ? cJSON_CreateString(d->uuid) : cJSON_CreateNull());
		cJSON_AddItemToObject(x, "used_bytes", num_or_null(d->used_bytes));
		cJSON_AddItemToObject(x, "total_bytes", num_or_null(d->total_bytes));
		cJSON_AddItemToArray(devs, x);
	}
	cJSON *procs = cJSON_AddArrayToObject(g, "processes");
	for (size_t i = 0; i < e->gpu.nprocs; i++) {
		const kg_gpu_proc *p = &e->gpu.procs[i];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddNumberToObject(x, "device", p->device);
		cJSON_AddItemToObject(x, "pid", num_or_null(p->pid));
		cJSON_AddItemToObject(x, "name", p->name[0] ? cJSON_CreateString(p->name) : cJSON_CreateNull());
		cJSON_AddItemToObject(x, "used_bytes", num_or_null(p->used_bytes));
		cJSON_AddItemToArray(procs, x);
	}

	cJSON *c = cJSON_AddObjectToObject(o, "cgroup");
	cJSON_AddBoolToObject(c, "found", e->cgroup.found);
	cJSON_AddItemToObject(c, "version", e->cgroup.version ? num_or_null(e->cgroup.version) : cJSON_CreateNull());
	cJSON_AddItemToObject(c, "path", e->cgroup.path[0] ? cJSON_CreateString(e->cgroup.path) : cJSON_CreateNull());
	cJSON_AddItemToObject(c, "memory_max_bytes", num_or_null(e->cgroup.max_bytes));
	cJSON_AddItemToObject(c, "memory_current_bytes", num_or_null(e->cgroup.current_bytes));
	cJSON_AddItemToObject(c, "memory_peak_bytes", num_or_null(e->cgroup.peak_bytes));
	cJSON_AddItemToObject(c, "oom", num_or_null(e->cgroup.oom));
	cJSON_AddItemToObject(c, "oom_kill", num_or_null(e->cgroup.oom_kill));

	cJSON *h = cJSON_AddObjectToObject(o, "host");
	cJSON_AddItemToObject(h, "mem_total_bytes", num_or_null(e->host.total_bytes));
	cJSON_AddItemToObject(h, "mem_available_bytes", num_or_null(e->host.available_bytes));
	cJSON_AddItemToObject(h, "swap_total_bytes", num_or_null(e->host.swap_total_bytes));
	cJSON_AddItemToObject(h, "swap_free_bytes", num_or_null(e->host.swap_free_bytes));
	return o;
}

static const char *signame(int sig)
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

cJSON *kg_run_to_json(const kg_run_info *ri)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *cmd = cJSON_AddArrayToObject(o, "command");
	for (size_t i = 0; i < ri->argc; i++) {
		char *s = kg_sanitize_utf8(ri->argv[i], strlen(ri->argv[i]));
		cJSON_AddItemToArray(cmd, cJSON_CreateString(s));
		free(s);
	}
	cJSON_AddItemToObject(o, "pid", num_or_null(ri->pid));
	cJSON_AddStringToObject(o, "started", ri->started);
	cJSON_AddStringToObject(o, "ended", ri->ended);
	cJSON_AddNumberToObject(o, "duration_seconds", (double)(int64_t)(ri->duration_s * 1000) / 1000.0);
	cJSON_AddItemToObject(o, "exit_code", ri->signal ? cJSON_CreateNull() : num_or_null(ri->exit_code));
	if (ri->signal) {
		const char *n = signame(ri->signal);
		char buf[16];
		if (!n) {
			snprintf(buf, sizeof buf, "%d", ri->signal);
			n = buf;
		}
		cJSON_AddStringToObject(o, "signal", n);
	} else {
		cJSON_AddNullToObject(o, "signal");
	}
	cJSON *labels = cJSON_AddObjectToObject(o, "labels");
	for (size_t i = 0; i < ri->nlabels; i++) {
		const char *eq = strchr(ri->labels[i], '=');
		if (!eq)
			continue;
		char *k = kg_sanitize_utf8(ri->labels[i], (size_t)(eq - ri->labels[i]));
		char *v = kg_sanitize_utf8(eq + 1, strlen(eq + 1));
		cJSON_DeleteItemFromObjectCaseSensitive(labels, k);
		cJSON_AddStringToObject(labels, k, v);
		free(k);
		free(v);
	}
	cJSON_AddItemToObject(o, "log", ri->log ? cJSON_CreateString(ri->log) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "snapshot_dir",
			      ri->snapshot_dir ? cJSON_CreateString(ri->snapshot_dir) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "oom_kill_during_run",
			      ri->oom_kill_before >= 0 && ri->oom_kill_after >= ri->oom_kill_before
				      ? num_or_null(ri->oom_kill_after - ri->oom_kill_before)
				      : cJSON_CreateNull());
	cJSON *ev = cJSON_AddArrayToObject(o, "evidence");
	for (size_t i = 0; i < ri->nevidence; i++)
		cJSON_AddItemToArray(ev, evidence_json(&ri->evidence[i]));
	return o;
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
	cJSON_Delete(rep->run);
	rep->run = kg_run_to_json(ri);
	char a[32], b[32];
	for (size_t i = 0; i < ri->nevidence; i++) {
		const kg_evidence *e = &ri->evidence[i];
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

/* runinfo.c — the record of a wrapped run put on the report, with its notes
 * (include/run/runinfo.h); report_json.c prints it as "run". */
#include "run/runinfo.h"
#include "model/facts.h"
#include "model/units.h"
#include "model/util.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

void kg_facts_from_run(const kg_run_info *ri, const kg_incident *inc, struct kg_facts *f)
{
	if (!ri)
		return;
	const kg_reading *e = NULL;
	for (size_t i = 0; i < ri->nreadings; i++) {
		const kg_reading *r = &ri->readings[i];
		if (strcmp(r->trigger, "oom-message") != 0)
			continue;
		if (!e || r->line == inc->line)
			e = r;
	}
	char prov[64];
	if (e && e->gpu.available) {
		snprintf(prov, sizeof prov, "run: reading at output line %ld", e->line);
		unsigned dev = inc->device_index >= 0 && inc->device_index != KG_NONE ? (unsigned)inc->device_index : 0;
		for (size_t d = 0; d < e->gpu.ndevices; d++) {
			const kg_gpu_device *g = &e->gpu.devices[d];
			if (g->index != dev)
				continue;
			if (g->total_bytes > 0)
				kg_facts_set_num(f, "run.gpu.total", KG_FACT_BYTES, (double)g->total_bytes, prov);
			if (g->used_bytes >= 0)
				kg_facts_set_num(f, "run.gpu.used", KG_FACT_BYTES, (double)g->used_bytes, prov);
		}
		int64_t others = 0;
		int n = 0, unknown = 0, ours = 0;
		char pids[256] = "";
		size_t len = 0;
		for (size_t p = 0; p < e->gpu.nprocs; p++) {
			const kg_gpu_proc *pr = &e->gpu.procs[p];
			if (pr->device != dev)
				continue;
			if (pr->ours < 0) {
				unknown++;
				continue;
			}
			if (pr->ours) {
				ours++;
				continue;
			}
			n++;
			if (pr->used_bytes > 0)
				others += pr->used_bytes;
			char sz[32];
			gib(sz, sizeof sz, pr->used_bytes);
			if (len + 96 < sizeof pids)
				len += (size_t)snprintf(pids + len, sizeof pids - len, "%s%lld %s (%s)", len ? ", " : "",
							(long long)pr->pid, pr->name[0] ? pr->name : "?", sz);
		}
		kg_facts_set_num(f, "run.gpu.others.count", KG_FACT_COUNT, n, prov);
		kg_facts_set_num(f, "run.gpu.unknown.count", KG_FACT_COUNT, unknown, prov);
		kg_facts_set_num(f, "run.gpu.ours.count", KG_FACT_COUNT, ours, prov);
		kg_facts_set_num(f, "run.gpu.others", KG_FACT_BYTES, (double)others, prov);
		if (n)
			kg_facts_set_str(f, "run.gpu.others.pids", pids, prov);
	}
	if (ri->oom_kill_before >= 0 && ri->oom_kill_after >= 0)
		kg_facts_set_num(f, "run.cgroup.oom_kills", KG_FACT_COUNT,
				 (double)(ri->oom_kill_after - ri->oom_kill_before), "run: the cgroup's memory.events oom_kill");
}

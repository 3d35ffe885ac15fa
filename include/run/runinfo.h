/* runinfo.h — how the record of a wrapped run (model/run.h) appears in
 * the report: the top-level JSON object "run" (additive to schema
 * kgmem-diagnose/1; README "JSON report") and one-line notes for the
 * other formats. */
#ifndef KG_RUNINFO_H
#define KG_RUNINFO_H

#include "model/result.h"
#include "model/run.h"

/* Puts a copy of ri on rep (rep->run, printed by the JSON report as the
 * top-level "run" object: sizes integer bytes, unknown ones null;
 * "oom_kill_during_run" after − before when both are known) and adds
 * notes that say, in one line each, what the first reading showed (GPU
 * processes and device memory, or why NVML could not tell; the cgroup's
 * usage, peak and limit; host memory) and whether the kernel's OOM killer
 * fired. */
void kg_run_attach(kg_report *rep, const kg_run_info *ri);

/* Sets the run.* facts of inc from the wrapped run's reading at the OOM
 * (the "oom-message" reading of inc's output line, else the first one):
 * run.gpu.total and run.gpu.used (bytes, NVML, of the incident's device:
 * inc->device_index, else 0), run.gpu.others (bytes held on it by
 * processes that are not the run's, kg_gpu_proc.ours == 0),
 * run.gpu.others.count, run.gpu.others.pids ("PID name (size)", joined
 * by ", "), run.gpu.unknown.count (processes whose kinship is unknown),
 * run.gpu.ours.count (the run's own processes on it),
 * and run.cgroup.oom_kills (the cgroup's oom_kill count during the run:
 * at exit less at start). Provenance "run: reading at output line N".
 * Sets nothing for a fact NVML or the cgroup did not give. */
struct kg_facts;
void kg_facts_from_run(const kg_run_info *ri, const kg_incident *inc, struct kg_facts *f);

#endif

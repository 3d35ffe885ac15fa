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

#endif

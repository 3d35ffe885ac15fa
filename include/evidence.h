/* evidence.h — what `kgmem-diagnose run` records about the machine at the
 * moment of an OOM (GPU through NVML, the cgroup's memory controller, host
 * memory) and about the run itself, and how that appears in the report: the
 * top-level JSON object "run" (additive to schema kgmem-diagnose/1; README
 * "JSON report") and one-line notes for the other formats. */
#ifndef KG_EVIDENCE_H
#define KG_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "cgroup.h"
#include "nvml.h"
#include "report.h"

typedef struct kg_evidence {
	char time[40];           /* UTC, ISO 8601 with milliseconds */
	const char *trigger;     /* static: "oom-message" (an OOM line in the
	                            output), "start", "exit" */
	long line;               /* line of the captured output that triggered
	                            it (1-based), 0 for start/exit */
	kg_gpu_state gpu;        /* nvml.h */
	kg_cgroup_mem cgroup;    /* cgroup.h, of the watched process */
	kg_host_mem host;        /* cgroup.h, /proc/meminfo */
} kg_evidence;

/* Reads GPU, cgroup and host memory now, for process pid (its cgroup; 0
 * for the caller's). nvml_library: NULL for "libnvidia-ml.so.1". Never
 * fails (what could not be read is marked unknown, the GPU part with a
 * note). Release with kg_evidence_free. */
void kg_evidence_collect(kg_evidence *e, const char *trigger, long line, pid_t pid,
			 const char *nvml_library);
void kg_evidence_free(kg_evidence *e);

/* The wall-clock time now, UTC, ISO 8601 with milliseconds
 * ("2026-01-31T12:00:00.123Z"; CLOCK_REALTIME) into buf (40 bytes suffice). */
void kg_time_iso(char *buf, size_t n);

/* One wrapped run (cli/cmd_run.c fills it). */
typedef struct kg_run_info {
	char *const *argv;       /* the command, argc words (borrowed) */
	size_t argc;
	int64_t pid;             /* the child's pid */
	char started[40], ended[40];   /* UTC, ISO 8601 with milliseconds */
	double duration_s;       /* wall seconds */
	int exit_code;           /* the child's exit status, -1 when a signal
	                            killed it */
	int signal;              /* the killing signal, 0 when it exited */
	int64_t oom_kill_before; /* memory.events oom_kill at start, -1 unknown */
	int64_t oom_kill_after;  /* … at exit, -1 unknown */
	char *const *labels;     /* --label KEY=VALUE words (borrowed) */
	size_t nlabels;
	const char *log;         /* --log FILE where the output was kept, or NULL */
	const char *snapshot_dir;/* --snapshot-on-oom DIR, or NULL */
	const kg_evidence *evidence;   /* borrowed */
	size_t nevidence;
} kg_run_info;

/* The "run" JSON object (caller owns it; cJSON_Delete). Sizes are integer
 * bytes, unknown ones null; "oom_kill_during_run" is after − before when
 * both are known, else null. */
struct cJSON *kg_run_to_json(const kg_run_info *ri);

/* Adds the run's evidence to rep: rep->run (the object above) and notes
 * that say, in one line each, what the moment of the OOM showed (GPU
 * processes and device memory, or why NVML could not tell; the cgroup's
 * limit and whether the kernel's OOM killer fired; host memory). */
void kg_run_attach(kg_report *rep, const kg_run_info *ri);

#endif

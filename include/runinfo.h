/* runinfo.h — what `kgmem-diagnose run` records about the machine at the
 * moment of an OOM (GPU through NVML, the cgroup's memory controller, host
 * memory) and about the run itself, and how that appears in the report: the
 * top-level JSON object "run" (additive to schema kgmem-diagnose/1; README
 * "JSON report") and one-line notes for the other formats. */
#ifndef KG_RUNINFO_H
#define KG_RUNINFO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "cgroup.h"
#include "nvml.h"
#include "report.h"

typedef struct kg_reading {
	char time[40];           /* UTC, ISO 8601 with milliseconds */
	const char *trigger;     /* static: "oom-message" (an OOM line in the
	                            output), "start", "exit" */
	long line;               /* line of the captured output that triggered
	                            it (1-based), 0 for start/exit */
	kg_gpu_state gpu;        /* nvml.h */
	kg_cgroup_mem cgroup;    /* cgroup.h, of the watched process */
	kg_host_mem host;        /* cgroup.h, /proc/meminfo */
} kg_reading;

/* Reads GPU, cgroup and host memory now, for process pid (its cgroup; 0
 * for the caller's). nvml_library: NULL for "libnvidia-ml.so.1". Never
 * fails (what could not be read is marked unknown, the GPU part with a
 * note). Release with kg_reading_free. */
void kg_reading_take(kg_reading *e, const char *trigger, long line, pid_t pid,
			 const char *nvml_library);
void kg_reading_free(kg_reading *e);

/* The wall-clock time now, UTC, ISO 8601 with milliseconds
 * ("2026-01-31T12:00:00.123Z"; CLOCK_REALTIME) into buf (40 bytes suffice). */
void kg_time_iso(char *buf, size_t n);

/* One wrapped run (cli/cmd_run.c fills it). */
/* One wrapped run (cli/cmd_run.c fills one with its own pointers;
 * kg_run_attach copies it onto the report, which then owns the copy). */
typedef struct kg_run_info {
	char **argv;             /* the command, argc words */
	size_t argc;
	int64_t pid;             /* the child's pid */
	char started[40], ended[40];   /* UTC, ISO 8601 with milliseconds */
	double duration_s;       /* wall seconds */
	int exit_code;           /* the child's exit status, -1 when a signal
	                            killed it */
	int signal;              /* the killing signal, 0 when it exited */
	int64_t oom_kill_before; /* the cgroup's oom_kill at start, -1 unknown */
	int64_t oom_kill_after;  /* … at exit, -1 unknown */
	char **labels;           /* --label KEY=VALUE words */
	size_t nlabels;
	char *log;               /* --log FILE where the output was kept, or NULL */
	char *snapshot_dir;      /* --snapshot-on-oom DIR, or NULL */
	kg_reading *readings;
	size_t nreadings;
} kg_run_info;

/* "SIGKILL", "SIGTERM", … for the common signals (signal.h numbers), NULL
 * for another. */
const char *kg_signal_name(int sig);

/* A deep copy (every string and reading), and its release. */
kg_run_info *kg_run_copy(const kg_run_info *ri);
void kg_run_free(kg_run_info *ri);

/* Puts a copy of ri on rep (rep->run, printed by the JSON report as the
 * top-level "run" object: sizes integer bytes, unknown ones null;
 * "oom_kill_during_run" after − before when both are known) and adds
 * notes that say, in one line each, what the first reading showed (GPU
 * processes and device memory, or why NVML could not tell; the cgroup's
 * usage, peak and limit; host memory) and whether the kernel's OOM killer
 * fired. */
void kg_run_attach(kg_report *rep, const kg_run_info *ri);

#endif

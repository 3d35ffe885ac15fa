/* run.h — the record of one run of `kgmem-diagnose run`: the command, its
 * exit, the readings taken while it ran (GPU through NVML, the cgroup's
 * memory controller, host memory; model/machine.h), and how it is copied
 * and released. The report carries one (model/result.h, JSON "run"). */
#ifndef KG_RUN_H
#define KG_RUN_H

#include <stddef.h>
#include <stdint.h>
#include "model/machine.h"

typedef struct kg_reading {
	char time[40];           /* UTC, ISO 8601 with milliseconds */
	const char *trigger;     /* static: "oom-message" (an OOM line in the
	                            output), "start", "exit" */
	long line;               /* line of the captured output that triggered
	                            it (1-based), 0 for start/exit */
	kg_gpu_state gpu;        /* model/machine.h, read through NVML */
	kg_cgroup_mem cgroup;    /* model/machine.h, of the watched process */
	kg_host_mem host;        /* model/machine.h, /proc/meminfo */
} kg_reading;

/* Releases what a reading owns (its GPU state). */
void kg_reading_free(kg_reading *e);

/* One wrapped run (src/cmd_run.c fills one with its own pointers;
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

#endif

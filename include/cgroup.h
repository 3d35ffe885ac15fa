/* cgroup.h — host memory at a moment: the memory controller (cgroup v2, or
 * v1) of a process and the machine's /proc/meminfo. Plain file reads, no privileges
 * needed. */
#ifndef KG_CGROUP_H
#define KG_CGROUP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct kg_cgroup_mem {
	bool found;              /* the process's memory cgroup was found:
	                            v2, a "0::/path" line of PROC/PID/cgroup
	                            whose memory.events exists; else v1, a
	                            "N:...memory...:/path" line whose
	                            memory/PATH/memory.oom_control exists */
	int version;             /* 2 or 1 (0 when not found) */
	char path[512];          /* the cgroup's path below the hierarchy's
	                            root, e.g. "/system.slice/slurmstepd.scope" */
	int64_t max_bytes;       /* v2 memory.max, v1 memory.limit_in_bytes;
	                            bytes; -1 for no limit ("max", or v1's
	                            page-counter maximum) or unreadable */
	int64_t current_bytes;   /* v2 memory.current, v1 memory.usage_in_bytes;
	                            bytes; -1 unreadable */
	int64_t peak_bytes;      /* v2 memory.peak (Linux 5.19+), v1
	                            memory.max_usage_in_bytes; bytes; -1 absent */
	int64_t oom;             /* v2 memory.events "oom": times the limit was
	                            hit and reclaim failed; -1 unreadable or v1 */
	int64_t oom_kill;        /* v2 memory.events "oom_kill", v1
	                            memory.oom_control "oom_kill" (Linux 4.13+):
	                            processes the kernel's OOM killer killed in
	                            this cgroup (and below); -1 unreadable */
} kg_cgroup_mem;

typedef struct kg_host_mem {
	bool found;              /* /proc/meminfo was read */
	int64_t total_bytes;     /* MemTotal, bytes (meminfo states kB) */
	int64_t available_bytes; /* MemAvailable, bytes; -1 on kernels < 3.14 */
	int64_t swap_total_bytes;/* SwapTotal, bytes */
	int64_t swap_free_bytes; /* SwapFree, bytes */
} kg_host_mem;

/* Reads the memory cgroup files of process pid (0: the caller), cgroup v2
 * first, else v1 (the memory controller mounted at CGROUP_ROOT/memory).
 * proc_root: NULL for "/proc"; cgroup_root: NULL for "/sys/fs/cgroup"
 * (roots are parameters so tests can hand in a fake tree). Never fails: in
 * a container without the controller, or for a process that is gone,
 * out->found is false and the numbers are -1. */
void kg_cgroup_read(kg_cgroup_mem *out, pid_t pid, const char *proc_root, const char *cgroup_root);

/* Reads PROC/meminfo (proc_root NULL: "/proc"). Never fails: out->found is
 * false and the numbers -1 when it cannot be read. */
void kg_host_mem_read(kg_host_mem *out, const char *proc_root);

#endif

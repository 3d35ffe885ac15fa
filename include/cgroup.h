/* cgroup.h — host memory at a moment: the cgroup v2 memory controller of a
 * process and the machine's /proc/meminfo. Plain file reads, no privileges
 * needed. */
#ifndef KG_CGROUP_H
#define KG_CGROUP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct kg_cgroup_mem {
	bool found;              /* a cgroup v2 path was read from
	                            PROC/PID/cgroup ("0::/path") and its
	                            memory.events exists */
	char path[512];          /* the cgroup's path below the hierarchy's
	                            root, e.g. "/system.slice/slurmstepd.scope" */
	int64_t max_bytes;       /* memory.max, bytes; -1 for "max" (no limit)
	                            or unreadable */
	int64_t current_bytes;   /* memory.current, bytes; -1 unreadable */
	int64_t peak_bytes;      /* memory.peak (Linux 5.19+), bytes; -1 absent */
	int64_t oom;             /* memory.events "oom": times the limit was
	                            hit and reclaim failed; -1 unreadable */
	int64_t oom_kill;        /* memory.events "oom_kill": processes the
	                            kernel's OOM killer killed in this cgroup
	                            (and below); -1 unreadable */
} kg_cgroup_mem;

typedef struct kg_host_mem {
	bool found;              /* /proc/meminfo was read */
	int64_t total_bytes;     /* MemTotal, bytes (meminfo states kB) */
	int64_t available_bytes; /* MemAvailable, bytes; -1 on kernels < 3.14 */
	int64_t swap_total_bytes;/* SwapTotal, bytes */
	int64_t swap_free_bytes; /* SwapFree, bytes */
} kg_host_mem;

/* Reads the cgroup v2 memory files of process pid (0: the caller).
 * proc_root: NULL for "/proc"; cgroup_root: NULL for "/sys/fs/cgroup"
 * (roots are parameters so tests can hand in a fake tree). Never fails: on
 * cgroup v1 only, in a container without the controller, or for a process
 * that is gone, out->found is false and the numbers are -1. */
void kg_cgroup_read(kg_cgroup_mem *out, pid_t pid, const char *proc_root, const char *cgroup_root);

/* Reads PROC/meminfo (proc_root NULL: "/proc"). Never fails: out->found is
 * false and the numbers -1 when it cannot be read. */
void kg_host_mem_read(kg_host_mem *out, const char *proc_root);

#endif

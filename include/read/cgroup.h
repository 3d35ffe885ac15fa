/* cgroup.h — host memory at a moment: the memory controller (cgroup v2, or
 * v1) of a process and the machine's /proc/meminfo. Plain file reads, no privileges
 * needed. */
#ifndef KG_CGROUP_H
#define KG_CGROUP_H

#include <sys/types.h>
#include "model/machine.h"

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

/* machine.h — GPU, cgroup and host memory at one moment: what a reading of
 * `kgmem-diagnose run` holds (model/run.h). Read by read/nvml.h (NVML) and
 * read/cgroup.h (the memory controller, /proc/meminfo); printed by the
 * reporters. Sizes are bytes, -1 where unknown. */
#ifndef KG_MACHINE_H
#define KG_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct kg_gpu_device {
	unsigned index;          /* NVML index (nvmlDeviceGetHandleByIndex_v2) */
	char name[96];           /* nvmlDeviceGetName, "" when it failed */
	char uuid[96];           /* nvmlDeviceGetUUID, "" when it failed */
	int64_t used_bytes;      /* nvmlDeviceGetMemoryInfo .used, bytes; -1 unknown */
	int64_t total_bytes;     /* nvmlDeviceGetMemoryInfo .total, bytes; -1 unknown */
} kg_gpu_device;

typedef struct kg_gpu_proc {
	unsigned device;         /* index of the device it runs on */
	int64_t pid;             /* host pid (NVML nvmlProcessInfo_t.pid) */
	int64_t used_bytes;      /* nvmlProcessInfo_t.usedGpuMemory, bytes; -1
	                            when NVML reports it unavailable (MIG, no
	                            permission) */
	char name[64];           /* /proc/PID/comm without the newline; "" when
	                            the process is gone or in another pid
	                            namespace */
	int8_t ours;             /* 1: the reading process or one of its
	                            descendants (the wrapped command's), 0: not,
	                            -1: unknown (gone, another pid namespace) */
} kg_gpu_proc;

typedef struct kg_gpu_state {
	bool available;          /* NVML loaded and nvmlInit_v2 succeeded */
	char note[256];          /* why not, or what was partial; "" when all
	                            was read */
	kg_gpu_device *devices;  /* owned */
	size_t ndevices;
	kg_gpu_proc *procs;      /* owned; compute processes of every device
	                            (nvmlDeviceGetComputeRunningProcesses_v3,
	                            _v2, or the unversioned call on old drivers) */
	size_t nprocs;
} kg_gpu_state;

/* Releases what s owns (devices, procs) and zeroes it. */
void kg_gpu_state_free(kg_gpu_state *s);

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

#endif

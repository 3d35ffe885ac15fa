/* nvml.h — GPU memory at a moment, through NVIDIA's management library
 * (NVML), loaded at run time with dlopen("libnvidia-ml.so.1") so the tool
 * builds and runs on machines without a driver. Read-only: the probe never
 * changes a device setting. */
#ifndef KG_NVML_H
#define KG_NVML_H

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

/* Reads every device's memory and compute processes. library: the shared
 * object to dlopen, NULL for "libnvidia-ml.so.1" (found through the dynamic
 * loader's search path, so LD_LIBRARY_PATH applies). proc_root: where to
 * read PID/comm, NULL for "/proc". Calls nvmlInit_v2 … nvmlShutdown each
 * time (about 10–100 ms on a real driver; meant for the moment of an OOM,
 * not for polling). Never fails: without the library, without a driver or
 * GPU, out->available is false and out->note says why in one line
 * ("NVML not available: libnvidia-ml.so.1: cannot open shared object
 * file…", "nvmlInit_v2 failed: Driver Not Loaded"). Release with
 * kg_gpu_state_free. */
void kg_gpu_probe(kg_gpu_state *out, const char *library, const char *proc_root);
void kg_gpu_state_free(kg_gpu_state *s);

#endif

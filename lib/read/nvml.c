/* nvml.c — GPU memory through NVML, dlopen'ed (include/read/nvml.h). Only the
 * handful of NVML entry points below are used, declared here from NVML's
 * documented C API (nvml.h of the CUDA toolkit), so no NVIDIA header or
 * library is needed to build. */
#include "read/nvml.h"
#include "model/util.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvmlReturn_t;          /* NVML_SUCCESS = 0 */
typedef void *nvmlDevice_t;
#define NVML_SUCCESS 0
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_VALUE_NOT_AVAILABLE_ULL 0xffffffffffffffffULL

typedef struct {
	unsigned long long total, free, used;
} nvmlMemory_t;

/* nvmlProcessInfo_t of the _v2/_v3 calls (NVML 11+): pid, usedGpuMemory,
 * gpuInstanceId, computeInstanceId. */
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId, computeInstanceId;
} nvml_proc_v2;

/* nvmlProcessInfo_v1_t of the unversioned call (older drivers). */
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
} nvml_proc_v1;

typedef nvmlReturn_t (*fn_void)(void);
typedef const char *(*fn_errstr)(nvmlReturn_t);
typedef nvmlReturn_t (*fn_count)(unsigned int *);
typedef nvmlReturn_t (*fn_handle)(unsigned int, nvmlDevice_t *);
typedef nvmlReturn_t (*fn_meminfo)(nvmlDevice_t, nvmlMemory_t *);
typedef nvmlReturn_t (*fn_str)(nvmlDevice_t, char *, unsigned int);
typedef nvmlReturn_t (*fn_procs)(nvmlDevice_t, unsigned int *, void *);

/* Keeps the first note: the first thing that went wrong explains the rest. */
static void setnote(kg_gpu_state *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void setnote(kg_gpu_state *s, const char *fmt, ...)
{
	if (s->note[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->note, sizeof s->note, fmt, ap);
	va_end(ap);
}

static void read_comm(const char *proc_root, int64_t pid, char *out, size_t n)
{
	char path[512];
	out[0] = 0;
	snprintf(path, sizeof path, "%s/%lld/comm", proc_root, (long long)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(out, (int)n, f))
		out[strcspn(out, "\n")] = 0;
	else
		out[0] = 0;
	fclose(f);
}

static const char *errname(fn_errstr es, nvmlReturn_t rc, char *buf, size_t n)
{
	const char *s = es ? es(rc) : NULL;
	if (s)
		return s;
	snprintf(buf, n, "NVML error %d", rc);
	return buf;
}

/* The versioned entry point, else its older name. */
static void *sym(void *h, const char *name, const char *older)
{
	void *p = dlsym(h, name);
	return p ? p : dlsym(h, older);
}

void kg_gpu_probe(kg_gpu_state *out, const char *library, const char *proc_root)
{
	*out = (kg_gpu_state){0};
	if (!library)
		library = "libnvidia-ml.so.1";
	if (!proc_root)
		proc_root = "/proc";
	void *h = dlopen(library, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		setnote(out, "NVML not available (%s): %s; GPU processes and device memory not recorded",
			library, e ? e : "dlopen failed");
		return;
	}
	fn_void init = (fn_void)sym(h, "nvmlInit_v2", "nvmlInit");
	fn_void shutdown = (fn_void)dlsym(h, "nvmlShutdown");
	fn_errstr es = (fn_errstr)dlsym(h, "nvmlErrorString");
	fn_count count = (fn_count)sym(h, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
	fn_handle handle = (fn_handle)sym(h, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
	fn_meminfo meminfo = (fn_meminfo)dlsym(h, "nvmlDeviceGetMemoryInfo");
	fn_str name = (fn_str)dlsym(h, "nvmlDeviceGetName");
	fn_str uuid = (fn_str)dlsym(h, "nvmlDeviceGetUUID");
	bool v1 = false;
	fn_procs procs = (fn_procs)sym(h, "nvmlDeviceGetComputeRunningProcesses_v3",
				       "nvmlDeviceGetComputeRunningProcesses_v2");
	if (!procs) {
		procs = (fn_procs)dlsym(h, "nvmlDeviceGetComputeRunningProcesses");
		v1 = true;
	}
	if (!init || !count || !handle) {
		setnote(out, "NVML not usable (%s): nvmlInit_v2, nvmlDeviceGetCount_v2 or nvmlDeviceGetHandleByIndex_v2 missing",
			library);
		dlclose(h);
		return;
	}
	char eb[32];
	nvmlReturn_t rc = init();
	if (rc != NVML_SUCCESS) {
		setnote(out, "NVML present but nvmlInit_v2 failed: %s; GPU processes and device memory not recorded",
			errname(es, rc, eb, sizeof eb));
		dlclose(h);
		return;
	}
	out->available = true;
	unsigned int n = 0;
	rc = count(&n);
	if (rc != NVML_SUCCESS) {
		setnote(out, "nvmlDeviceGetCount_v2 failed: %s", errname(es, rc, eb, sizeof eb));
		n = 0;
	}
	if (n > 64)
		n = 64;
	out->devices = kg_calloc(n ? n : 1, sizeof *out->devices);
	for (unsigned int i = 0; i < n; i++) {
		nvmlDevice_t dev = NULL;
		kg_gpu_device *d = &out->devices[out->ndevices++];
		d->index = i;
		d->used_bytes = d->total_bytes = -1;
		if ((rc = handle(i, &dev)) != NVML_SUCCESS) {
			setnote(out, "nvmlDeviceGetHandleByIndex_v2 failed: %s", errname(es, rc, eb, sizeof eb));
			continue;
		}
		if (name && name(dev, d->name, sizeof d->name) != NVML_SUCCESS)
			d->name[0] = 0;
		if (uuid && uuid(dev, d->uuid, sizeof d->uuid) != NVML_SUCCESS)
			d->uuid[0] = 0;
		d->name[sizeof d->name - 1] = d->uuid[sizeof d->uuid - 1] = 0;
		nvmlMemory_t m;
		if (meminfo && (rc = meminfo(dev, &m)) == NVML_SUCCESS) {
			d->used_bytes = (int64_t)m.used;
			d->total_bytes = (int64_t)m.total;
		} else if (meminfo) {
			setnote(out, "nvmlDeviceGetMemoryInfo failed: %s", errname(es, rc, eb, sizeof eb));
		}
		if (!procs)
			continue;
		unsigned int cap = 64, np;
		void *buf = NULL;
		for (int tries = 0; tries < 4; tries++) {
			np = cap;
			buf = kg_realloc(buf, (size_t)cap * (v1 ? sizeof(nvml_proc_v1) : sizeof(nvml_proc_v2)));
			rc = procs(dev, &np, buf);
			if (rc != NVML_ERROR_INSUFFICIENT_SIZE)
				break;
			cap = np > cap ? np + 16 : cap * 2;
		}
		if (rc != NVML_SUCCESS) {
			setnote(out, "nvmlDeviceGetComputeRunningProcesses failed: %s",
				errname(es, rc, eb, sizeof eb));
			free(buf);
			continue;
		}
		if (np > cap)
			np = cap;
		out->procs = kg_realloc(out->procs, (out->nprocs + np + 1) * sizeof *out->procs);
		for (unsigned int k = 0; k < np; k++) {
			unsigned int pid;
			unsigned long long used;
			if (v1) {
				pid = ((nvml_proc_v1 *)buf)[k].pid;
				used = ((nvml_proc_v1 *)buf)[k].usedGpuMemory;
			} else {
				pid = ((nvml_proc_v2 *)buf)[k].pid;
				used = ((nvml_proc_v2 *)buf)[k].usedGpuMemory;
			}
			kg_gpu_proc *p = &out->procs[out->nprocs++];
			*p = (kg_gpu_proc){.device = i, .pid = pid,
					   .used_bytes = used == NVML_VALUE_NOT_AVAILABLE_ULL ? -1 : (int64_t)used};
			read_comm(proc_root, pid, p->name, sizeof p->name);
		}
		free(buf);
	}
	if (n == 0)
		setnote(out, "NVML found no GPU");
	if (shutdown)
		shutdown();
	dlclose(h);
}

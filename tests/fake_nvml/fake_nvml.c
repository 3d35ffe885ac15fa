/* fake_nvml.c — a stand-in libnvidia-ml.so.1 for tests on machines without
 * a GPU: two devices, three compute processes (one of them the process
 * named by FAKE_NVML_PID, default the caller's parent; "self" is the
 * caller; FAKE_NVML_ONE=1 lists that one alone), the entry points
 * lib/read/nvml.c uses with NVML's documented signatures. FAKE_NVML_FAIL_INIT=1
 * makes nvmlInit_v2 fail as with no driver loaded (NVML_ERROR_DRIVER_NOT_LOADED). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;

static const char *devname[2] = {"Fake GPU A100-SXM4-40GB", "Fake GPU H100 80GB HBM3"};

int nvmlInit_v2(void)
{
	const char *f = getenv("FAKE_NVML_FAIL_INIT");
	return f && *f == '1' ? 9 : 0;
}
int nvmlShutdown(void) { return 0; }
const char *nvmlErrorString(int rc) { return rc == 9 ? "Driver Not Loaded" : "Unknown Error"; }
int nvmlDeviceGetCount_v2(unsigned int *n) { *n = 2; return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **dev)
{
	if (i > 1)
		return 2;
	*dev = (void *)(unsigned long)(i + 1);
	return 0;
}
static int idx(void *dev) { return (int)(unsigned long)dev - 1; }
int nvmlDeviceGetName(void *dev, char *name, unsigned int n)
{
	strncpy(name, devname[idx(dev)], n);
	name[n - 1] = 0;
	return 0;
}
int nvmlDeviceGetUUID(void *dev, char *s, unsigned int n)
{
	strncpy(s, idx(dev) ? "GPU-11111111-2222" : "GPU-00000000-1111", n);
	s[n - 1] = 0;
	return 0;
}
int nvmlDeviceGetMemoryInfo(void *dev, nvmlMemory_t *m)
{
	m->total = idx(dev) ? 85899345920ULL : 42949672960ULL;
	m->used = idx(dev) ? 1073741824ULL : 42845863936ULL;
	m->free = m->total - m->used;
	return 0;
}
int nvmlDeviceGetComputeRunningProcesses_v3(void *dev, unsigned int *n, nvmlProcessInfo_t *p)
{
	const char *one = getenv("FAKE_NVML_ONE");
	unsigned int want = idx(dev) ? 0 : one && *one == '1' ? 1 : 2;
	if (*n < want) {
		*n = want;
		return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
	}
	*n = want;
	if (want) {
		const char *e = getenv("FAKE_NVML_PID");
		unsigned first = !e ? (unsigned)getppid() : !strcmp(e, "self") ? (unsigned)getpid() : (unsigned)atoi(e);
		p[0] = (nvmlProcessInfo_t){.pid = first, .usedGpuMemory = 30064771072ULL};
		if (want > 1)
			p[1] = (nvmlProcessInfo_t){.pid = 999999, .usedGpuMemory = 12884901888ULL};
	}
	return 0;
}

/* nvml.h — GPU memory at a moment, through NVIDIA's management library
 * (NVML), loaded at run time with dlopen("libnvidia-ml.so.1") so the tool
 * builds and runs on machines without a driver. Read-only: the probe never
 * changes a device setting. */
#ifndef KG_NVML_H
#define KG_NVML_H

#include "model/machine.h"

/* Reads every device's memory and compute processes. library: the shared
 * object to dlopen, NULL for "libnvidia-ml.so.1" (found through the dynamic
 * loader's search path, so LD_LIBRARY_PATH applies). proc_root: where to
 * read PID/comm, NULL for "/proc". Calls nvmlInit_v2 … nvmlShutdown each
 * time (about 10–100 ms on a real driver; meant for the moment of an OOM,
 * not for polling). Never fails: without the library, without a driver or
 * GPU, out->available is false and out->note says why in one line
 * ("NVML not available: libnvidia-ml.so.1: cannot open shared object
 * file…", "nvmlInit_v2 failed: Driver Not Loaded"). Release with
* kg_gpu_state_free (model/machine.h). */
void kg_gpu_probe(kg_gpu_state *out, const char *library, const char *proc_root);

#endif

/* readings.h — what `kgmem-diagnose run` reads about the machine at the
 * moment of an OOM, and when: GPU through NVML (read/nvml.h), the cgroup's
 * memory controller and host memory (read/cgroup.h), into a kg_reading
 * (model/run.h). */
#ifndef KG_READINGS_H
#define KG_READINGS_H

#include <stddef.h>
#include <sys/types.h>
#include "model/run.h"

/* Reads GPU, cgroup and host memory now, for process pid (its cgroup; 0
 * for the caller's). nvml_library: NULL for "libnvidia-ml.so.1". Never
 * fails (what could not be read is marked unknown, the GPU part with a
 * note). Release with kg_reading_free (model/run.h). */
void kg_reading_take(kg_reading *e, const char *trigger, long line, pid_t pid,
			 const char *nvml_library);

/* The wall-clock time now, UTC, ISO 8601 with milliseconds
 * ("2026-01-31T12:00:00.123Z"; CLOCK_REALTIME) into buf (40 bytes suffice). */
void kg_time_iso(char *buf, size_t n);

#endif

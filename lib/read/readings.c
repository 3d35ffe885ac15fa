/* readings.c — GPU, cgroup and host memory read at a moment of a wrapped
 * run (include/read/readings.h). */
#include "read/readings.h"
#include "read/cgroup.h"
#include "read/nvml.h"

#include <stdio.h>
#include <time.h>

void kg_time_iso(char *buf, size_t n)
{
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	size_t k = strftime(buf, n, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + k, n - k, ".%03ldZ", ts.tv_nsec / 1000000);
}

void kg_reading_take(kg_reading *e, const char *trigger, long line, pid_t pid,
			 const char *nvml_library)
{
	*e = (kg_reading){.trigger = trigger, .line = line};
	kg_time_iso(e->time, sizeof e->time);
	kg_cgroup_read(&e->cgroup, pid, NULL, NULL);
	kg_host_mem_read(&e->host, NULL);
	kg_gpu_probe(&e->gpu, nvml_library, NULL);
}

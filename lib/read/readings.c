/* readings.c — GPU, cgroup and host memory read at a moment of a wrapped
 * run (include/read/readings.h). */
#include "read/readings.h"
#include "read/cgroup.h"
#include "read/nvml.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void kg_time_iso(char *buf, size_t n)
{
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	size_t k = strftime(buf, n, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + k, n - k, ".%03ldZ", ts.tv_nsec / 1000000);
}

/* Whether pid is self or descends from it: its parents by /proc/PID/stat
 * (proc(5): the fourth field, after the command name in parentheses), at
 * most 64 levels. 1 yes, 0 no, -1 unknown (gone, not in this pid
 * namespace). */
static int8_t descends(int64_t pid, pid_t self)
{
	for (int depth = 0; depth < 64; depth++) {
		if (pid == self)
			return 1;
		if (pid <= 1)
			return 0;
		char path[64], buf[512];
		snprintf(path, sizeof path, "/proc/%lld/stat", (long long)pid);
		FILE *f = fopen(path, "r");
		if (!f)
			return depth ? 0 : -1;
		size_t n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[n] = '\0';
		const char *rp = strrchr(buf, ')');
		long long ppid;
		char state;
		if (!rp || sscanf(rp + 1, " %c %lld", &state, &ppid) != 2)
			return -1;
		pid = ppid;
	}
	return 0;
}

void kg_reading_take(kg_reading *e, const char *trigger, long line, pid_t pid,
			 const char *nvml_library)
{
	*e = (kg_reading){.trigger = trigger, .line = line};
	kg_time_iso(e->time, sizeof e->time);
	kg_cgroup_read(&e->cgroup, pid, NULL, NULL);
	kg_host_mem_read(&e->host, NULL);
	kg_gpu_probe(&e->gpu, nvml_library, NULL);
	/* which of the GPU's processes are this run's: the reader (the
	 * wrapper) and what it started */
	for (size_t i = 0; i < e->gpu.nprocs; i++)
		e->gpu.procs[i].ours = descends(e->gpu.procs[i].pid, getpid());
}

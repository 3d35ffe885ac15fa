/* cgroup.c — cgroup v2 memory controller and /proc/meminfo readings
 * (include/cgroup.h). File formats: Documentation/admin-guide/cgroup-v2.rst
 * (memory.max, memory.current, memory.peak, memory.events) and proc(5)
 * (/proc/PID/cgroup, /proc/meminfo). */
#include "cgroup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One integer file ("123\n"); "max" gives -1. */
static int64_t read_num(const char *dir, const char *file)
{
	char path[1200], buf[64];
	snprintf(path, sizeof path, "%.1100s/%s", dir, file);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int64_t v = -1;
	if (fgets(buf, sizeof buf, f)) {
		char *end;
		long long x = strtoll(buf, &end, 10);
		if (end != buf && x >= 0)
			v = x;
	}
	fclose(f);
	return v;
}

void kg_cgroup_read(kg_cgroup_mem *out, pid_t pid, const char *proc_root, const char *cgroup_root)
{
	*out = (kg_cgroup_mem){.max_bytes = -1, .current_bytes = -1, .peak_bytes = -1,
			       .oom = -1, .oom_kill = -1};
	if (!proc_root)
		proc_root = "/proc";
	if (!cgroup_root)
		cgroup_root = "/sys/fs/cgroup";
	char path[1200], line[1024];
	if (pid > 0)
		snprintf(path, sizeof path, "%s/%d/cgroup", proc_root, (int)pid);
	else
		snprintf(path, sizeof path, "%s/self/cgroup", proc_root);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	bool have = false;
	while (fgets(line, sizeof line, f)) {
		/* cgroup v2: the single "0::/path" line (v1 lines have a
		 * controller list between the colons) */
		if (strncmp(line, "0::", 3) != 0)
			continue;
		line[strcspn(line, "\n")] = 0;
		snprintf(out->path, sizeof out->path, "%.511s", line + 3);
		have = true;
		break;
	}
	fclose(f);
	if (!have)
		return;
	char dir[1100];
	snprintf(dir, sizeof dir, "%.500s%s", cgroup_root, strcmp(out->path, "/") ? out->path : "");
	snprintf(path, sizeof path, "%s/memory.events", dir);
	f = fopen(path, "r");
	if (!f)
		return;
	out->found = true;
	while (fgets(line, sizeof line, f)) {
		char key[64];
		long long v;
		if (sscanf(line, "%63s %lld", key, &v) != 2)
			continue;
		if (!strcmp(key, "oom"))
			out->oom = v;
		else if (!strcmp(key, "oom_kill"))
			out->oom_kill = v;
	}
	fclose(f);
	out->max_bytes = read_num(dir, "memory.max");
	out->current_bytes = read_num(dir, "memory.current");
	out->peak_bytes = read_num(dir, "memory.peak");
}

void kg_host_mem_read(kg_host_mem *out, const char *proc_root)
{
	*out = (kg_host_mem){.total_bytes = -1, .available_bytes = -1,
			     .swap_total_bytes = -1, .swap_free_bytes = -1};
	char path[1024], line[256];
	snprintf(path, sizeof path, "%s/meminfo", proc_root ? proc_root : "/proc");
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		char key[64];
		long long kb;
		if (sscanf(line, "%63[^:]: %lld", key, &kb) != 2 || kb < 0)
			continue;
		int64_t b = (int64_t)kb * 1024;
		if (!strcmp(key, "MemTotal")) { out->total_bytes = b; out->found = true; }
		else if (!strcmp(key, "MemAvailable")) out->available_bytes = b;
		else if (!strcmp(key, "SwapTotal")) out->swap_total_bytes = b;
		else if (!strcmp(key, "SwapFree")) out->swap_free_bytes = b;
	}
	fclose(f);
}

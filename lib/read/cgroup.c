/* cgroup.c — memory cgroup (v2, else v1) and /proc/meminfo readings
 * (include/read/cgroup.h). File formats: Documentation/admin-guide/cgroup-v2.rst
 * (memory.max, memory.current, memory.peak, memory.events),
 * Documentation/admin-guide/cgroup-v1/memory.rst (memory.limit_in_bytes,
 * memory.usage_in_bytes, memory.max_usage_in_bytes, memory.oom_control)
 * and proc(5) (/proc/PID/cgroup, /proc/meminfo). */
#include "read/cgroup.h"

#include <stdint.h>
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

/* "name value" lines (memory.events, memory.oom_control): value of key. */
static int64_t read_key(const char *dir, const char *file, const char *want)
{
	char path[1200], line[256];
	snprintf(path, sizeof path, "%.1100s/%s", dir, file);
	FILE *f = fopen(path, "r");
	if (!f)
		return -2; /* absent: not this hierarchy */
	int64_t v = -1;
	while (fgets(line, sizeof line, f)) {
		char key[64];
		long long x;
		if (sscanf(line, "%63s %lld", key, &x) == 2 && !strcmp(key, want) && x >= 0)
			v = x;
	}
	fclose(f);
	return v;
}

/* The v2 path ("0::/p") or the v1 memory controller's ("N:a,memory,b:/p")
 * from PROC/PID/cgroup into v2/v1 (empty when absent). */
static void cgroup_paths(FILE *f, char *v2, char *v1, size_t n)
{
	char line[1024];
	v2[0] = v1[0] = 0;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		char *c1 = strchr(line, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c1 = *c2 = 0;
		const char *ctl = c1 + 1, *path = c2 + 1;
		if (!strcmp(line, "0") && !*ctl) {
			snprintf(v2, n, "%.511s", path);
			continue;
		}
		/* the controller list, comma separated */
		for (const char *p = ctl; *p;) {
			size_t k = strcspn(p, ",");
			if (k == 6 && !strncmp(p, "memory", 6))
				snprintf(v1, n, "%.511s", path);
			p += k + (p[k] == ',');
		}
	}
}

void kg_cgroup_read(kg_cgroup_mem *out, pid_t pid, const char *proc_root, const char *cgroup_root)
{
	*out = (kg_cgroup_mem){.max_bytes = -1, .current_bytes = -1, .peak_bytes = -1,
			       .oom = -1, .oom_kill = -1};
	if (!proc_root)
		proc_root = "/proc";
	if (!cgroup_root)
		cgroup_root = "/sys/fs/cgroup";
	char path[1200], v2[512], v1[512];
	if (pid > 0)
		snprintf(path, sizeof path, "%s/%d/cgroup", proc_root, (int)pid);
	else
		snprintf(path, sizeof path, "%s/self/cgroup", proc_root);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	cgroup_paths(f, v2, v1, sizeof v2);
	fclose(f);
	char dir[1100];
	if (v2[0]) {
		snprintf(dir, sizeof dir, "%.500s%s", cgroup_root, strcmp(v2, "/") ? v2 : "");
		int64_t kills = read_key(dir, "memory.events", "oom_kill");
		if (kills != -2) {
			out->found = true;
			out->version = 2;
			snprintf(out->path, sizeof out->path, "%s", v2);
			out->oom_kill = kills;
			out->oom = read_key(dir, "memory.events", "oom");
			out->max_bytes = read_num(dir, "memory.max");
			out->current_bytes = read_num(dir, "memory.current");
			out->peak_bytes = read_num(dir, "memory.peak");
			return;
		}
	}
	if (v1[0]) {
		snprintf(dir, sizeof dir, "%.500s/memory%s", cgroup_root, strcmp(v1, "/") ? v1 : "");
		int64_t kills = read_key(dir, "memory.oom_control", "oom_kill");
		if (kills == -2)
			return;
		out->found = true;
		out->version = 1;
		snprintf(out->path, sizeof out->path, "%s", v1);
		out->oom_kill = kills;
		out->max_bytes = read_num(dir, "memory.limit_in_bytes");
		/* v1's "no limit" is the page counter's maximum (PAGE_COUNTER_MAX
		 * × page size, about 2^63 rounded to pages) */
		if (out->max_bytes >= (INT64_C(1) << 62))
			out->max_bytes = -1;
		out->current_bytes = read_num(dir, "memory.usage_in_bytes");
		out->peak_bytes = read_num(dir, "memory.max_usage_in_bytes");
	}
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

/* test_runinfo.c — the readers of run's readings on fake inputs: cgroup v2 files and
 * /proc/meminfo from a temporary tree, NVML from tests/fake_nvml (argv[1]:
 * its path), an absent NVML, and the "run" JSON object. */
#include "tap.h"
#include "read/cgroup.h"
#include "run/runinfo.h"
#include "read/nvml.h"
#include "report/report.h"

#include <cjson/cJSON.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void put(const char *dir, const char *name, const char *text)
{
	char p[1024];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
}

/* mkdir -p ROOT/REL; the path into d. */
static void mkdirs(char *d, size_t n, const char *root, const char *rel)
{
	snprintf(d, n, "%s/%s", root, rel);
	for (char *p = d + strlen(root) + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			mkdir(d, 0755);
			*p = '/';
		}
	mkdir(d, 0755);
}

int main(int argc, char **argv)
{
	char root[] = "/tmp/kg-test-runinfo.XXXXXX";
	if (!mkdtemp(root))
		return 1;
	char proc[600], cg[600], d[900];
	snprintf(proc, sizeof proc, "%s/proc", root);
	snprintf(cg, sizeof cg, "%s/cg", root);
	mkdir(proc, 0755);
	mkdir(cg, 0755);
	mkdirs(d, sizeof d, proc, "42");
	put(d, "cgroup", "0::/job_7/step_0\n");
	put(d, "comm", "python3\n");
	mkdirs(d, sizeof d, cg, "job_7/step_0");
	put(d, "memory.max", "8589934592\n");
	put(d, "memory.current", "8589000000\n");
	put(d, "memory.events", "low 0\nhigh 0\nmax 12\noom 2\noom_kill 1\noom_group_kill 0\n");
	put(proc, "meminfo", "MemTotal:       16384000 kB\nMemFree:  100 kB\nMemAvailable:    1024000 kB\n"
			     "SwapTotal:  0 kB\nSwapFree: 0 kB\n");

	kg_cgroup_mem m;
	kg_cgroup_read(&m, 42, proc, cg);
	TAP_OK(m.found && m.version == 2, "cgroup v2 of pid 42 found");
	TAP_EQ_STR(m.path, "/job_7/step_0", "cgroup path from PROC/42/cgroup");
	TAP_EQ_I64(m.max_bytes, 8589934592LL, "memory.max in bytes");
	TAP_EQ_I64(m.current_bytes, 8589000000LL, "memory.current in bytes");
	TAP_EQ_I64(m.peak_bytes, -1, "memory.peak absent: -1");
	TAP_EQ_I64(m.oom, 2, "memory.events oom");
	TAP_EQ_I64(m.oom_kill, 1, "memory.events oom_kill");

	put(d, "memory.max", "max\n");
	kg_cgroup_read(&m, 42, proc, cg);
	TAP_EQ_I64(m.max_bytes, -1, "memory.max \"max\": -1 (no limit)");

	kg_cgroup_read(&m, 43, proc, cg);
	TAP_OK(!m.found && m.oom_kill == -1, "a process that is gone: not found, unknown numbers");
	mkdirs(d, sizeof d, proc, "44");
	put(d, "cgroup", "12:memory:/user.slice\n1:name=systemd:/user.slice\n");
	kg_cgroup_read(&m, 44, proc, cg);
	TAP_OK(!m.found, "cgroup v1 without its memory hierarchy: not found");

	/* cgroup v1: the memory controller's own line and hierarchy */
	mkdirs(d, sizeof d, proc, "45");
	put(d, "cgroup", "12:cpu,cpuacct:/slurm/uid_0/job_9\n4:memory:/slurm/uid_0/job_9\n0::/\n");
	mkdirs(d, sizeof d, cg, "memory/slurm/uid_0/job_9");
	put(d, "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n");
	put(d, "memory.limit_in_bytes", "4294967296\n");
	put(d, "memory.usage_in_bytes", "4294000000\n");
	put(d, "memory.max_usage_in_bytes", "4294967296\n");
	kg_cgroup_read(&m, 45, proc, cg);
	TAP_OK(m.found && m.version == 1, "cgroup v1 memory controller found (the v2 root has no memory.events)");
	TAP_EQ_STR(m.path, "/slurm/uid_0/job_9", "v1 path from the memory line");
	TAP_EQ_I64(m.oom_kill, 3, "v1 memory.oom_control oom_kill");
	TAP_EQ_I64(m.max_bytes, 4294967296LL, "v1 memory.limit_in_bytes");
	TAP_EQ_I64(m.peak_bytes, 4294967296LL, "v1 memory.max_usage_in_bytes");
	TAP_EQ_I64(m.oom, -1, "v1: no oom count");
	put(d, "memory.limit_in_bytes", "9223372036854771712\n");
	kg_cgroup_read(&m, 45, proc, cg);
	TAP_EQ_I64(m.max_bytes, -1, "v1 unlimited (page counter maximum): -1");

	kg_host_mem h;
	kg_host_mem_read(&h, proc);
	TAP_OK(h.found, "meminfo read");
	TAP_EQ_I64(h.total_bytes, 16384000LL * 1024, "MemTotal kB → bytes");
	TAP_EQ_I64(h.available_bytes, 1024000LL * 1024, "MemAvailable kB → bytes");
	TAP_EQ_I64(h.swap_total_bytes, 0, "SwapTotal");
	kg_host_mem_read(&h, "/nonexistent");
	TAP_OK(!h.found && h.total_bytes == -1, "no meminfo: not found, unknown");

	kg_gpu_state g;
	kg_gpu_probe(&g, "/nonexistent/libnvidia-ml.so.1", proc);
	TAP_OK(!g.available, "absent NVML: not available");
	TAP_OK(strstr(g.note, "NVML not available") != NULL, "absent NVML: the note says so");
	TAP_EQ_I64((long long)g.ndevices, 0, "absent NVML: no devices");

	if (argc > 1) {
		setenv("FAKE_NVML_PID", "42", 1);
		kg_gpu_probe(&g, argv[1], proc);
		TAP_OK(g.available, "fake NVML: available");
		TAP_EQ_I64((long long)g.ndevices, 2, "fake NVML: 2 devices");
		TAP_EQ_STR(g.devices[0].name, "Fake GPU A100-SXM4-40GB", "nvmlDeviceGetName");
		TAP_EQ_I64(g.devices[0].total_bytes, 42949672960LL, "nvmlDeviceGetMemoryInfo total");
		TAP_EQ_I64(g.devices[0].used_bytes, 42845863936LL, "nvmlDeviceGetMemoryInfo used");
		TAP_EQ_I64((long long)g.nprocs, 2, "compute processes (after NVML_ERROR_INSUFFICIENT_SIZE)");
		TAP_EQ_I64(g.procs[0].pid, 42, "process pid");
		TAP_EQ_STR(g.procs[0].name, "python3", "process name from PROC/42/comm");
		TAP_EQ_I64(g.procs[0].used_bytes, 30064771072LL, "process usedGpuMemory");
		TAP_EQ_STR(g.procs[1].name, "", "a pid with no /proc entry: empty name");
		kg_gpu_state_free(&g);

		setenv("FAKE_NVML_FAIL_INIT", "1", 1);
		kg_gpu_probe(&g, argv[1], proc);
		TAP_OK(!g.available && strstr(g.note, "Driver Not Loaded"), "nvmlInit_v2 failure: note with nvmlErrorString");
		unsetenv("FAKE_NVML_FAIL_INIT");
		kg_gpu_state_free(&g);
	} else {
		TAP_OK(1, "# SKIP fake NVML library not given");
	}

	/* the "run" object and the notes */
	kg_reading ev = {.trigger = "oom-message", .line = 7};
	snprintf(ev.time, sizeof ev.time, "2026-01-01T00:00:00.000Z");
	kg_gpu_probe(&ev.gpu, "/nonexistent/libnvidia-ml.so.1", proc);
	kg_cgroup_read(&ev.cgroup, 42, proc, cg);
	kg_host_mem_read(&ev.host, proc);
	char *cmd[] = {"python3", "train.py"};
	char *labels[] = {"job=7", "rank=0"};
	kg_run_info ri = {.argv = cmd, .argc = 2, .pid = 42, .exit_code = -1, .signal = SIGKILL,
			  .labels = labels, .nlabels = 2, .oom_kill_before = 0, .oom_kill_after = 1,
			  .readings = &ev, .nreadings = 1};
	kg_report rep;
	kg_report_init(&rep);
	kg_run_attach(&rep, &ri);
	TAP_OK(rep.run != NULL && rep.run->argv != ri.argv && !strcmp(rep.run->argv[1], "train.py"),
	       "rep.run holds its own copy");
	cJSON *tree = kg_report_to_json(&rep);
	cJSON *run = cJSON_GetObjectItem(tree, "run");
	TAP_OK(run != NULL, "JSON report has a top-level \"run\"");
	TAP_EQ_STR(cJSON_GetObjectItem(run, "signal")->valuestring, "SIGKILL", "signal name");
	TAP_OK(cJSON_IsNull(cJSON_GetObjectItem(run, "exit_code")), "exit_code null when killed");
	TAP_EQ_STR(cJSON_GetObjectItem(run, "oom_kill_during_run")->valuestring, "1", "oom_kill_during_run (raw integer)");
	TAP_EQ_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(run, "labels"), "job")->valuestring, "7", "labels");
	cJSON *e0 = cJSON_GetArrayItem(cJSON_GetObjectItem(run, "readings"), 0);
	TAP_OK(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(e0, "gpu"), "available")), "readings[0].gpu.available false");
	char *s = cJSON_PrintUnformatted(run);
	TAP_OK(strstr(s, "\"memory_max_bytes\":null") && strstr(s, "\"oom_kill\":1"), "cgroup in the reading");
	cJSON_free(s);
	bool said_nvml = false, said_host = false;
	for (size_t i = 0; i < rep.nnotes; i++) {
		said_nvml |= strstr(rep.notes[i], "NVML not available") != NULL;
		said_host |= strstr(rep.notes[i], "OOM killer fired 1 time") != NULL;
	}
	TAP_OK(said_nvml, "a note says NVML was not available");
	TAP_OK(said_host, "a note says the kernel's OOM killer fired");
	cJSON_Delete(tree);
	char *line = NULL;
	size_t n = 0;
	FILE *ms = open_memstream(&line, &n);
	kg_report_json_line(&rep, ms);
	fclose(ms);
	TAP_OK(n > 2 && line[n - 1] == '\n' && !memchr(line, '\n', n - 1) && strstr(line, "\"run\":{"),
	       "kg_report_json_line: one line with the run");
	free(line);
	kg_report_free(&rep);
	kg_reading_free(&ev);

	char cmdline[700];
	snprintf(cmdline, sizeof cmdline, "rm -rf '%s'", root);
	if (system(cmdline) != 0)
		return 1;
	return tap_done();
}

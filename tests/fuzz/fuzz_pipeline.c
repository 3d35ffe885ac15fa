/* fuzz_pipeline.c — libFuzzer harness for the whole diagnosis (issue 14):
 * any log plus any config through kg_diagnose (--diff, the shipped rules),
 * then every output format. The input is a log, optionally followed by
 * FUZZ_CONFIG_SEP and a config; both are handed over as /proc/self/fd/N
 * paths of memfds, as files would be.
 *
 * Checks beyond "no crash, no hang, no leak": every format, made valid
 * UTF-8 the way the CLI does (kg_utf8_repair), is valid UTF-8 and keeps
 * every valid byte; JSON and SARIF parse; a failure has a reason. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "run/pipeline.h"
#include "kg_build.h"
#include "report/report.h"
#include "report/report_ci.h"
#include "model/util.h"

#define FUZZ_CONFIG_SEP "\n--- kgmem-fuzz config ---\n"

static int memfd_path(const void *data, size_t size, const char *name, char *path, size_t n)
{
	int fd = memfd_create(name, MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, n, "/proc/self/fd/%d", fd);
	return fd;
}

static bool valid_utf8(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		if ((unsigned char)s[i] < 0x80) {
			i++;
			continue;
		}
		size_t len = kg_utf8_len((const unsigned char *)s + i, n - i, false);
		if (!len)
			return false;
		i += len;
	}
	return true;
}

enum { F_TEXT, F_JSON, F_MARKDOWN, F_GITHUB, F_SARIF, F_N };

static void check_format(const kg_report *rep, int f)
{
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	if (!m)
		abort();
	kg_text_style st = {.color = f == F_TEXT && len % 2, .diff = true};
	switch (f) {
	case F_TEXT: kg_report_text(rep, m, &st); break;
	case F_JSON: kg_report_json(rep, m); break;
	case F_MARKDOWN: kg_report_markdown(rep, m); break;
	case F_GITHUB: kg_report_github(rep, m); break;
	case F_SARIF: kg_report_sarif(rep, NULL, 0, m); break;
	}
	if (fclose(m) != 0)
		abort();
	size_t cn = 0;
	char *clean = kg_utf8_repair(out, len, &cn);
	if (!valid_utf8(clean, cn))
		abort(); /* the repair missed an invalid sequence */
	if (valid_utf8(out, len) && (cn != len || memcmp(out, clean, len) != 0))
		abort(); /* the repair changed valid text */
	if (f == F_JSON || f == F_SARIF) {
		cJSON *doc = cJSON_ParseWithLength(clean, cn);
		if (!doc)
			abort(); /* the JSON report does not parse */
		cJSON_Delete(doc);
	}
	free(clean);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool once;
	if (!once) {
		setenv("KGMEM_RULES_PATH", KG_SOURCE_RULES_DIR, 0);
		once = true;
	}
	if (size > 262144)
		size = 262144;
	const uint8_t *sep = memmem(data, size, FUZZ_CONFIG_SEP, strlen(FUZZ_CONFIG_SEP));
	size_t loglen = sep ? (size_t)(sep - data) : size;
	char lpath[64], cpath[64];
	int lfd = memfd_path(data, loglen, "log", lpath, sizeof lpath);
	int cfd = -1;
	const char *configs[1] = {cpath};
	if (sep) {
		size_t off = loglen + strlen(FUZZ_CONFIG_SEP);
		cfd = memfd_path(data + off, size - off, "config", cpath, sizeof cpath);
	}
	const char *paths[1] = {lpath};
	kg_options opt = {.configs = sep ? configs : NULL, .nconfigs = sep ? 1 : 0,
			  .format = "json", .diff = true, .progress = 0};
	kg_report rep;
	kg_report_init(&rep);
	kg_error err = {0};
	enum kg_status st = kg_diagnose(paths, 1, &opt, &rep, &err);
	if (st != KG_STATUS_OK && (!err.msg[0] || !err.path[0]))
		abort(); /* a failure without a reason or a culprit */
	for (int f = 0; f < F_N; f++)
		check_format(&rep, f);
	kg_report_free(&rep);
	close(lfd);
	if (cfd >= 0)
		close(cfd);
	return 0;
}

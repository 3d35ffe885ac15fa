/* test_ci_formats.c — --format github, sarif and markdown on the seed-004
 * fixture (test_ci_formats_fixture.h).
 *
 *   test_ci_formats                 TAP checks
 *   test_ci_formats --emit FORMAT   prints the fixture in FORMAT (github,
 *                                   sarif, markdown) for the validator
 *                                   script test_ci_formats_sarif.sh */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_ci.h"
#include "tap.h"
#include "test_ci_formats_fixture.h"

typedef void (*printer)(const kg_report *, FILE *);

static void sarif_plain(const kg_report *r, FILE *out) { kg_report_sarif(r, NULL, 0, out); }

static char *capture(printer fn, const kg_report *r)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	fn(r, f);
	fclose(f);
	return buf;
}

/* The runner's unescaping (actions/runner ActionCommand.cs: %0D, %0A, %3A,
 * %2C, then %25), to check that what we print decodes to what we meant. */
static char *runner_unescape(const char *s, size_t n)
{
	static const struct { const char *esc; char c; } tab[] = {
		{"%0D", '\r'}, {"%0A", '\n'}, {"%3A", ':'}, {"%2C", ','},
	};
	kg_buf b = {0};
	kg_buf_append(&b, s, n);
	for (size_t t = 0; t <= 4; t++) {
		const char *esc = t < 4 ? tab[t].esc : "%25";
		char c = t < 4 ? tab[t].c : '%';
		kg_buf o = {0};
		kg_buf_puts(&o, "");
		for (const char *p = b.data; *p;) {
			if (strncmp(p, esc, 3) == 0) {
				kg_buf_putc(&o, c);
				p += 3;
			} else {
				kg_buf_putc(&o, *p++);
			}
		}
		kg_buf_free(&b);
		b = o;
	}
	return kg_buf_steal(&b);
}

/* Splits "::cmd k=v,k=v::data" as the runner does and returns the
 * unescaped value of property key (or the data when key is NULL). */
static char *gh_field(const char *line, const char *key)
{
	const char *props = strchr(line + 2, ' ');
	const char *sep = strstr(line + 2, "::");
	if (!sep)
		return NULL;
	if (!key)
		return runner_unescape(sep + 2, strcspn(sep + 2, "\n"));
	if (!props || props > sep)
		return NULL;
	for (const char *p = props + 1; p < sep;) {
		size_t len = strcspn(p, ",:");
		const char *eq = memchr(p, '=', len);
		if (eq && (size_t)(eq - p) == strlen(key) && strncmp(p, key, strlen(key)) == 0)
			return runner_unescape(eq + 1, len - (size_t)(eq + 1 - p));
		p += len + 1;
	}
	return NULL;
}

static void test_escapes(void)
{
	char *d = kg_gh_escape_data("50% of a:b,c\r\nnext %0A");
	TAP_EQ_STR(d, "50%25 of a:b,c%0D%0Anext %250A", "data escape: %% CR LF only");
	char *p = kg_gh_escape_property("50% of a:b,c\r\nnext %0A");
	TAP_EQ_STR(p, "50%25 of a%3Ab%2Cc%0D%0Anext %250A", "property escape adds : and ,");
	char *back = runner_unescape(p, strlen(p));
	TAP_EQ_STR(back, "50% of a:b,c\r\nnext %0A", "property escape round-trips through the runner");
	free(d);
	free(p);
	free(back);
}

static void test_github(const kg_report *r)
{
	char *out = capture(kg_report_github, r);
	char *lines[16] = {0};
	int n = 0;
	for (char *s = strtok(out, "\n"); s && n < 16; s = strtok(NULL, "\n"))
		lines[n++] = s;
	/* one annotation per incident, however many findings it has (the
	 * first incident has two: it used to give two annotations) */
	TAP_EQ_I64(n, 4, "github: 2 incidents -> 2 annotations + 1 note + summary, one line each");
	if (n != 4) {
		free(out);
		return;
	}
	TAP_EQ_STR(lines[0],
		   "::error file=runs/trial%2C7%3Agpu0/tune.log,line=4242,"
		   "title=CUDA out of memory%3A tried to allocate 16.00 MiB on cuda%3A0 "
		   "(during backward%2C step 120) [fragmentation%2C low confidence]::"
		   "1.41 GiB is reserved by PyTorch but "
		   "unallocated, more than the 16.00 MiB requested, yet no cached block was large "
		   "enough.%0Ahelp: Let the allocator grow segments instead of stranding free blocks: "
		   "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"
		   "%0A= 1.41 GiB reserved but unallocated >= 16.00 MiB requested"
		   "%0Aalso: Parallel trials share one device [parallelism.parallel-trials]",
		   "github: the incident's one annotation: headline and verdict as title, the cause's "
		   "finding, the action as the text report words it, its evidence, the other finding "
		   "by title (its remedy, for another hypothesis, not offered)");
	char *file = gh_field(lines[0], "file"), *line = gh_field(lines[0], "line");
	char *title = gh_field(lines[0], "title"), *data = gh_field(lines[0], NULL);
	char *want = kg_ci_incident_text(&r->incidents[0]);
	TAP_EQ_STR(file, FIXTURE_LOG, "github: file property decodes to the path");
	TAP_EQ_STR(line, "4242", "github: line property");
	TAP_EQ_STR(title, "CUDA out of memory: tried to allocate 16.00 MiB on cuda:0 (during backward, "
		   "step 120) [fragmentation, low confidence]", "github: title property decodes");
	TAP_EQ_STR(data, want, "github: message decodes to the incident's text exactly");
	free(file);
	free(line);
	free(title);
	free(data);
	free(want);
	TAP_EQ_STR(lines[1], "::warning title=TensorFlow allocator ran out of memory (retried%2C not fatal)%3A "
		   "tried to allocate 2.15 GiB [cause undetermined]::"
		   "TensorFlow allocator ran out of memory (retried, not fatal): tried to allocate 2.15 GiB",
		   "github: incident without findings -> ::warning (its own severity), no file for stdin");
	TAP_OK(strncmp(lines[2], "::notice title=kgmem-diagnose input note::line 9001 of runs/trial,7:gpu0/", 72) == 0,
	       "github: input note as ::notice");
	TAP_EQ_STR(lines[3], "kgmem-diagnose: 2 incidents, 1 error, 1 warning, 0 infos", "github: summary line (incidents by severity)");
	free(out);
}

static const char *str_at(const cJSON *o, const char *path)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", path);
	const cJSON *cur = o;
	for (char *k = strtok(buf, "."); k && cur; k = strtok(NULL, "."))
		cur = (*k >= '0' && *k <= '9') ? cJSON_GetArrayItem(cur, atoi(k)) : cJSON_GetObjectItem(cur, k);
	return cJSON_GetStringValue(cur);
}

static void test_sarif(const kg_report *r)
{
	char *out = capture(sarif_plain, r);
	cJSON *doc = cJSON_Parse(out);
	TAP_OK(doc != NULL, "sarif: parses as JSON");
	if (!doc) {
		free(out);
		return;
	}
	TAP_EQ_STR(str_at(doc, "version"), "2.1.0", "sarif: version 2.1.0");
	TAP_OK(str_at(doc, "$schema") && strstr(str_at(doc, "$schema"), "sarif-schema-2.1.0.json"),
	       "sarif: $schema names sarif-schema-2.1.0.json");
	TAP_EQ_STR(str_at(doc, "runs.0.tool.driver.name"), "kgmem-diagnose", "sarif: driver name");
	TAP_OK(str_at(doc, "runs.0.tool.driver.version") && str_at(doc, "runs.0.tool.driver.informationUri"),
	       "sarif: driver version and informationUri");
	const cJSON *run = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "runs"), 0);
	const cJSON *rules = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(run, "tool"), "driver"), "rules");
	const cJSON *results = cJSON_GetObjectItem(run, "results");
	TAP_EQ_I64(cJSON_GetArraySize(rules), 2, "sarif: one rule per rule id a result names");
	TAP_EQ_I64(cJSON_GetArraySize(results), 2, "sarif: one result per incident, however many findings");
	int bad_index = 0, bad_level = 0, no_text = 0;
	const cJSON *res;
	cJSON_ArrayForEach(res, results) {
		int idx = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(res, "ruleIndex"));
		const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(res, "ruleId"));
		const char *rid = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(rules, idx), "id"));
		bad_index += !id || !rid || strcmp(id, rid) != 0;
		const char *lv = cJSON_GetStringValue(cJSON_GetObjectItem(res, "level"));
		bad_level += !lv || (strcmp(lv, "error") && strcmp(lv, "warning"));
		no_text += !cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "message"), "text"));
	}
	TAP_EQ_I64(bad_index, 0, "sarif: every ruleIndex points at its ruleId");
	TAP_EQ_I64(bad_level, 0, "sarif: every level is the incident's severity, error or warning");
	TAP_EQ_I64(no_text, 0, "sarif: every result has message.text");
	TAP_EQ_STR(str_at(results, "0.ruleId"), "fragmentation.reserved-unallocated",
		   "sarif: the incident stands under the finding that states its cause");
	TAP_EQ_STR(str_at(results, "0.level"), "error", "sarif: an OOM that ended the run -> error");
	TAP_EQ_STR(str_at(results, "1.level"), "warning", "sarif: a retried allocator failure -> warning");
	TAP_EQ_STR(str_at(results, "1.ruleId"), "oom-warning", "sarif: an incident without findings stands under its kind");
	TAP_EQ_STR(str_at(results, "0.properties.cause"), "fragmentation", "sarif: properties.cause");
	TAP_EQ_STR(str_at(results, "0.properties.action"),
		   "Let the allocator grow segments instead of stranding free blocks: "
		   "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
		   "sarif: properties.action is the text report's line 2");
	TAP_EQ_STR(str_at(results, "0.properties.findings.1.rule"), "parallelism.parallel-trials",
		   "sarif: the other finding in properties.findings");
	TAP_EQ_STR(str_at(results, "0.properties.findings.1.severity"), "info",
		   "sarif: … at info, evidence for a hypothesis that is not the verdict");
	const char *msg = str_at(results, "0.message.text");
	TAP_OK(msg && !strncmp(msg, "CUDA out of memory: tried to allocate 16.00 MiB on cuda:0 (during backward, "
			       "step 120) [fragmentation, low confidence]\n", 103) &&
	       strstr(msg, "\nalso: Parallel trials share one device [parallelism.parallel-trials]"),
	       "sarif: the message: the verdict line, then the annotation's text with the other finding");
	TAP_EQ_STR(str_at(results, "0.locations.0.physicalLocation.artifactLocation.uri"),
		   "runs/trial,7:gpu0/tune.log", "sarif: uri keeps RFC 3986 sub-delims and ':'");
	const cJSON *line = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
		cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(results, 0), "locations"), 0),
		"physicalLocation"), "region"), "startLine");
	TAP_EQ_I64(cJSON_GetNumberValue(line), 4242, "sarif: region.startLine");
	TAP_EQ_STR(str_at(results, "1.locations.0.physicalLocation.artifactLocation.uri"), "stdin",
		   "sarif: a stdin incident is still located (GitHub rejects a result without one)");
	TAP_EQ_STR(str_at(rules, "0.defaultConfiguration.level"), "error", "sarif: rule default level");
	TAP_EQ_STR(str_at(rules, "0.properties.tags.0"), "fragmentation", "sarif: rule category as tag");
	TAP_EQ_STR(str_at(run, "invocations.0.toolExecutionNotifications.0.level"), "warning",
		   "sarif: input note as a tool notification");
	cJSON_Delete(doc);
	free(out);

	/* Rules from the rule files come first, in their order; unseen ones stay. */
	kg_ci_rule set[] = {
		{"capacity.shortfall", "Real shortfall", "capacity", KG_SEV_ERROR},
		{"fragmentation.reserved-unallocated", "Cached memory could have served the request", "fragmentation",
		 KG_SEV_ERROR},
	};
	doc = kg_report_to_sarif(r, set, 2);
	run = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "runs"), 0);
	rules = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(run, "tool"), "driver"), "rules");
	TAP_EQ_I64(cJSON_GetArraySize(rules), 3, "sarif: rule set + ids seen outside it");
	TAP_EQ_STR(str_at(rules, "0.id"), "capacity.shortfall", "sarif: rule-set order kept");
	TAP_EQ_I64(cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetArrayItem(
		cJSON_GetObjectItem(run, "results"), 0), "ruleIndex")), 1,
		"sarif: result indexes the rule-set entry");
	cJSON_Delete(doc);

	char *u = kg_path_to_uri("/var/log/my run#1/é.log");
	TAP_EQ_STR(u, "file:///var/log/my%20run%231/%C3%A9.log", "sarif: absolute path -> file URI, percent-encoded");
	free(u);
	u = kg_path_to_uri("c:x/y.log");
	TAP_EQ_STR(u, "c%3Ax/y.log", "sarif: ':' in a relative first segment is encoded");
	free(u);
}

static int count_unescaped_pipes(const char *s, size_t n)
{
	int c = 0;
	for (size_t i = 0; i < n; i++)
		c += s[i] == '|' && (i == 0 || s[i - 1] != '\\');
	return c;
}

static void test_markdown(const kg_report *r)
{
	char *out = capture(kg_report_markdown, r);
	TAP_OK(strncmp(out, "## kgmem-diagnose: 2 OOM incidents — 1 error, 1 warning, 0 infos\n", 67) == 0,
	       "markdown: heading with counts");
	const char *hdr = strstr(out, "\n| # | location |");
	const char *sep = hdr ? strstr(hdr + 1, "\n|--:|") : NULL;
	TAP_OK(hdr && sep, "markdown: table header and delimiter row");
	int rows = 0, bad_cells = 0;
	if (sep) {
		const char *p = strchr(sep + 1, '\n') + 1;
		while (*p == '|') {
			const char *e = strchr(p, '\n');
			rows++;
			bad_cells += count_unescaped_pipes(p, (size_t)(e - p)) != 11;
			p = e + 1;
		}
	}
	TAP_EQ_I64(rows, 2, "markdown: one table row per incident");
	TAP_EQ_I64(bad_cells, 0, "markdown: every row has exactly 10 cells");
	TAP_OK(strstr(out, "| 1 | `runs/trial,7:gpu0/tune.log:4242` | cuda:0 | – | 120 | backward | "
			   "**fragmentation** (low) | error | 16.00 MiB | 33.56 MiB / 23.56 GiB |\n") != NULL,
	       "markdown: first row");
	TAP_OK(strstr(out, "| 2 | `<stdin>:17` | – | – | – | – | undetermined | warning | 2.15 GiB | – |\n") != NULL,
	       "markdown: undiagnosed stdin row");
	TAP_OK(strstr(out, "### Incident 1 — `runs/trial,7:gpu0/tune.log:4242` — error: fragmentation, low confidence\n") &&
	       strstr(out, "### Incident 2 — `<stdin>:17` — warning: cause undetermined\n"),
	       "markdown: one section per incident, its severity and verdict in the heading");
	TAP_OK(strstr(out, "**What to do:** Let the allocator grow segments instead of stranding free blocks: "
			   "PYTORCH\\_CUDA\\_ALLOC\\_CONF=expandable\\_segments:True\n") != NULL,
	       "markdown: the action, as the text report's line 2");
	TAP_OK(strstr(out, "    - **info** Parallel trials share one device `parallelism.parallel-trials`") != NULL &&
	       !strstr(out, "**warning** Parallel trials"),
	       "markdown: a finding for another hypothesis is shown as info");
	TAP_OK(strstr(out, "\n````text\ntorch.OutOfMemoryError: CUDA out of memory.") != NULL &&
	       strstr(out, "See ```docs``` | here\n````\n") != NULL,
	       "markdown: OOM text in a fence longer than its backtick runs");
	TAP_OK(strstr(out, "`PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`") != NULL,
	       "markdown: env remedy as code");
	TAP_OK(strstr(out, "set `n_jobs`") == NULL && strstr(out, "Run as many trials as fit") == NULL,
	       "markdown: the remedy of a finding for another hypothesis is not offered");
	TAP_OK(strstr(out, "97% in use.  \nEach trial") != NULL, "markdown: CRLF -> one hard break");
	TAP_OK(strstr(out, "followed by device-side-assert at line 4250") != NULL, "markdown: follow-up as consequence");
	TAP_OK(strstr(out, "`configs/tune.yaml`:\n\n```diff\n--- a/configs/tune.yaml\n+++ b/configs/tune.yaml\n"
			   "@@ -3,1 +3,1 @@\n-n_jobs: 4\n+n_jobs: 3\n```\n") != NULL,
	       "markdown: patch in a diff fence");
	TAP_OK(strstr(out, "### Notes on the input\n\n- line 9001 of runs/trial,7:gpu0/tune.log") != NULL,
	       "markdown: input notes");
	free(out);
}

int main(int argc, char **argv)
{
	kg_report r;
	fixture_report(&r);
	if (argc == 3 && strcmp(argv[1], "--emit") == 0) {
		printer fn = !strcmp(argv[2], "github") ? kg_report_github
			   : !strcmp(argv[2], "sarif") ? sarif_plain
			   : !strcmp(argv[2], "markdown") ? kg_report_markdown : NULL;
		if (!fn)
			return 2;
		fn(&r, stdout);
		kg_report_free(&r);
		return 0;
	}
	test_escapes();
	test_github(&r);
	test_sarif(&r);
	test_markdown(&r);
	kg_report_free(&r);
	return tap_done();
}

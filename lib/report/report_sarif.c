/* report_sarif.c — --format sarif: Static Analysis Results Interchange
 * Format 2.1.0 (OASIS Standard, sarif-schema-2.1.0.json), the format GitHub
 * code scanning and most CI dashboards import. All JSON through cJSON. */
#include "report/report_ci.h"
#include "diagnose/differential.h"
#include "kg_build.h"
#include "model/util.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#define SARIF_SCHEMA "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

static const char *level(enum kg_severity s)
{
	/* SARIF's levels "error" and "warning" are our severity words */
	return s >= KG_SEV_WARNING ? kg_severity_name(s) : "note";
}

char *kg_path_to_uri(const char *path)
{
	static const char keep[] = "-._~/!$&'()*+,;=:@";
	kg_buf b = {0};
	kg_buf_puts(&b, path[0] == '/' ? "file://" : "");
	bool first_segment = path[0] != '/';
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (*p == '/')
			first_segment = false;
		/* RFC 3986 §4.2: a ':' in a relative reference's first segment
		 * would read as a scheme. */
		if (*p == ':' && first_segment)
			kg_buf_puts(&b, "%3A");
		else if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || (*p && strchr(keep, *p)))
			kg_buf_putc(&b, (char)*p);
		else
			kg_buf_printf(&b, "%%%02X", *p);
	}
	return kg_buf_steal(&b);
}

static cJSON *text_obj(const char *text)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "text", text);
	return o;
}

/* A reportingDescriptor (SARIF §3.49) for one rule. */
static cJSON *descriptor(const char *id, const char *title, const char *category,
			 enum kg_severity sev)
{
	cJSON *d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "id", id);
	cJSON_AddItemToObject(d, "shortDescription", text_obj(title && *title ? title : id));
	cJSON *conf = cJSON_AddObjectToObject(d, "defaultConfiguration");
	cJSON_AddStringToObject(conf, "level", level(sev));
	if (category) {
		cJSON *props = cJSON_AddObjectToObject(d, "properties");
		cJSON *tags = cJSON_AddArrayToObject(props, "tags");
		cJSON_AddItemToArray(tags, cJSON_CreateString(category));
	}
	return d;
}

static int rule_index(cJSON *rules, const char *id)
{
	int i = 0;
	cJSON *d;
	cJSON_ArrayForEach(d, rules) {
		if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(d, "id")), id) == 0)
			return i;
		i++;
	}
	return -1;
}

static bool is_stdin(const char *path)
{
	return !path || !*path || strcmp(path, "<stdin>") == 0 || strcmp(path, "-") == 0;
}

/* The artifact URI of an input: its path, or "stdin" for a log read from
 * standard input without --stdin-filename (GitHub code scanning rejects a
 * result without a location, so every result has one; a note says how to
 * name it). Malloc'd. */
static char *artifact_uri(const char *path)
{
	return kg_path_to_uri(is_stdin(path) ? "stdin" : path);
}

static void add_int_or_null(cJSON *o, const char *key, int64_t v)
{
	if (v == KG_NONE)
		return;
	cJSON_AddNumberToObject(o, key, (double)v);
}

cJSON *kg_report_to_sarif(const kg_report *r, const kg_ci_rule *rules, size_t nrules)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "$schema", SARIF_SCHEMA);
	cJSON_AddStringToObject(doc, "version", "2.1.0");
	cJSON *run = cJSON_CreateObject();
	cJSON_AddItemToArray(cJSON_AddArrayToObject(doc, "runs"), run);

	cJSON *driver = cJSON_AddObjectToObject(cJSON_AddObjectToObject(run, "tool"), "driver");
	cJSON_AddStringToObject(driver, "name", "kgmem-diagnose");
	cJSON_AddStringToObject(driver, "version", KG_VERSION);
	cJSON_AddStringToObject(driver, "semanticVersion", KG_VERSION);
	cJSON_AddStringToObject(driver, "informationUri", KG_HOMEPAGE);
	cJSON *jrules = cJSON_AddArrayToObject(driver, "rules");
	for (size_t i = 0; i < nrules; i++)
		if (rule_index(jrules, rules[i].id) < 0)
			cJSON_AddItemToArray(jrules, descriptor(rules[i].id, rules[i].title,
								rules[i].category, rules[i].severity));

	/* Inputs as artifacts; results point at them by index. */
	cJSON *artifacts = cJSON_CreateArray();
	bool from_stdin = false;
	for (size_t i = 0; i < r->ninputs; i++) {
		from_stdin |= is_stdin(r->inputs[i].name);
		cJSON *a = cJSON_CreateObject();
		char *uri = artifact_uri(r->inputs[i].name);
		cJSON_AddStringToObject(cJSON_AddObjectToObject(a, "location"), "uri", uri);
		free(uri);
		if (r->inputs[i].bytes >= 0 && !r->inputs[i].gzip)
			cJSON_AddNumberToObject(a, "length", (double)r->inputs[i].bytes);
		cJSON_AddItemToArray(cJSON_AddArrayToObject(a, "roles"),
				     cJSON_CreateString("analysisTarget"));
		cJSON_AddItemToArray(artifacts, a);
	}
	if (cJSON_GetArraySize(artifacts))
		cJSON_AddItemToObject(run, "artifacts", artifacts);
	else
		cJSON_Delete(artifacts);

	/* one result per incident: its verdict at its severity, the other
	 * findings in the message and in properties.findings */
	cJSON *results = cJSON_AddArrayToObject(run, "results");
	for (size_t i = 0; i < r->nincidents; i++) {
		const kg_incident *inc = &r->incidents[i];
		const kg_finding *rf = NULL;
		const char *rule = kg_ci_incident_rule(inc, &rf);
		enum kg_severity sev = kg_incident_severity(inc);
		int idx = rule_index(jrules, rule);
		if (idx < 0) {
			cJSON_AddItemToArray(jrules, descriptor(rule, rf ? rf->title : kg_ci_kind_title(inc),
								rf ? rf->category : NULL, sev));
			idx = cJSON_GetArraySize(jrules) - 1;
		}
		cJSON *res = cJSON_CreateObject();
		cJSON_AddStringToObject(res, "ruleId", rule);
		cJSON_AddNumberToObject(res, "ruleIndex", idx);
		cJSON_AddStringToObject(res, "level", level(sev));
		/* the text report's line 1 without its place, then the text the
		 * GitHub annotation carries */
		char verdict[96];
		char *head = kg_incident_headline(inc, KG_HEADLINE_TIME);
		char *body = kg_ci_incident_text(inc);
		char *text = kg_asprintf("%s [%s]\n%s", head, kg_incident_verdict(inc, verdict, sizeof verdict), body);
		cJSON_AddItemToObject(res, "message", text_obj(text));
		free(head);
		free(body);
		free(text);
		cJSON *loc = cJSON_CreateObject();
		cJSON *phys = cJSON_AddObjectToObject(loc, "physicalLocation");
		char *uri = artifact_uri(inc->path);
		cJSON_AddStringToObject(cJSON_AddObjectToObject(phys, "artifactLocation"), "uri", uri);
		free(uri);
		if (inc->line > 0)
			cJSON_AddNumberToObject(cJSON_AddObjectToObject(phys, "region"),
						"startLine", (double)inc->line);
		cJSON_AddItemToArray(cJSON_AddArrayToObject(res, "locations"), loc);
		cJSON *props = cJSON_AddObjectToObject(res, "properties");
		cJSON_AddNumberToObject(props, "incident", inc->id);
		if (inc->cause)
			cJSON_AddStringToObject(props, "cause", inc->cause);
		if (inc->confidence)
			cJSON_AddStringToObject(props, "confidence", inc->confidence);
		if (inc->mode)
			cJSON_AddStringToObject(props, "mode", inc->mode);
		const kg_finding *af = kg_incident_action_finding(inc);
		if (af && af->nremedies) {
			char *act = kg_remedy_instruction(&af->remedies[0]);
			cJSON_AddStringToObject(props, "action", act);
			free(act);
		}
		if (inc->phase)
			cJSON_AddStringToObject(props, "phase", inc->phase);
		add_int_or_null(props, "rank", inc->rank);
		add_int_or_null(props, "step", inc->step);
		if (kg_size_known(inc->mem.requested))
			cJSON_AddNumberToObject(props, "requested_bytes", (double)inc->mem.requested.bytes);
		cJSON *fs = cJSON_AddArrayToObject(props, "findings");
		for (size_t k = 0; k < inc->nfindings; k++) {
			const kg_finding *f = &inc->findings[k];
			cJSON *fo = cJSON_CreateObject();
			cJSON_AddStringToObject(fo, "rule", f->rule ? f->rule : "");
			cJSON_AddStringToObject(fo, "severity", kg_severity_name(kg_finding_shown_severity(inc, f)));
			if (f->supports) {
				cJSON_AddStringToObject(fo, f->refutes ? "refutes" : "supports", f->supports);
				cJSON_AddStringToObject(fo, "strength", kg_strength_name(f->strength));
			}
			cJSON_AddStringToObject(fo, "title", f->title ? f->title : "");
			cJSON_AddItemToArray(fs, fo);
		}
		cJSON_AddItemToArray(results, res);
	}

	/* Input notes as tool notifications (SARIF §3.58), not results. */
	if (r->nnotes || from_stdin) {
		cJSON *inv = cJSON_CreateObject();
		cJSON_AddBoolToObject(inv, "executionSuccessful", true);
		cJSON *notes = cJSON_AddArrayToObject(inv, "toolExecutionNotifications");
		for (size_t i = 0; i < r->nnotes; i++) {
			cJSON *nt = cJSON_CreateObject();
			cJSON_AddStringToObject(nt, "level", level(KG_SEV_WARNING));
			cJSON_AddItemToObject(nt, "message", text_obj(r->notes[i]));
			cJSON_AddItemToArray(notes, nt);
		}
		if (from_stdin) {
			cJSON *nt = cJSON_CreateObject();
			cJSON_AddStringToObject(nt, "level", level(KG_SEV_WARNING));
			cJSON_AddItemToObject(nt, "message", text_obj(
				"the log was read from standard input; its location is \"stdin\" (pass --stdin-filename NAME to name the file)"));
			cJSON_AddItemToArray(notes, nt);
		}
		cJSON_AddItemToArray(cJSON_AddArrayToObject(run, "invocations"), inv);
	}
	return doc;
}

void kg_report_sarif(const kg_report *r, const kg_ci_rule *rules, size_t nrules, FILE *out)
{
	cJSON *doc = kg_report_to_sarif(r, rules, nrules);
	char *s = cJSON_Print(doc);
	fputs(s, out);
	fputc('\n', out);
	cJSON_free(s);
	cJSON_Delete(doc);
}

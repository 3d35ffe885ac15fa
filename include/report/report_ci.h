/* report_ci.h — reporters for CI pipelines and pull requests: GitHub
 * Actions workflow commands (--format github), SARIF 2.1.0 (--format sarif)
 * and a PR-comment-ready Markdown report (--format markdown), plus the view
 * of a report they share: one "item" per finding, or one per incident while
 * the incident has no findings (before any rule ran). */
#ifndef KG_REPORT_CI_H
#define KG_REPORT_CI_H

#include <stddef.h>
#include <stdio.h>
#include "model/incident.h"
#include "report/report.h"

struct cJSON;

/* One annotation: a finding, or an incident standing in for its own finding
 * when it has none (then finding is NULL, rule is the incident kind "oom"
 * or "oom-warning", severity is kg_incident_severity(), title is
 * "Out of memory" / "Allocator warning (retried)" and message is
 * kg_incident_headline(inc, KG_HEADLINE_MEMORY), report.h). */
typedef struct kg_ci_item {
	const kg_incident *inc;
	const kg_finding *finding;   /* NULL for an incident without findings */
	enum kg_severity severity;
	const char *rule;
	const char *title;
	char *message;               /* owned; one paragraph, no trailing newline */
} kg_ci_item;

/* Every item of r in report order (incidents in input order, findings most
 * severe first as the rules engine sorted them). *out is malloc'd (NULL when
 * there are none); free with kg_ci_items_free. Returns the count. */
size_t kg_ci_items(const kg_report *r, kg_ci_item **out);
void kg_ci_items_free(kg_ci_item *items, size_t n);


/* A remedy as one plain-text line: "TITLE: env NAME=VALUE; set ROLE = VALUE;
 * CODE (caveat: CAVEAT)". malloc'd. */
char *kg_ci_remedy_line(const kg_remedy *rm);

/* An item's full plain text: the message, then "= evidence" lines, then
 * "help: remedy" lines (the text reporter's convention), separated by
 * newlines, no trailing newline. malloc'd. */
char *kg_ci_item_text(const kg_ci_item *it);

/* A rule of the loaded rule set, for SARIF's tool.driver.rules. */
typedef struct kg_ci_rule {
	const char *id;
	const char *title;
	const char *category;          /* DESIGN §2a vocabulary, or NULL */
	enum kg_severity severity;     /* the rule's declared severity */
} kg_ci_rule;

/* --format github: one GitHub Actions workflow command per incident,
 * `::error file=F,line=N,title=T::MESSAGE` (::warning for a retried
 * allocator failure: the incident's own severity, kg_incident_severity),
 * then one `::notice` per input note and a plain summary line. T is the
 * text report's line 1 without its place: the headline and, in brackets,
 * the verdict; MESSAGE is kg_gh_incident_text. Message and properties
 * escaped as actions/toolkit packages/core/src/command.ts does: data
 * %→%25, CR→%0D, LF→%0A; properties also :→%3A, ,→%2C. The file property
 * is left out for standard input, line when it is not known. */
void kg_report_github(const kg_report *r, FILE *out);

/* An incident's annotation text, lines separated by '\n': the cause's
 * finding message (the headline with the message's sizes, then the action
 * finding's message, when the cause is undetermined), its "= evidence"
 * lines, "help: REMEDY" for the one action and then every other remedy
 * for the cause (each title once), and "also: TITLE [RULE]" for each
 * other finding. malloc'd. */
char *kg_gh_incident_text(const kg_incident *inc);

/* The escapes above, malloc'd. */
char *kg_gh_escape_data(const char *s);
char *kg_gh_escape_property(const char *s);

/* --format sarif: a SARIF 2.1.0 log (OASIS sarif-schema-2.1.0.json) with one
 * run: tool.driver {name, version, semanticVersion, informationUri, rules},
 * results[] {ruleId, ruleIndex, level error|warning|note, message.text,
 * locations[].physicalLocation {artifactLocation.uri, region.startLine}},
 * artifacts[] for the inputs. Every result has a location (GitHub code
 * scanning rejects one without): an input read from standard input and not
 * renamed (kg_report_rename_input) is the URI "stdin", with a notification
 * saying so. driver.rules lists `rules` (nrules of them,
 * from the rule files) followed by every other rule id seen in the items;
 * rules may be NULL. Pretty-printed JSON, newline-terminated. */
void kg_report_sarif(const kg_report *r, const kg_ci_rule *rules, size_t nrules, FILE *out);
/* The same document as a cJSON tree (caller frees with cJSON_Delete). */
struct cJSON *kg_report_to_sarif(const kg_report *r, const kg_ci_rule *rules, size_t nrules);

/* A relative or absolute file path as a SARIF/RFC 3986 URI reference:
 * bytes outside unreserved, "/", ":", "@" and sub-delims are
 * percent-encoded, and ':' too in a relative path's first segment (RFC
 * 3986 §4.2);
 * an absolute path becomes file:///… . malloc'd. */
char *kg_path_to_uri(const char *path);

/* --format markdown: a report to paste into a pull-request comment or
 * $GITHUB_STEP_SUMMARY (GitHub-flavoured Markdown): a heading with the
 * counts, a table of incidents (place, device, rank, step, phase, cause,
 * request, free/total), then per incident the OOM text, each finding's
 * message, evidence and remedies, then r->patches as ```diff blocks and
 * the input notes. */
void kg_report_markdown(const kg_report *r, FILE *out);

#endif

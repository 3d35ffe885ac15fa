/* report_ci.h — reporters for CI pipelines and pull requests: GitHub
 * Actions workflow commands (--format github), SARIF 2.1.0 (--format sarif)
 * and a PR-comment-ready Markdown report (--format markdown), plus what
 * they share. Every format gives one verdict per incident (issue 32): one
 * annotation, one SARIF result, one Markdown section, each at the
 * incident's severity (kg_incident_severity), saying its cause, confidence
 * and action as the text report does; the findings are the incident's
 * evidence, shown at kg_finding_shown_severity (evidence for a hypothesis
 * the differential did not pick is never an error). */
#ifndef KG_REPORT_CI_H
#define KG_REPORT_CI_H

#include <stddef.h>
#include <stdio.h>
#include "model/incident.h"
#include "report/report.h"

struct cJSON;

/* The rule id an incident stands under (SARIF ruleId): the finding that
 * states its cause (kg_incident_cause_finding), else the one whose remedy
 * is its action (kg_incident_action_finding), else the incident's kind
 * ("oom", "oom-warning", "oom-unrecognized"). *finding (when finding is
 * not NULL) is that finding, or NULL for a kind. Static or the finding's
 * storage. */
const char *kg_ci_incident_rule(const kg_incident *inc, const kg_finding **finding);

/* The title of the rule an incident of no finding stands under (its
 * kind): "Out of memory", "Allocator warning (retried)", "Out-of-memory
 * message this tool does not know". Static. */
const char *kg_ci_kind_title(const kg_incident *inc);

/* A remedy as one plain-text line: "TITLE: env NAME=VALUE; set ROLE = VALUE;
 * CODE (caveat: CAVEAT)". malloc'd. */
char *kg_ci_remedy_line(const kg_remedy *rm);

/* An incident's text as the GitHub annotation and the SARIF result carry
 * it, lines separated by '\n', no trailing newline: the cause's finding
 * message (the headline with the message's sizes, then the action
 * finding's message, when the cause is undetermined); "help: ACTION",
 * the one action as the text report's line 2 words it
 * (kg_remedy_instruction); the cause finding's "= evidence" lines;
 * "= differential: …" (kg_differential_text); "help: REMEDY" for every
 * other remedy of the action's and the cause's findings (each title
 * once, kg_ci_remedy_line); and "also: TITLE [RULE]" for each other
 * finding. malloc'd. */
char *kg_ci_incident_text(const kg_incident *inc);

/* A rule of the loaded rule set, for SARIF's tool.driver.rules. */
typedef struct kg_ci_rule {
	const char *id;
	const char *title;
	const char *category;          /* DESIGN §2a vocabulary, or NULL */
	enum kg_severity severity;     /* the rule's declared severity */
} kg_ci_rule;

/* --format github: one GitHub Actions workflow command per incident,
 * `::error file=F,line=N,title=T::MESSAGE` (::warning for a retried
 * allocator failure or an unrecognized message: the incident's own
 * severity, kg_incident_severity), then one `::notice` per input note and
 * a plain summary line. T is the text report's line 1 without its place:
 * the headline and, in brackets, the verdict; MESSAGE is
 * kg_ci_incident_text. Message and properties escaped as actions/toolkit
 * packages/core/src/command.ts does: data %→%25, CR→%0D, LF→%0A;
 * properties also :→%3A, ,→%2C. The file property is left out for
 * standard input, line when it is not known. */
void kg_report_github(const kg_report *r, FILE *out);

/* The escapes above, malloc'd. */
char *kg_gh_escape_data(const char *s);
char *kg_gh_escape_property(const char *s);

/* --format sarif: a SARIF 2.1.0 log (OASIS sarif-schema-2.1.0.json) with one
 * run: tool.driver {name, version, semanticVersion, informationUri, rules},
 * results[], one per incident {ruleId (kg_ci_incident_rule), ruleIndex,
 * level error|warning (the incident's severity), message.text (the text
 * report's line 1 without its place, then kg_ci_incident_text),
 * locations[].physicalLocation {artifactLocation.uri, region.startLine},
 * properties {incident, cause, confidence, mode, action (the instruction),
 * phase, rank, step, requested_bytes, findings[] {rule, severity (as
 * shown), supports or refutes, strength, title}}}, artifacts[] for the
 * inputs. Every result has a location (GitHub code scanning rejects one
 * without): an input read from standard input and not renamed
 * (kg_report_rename_input) is the URI "stdin", with a notification saying
 * so. driver.rules lists `rules` (nrules of them, from the rule files)
 * followed by every other rule id a result names; rules may be NULL.
 * Pretty-printed JSON, newline-terminated. */
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
 * counts, a table of incidents (place, device, rank, step, phase, cause
 * and confidence, severity, request, free/total), then one section per
 * incident: "### Incident N — `PLACE` — SEVERITY: VERDICT"
 * (kg_incident_verdict), the OOM text, "**What to do:** ACTION" (the text
 * report's line 2), the cause's evidence, the differential, the remedies
 * for the cause (the action's first), every finding at the severity it is
 * shown at (kg_finding_shown_severity), the follow-ups; then r->patches
 * as ```diff blocks and the input notes. */
void kg_report_markdown(const kg_report *r, FILE *out);

#endif

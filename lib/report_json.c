/* report_json.c — the JSON report, schema `kgmem-diagnose/1` (DESIGN §4).
 * All JSON goes through cJSON; byte counts are written as raw integers so
 * values above 2^53 stay exact. Unknown values are null, never 0. Fields
 * beyond DESIGN §4 (message, phase_source, alloc_conf, followups,
 * duplicates, summary.first_failed_rank, summary.root_cause_rank, notes, run)
 * are additive. */
#include "report.h"
#include "kg_build.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

static cJSON *int_or_null(int64_t v)
{
	if (v == KG_NONE)
		return cJSON_CreateNull();
	char buf[32];
	snprintf(buf, sizeof buf, "%lld", (long long)v);
	return cJSON_CreateRaw(buf);
}

static cJSON *str_or_null(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static void add_bytes(cJSON *o, const char *key, kg_size s)
{
	cJSON_AddItemToObject(o, key, int_or_null(kg_size_known(s) ? s.bytes : KG_NONE));
}

static cJSON *memory_json(const kg_memory *m)
{
	cJSON *o = cJSON_CreateObject();
	add_bytes(o, "requested_bytes", m->requested);
	add_bytes(o, "total_capacity_bytes", m->total_capacity);
	add_bytes(o, "free_bytes", m->free);
	add_bytes(o, "allocated_bytes", m->allocated);
	add_bytes(o, "reserved_bytes", m->reserved);
	add_bytes(o, "reserved_unallocated_bytes", m->reserved_unallocated);
	add_bytes(o, "process_in_use_bytes", m->process_in_use);
	add_bytes(o, "allowed_bytes", m->allowed);
	add_bytes(o, "private_pools_bytes", m->private_pools);
	add_bytes(o, "other_allocations_bytes", m->other_allocations);
	cJSON *procs = cJSON_AddArrayToObject(o, "other_processes");
	for (size_t i = 0; i < m->nprocs; i++) {
		cJSON *p = cJSON_CreateObject();
		cJSON_AddItemToObject(p, "pid", int_or_null(m->procs[i].pid));
		add_bytes(p, "in_use_bytes", m->procs[i].in_use);
		cJSON_AddItemToArray(procs, p);
	}
	return o;
}

static cJSON *finding_json(const kg_finding *f)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "rule", str_or_null(f->rule));
	cJSON_AddItemToObject(o, "category", str_or_null(f->category));
	cJSON_AddStringToObject(o, "severity", kg_severity_name(f->severity));
	cJSON_AddItemToObject(o, "title", str_or_null(f->title));
	cJSON_AddItemToObject(o, "message", str_or_null(f->message));
	cJSON *ev = cJSON_AddArrayToObject(o, "evidence");
	for (size_t i = 0; i < f->nevidence; i++)
		cJSON_AddItemToArray(ev, cJSON_CreateString(f->evidence[i]));
	cJSON *rems = cJSON_AddArrayToObject(o, "remedies");
	for (size_t i = 0; i < f->nremedies; i++) {
		const kg_remedy *r = &f->remedies[i];
		cJSON *ro = cJSON_CreateObject();
		cJSON_AddItemToObject(ro, "title", str_or_null(r->title));
		cJSON *env = cJSON_AddObjectToObject(ro, "env");
		for (size_t k = 0; k < r->nenv; k++)
			cJSON_AddStringToObject(env, r->env_names[k], r->env_values[k]);
		cJSON *set = cJSON_AddObjectToObject(ro, "set");
		for (size_t k = 0; k < r->nset; k++) {
			/* a value that is a plain integer is written as a number */
			char *end = NULL;
			long long v = strtoll(r->set_values[k], &end, 10);
			if (end && *end == '\0' && end != r->set_values[k])
				cJSON_AddItemToObject(set, r->set_roles[k], int_or_null(v));
			else
				cJSON_AddStringToObject(set, r->set_roles[k], r->set_values[k]);
		}
		if (r->code)
			cJSON_AddStringToObject(ro, "code", r->code);
		if (r->caveat)
			cJSON_AddStringToObject(ro, "caveat", r->caveat);
		cJSON_AddItemToArray(rems, ro);
	}
	return o;
}

static cJSON *incident_json(const kg_incident *inc)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "id", inc->id);
	cJSON_AddItemToObject(o, "kind", str_or_null(inc->kind));
	cJSON_AddItemToObject(o, "family", str_or_null(inc->family));
	cJSON_AddItemToObject(o, "framework", str_or_null(inc->framework));
	cJSON *loc = cJSON_AddObjectToObject(o, "location");
	cJSON_AddItemToObject(loc, "path", str_or_null(inc->path));
	cJSON_AddItemToObject(loc, "line", int_or_null(inc->line > 0 ? inc->line : KG_NONE));
	cJSON *dev = cJSON_AddObjectToObject(o, "device");
	cJSON_AddItemToObject(dev, "type", str_or_null(inc->device_type));
	cJSON_AddItemToObject(dev, "index", int_or_null(inc->device_index));
	cJSON_AddItemToObject(o, "rank", int_or_null(inc->rank));
	cJSON_AddItemToObject(o, "step", int_or_null(inc->step));
	cJSON_AddItemToObject(o, "epoch", int_or_null(inc->epoch));
	cJSON_AddItemToObject(o, "phase", str_or_null(inc->phase));
	cJSON_AddItemToObject(o, "phase_source", str_or_null(inc->phase_source));
	cJSON_AddItemToObject(o, "cause", str_or_null(inc->cause));
	cJSON_AddItemToObject(o, "memory", memory_json(&inc->mem));
	if (inc->tensor) {
		cJSON *t = cJSON_AddObjectToObject(o, "tensor");
		cJSON *shape = cJSON_AddArrayToObject(t, "shape");
		for (size_t i = 0; i < inc->tensor->ndim; i++)
			cJSON_AddItemToArray(shape, int_or_null(inc->tensor->shape[i]));
		cJSON_AddItemToObject(t, "dtype", str_or_null(inc->tensor->dtype[0] ? inc->tensor->dtype : NULL));
		cJSON_AddItemToObject(t, "bytes", int_or_null(inc->tensor->bytes));
	} else {
		cJSON_AddNullToObject(o, "tensor");
	}
	cJSON_AddItemToObject(o, "status", str_or_null(inc->status));
	cJSON_AddItemToObject(o, "message", str_or_null(inc->message));
	if (inc->alloc_conf_var) {
		cJSON *ac = cJSON_AddObjectToObject(o, "alloc_conf");
		cJSON_AddStringToObject(ac, "variable", inc->alloc_conf_var);
		cJSON_AddStringToObject(ac, "value", inc->alloc_conf ? inc->alloc_conf : "");
		cJSON_AddItemToObject(ac, "line", int_or_null(inc->alloc_conf_line));
	} else {
		cJSON_AddNullToObject(o, "alloc_conf");
	}
	cJSON *frames = cJSON_AddArrayToObject(o, "frames");
	for (size_t i = 0; i < inc->nframes; i++) {
		const kg_frame *f = &inc->frames[i];
		cJSON *fo = cJSON_CreateObject();
		cJSON_AddItemToObject(fo, "file", str_or_null(f->file));
		cJSON_AddItemToObject(fo, "line", int_or_null(f->line > 0 ? f->line : KG_NONE));
		cJSON_AddItemToObject(fo, "function", str_or_null(f->function));
		cJSON_AddItemToObject(fo, "code", str_or_null(f->code));
		cJSON_AddItemToArray(frames, fo);
	}
	cJSON *fu = cJSON_AddArrayToObject(o, "followups");
	for (size_t i = 0; i < inc->nfollowups; i++) {
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "kind", inc->followups[i].kind);
		cJSON_AddItemToObject(x, "line", int_or_null(inc->followups[i].line));
		cJSON_AddItemToObject(x, "text", str_or_null(inc->followups[i].text));
		cJSON_AddItemToArray(fu, x);
	}
	cJSON_AddNumberToObject(o, "duplicates", inc->duplicates);
	cJSON *fs = cJSON_AddArrayToObject(o, "findings");
	for (size_t i = 0; i < inc->nfindings; i++)
		cJSON_AddItemToArray(fs, finding_json(&inc->findings[i]));
	return o;
}

/* The document; the incidents array is left empty when !with_incidents
 * (kg_report_json streams them). */
static cJSON *report_tree(const kg_report *r, bool with_incidents)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "schema", "kgmem-diagnose/1");
	cJSON_AddStringToObject(root, "version", KG_VERSION);
	cJSON *inputs = cJSON_AddArrayToObject(root, "inputs");
	for (size_t i = 0; i < r->ninputs; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, "path", str_or_null(r->inputs[i].name));
		cJSON_AddItemToObject(o, "kind", str_or_null(r->inputs[i].kind));
		cJSON_AddItemToObject(o, "bytes", int_or_null(r->inputs[i].bytes));
		cJSON_AddBoolToObject(o, "gzip", r->inputs[i].gzip);
		cJSON_AddItemToArray(inputs, o);
	}
	cJSON *incs = cJSON_AddArrayToObject(root, "incidents");
	for (size_t i = 0; with_incidents && i < r->nincidents; i++)
		cJSON_AddItemToArray(incs, incident_json(&r->incidents[i]));
	cJSON_AddItemToObject(root, "snapshots",
			      r->snapshots ? cJSON_Duplicate(r->snapshots, 1) : cJSON_CreateArray());
	cJSON_AddItemToObject(root, "patches",
			      r->patches ? cJSON_Duplicate(r->patches, 1) : cJSON_CreateArray());
	int e, w, inf;
	kg_report_counts(r, &e, &w, &inf);
	cJSON *sum = cJSON_AddObjectToObject(root, "summary");
	cJSON_AddNumberToObject(sum, "incidents", (double)r->nincidents);
	cJSON_AddNumberToObject(sum, "errors", e);
	cJSON_AddNumberToObject(sum, "warnings", w);
	cJSON_AddNumberToObject(sum, "infos", inf);
	cJSON_AddItemToObject(sum, "first_failed_rank", int_or_null(r->first_failed_rank));
	cJSON_AddItemToObject(sum, "root_cause_rank", int_or_null(r->root_cause_rank));
	cJSON *notes = cJSON_AddArrayToObject(root, "notes");
	for (size_t i = 0; i < r->nnotes; i++)
		cJSON_AddItemToArray(notes, cJSON_CreateString(r->notes[i]));
	if (r->run) /* `run` subcommand only (evidence.h) */
		cJSON_AddItemToObject(root, "run", cJSON_Duplicate(r->run, 1));
	return root;
}

cJSON *kg_report_to_json(const kg_report *r)
{
	return report_tree(r, true);
}

/* Writes cJSON_Print(item) as if item sat `depth` levels deep in a
 * document: cJSON indents each level with one tab after every line break
 * (strings cannot hold a raw one: cJSON escapes it). */
static void print_at(const cJSON *item, int depth, FILE *out)
{
	static const char tabs[] = "\t\t\t\t\t\t\t\t";
	char *s = cJSON_Print(item);
	for (const char *p = s; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
		fwrite(p, 1, n, out);
		if (nl)
			fwrite(tabs, 1, (size_t)depth < sizeof tabs - 1 ? (size_t)depth : sizeof tabs - 1, out);
		p += n;
	}
	cJSON_free(s);
}

/* Prints the same text cJSON_Print gives for the whole tree, but builds and
 * prints one incident at a time, so memory does not grow with the number
 * of incidents (a retry loop can log thousands). */
void kg_report_json(const kg_report *r, FILE *out)
{
	cJSON *root = report_tree(r, false);
	fputs("{\n", out);
	for (const cJSON *m = root->child; m; m = m->next) {
		fprintf(out, "\t\"%s\":\t", m->string);
		if (!strcmp(m->string, "incidents") && r->nincidents) {
			fputc('[', out);
			for (size_t i = 0; i < r->nincidents; i++) {
				cJSON *o = incident_json(&r->incidents[i]);
				if (i)
					fputs(", ", out);
				print_at(o, 2, out);
				cJSON_Delete(o);
			}
			fputc(']', out);
		} else {
			print_at(m, 1, out);
		}
		fputs(m->next ? ",\n" : "\n", out);
	}
	fputs("}\n", out);
	cJSON_Delete(root);
}

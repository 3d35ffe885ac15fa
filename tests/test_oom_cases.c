/* test_oom_cases.c FILE.test... — the grammar cases as data (tests/oom/,
 * format in tests/oom/README.md): each case is a message in and the fields
 * kg_oom_parse must give it out, named as in the JSON schema
 * kgmem-diagnose/1. One TAP line per expected field. */
#include "tap.h"
#include "cases.h"
#include "read/oom.h"
#include "model/units.h"
#include "model/util.h"


static void put_i64(char *out, size_t cap, int64_t v)
{
	if (v == KG_NONE)
		snprintf(out, cap, "null");
	else
		snprintf(out, cap, "%lld", (long long)v);
}

static void put_str(char *out, size_t cap, const char *s)
{
	snprintf(out, cap, "%s", s ? s : "null");
}

/* memory.<name>_bytes, with .lo/.hi for the printed-size interval */
static bool memory_field(const kg_memory *m, const char *name, char *out, size_t cap)
{
	static const struct {
		const char *name;
		size_t off;
	} sizes[] = {
#define S(f) {#f "_bytes", offsetof(kg_memory, f)}
		S(requested), S(total_capacity), S(free), S(allocated), S(reserved),
		S(reserved_unallocated), S(process_in_use), S(allowed), S(private_pools),
		S(other_allocations),
#undef S
	};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		size_t L = strlen(sizes[i].name);
		if (strncmp(name, sizes[i].name, L))
			continue;
		const kg_size *s = (const kg_size *)((const char *)m + sizes[i].off);
		if (!strcmp(name + L, ""))
			put_i64(out, cap, kg_size_known(*s) ? s->bytes : KG_NONE);
		else if (!strcmp(name + L, ".lo"))
			put_i64(out, cap, kg_size_known(*s) ? s->lo : KG_NONE);
		else if (!strcmp(name + L, ".hi"))
			put_i64(out, cap, kg_size_known(*s) ? s->hi : KG_NONE);
		else
			return false;
		return true;
	}
	size_t i;
	char rest[64];
	if (!strcmp(name, "other_processes.length")) {
		snprintf(out, cap, "%zu", m->nprocs);
		return true;
	}
	if (sscanf(name, "other_processes[%zu].%63s", &i, rest) == 2) {
		if (i >= m->nprocs)
			put_str(out, cap, "(no such process)");
		else if (!strcmp(rest, "pid"))
			put_i64(out, cap, m->procs[i].pid);
		else if (!strcmp(rest, "in_use_bytes"))
			put_i64(out, cap, kg_size_known(m->procs[i].in_use) ? m->procs[i].in_use.bytes : KG_NONE);
		else
			return false;
		return true;
	}
	return false;
}

/* The value of field `name` of a parsed message, as the .test file spells
 * it; false for a name the runner does not know. */
static bool field(const kg_oom *o, const char *text, const char *name, char *out, size_t cap)
{
	if (!strcmp(name, "kind"))
		put_str(out, cap, o->kind);
	else if (!strcmp(name, "family"))
		put_str(out, cap, o->family);
	else if (!strcmp(name, "framework"))
		put_str(out, cap, o->framework);
	else if (!strcmp(name, "device.type"))
		put_str(out, cap, o->device_type);
	else if (!strcmp(name, "device.index"))
		put_i64(out, cap, o->device_index);
	else if (!strcmp(name, "status"))
		put_str(out, cap, o->status);
	else if (!strcmp(name, "start"))
		snprintf(out, cap, "%zu", o->start);
	else if (!strcmp(name, "end")) {
		/* "line N" when the message ends where line N of the text ends */
		long line = 1;
		for (size_t i = 0; i < o->end; i++)
			line += text[i] == '\n';
		if (text[o->end] == '\n' || text[o->end] == '\0')
			snprintf(out, cap, "line %ld", line);
		else
			snprintf(out, cap, "%zu", o->end);
	} else if (!strncmp(name, "memory.", 7))
		return memory_field(&o->mem, name + 7, out, cap);
	else if (!strcmp(name, "tensor"))
		put_str(out, cap, o->tensor ? "present" : NULL);
	else if (!strcmp(name, "tensor.shape")) {
		kg_buf b = {0};
		kg_buf_putc(&b, '[');
		for (size_t i = 0; o->tensor && i < o->tensor->ndim; i++)
			kg_buf_printf(&b, "%s%lld", i ? ", " : "", (long long)o->tensor->shape[i]);
		kg_buf_putc(&b, ']');
		put_str(out, cap, o->tensor ? b.data : NULL);
		kg_buf_free(&b);
	} else if (!strcmp(name, "tensor.dtype"))
		put_str(out, cap, !o->tensor ? NULL : o->tensor->dtype[0] ? o->tensor->dtype : "null");
	else if (!strcmp(name, "tensor.bytes"))
		put_i64(out, cap, o->tensor ? o->tensor->bytes : KG_NONE);
	else
		return false;
	return true;
}

static void run(const tc_case *c)
{
	kg_buf text = {0};
	for (size_t i = 0; i < c->nin; i++) {
		if (i)
			kg_buf_putc(&text, '\n');
		kg_buf_puts(&text, c->in[i]);
	}
	const char *t = text.data ? text.data : "";
	kg_oom o;
	int rc = kg_oom_parse(t, text.len, strcspn(t, "\n"), &o);
	bool want_parse = true;
	for (size_t i = 0; i < c->nout; i++) {
		const char *line = c->out[i];
		long ln = c->out_lines[i];
		const char *colon = strstr(line, ": ");
		if (!colon) {
			TAP_OK(0, "%s:%ld: expected 'field: value', got '%s'", c->file, ln, line);
			continue;
		}
		char *name = kg_strndup(line, (size_t)(colon - line));
		const char *want = colon + 2;
		size_t wn = strlen(want);
		char *w = wn >= 2 && want[0] == '"' && want[wn - 1] == '"' ? kg_strndup(want + 1, wn - 2)
									  : kg_strdup(want);
		char got[512];
		if (!strcmp(name, "parses")) {
			want_parse = strcmp(w, "no") != 0;
			TAP_OK(rc == want_parse, "%s:%ld: %s: parses: %s", c->file, ln, c->title, w);
		} else if (!strcmp(name, "candidate")) {
			bool cand = kg_oom_candidate(t, strcspn(t, "\n"));
			TAP_OK(cand == !strcmp(w, "yes"), "%s:%ld: %s: candidate: %s", c->file, ln, c->title, w);
		} else if (!strcmp(name, "unrecognized")) {
			/* the safety net on the first line: an ordinary line, and
			 * the exception line that ends a traceback */
			size_t fl = strcspn(t, "\n");
			kg_oom u;
			int line = kg_oom_unrecognized(t, fl, NULL, 0, false, &u);
			bool prose = line && u.prose;
			int exc = kg_oom_unrecognized(t, fl, NULL, 0, true, &u);
			const char *g = line && exc ? (prose ? "prose" : "yes") : exc ? "exception-line" : line ? "?" : "no";
			TAP_EQ_STR(g, w, "%s:%ld: %s: unrecognized", c->file, ln, c->title);
		} else if (rc != 1) {
			TAP_OK(0, "%s:%ld: %s: %s (the text does not parse)", c->file, ln, c->title, name);
		} else if (!field(&o, t, name, got, sizeof got)) {
			TAP_OK(0, "%s:%ld: unknown field '%s'", c->file, ln, name);
		} else {
			TAP_EQ_STR(got, w, "%s:%ld: %s: %s", c->file, ln, c->title, name);
		}
		free(name);
		free(w);
	}
	if (c->nout == 0 || (want_parse && rc != 1))
		TAP_OK(rc == 1, "%s:%ld: %s parses", c->file, c->line, c->title);
	if (rc == 1)
		kg_oom_free(&o);
	kg_buf_free(&text);
}

int main(int argc, char **argv)
{
	kg_error err = {0};
	TAP_OK(kg_oom_init(&err) == 0, "grammars compile %s", err.msg);
	tc_run_files(argc, argv, true, run);
	kg_oom_fini();
	return tap_done();
}

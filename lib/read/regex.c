/* regex.c — see include/read/regex.h. PCRE2 10.x (libpcre2-8). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "read/regex.h"

#include <pcre2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct kg_regex {
	pcre2_code *code;          /* NULL until first use for a lazy one */
	pcre2_match_context *mctx;
	const char *pattern;       /* a lazy one's pattern (static storage) */
	uint32_t flags;
	bool ready;                /* compiled, with its match context */
	uint32_t uses;             /* kg_regex_use */
	uint32_t capcount;
};

/* One match-data block per thread is enough: the tool is single-threaded. */
static pcre2_match_data *shared_md;

static pcre2_code *compile(const char *pattern, uint32_t flags, kg_error *err)
{
	int ec;
	PCRE2_SIZE off;
	pcre2_code *code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
					 flags, &ec, &off, NULL);
	if (!code) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(ec, msg, sizeof msg);
		kg_fail(err, "col %zu: %s", (size_t)off + 1, (char *)msg);
	}
	return code;
}

static kg_regex *wrap(pcre2_code *code, const char *pattern, uint32_t flags)
{
	kg_regex *re = kg_calloc(1, sizeof *re);
	re->code = code;
	re->pattern = pattern;
	re->flags = flags;
	return re;
}

kg_regex *kg_regex_new(const char *pattern, uint32_t flags, kg_error *err)
{
	pcre2_code *code = compile(pattern, flags, err);
	return code ? wrap(code, NULL, flags) : NULL;
}

kg_regex *kg_regex_new_lazy(const char *pattern, uint32_t flags)
{
	return wrap(NULL, pattern, flags);
}

void kg_regex_use(pcre2_code *code, uint32_t *uses, size_t subject)
{
	if (*uses >= KG_JIT_AFTER)
		return;
	size_t w = 1 + subject / KG_JIT_USE_BYTES;
	*uses = w >= KG_JIT_AFTER - *uses ? KG_JIT_AFTER : *uses + (uint32_t)w;
	if (*uses == KG_JIT_AFTER)
		(void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE); /* else the interpreter */
}

/* The compiled code with its match context, a match on `subject` bytes
 * counted (kg_regex_use); compiles a lazy pattern first (abort when it
 * does not compile: a bug in a literal). */
static pcre2_code *ready(kg_regex *re, size_t subject)
{
	if (re->ready) {
		kg_regex_use(re->code, &re->uses, subject);
		return re->code;
	}
	if (!re->code) {
		kg_error e = {0};
		re->code = compile(re->pattern, re->flags, &e);
		if (!re->code)
			abort();
	}
	kg_regex_use(re->code, &re->uses, subject);
	re->mctx = pcre2_match_context_create(NULL);
	pcre2_set_match_limit(re->mctx, 1000000);
	pcre2_set_depth_limit(re->mctx, 10000);
	pcre2_pattern_info(re->code, PCRE2_INFO_CAPTURECOUNT, &re->capcount);
	if (!shared_md)
		shared_md = pcre2_match_data_create(KG_RE_MAXCAP, NULL);
	re->ready = true;
	return re->code;
}

void kg_regex_free(kg_regex *re)
{
	if (!re)
		return;
	pcre2_code_free(re->code);
	pcre2_match_context_free(re->mctx);
	free(re);
}

int kg_regex_match(const kg_regex *cre, const char *s, size_t n, size_t start, kg_match *m)
{
	m->n = 0;
	if (start > n)
		return 0;
	/* every kg_regex is heap-allocated and non-const: compiling it on
	 * first use through this pointer is defined */
	kg_regex *re = (kg_regex *)cre;
	pcre2_code *code = ready(re, n - start); /* before shared_md is read: it creates it */
	int rc = pcre2_match(code, (PCRE2_SPTR)s, n, start, 0, shared_md, re->mctx);
	if (rc <= 0)
		return 0;
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(shared_md);
	uint32_t pairs = pcre2_get_ovector_count(shared_md);
	if (pairs > KG_RE_MAXCAP)
		pairs = KG_RE_MAXCAP;
	uint32_t capcount = re->capcount;
	int total = (int)(capcount + 1 < pairs ? capcount + 1 : pairs);
	for (int i = 0; i < total; i++) {
		if (i < rc && ov[2 * i] != PCRE2_UNSET) {
			m->so[i] = ov[2 * i];
			m->eo[i] = ov[2 * i + 1];
		} else {
			m->so[i] = m->eo[i] = SIZE_MAX;
		}
	}
	m->n = total;
	return 1;
}

bool kg_match_group(const kg_match *m, const char *s, int i, const char **p, size_t *len)
{
	if (i < 0 || i >= m->n || m->so[i] == SIZE_MAX)
		return false;
	*p = s + m->so[i];
	*len = m->eo[i] - m->so[i];
	return true;
}

int kg_regex_group_index(const kg_regex *re, const char *name)
{
	int r = pcre2_substring_number_from_name(ready((kg_regex *)re, 0), (PCRE2_SPTR)name);
	return r < 0 ? -1 : r;
}

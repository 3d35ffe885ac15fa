/* cases.h — the reader of the case files the data-driven tests share
 * (tests/oom/ and tests/rules/, as jq keeps its test files): cases
 *     <<< TITLE
 *     input lines
 *     >>>
 *     expectation lines
 * Outside the input, blank and '#' lines are comments. Also the one
 * whole-file reader of the C tests (tc_slurp). Include after tap.h. */
#ifndef KG_TEST_CASES_H
#define KG_TEST_CASES_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/util.h"

typedef struct tc_case {
	const char *file;    /* base name, for messages */
	long line;           /* of the "<<<" line */
	char *title;
	char **in;           /* input lines, without their '\n' */
	size_t nin;
	char **out;          /* expectation lines */
	long *out_lines;     /* their line numbers */
	size_t nout;
} tc_case;

static inline char *tc_slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	kg_buf b = {0};
	char tmp[65536];
	size_t n;
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
		kg_buf_append(&b, tmp, n);
	fclose(f);
	kg_buf_putc(&b, '\0');
	return kg_buf_steal(&b);
}

static inline void tc_push(char ***v, size_t *n, char *s)
{
	*v = kg_realloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = s;
}

static inline void tc_free(tc_case *c)
{
	free(c->title);
	for (size_t i = 0; i < c->nin; i++)
		free(c->in[i]);
	for (size_t i = 0; i < c->nout; i++)
		free(c->out[i]);
	free(c->in);
	free(c->out);
	free(c->out_lines);
	*c = (tc_case){0};
}

/* Reads every case of path and hands each to run. With verbatim, input
 * lines are kept as they are (blank and '#' lines included: a log text);
 * without, blank and '#' input lines are comments. A malformed file is a
 * failed TAP check. Returns the number of cases run. */
static inline int tc_run_file(const char *path, bool verbatim, void (*run)(const tc_case *))
{
	char *data = tc_slurp(path);
	if (!data) {
		TAP_OK(0, "%s: cannot read", path);
		return 0;
	}
	const char *file = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	int cases = 0;
	enum { OUT, IN, EXPECT } st = OUT;
	tc_case c = {0};
	char *p = data;
	for (long lineno = 1; *p; lineno++) {
		char *nl = strchr(p, '\n');
		size_t L = nl ? (size_t)(nl - p) : strlen(p);
		char *line = kg_strndup(p, L);
		p += L + (nl != NULL);
		bool comment = !line[0] || line[0] == '#';
		if (!strncmp(line, "<<<", 3)) {
			if (st == EXPECT) {
				run(&c);
				cases++;
			} else if (st == IN) {
				TAP_OK(0, "%s:%ld: case '%s' has no '>>>'", file, c.line, c.title);
			}
			tc_free(&c);
			const char *t = line + 3 + strspn(line + 3, " ");
			c = (tc_case){.file = file, .line = lineno, .title = kg_strdup(*t ? t : "(untitled)")};
			st = IN;
		} else if (st == IN && !strcmp(line, ">>>")) {
			st = EXPECT;
		} else if (st == IN && (verbatim || !comment)) {
			tc_push(&c.in, &c.nin, line);
			line = NULL;
		} else if (st == EXPECT && !comment) {
			c.out_lines = kg_realloc(c.out_lines, (c.nout + 1) * sizeof *c.out_lines);
			c.out_lines[c.nout] = lineno;
			tc_push(&c.out, &c.nout, line);
			line = NULL;
		} else if (st == OUT && !comment) {
			TAP_OK(0, "%s:%ld: text outside a case: '%s'", file, lineno, line);
		}
		free(line);
	}
	if (st == IN)
		TAP_OK(0, "%s:%ld: case '%s' has no '>>>'", file, c.line, c.title);
	else if (st == EXPECT) {
		run(&c);
		cases++;
	}
	tc_free(&c);
	free(data);
	return cases;
}

/* main() of a runner: every file named on the command line, each with at
 * least one case. */
static inline void tc_run_files(int argc, char **argv, bool verbatim, void (*run)(const tc_case *))
{
	for (int i = 1; i < argc; i++) {
		int n = tc_run_file(argv[i], verbatim, run);
		TAP_OK(n > 0, "%s: %d cases", argv[i], n);
	}
}

#endif

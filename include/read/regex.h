/* regex.h — thin PCRE2 wrapper used by every module that matches text:
 * compile once, JIT when hot (kg_regex_use), match limits always set so a
 * pathological pattern cannot hang the tool), match with captures. */
#ifndef KG_REGEX_H
#define KG_REGEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/util.h"

typedef struct kg_regex kg_regex;

/* JIT policy for every pattern the tool matches (here, oom.c, logfacts.c,
 * expr.c): PCRE2's JIT compiler costs 50-300 µs a pattern, more than a
 * short log's few matches cost in the interpreter, so a pattern is
 * JIT-compiled on its KG_JIT_AFTER-th use; a long log's hot patterns get
 * it early. The interpreter's cost grows with the subject (about 90
 * instructions a byte for the settings' and model-name alternations, against
 * one JIT compile's 10^5-10^6), so a match on a long subject counts as one
 * use per KG_JIT_USE_BYTES: a 10 KB config dump on one line is JIT-matched
 * at once. Both give the same matches (the match limit aside: pathological
 * input only). */
#define KG_JIT_AFTER 16
#define KG_JIT_USE_BYTES 256
struct pcre2_real_code_8;
/* Counts a match of code on `subject` bytes in *uses (1 + subject /
 * KG_JIT_USE_BYTES uses) and JIT-compiles it once they reach KG_JIT_AFTER
 * (a platform without JIT keeps the interpreter). */
void kg_regex_use(struct pcre2_real_code_8 *code, uint32_t *uses, size_t subject);

/* Compiles pattern (PCRE2 syntax, UTF-8 not assumed: invalid bytes never
 * make a match fail). flags: PCRE2_CASELESS etc. Returns NULL with err
 * ("col N: reason") on a bad pattern. */
kg_regex *kg_regex_new(const char *pattern, uint32_t flags, kg_error *err);
/* A built-in pattern compiled on its first match (JIT-compiled when hot,
 * kg_regex_use), so a run pays only for the patterns its input reaches. pattern must outlive
 * the object (a string literal); one that does not compile aborts at first
 * use (a bug: the tests match every built-in pattern). Never NULL. */
kg_regex *kg_regex_new_lazy(const char *pattern, uint32_t flags);
void kg_regex_free(kg_regex *re);

#define KG_RE_MAXCAP 24

typedef struct kg_match {
	int n;                           /* number of pairs set (0 = no match) */
	size_t so[KG_RE_MAXCAP], eo[KG_RE_MAXCAP]; /* offsets; so = SIZE_MAX unset */
} kg_match;

/* Searches s[start..n). Returns 1 on a match (m filled), 0 on none, and 0
 * as well when the match limit is hit (treated as no match). */
int kg_regex_match(const kg_regex *re, const char *s, size_t n, size_t start, kg_match *m);
/* Capture i as (pointer, length); returns false when unset. */
bool kg_match_group(const kg_match *m, const char *s, int i, const char **p, size_t *len);
/* Index of a named group, or -1. */
int kg_regex_group_index(const kg_regex *re, const char *name);

#endif

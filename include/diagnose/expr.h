/* expr.h — the `when` expression language of rule files (DESIGN §3,
 * kgmem-rules(5)), also used for `{…}` placeholders in rule text.
 *
 * Grammar (lowest precedence first):
 *   expr    := or
 *   or      := and ("or" and)*
 *   and     := not ("and" not)*
 *   not     := "not" not | cmp
 *   cmp     := sum (("<" | "<=" | ">" | ">=" | "==" | "!=") sum)?
 *   sum     := prod (("+" | "-") prod)*
 *   prod    := unary (("*" | "/") unary)*
 *   unary   := "-" unary | primary
 *   primary := NUMBER [UNIT] | STRING | "true" | "false" | FACT
 *            | FUNC "(" expr ("," expr)* ")" | "(" expr ")"
 * NUMBER is decimal (1, 0.9, 1e6); UNIT is bytes|B|KiB|MiB|GiB|TiB|KB|MB|GB|TB
 * (all binary, as PyTorch prints them) or "%" (90 % = 0.9). STRING is
 * "double-quoted" with \" and \\ escapes. FACT is a dotted lower-case name
 * that the fact registry (facts.h) knows; an unknown name is a compile
 * error. FUNC: defined(x), near(a, b), matches(x, "pcre2 regex"),
 * min(a, …), max(a, …), floor(x), ceil(x), default(x, fallback),
 * relation(a, b): the sign that is true of two numbers of one unit as they
 * print, ">" "<" "=", or "≥" "≤" when they differ but print the same
 * (for rule text: "{oom.requested} requested {relation(oom.requested,
 * oom.free)} {oom.free} free").
 *
 * Values are three-valued: a missing fact is *unknown*, and unknown
 * propagates through arithmetic, comparisons and functions, except that
 * `false and unknown` is false, `true or unknown` is true, defined(x) is
 * never unknown, and default(x, y) is y when x is unknown. Comparisons use
 * the best value; near() is true when the two uncertainty intervals
 * overlap (a printed "19.99 GiB" is anything in [19.985, 19.995) GiB).
 * Values carry a unit (bytes, count, ratio) so a placeholder prints as
 * "19.99 GiB", "40,943" or "97 %": bytes ± bytes and bytes × number are
 * bytes, bytes / bytes is a ratio, bytes / count is bytes.
 *
 * Compile once, evaluate many: regexes are compiled with PCRE2 JIT at
 * compile time, with match and depth limits, and matched without
 * allocation. A compiled expression is not safe to evaluate from two
 * threads at once (it owns one PCRE2 match block per regex). */
#ifndef KG_EXPR_H
#define KG_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include "model/facts.h"
#include "model/util.h"

typedef enum kg_val_kind {
	KG_VAL_UNKNOWN = 0,
	KG_VAL_BOOL,
	KG_VAL_NUM,
	KG_VAL_STR,
} kg_val_kind;

typedef struct kg_value {
	kg_val_kind kind;
	kg_fact_type unit;    /* for NUM: KG_FACT_BYTES, _COUNT or _RATIO */
	double num, lo, hi;   /* NUM (num/lo/hi) and BOOL (num 0 or 1) */
	const char *str;      /* STR: borrowed from the facts or the expression */
} kg_value;

typedef struct kg_expr kg_expr;

/* Compiles src (NUL-terminated). On error returns NULL, fills err->msg with
 * a reason ("unknown fact 'oom.requsted'", "expected ')'", "bad regex:
 * …") and sets *err_off to the 0-based byte offset in src where the
 * problem is (the caller turns it into line:col). Expressions deeper than
 * 64 levels or longer than 64 KiB are refused. */
kg_expr *kg_expr_compile(const char *src, kg_error *err, size_t *err_off);

/* Evaluates against facts. Never fails: type mismatches, division by zero
 * and regex match-limit overruns give unknown. */
kg_value kg_expr_eval(const kg_expr *e, const kg_facts *facts);

/* Truth of a condition: 1 true, 0 false, -1 unknown (also for a non-bool
 * result). */
int kg_expr_truth(const kg_expr *e, const kg_facts *facts);

/* The distinct fact names the expression reads, in first-use order. */
size_t kg_expr_nfacts(const kg_expr *e);
const char *kg_expr_fact(const kg_expr *e, size_t i);

/* Formats a value in its unit (see kg_fact_value_format); unknown → "?". */
char *kg_value_format(kg_value v, char *buf, size_t n);

void kg_expr_free(kg_expr *e);

#endif

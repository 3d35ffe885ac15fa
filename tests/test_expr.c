/* test_expr.c — the `when` expression language: parsing, precedence,
 * units, three-valued logic, near() with printed-size intervals,
 * matches(), errors with their offsets, and value formatting. */
#include "diagnose/expr.h"
#include "model/facts.h"
#include "tap.h"
#include "model/units.h"

#include <stdlib.h>

static kg_facts F;

/* -1 unknown, 0 false, 1 true; -9 when it does not compile */
static int truth(const char *src)
{
	kg_error err = {0};
	size_t off = 0;
	kg_expr *e = kg_expr_compile(src, &err, &off);
	if (!e)
		return -9;
	int t = kg_expr_truth(e, &F);
	kg_expr_free(e);
	return t;
}

static char *fmt(const char *src)
{
	static char buf[128];
	kg_expr *e = kg_expr_compile(src, NULL, NULL);
	if (!e)
		return "<error>";
	kg_value_format(kg_expr_eval(e, &F), buf, sizeof buf);
	kg_expr_free(e);
	return buf;
}

/* compile error: returns the offset, fills msg */
static long err_at(const char *src, char *msg, size_t n)
{
	kg_error err = {0};
	size_t off = 0;
	kg_expr *e = kg_expr_compile(src, &err, &off);
	if (e) {
		kg_expr_free(e);
		return -1;
	}
	snprintf(msg, n, "%s", err.msg);
	return (long)off;
}

static void set_size(const char *name, const char *printed)
{
	kg_size s;
	if (kg_size_parse_str(printed, &s) == 0)
		kg_facts_set_bytes(&F, name, s, "test");
}

int main(void)
{
	/* seed 004's message */
	set_size("oom.requested", "16.00 MiB");
	set_size("oom.total_capacity", "23.56 GiB");
	set_size("oom.free", "33.56 MiB");
	set_size("oom.allocated", "21.13 GiB");
	set_size("oom.reserved_unallocated", "1.41 GiB");
	kg_facts_set_str(&F, "phase", "eval", "test");
	kg_facts_set_str(&F, "frames.functions", "main train _eval_one_dim forward", "test");
	kg_facts_set_num(&F, "dataset.entities", KG_FACT_COUNT, 40943, "test");
	kg_facts_derive(&F);

	/* arithmetic and precedence */
	TAP_EQ_I64(truth("1 + 2 * 3 == 7"), 1, "* binds tighter than +");
	TAP_EQ_I64(truth("(1 + 2) * 3 == 9"), 1, "parentheses");
	TAP_EQ_I64(truth("10 - 4 - 3 == 3"), 1, "- is left-associative");
	TAP_EQ_I64(truth("-2 * -3 == 6"), 1, "unary minus");
	TAP_EQ_I64(truth("not 1 > 2 and 2 > 1"), 1, "not binds tighter than and");
	TAP_EQ_I64(truth("1 > 2 and 1 > 2 or 3 > 2"), 1, "and binds tighter than or");
	TAP_EQ_I64(truth("1 > 2 and (1 > 2 or 3 > 2)"), 0, "grouping changes or/and");

	/* units */
	TAP_EQ_I64(truth("2 MiB == 2097152"), 1, "2 MiB is 2097152 bytes");
	TAP_EQ_I64(truth("1 GB == 1 GiB"), 1, "GB is binary, as PyTorch prints it");
	TAP_EQ_I64(truth("90 % == 0.9"), 1, "percent literal");
	TAP_EQ_I64(truth("oom.reserved_unallocated >= oom.requested"), 1, "1.41 GiB >= 16 MiB");
	TAP_EQ_I64(truth("oom.requested < 16.5 MiB and oom.requested > 15.5MiB"), 1, "unit without space");
	TAP_EQ_STR(fmt("oom.allocated + oom.reserved_unallocated"), "22.54 GiB", "bytes + bytes formats as bytes");
	TAP_EQ_STR(fmt("oom.allocated / oom.total_capacity"), "90 %", "bytes / bytes is a ratio");
	TAP_EQ_STR(fmt("dataset.entities"), "40,943", "counts with thousands separators");
	TAP_EQ_STR(fmt("oom.requested * 2"), "32.00 MiB", "bytes * count is bytes");
	TAP_EQ_STR(fmt("floor(oom.total_capacity / (oom.allocated + 1 GiB))"), "100 %",
		   "floor keeps the unit (a ratio here)");
	TAP_EQ_STR(fmt("floor(dataset.entities / 1000)"), "40", "floor of a count");

	/* strings and matches */
	TAP_EQ_I64(truth("phase == \"eval\""), 1, "string equality");
	TAP_EQ_I64(truth("phase != \"backward\""), 1, "string inequality");
	TAP_EQ_I64(truth("matches(frames.functions, \"\\\\b_eval\\\\w*\")"), 1, "regex with \\b and \\w");
	TAP_EQ_I64(truth("matches(frames.functions, \"(?i)SCORE_ALL\")"), 0, "regex that does not match");
	TAP_EQ_I64(truth("phase > \"a\""), -1, "ordering strings is unknown, not an error");

	/* three-valued logic */
	TAP_EQ_I64(truth("oom.reserved > 1 GiB"), 1, "derived-style fact present");
	TAP_EQ_I64(truth("oom.process_in_use > 1 GiB"), -1, "missing fact: unknown");
	TAP_EQ_I64(truth("not (oom.process_in_use > 1 GiB)"), -1, "not unknown is unknown");
	TAP_EQ_I64(truth("oom.process_in_use > 1 GiB and 1 > 2"), 0, "unknown and false is false");
	TAP_EQ_I64(truth("oom.process_in_use > 1 GiB and 2 > 1"), -1, "unknown and true is unknown");
	TAP_EQ_I64(truth("oom.process_in_use > 1 GiB or 2 > 1"), 1, "unknown or true is true");
	TAP_EQ_I64(truth("oom.process_in_use > 1 GiB or 1 > 2"), -1, "unknown or false is unknown");
	TAP_EQ_I64(truth("defined(oom.process_in_use)"), 0, "defined() is never unknown");
	TAP_EQ_I64(truth("defined(oom.free)"), 1, "defined() of a present fact");
	TAP_EQ_I64(truth("default(oom.process_in_use, 0) == 0"), 1, "default() replaces unknown");
	TAP_EQ_I64(truth("max(oom.free, oom.process_in_use) > 0"), -1, "max with an unknown argument");
	TAP_EQ_I64(truth("min(oom.free, oom.requested) == oom.requested"), 1, "min");
	TAP_EQ_I64(truth("oom.free / 0 > 1"), -1, "division by zero is unknown");
	TAP_EQ_I64(truth("phase + 1 > 1"), -1, "string arithmetic is unknown");
	TAP_EQ_I64(truth("matches(alloc_conf, \"x\")"), -1, "matches on a missing fact");
	TAP_EQ_I64(truth("oom.requested"), -1, "a number is not a truth value");

	/* relation(): the sign true of the numbers as printed */
	TAP_EQ_STR(fmt("relation(oom.requested, oom.free)"), "<", "16.00 MiB < 33.56 MiB (never '>')");
	TAP_EQ_STR(fmt("relation(oom.free, oom.requested)"), ">", "33.56 MiB > 16.00 MiB");
	TAP_EQ_STR(fmt("relation(oom.requested, 16 MiB)"), "=", "equal numbers");
	TAP_EQ_STR(fmt("relation(oom.requested, 16.001 MiB)"), "≤", "smaller, but prints the same: ≤");
	TAP_EQ_STR(fmt("relation(16.001 MiB, oom.requested)"), "≥", "larger, but prints the same: ≥");
	TAP_EQ_STR(fmt("relation(oom.requested, 2)"), "?", "bytes against a count: unknown");
	TAP_EQ_STR(fmt("relation(oom.process_in_use, oom.free)"), "?", "a missing fact: unknown");

	/* near(): printed-size intervals */
	TAP_EQ_I64(truth("near(oom.requested, 16777216)"), 1, "16.00 MiB is near 16777216 bytes");
	TAP_EQ_I64(truth("near(oom.requested, 16.004 MiB)"), 1, "within half a last digit");
	TAP_EQ_I64(truth("near(oom.requested, 16.006 MiB)"), 0, "beyond half a last digit");
	TAP_EQ_I64(truth("near(oom.allocated + oom.reserved_unallocated, 22.549 GiB)"), 1,
		   "intervals add up: [22.53, 22.55) reaches 22.549 GiB");
	TAP_EQ_I64(truth("near(oom.allocated + oom.reserved_unallocated, 22.57 GiB)"), 0,
		   "but not 22.57 GiB");
	TAP_EQ_I64(truth("oom.allocated + oom.reserved_unallocated == 22.55 GiB"), 0,
		   "== compares best values, near() the intervals");

	/* errors with offsets */
	char msg[512];
	TAP_EQ_I64(err_at("oom.requsted > 1", msg, sizeof msg), 0, "unknown fact at its offset");
	TAP_OK(strstr(msg, "unknown fact 'oom.requsted'") != NULL, "message names it: %s", msg);
	TAP_EQ_I64(err_at("oom.free > (1 + 2", msg, sizeof msg), 17, "missing ')' at the end");
	TAP_OK(strstr(msg, "expected ')'") != NULL, "message: %s", msg);
	TAP_EQ_I64(err_at("oom.free > 1 oom.free", msg, sizeof msg), 13, "two values without an operator");
	TAP_EQ_I64(err_at("matches(phase, \"a(b\")", msg, sizeof msg), 19, "bad regex points into the literal");
	TAP_OK(strstr(msg, "bad regex") != NULL, "message: %s", msg);
	TAP_EQ_I64(err_at("matches(phase, phase)", msg, sizeof msg), 15, "regex must be a literal");
	TAP_EQ_I64(err_at("near(oom.free)", msg, sizeof msg), 0, "wrong argument count");
	TAP_OK(strstr(msg, "near() takes 2 arguments") != NULL, "message: %s", msg);
	TAP_EQ_I64(err_at("frobnicate(1)", msg, sizeof msg), 0, "unknown function");
	TAP_EQ_I64(err_at("oom.free = 1", msg, sizeof msg), 9, "'=' is not '=='");
	TAP_EQ_I64(err_at("1 < 2 < 3", msg, sizeof msg), 6, "comparisons do not chain");
	TAP_EQ_I64(err_at("\"abc", msg, sizeof msg), 0, "unterminated string");
	TAP_EQ_I64(err_at("", msg, sizeof msg), 0, "empty expression");
	TAP_EQ_I64(err_at("1 and", msg, sizeof msg), 5, "dangling and");
	char deep[400];
	memset(deep, '(', 200);
	strcpy(deep + 200, "1");
	TAP_OK(err_at(deep, msg, sizeof msg) >= 0 && strstr(msg, "deeply"), "nesting is bounded: %s", msg);
	TAP_EQ_I64(truth("config.eval_batch_size > 1"), -1, "config.* prefix is a known name");
	TAP_EQ_I64(err_at("config. > 1", msg, sizeof msg), 0, "a bare prefix is not a name");

	/* compile once, evaluate many */
	kg_expr *e = kg_expr_compile("oom.free < oom.requested", NULL, NULL);
	TAP_EQ_I64(kg_expr_nfacts(e), 2, "two facts read");
	TAP_EQ_STR(kg_expr_fact(e, 1), "oom.requested", "in first-use order");
	TAP_EQ_I64(kg_expr_truth(e, &F), 0, "33.56 MiB free is not < 16 MiB");
	set_size("oom.free", "8.00 MiB");
	TAP_EQ_I64(kg_expr_truth(e, &F), 1, "re-evaluated against changed facts");
	kg_expr_free(e);

	/* a pathological regex hits the match limit: unknown, not a hang */
	kg_facts_set_str(&F, "oom.message", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", "test");
	TAP_OK(truth("matches(oom.message, \"^(a|aa)+$\")") != 1, "catastrophic backtracking bounded");

	kg_facts_free(&F);
	return tap_done();
}

/* tap.h — a minimal TAP producer for the C unit tests (meson runs them with
 * protocol 'tap'). Each check prints "ok N - what" or "not ok N - what" with
 * the values that differed. */
#ifndef KG_TAP_H
#define KG_TAP_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define TAP_OK(cond, ...) do { \
	int ok_ = (cond) ? 1 : 0; \
	printf("%sok %d - ", ok_ ? "" : "not ", ++tap_n); \
	printf(__VA_ARGS__); \
	printf("\n"); \
	if (!ok_) { tap_failed++; printf("#   at %s:%d\n", __FILE__, __LINE__); } \
} while (0)

#define TAP_EQ_I64(got, want, ...) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	TAP_OK(g_ == w_, __VA_ARGS__); \
	if (g_ != w_) printf("#   got %lld, want %lld\n", g_, w_); \
} while (0)

#define TAP_EQ_STR(got, want, ...) do { \
	const char *g_ = (got), *w_ = (want); \
	int same_ = (g_ && w_) ? strcmp(g_, w_) == 0 : g_ == w_; \
	TAP_OK(same_, __VA_ARGS__); \
	if (!same_) printf("#   got \"%s\", want \"%s\"\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
} while (0)

/* A fixed-seed xorshift64 generator for randomized tests (reproducible
 * runs; reseed by assigning tap_rng): a number in [0, n). */
static uint64_t tap_rng = 0x9e3779b97f4a7c15u;
static inline unsigned tap_rnd(unsigned n)
{
	tap_rng ^= tap_rng << 13;
	tap_rng ^= tap_rng >> 7;
	tap_rng ^= tap_rng << 17;
	return (unsigned)(tap_rng % n);
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif

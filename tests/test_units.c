/* Unit tests for units.c: sizes exactly as DESIGN §4 converts them
 * (binary units, nearest byte) and c10 format_size output. Expected values
 * come from ../shared/corpus/dev.jsonl records (ids given). */
#include <errno.h>
#include "tap.h"
#include <ctype.h>
#include <stdlib.h>
#include "model/units.h"
#include "model/util.h"

static void size_case(const char *s, long long want, const char *why)
{
	kg_size v;
	int rc = kg_size_parse_str(s, &v);
	TAP_OK(rc == 0, "parse '%s' (%s)", s, why);
	if (rc == 0)
		TAP_EQ_I64(v.bytes, want, "'%s' = %lld bytes", s, want);
}

/* kg_memcasemem (util.c, SSE2 on x86-64) against a byte-at-a-time search:
 * haystacks of every length around the 16-byte blocks, matches at the very
 * end, needles longer than the haystack, mixed case, NUL bytes in the
 * haystack. */
static void memcasemem_matches_naive(void)
{
	static const char alpha[] = "sStTeE\0x";
	static const char *const needles[] = {"step", "STEP", "s", "Tset", "epoch", "ss"};
	static const size_t nlen[] = {4, 4, 1, 4, 5, 2};
	int bad = 0, checks = 0;
	char h[80];
	for (int round = 0; round < 400; round++) {
		size_t hn = tap_rnd(sizeof h);
		for (size_t i = 0; i < hn; i++)
			h[i] = alpha[tap_rnd(sizeof alpha - 1)];
		for (size_t k = 0; k < sizeof needles / sizeof *needles; k++) {
			const char *want = NULL;
			for (size_t i = 0; i + nlen[k] <= hn && !want; i++) {
				size_t j = 0;
				while (j < nlen[k] && tolower((unsigned char)h[i + j]) == tolower((unsigned char)needles[k][j]))
					j++;
				if (j == nlen[k])
					want = h + i;
			}
			const char *got = kg_memcasemem(h, hn, needles[k], nlen[k]);
			checks++;
			if (got != want && bad++ < 3)
				printf("# round %d needle %zu: got %td, want %td\n", round, k,
				       got ? got - h : -1, want ? want - h : -1);
		}
	}
	TAP_OK(bad == 0 && checks > 2000, "kg_memcasemem agrees with a naive search (%d checks)", checks);
}

/* kg_utf8_len / kg_sanitize_utf8 (util.c), RFC 3629 well-formedness. */
static void utf8(void)
{
	static const struct { const char *s; size_t n; bool cut; size_t want; } v[] = {
		{"\xc3\xa9", 2, false, 2}, {"\xe2\x96\x88", 3, false, 3}, {"\xf0\x9f\x98\x80", 4, false, 4},
		{"\xc0\xaf", 2, false, 0},          /* overlong '/' */
		{"\xe0\x80\xaf", 3, false, 0},      /* overlong */
		{"\xed\xa0\x80", 3, false, 0},      /* surrogate U+D800 */
		{"\xf4\x90\x80\x80", 4, false, 0}, /* above U+10FFFF */
		{"\xf5\x80\x80\x80", 4, false, 0}, /* no such lead byte */
		{"\xff\x80\x80", 3, false, 0},
		{"\xe2\x96", 2, false, 0}, {"\xe2\x96", 2, true, 3}, /* cut by the end */
		{"\xe2\x41\x88", 3, true, 0},
	};
	for (size_t i = 0; i < sizeof v / sizeof *v; i++)
		TAP_EQ_I64(kg_utf8_len((const unsigned char *)v[i].s, v[i].n, v[i].cut), v[i].want,
			   "kg_utf8_len case %zu", i);
	char *t = kg_sanitize_utf8("a\xff\x80\x80" "b\xc3\xa9\tc\x01", 10);
	TAP_EQ_STR(t, "a\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "b\xc3\xa9\tc ",
		   "sanitize: 0xff is no lead byte (U+FFFD), controls become spaces");
	free(t);
	size_t rn = 0;
	t = kg_utf8_repair("a\xff\n\x1b[1m\xe2\x96\0z\xc3\xa9", 13, &rn);
	TAP_OK(rn == 19 && !memcmp(t, "a\xef\xbf\xbd\n\x1b[1m\xef\xbf\xbd\xef\xbf\xbd\0z\xc3\xa9", 19),
	       "repair: invalid bytes become U+FFFD, newlines, escapes and NULs stay (%zu bytes)", rn);
	free(t);
}

int main(void)
{
	size_case("19.99 GiB", 21464099062LL, "seed 001 request");
	size_case("1.96 GiB", 2104533975LL, "pt1-0005");
	size_case("2.88 MiB", 3019899LL, "pt1-0005");
	size_case("0 bytes", 0, "pt1-0006");
	size_case("4.00 KiB", 4096, "rocm-0009");
	size_case("7178.44 GiB", 7707791259075LL, "pt2-0019");
	size_case("5.56 GB", 5970004541LL, "mps-0001 binary GB");
	size_case("768.00 MB", 805306368LL, "mps-0001");
	size_case("7406166528 bytes", 7406166528LL, "jax-0001");
	size_case("1.97GiB", 2115271393LL, "TF HumanReadableNumBytes");
	size_case("3640655872B", 3640655872LL, "jax-0009");
	size_case("3.39G", 3639984783LL, "TF cuda_driver");
	size_case("1.5G", 1610612736LL, "calc shorthand");
	size_case("14324 MiB", 14324LL << 20, "memory_summary cell");

	kg_size v;
	kg_size_parse_str("19.99 GiB", &v);
	TAP_OK(v.lo <= 21464099062LL && v.hi >= 21464099062LL, "19.99 GiB inside its interval");
	TAP_EQ_I64(v.lo, (long long)(((19985LL << 30) + 999) / 1000), "19.99 GiB interval low = ceil(19.985 GiB)");
	TAP_OK(v.hi < (19995LL << 30) / 1000 + 1, "19.99 GiB interval high < 19.995 GiB");
	kg_size_parse_str("7406166528 bytes", &v);
	TAP_OK(v.lo == v.bytes && v.hi == v.bytes, "integer bytes are exact");

	errno = 0;
	TAP_OK(kg_size_parse_str("17179869184.00 GiB", &v) < 0 && errno == ERANGE,
	       "2^64 bytes (c10's print of a wrapped negative request) is ERANGE");
	errno = 0;
	TAP_OK(kg_size_parse_str("8589934591.99 GiB", &v) == 0 && v.bytes > 0,
	       "just under 2^63 bytes still parses");
	errno = 0;
	TAP_OK(kg_size_parse_str("GiB", &v) < 0 && errno == 0, "unit alone rejected, not ERANGE");
	TAP_OK(kg_size_parse_str("", &v) < 0, "empty rejected");
	TAP_OK(kg_size_parse_str("12.5", &v) < 0, "fraction without unit rejected");
	TAP_OK(kg_size_parse_str("99999999999999999999 GiB", &v) < 0, "overflow rejected");
	/* fuzz regression: a 31-digit mantissa times 2^50 overflowed int128 */
	TAP_OK(kg_size_parse_str("7777777777777777777777777777771PB", &v) < 0, "huge PB mantissa rejected");
	/* fuzz regression: an exact half prints rounded to even; the interval
	 * of the printed text must still hold the value */
	char fb[32];
	kg_size_format(3712, fb, sizeof fb);
	TAP_OK(kg_size_parse_str(fb, &v) == 0 && v.lo <= 3712 && v.hi >= 3712,
	       "3712 bytes prints %s, whose interval [%lld, %lld] holds it", fb, (long long)v.lo, (long long)v.hi);
	TAP_OK(kg_size_parse_str("1.5 GiBs", &v) < 0, "trailing letters rejected");

	char buf[64];
	TAP_EQ_STR(kg_size_format(512, buf, sizeof buf), "512 bytes", "format 512");
	TAP_EQ_STR(kg_size_format(1024, buf, sizeof buf), "1024 bytes", "format 1024 (c10: <=1024 is bytes)");
	TAP_EQ_STR(kg_size_format(1048576, buf, sizeof buf), "1024.00 KiB", "format 1 MiB prints KiB");
	TAP_EQ_STR(kg_size_format(1073741824, buf, sizeof buf), "1024.00 MiB", "format 1 GiB prints MiB");
	TAP_EQ_STR(kg_size_format(21464099062LL, buf, sizeof buf), "19.99 GiB", "format 19.99 GiB");
	TAP_EQ_STR(kg_size_format(2097152, buf, sizeof buf), "2.00 MiB", "format 2 MiB");

	kg_size a, b;
	kg_size_parse_str("19.99 GiB", &a);
	b = kg_size_exact(21464350720LL);
	TAP_OK(kg_size_near(a, b), "19.99 GiB near 2x128x40943x512x4");
	b = kg_size_exact(20LL << 30);
	TAP_OK(!kg_size_near(a, b), "19.99 GiB not near 20 GiB");
	memcasemem_matches_naive();
	utf8();
	return tap_done();
}

/* atoms.c — see include/atoms.h. */
#include "atoms.h"

#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* Rough rank of how common a byte is in training logs (lower = rarer):
 * letters by English frequency; the capitals that logs print all the time
 * (timestamps' T, INFO, WARNING, Epoch, MiB, GB, …) count as common as
 * their lower case, other capitals a little rarer; digits, blanks and the
 * punctuation of numbers, paths, key=value pairs and code are frequent;
 * other punctuation is rare. */
static int commonness(unsigned char c)
{
	static const char by_freq[] = "etaoinshrdlcumwfgypbvkjxqz";
	if (c >= 'a' && c <= 'z')
		return 100 + 26 - (int)(strchr(by_freq, c) - by_freq);
	if (c >= 'A' && c <= 'Z') {
		int lower = 100 + 26 - (int)(strchr(by_freq, c - 'A' + 'a') - by_freq);
		return strchr("TIEWSMBGKPDNRC", c) ? lower : lower - 10;
	}
	if ((c >= '0' && c <= '9') || strchr(" .:/|,-=_()[]\"'\t", c))
		return 250;
	return 40; /* < > ~ ` { } # @ $ % ^ & * ! ? ; + \ and non-ASCII */
}

int kg_atoms_add(kg_atoms *a, const char *lit, uint32_t cls)
{
	size_t len = strlen(lit);
	if (a->natoms >= KG_ATOMS_MAX || len == 0 || len > 255)
		return -1;
	size_t best = 0;
	for (size_t i = 1; i < len; i++)
		if (commonness((unsigned char)lit[i]) < commonness((unsigned char)lit[best]))
			best = i;
	unsigned char c = (unsigned char)lit[best];
	/* distinct high nibbles must fit in 8 bits of the class tables */
	uint8_t bit = 0;
	for (int h = 0; h < 16 && !bit; h++)
		if (a->hi[h] && h == (c >> 4))
			bit = a->hi[h];
	if (!bit) {
		uint8_t used = 0;
		for (int h = 0; h < 16; h++)
			used |= a->hi[h];
		for (int k = 0; k < 8 && !bit; k++)
			if (!(used & (1u << k)))
				bit = (uint8_t)(1u << k);
		if (!bit)
			return -1;
		a->hi[c >> 4] = bit;
	}
	a->lo[c & 15] |= bit;
	a->member[c] = 1;
	if (best + 1 < len) {
		unsigned char d = (unsigned char)lit[best + 1];
		a->next_ok[c][d >> 3] |= (uint8_t)(1u << (d & 7));
	} else {
		a->last[c] = 1;
	}
	int idx = a->natoms++;
	a->atom[idx].lit = lit;
	a->atom[idx].len = (uint8_t)len;
	a->atom[idx].anchor = (uint8_t)best;
	a->atom[idx].cls = cls;
	a->next[idx] = a->first[c];
	a->first[c] = (uint8_t)(idx + 1);
	return 0;
}

/* Verifies the atoms anchored on buf[i]; returns the ORed classes. The
 * byte after the anchor is tested against a bitset first (a bigram
 * filter), which rejects most hits of common anchor letters cheaply. */
static inline uint32_t verify(const kg_atoms *a, const char *buf, size_t n, size_t i)
{
	unsigned char c = (unsigned char)buf[i];
	if (!a->last[c]) {
		if (i + 1 >= n)
			return 0;
		unsigned char d = (unsigned char)buf[i + 1];
		if (!(a->next_ok[c][d >> 3] & (1u << (d & 7))))
			return 0;
	}
	uint32_t cls = 0;
	for (int k = a->first[(unsigned char)buf[i]]; k; k = a->next[k - 1]) {
		const __typeof__(a->atom[0]) *t = &a->atom[k - 1];
		if (i < t->anchor || i - t->anchor + t->len > n)
			continue;
		const char *p = buf + i - t->anchor;
		/* first and last bytes before the full compare */
		if (p[0] != t->lit[0] || p[t->len - 1] != t->lit[t->len - 1])
			continue;
		if (memcmp(p, t->lit, t->len) == 0)
			cls |= t->cls;
	}
	return cls;
}

#if defined(__x86_64__)
__attribute__((target("ssse3")))
static size_t find_ssse3(const kg_atoms *a, const char *buf, size_t n, size_t from, uint32_t *cls)
{
	const __m128i lo_t = _mm_loadu_si128((const __m128i *)a->lo);
	const __m128i hi_t = _mm_loadu_si128((const __m128i *)a->hi);
	const __m128i nib = _mm_set1_epi8(0x0f);
	const __m128i zero = _mm_setzero_si128();
	size_t i = from;
	while (i + 16 <= n) {
		__m128i v = _mm_loadu_si128((const __m128i *)(buf + i));
		__m128i l = _mm_shuffle_epi8(lo_t, _mm_and_si128(v, nib));
		__m128i h = _mm_shuffle_epi8(hi_t, _mm_and_si128(_mm_srli_epi16(v, 4), nib));
		__m128i m = _mm_cmpeq_epi8(_mm_and_si128(l, h), zero);
		unsigned bits = (unsigned)(~_mm_movemask_epi8(m)) & 0xffffu;
		while (bits) {
			unsigned b = (unsigned)__builtin_ctz(bits);
			bits &= bits - 1;
			uint32_t c = verify(a, buf, n, i + b);
			if (c) {
				*cls = c;
				return i + b;
			}
		}
		i += 16;
	}
	for (; i < n; i++) {
		if (a->member[(unsigned char)buf[i]]) {
			uint32_t c = verify(a, buf, n, i);
			if (c) {
				*cls = c;
				return i;
			}
		}
	}
	return n;
}
#endif

static size_t find_scalar(const kg_atoms *a, const char *buf, size_t n, size_t from, uint32_t *cls)
{
	for (size_t i = from; i < n; i++) {
		if (a->member[(unsigned char)buf[i]]) {
			uint32_t c = verify(a, buf, n, i);
			if (c) {
				*cls = c;
				return i;
			}
		}
	}
	return n;
}

size_t kg_atoms_find(const kg_atoms *a, const char *buf, size_t n, size_t from, uint32_t *cls)
{
	*cls = 0;
#if defined(__x86_64__)
	static int have = -1;
	if (have < 0) {
		__builtin_cpu_init();
		have = __builtin_cpu_supports("ssse3") ? 1 : 0;
	}
	if (have)
		return find_ssse3(a, buf, n, from, cls);
#endif
	return find_scalar(a, buf, n, from, cls);
}

size_t kg_count_newlines(const char *buf, size_t n)
{
	size_t c = 0, i = 0;
#if defined(__x86_64__)
	/* SSE2: each match is 0xff; psadbw sums 8 bytes at a time, in blocks
	 * short enough that the 16-bit lane sums cannot overflow */
	const __m128i nl = _mm_set1_epi8('\n');
	const __m128i zero = _mm_setzero_si128();
	while (i + 16 <= n) {
		__m128i acc = zero;
		size_t stop = i + 16 * 128 < n ? i + 16 * 128 : n;
		for (; i + 16 <= stop; i += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(buf + i));
			acc = _mm_add_epi64(acc, _mm_sad_epu8(_mm_cmpeq_epi8(v, nl), zero));
		}
		c += ((size_t)_mm_cvtsi128_si64(acc) + (size_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(acc, acc))) / 255;
	}
#endif
	for (; i < n; i++)
		c += buf[i] == '\n';
	return c;
}

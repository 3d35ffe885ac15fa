/* units.c — see include/units.h. */
#include "units.h"
#include "util.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

kg_size kg_size_none(void)
{
	return (kg_size){KG_NONE, KG_NONE, KG_NONE};
}

kg_size kg_size_exact(int64_t bytes)
{
	return (kg_size){bytes, bytes, bytes};
}

bool kg_size_known(kg_size s)
{
	return s.bytes != KG_NONE;
}

static const struct {
	const char *name;
	int shift;
} unit_names[] = {
	/* longest first so "KiB" wins over "K" */
	{"bytes", 0}, {"byte", 0},
	{"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40}, {"PiB", 50},
	{"KB", 10}, {"MB", 20}, {"GB", 30}, {"TB", 40}, {"PB", 50},
	{"kB", 10}, {"Kb", 10},
	{"B", 0}, {"K", 10}, {"k", 10}, {"M", 20}, {"G", 30}, {"T", 40}, {"P", 50},
};

int kg_size_parse(const char *s, size_t n, kg_size *out, size_t *consumed)
{
	size_t i = 0;
	__int128 mant = 0;
	int decimals = 0;
	bool digits = false, dot = false;
	while (i < n && (isdigit((unsigned char)s[i]) || (s[i] == '.' && !dot))) {
		if (s[i] == '.') {
			/* a dot must be followed by a digit to belong to the number */
			if (i + 1 >= n || !isdigit((unsigned char)s[i + 1]))
				break;
			dot = true;
		} else {
			digits = true;
			if (mant > ((__int128)1 << 100))
				return -1;
			mant = mant * 10 + (s[i] - '0');
			if (dot)
				decimals++;
			if (decimals > 12)
				return -1;
		}
		i++;
	}
	if (!digits)
		return -1;
	size_t j = i;
	while (j < n && s[j] == ' ')
		j++;
	int shift = -1;
	size_t ulen = 0;
	for (size_t k = 0; k < sizeof unit_names / sizeof unit_names[0]; k++) {
		size_t L = strlen(unit_names[k].name);
		if (j + L <= n && memcmp(s + j, unit_names[k].name, L) == 0 &&
		    (j + L == n || !isalpha((unsigned char)s[j + L]))) {
			shift = unit_names[k].shift;
			ulen = L;
			break;
		}
	}
	if (shift < 0) {
		/* no unit: a plain integer count of bytes */
		if (dot)
			return -1;
		shift = 0;
		j = i;
	} else {
		j += ulen;
	}
	__int128 pow10 = 1;
	for (int d = 0; d < decimals; d++)
		pow10 *= 10;
	__int128 unit = (__int128)1 << shift;
	__int128 num = mant * unit;
	__int128 bytes = (2 * num + pow10) / (2 * pow10); /* round half up */
	/* interval: value ± half a unit of the last printed digit */
	__int128 lo, hi;
	if (decimals == 0 && shift == 0) {
		lo = hi = bytes;
	} else {
		__int128 twice_lo = 2 * mant * unit - unit; /* (2m-1)/2 · unit / 10^d */
		__int128 twice_hi = 2 * mant * unit + unit;
		lo = twice_lo <= 0 ? 0 : (twice_lo + 2 * pow10 - 1) / (2 * pow10);
		hi = (twice_hi - 1) / (2 * pow10);
		if (hi < bytes)
			hi = bytes;
		if (lo > bytes)
			lo = bytes;
	}
	if (hi > (__int128)INT64_MAX)
		return -1;
	out->bytes = (int64_t)bytes;
	out->lo = (int64_t)lo;
	out->hi = (int64_t)hi;
	if (consumed)
		*consumed = j;
	return 0;
}

int kg_size_parse_str(const char *s, kg_size *out)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s), used = 0;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
		n--;
	if (kg_size_parse(s, n, out, &used) < 0 || used != n)
		return -1;
	return 0;
}

char *kg_size_format(int64_t bytes, char *buf, size_t n)
{
	if (bytes == KG_NONE)
		snprintf(buf, n, "?");
	else if (bytes <= 1024)
		snprintf(buf, n, "%lld bytes", (long long)bytes);
	else if (bytes <= 1048576)
		snprintf(buf, n, "%.2f KiB", bytes / 1024.0);
	else if (bytes <= 1073741824)
		snprintf(buf, n, "%.2f MiB", bytes / 1048576.0);
	else
		snprintf(buf, n, "%.2f GiB", bytes / 1073741824.0);
	return buf;
}

bool kg_size_near(kg_size a, kg_size b)
{
	if (!kg_size_known(a) || !kg_size_known(b))
		return false;
	return a.lo <= b.hi && b.lo <= a.hi;
}

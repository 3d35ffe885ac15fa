/* units.c — see include/model/units.h. */
#include "model/units.h"
#include "model/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

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
				return errno = ERANGE, -1;
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
	/* mant · 2^shift must stay far from the int128 limit */
	if (mant > ((__int128)1 << (100 - shift)))
		return errno = ERANGE, -1;
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
		/* inclusive at both ends: printf rounds an exact half to even, so
		 * 3712 bytes (3.625 KiB) prints "3.62 KiB" */
		lo = twice_lo <= 0 ? 0 : (twice_lo + 2 * pow10 - 1) / (2 * pow10);
		hi = twice_hi / (2 * pow10);
		if (hi < bytes)
			hi = bytes;
		if (lo > bytes)
			lo = bytes;
	}
	if (hi > (__int128)INT64_MAX)
		return errno = ERANGE, -1;
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

int64_t kg_clamp_i64(double x)
{
	if (x != x)
		return KG_NONE;
	if (x >= 9223372036854775808.0) /* 2^63 */
		return INT64_MAX;
	if (x <= -9223372036854775808.0)
		return INT64_MIN + 1;
	return (int64_t)x;
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

char *kg_bytes_grouped(int64_t bytes, char *buf, size_t n)
{
	char digits[32];
	int len = snprintf(digits, sizeof digits, "%lld", (long long)bytes);
	char out[48];
	size_t o = 0;
	int start = digits[0] == '-' ? 1 : 0;
	if (start)
		out[o++] = '-';
	for (int i = start; i < len; i++) {
		if (i > start && (len - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = 0;
	snprintf(buf, n, "%s", out);
	return buf;
}

/* PyTorch dtype names and widths: torch/_C/_VariableFunctions dtypes
 * (element_size()), PyTorch 2.x; aliases from torch/__init__.py
 * (`torch.float` = float32, `torch.half` = float16, …), TensorFlow's
 * DataTypeString (tensorflow/core/framework/types.cc: "float", "double",
 * "half") and JAX/NumPy short names (jnp.dtype(...).str, `f32[…]` in XLA
 * shape strings). */
static const struct {
	const char *name;
	const char *canonical;
	int bytes;
} dtypes[] = {
	{"float32", "float32", 4}, {"float", "float32", 4}, {"f32", "float32", 4},
	{"fp32", "float32", 4}, {"single", "float32", 4}, {"tf32", "float32", 4},
	{"float16", "float16", 2}, {"half", "float16", 2}, {"f16", "float16", 2},
	{"fp16", "float16", 2},
	{"bfloat16", "bfloat16", 2}, {"bf16", "bfloat16", 2},
	{"float64", "float64", 8}, {"double", "float64", 8}, {"f64", "float64", 8},
	{"fp64", "float64", 8},
	{"float8_e4m3fn", "float8_e4m3fn", 1}, {"float8_e4m3fnuz", "float8_e4m3fnuz", 1},
	{"float8_e5m2", "float8_e5m2", 1}, {"float8_e5m2fnuz", "float8_e5m2fnuz", 1},
	{"float8_e8m0fnu", "float8_e8m0fnu", 1}, {"fp8", "float8_e4m3fn", 1},
	{"f8e4m3fn", "float8_e4m3fn", 1}, {"f8e5m2", "float8_e5m2", 1},
	{"int8", "int8", 1}, {"i8", "int8", 1}, {"char", "int8", 1},
	{"uint8", "uint8", 1}, {"u8", "uint8", 1}, {"byte", "uint8", 1},
	{"int16", "int16", 2}, {"short", "int16", 2}, {"i16", "int16", 2},
	{"uint16", "uint16", 2}, {"u16", "uint16", 2},
	{"int32", "int32", 4}, {"int", "int32", 4}, {"i32", "int32", 4},
	{"uint32", "uint32", 4}, {"u32", "uint32", 4},
	{"int64", "int64", 8}, {"long", "int64", 8}, {"i64", "int64", 8},
	{"uint64", "uint64", 8}, {"u64", "uint64", 8},
	{"bool", "bool", 1}, {"pred", "bool", 1},
	{"complex64", "complex64", 8}, {"cfloat", "complex64", 8}, {"c64", "complex64", 8},
	{"complex128", "complex128", 16}, {"cdouble", "complex128", 16},
	{"c128", "complex128", 16},
	{"complex32", "complex32", 4}, {"chalf", "complex32", 4},
};

int kg_dtype_bytes(const char *name, const char **canonical)
{
	if (!name)
		return -1;
	if (strncasecmp(name, "torch.", 6) == 0)
		name += 6;
	else if (strncasecmp(name, "tf.", 3) == 0)
		name += 3;
	else if (strncasecmp(name, "jnp.", 4) == 0)
		name += 4;
	for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++) {
		if (strcasecmp(name, dtypes[i].name) == 0) {
			if (canonical)
				*canonical = dtypes[i].canonical;
			return dtypes[i].bytes;
		}
	}
	return -1;
}

int kg_precision_bytes(const char *p)
{
	static const struct { const char *name; int bytes; } prec[] = {
		{"32", 4}, {"32-true", 4}, {"fp32", 4}, {"float32", 4}, {"no", 4}, {"false", 4},
		{"16", 2}, {"16-mixed", 2}, {"16-true", 2}, {"bf16-mixed", 2}, {"bf16-true", 2},
		{"mixed", 2}, {"amp", 2}, {"true", 2}, {"fp16", 2}, {"bf16", 2},
		{"64", 8}, {"64-true", 8},
	};
	if (!p)
		return -1;
	for (size_t i = 0; i < sizeof prec / sizeof prec[0]; i++)
		if (strcasecmp(p, prec[i].name) == 0)
			return prec[i].bytes;
	return kg_dtype_bytes(p, NULL);
}

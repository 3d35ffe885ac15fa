/* units.h — sizes as PyTorch and the other frameworks print them.
 *
 * Every size in the tool is an exact byte count plus the interval of byte
 * counts that print the same way: "19.99 GiB" is 21463303291 bytes rounded,
 * meaning anything in [19.985, 19.995) GiB. Units are binary throughout:
 * c10 `format_size` (c10/cuda/CUDACachingAllocator.cpp) prints
 * bytes/KiB/MiB/GiB with two decimals; MPS (aten/src/ATen/mps/MPSAllocator.mm)
 * and pre-2.0 `memory_summary` print KB/MB/GB meaning powers of 1024;
 * TensorFlow's HumanReadableNumBytes prints "1.97GiB" without a space
 * (formats.md §1.3, §2, §7). */
#ifndef KG_UNITS_H
#define KG_UNITS_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

typedef struct kg_size {
	int64_t bytes;  /* nearest byte; KG_NONE when the value is not stated */
	int64_t lo, hi; /* inclusive interval of byte counts printing the same */
} kg_size;

/* The "not stated" size: bytes = lo = hi = KG_NONE. */
kg_size kg_size_none(void);
/* An exact size (lo = hi = bytes). */
kg_size kg_size_exact(int64_t bytes);
bool kg_size_known(kg_size s);

/* Parses a printed size at s[0..n): a decimal number, optional spaces, and a
 * unit: bytes|byte|B, KiB|KB|K|k, MiB|MB|M, GiB|GB|G, TiB|TB|T, PiB|PB|P
 * (all powers of 1024, as every format we read uses them). A bare integer
 * with no unit is bytes. Sets *consumed to the bytes used. The interval is
 * ±half a unit in the last printed digit (exact for integer byte counts).
 * Returns 0, or -1 when s does not start with a size or it overflows
 * int64 (2^63 bytes). Never reads past n. */
int kg_size_parse(const char *s, size_t n, kg_size *out, size_t *consumed);

/* Convenience: parses a NUL-terminated string that must be only a size
 * (surrounding spaces allowed). Returns -1 on anything else. */
int kg_size_parse_str(const char *s, kg_size *out);

/* Formats like c10 `format_size`: "<=1024" → "N bytes", then KiB, MiB, GiB
 * with two decimals (no TiB: 37252902.99 GiB occurs). Writes at most n
 * bytes (NUL included) and returns buf. */
char *kg_size_format(int64_t bytes, char *buf, size_t n);

/* True when a and b could be the same quantity given their intervals. */
bool kg_size_near(kg_size a, kg_size b);

#endif

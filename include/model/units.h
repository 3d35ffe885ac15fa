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
 * Returns 0, or -1 when s does not start with a size (errno unchanged) or
 * when the size is 2^63 bytes or more (errno ERANGE: it does not fit
 * int64; c10 prints such sizes for a request wrapped from a negative
 * number, "17179869184.00 GiB" = 2^64 bytes). Never reads past n. */
int kg_size_parse(const char *s, size_t n, kg_size *out, size_t *consumed);

/* Convenience: parses a NUL-terminated string that must be only a size
 * (surrounding spaces allowed). Returns -1 on anything else. */
int kg_size_parse_str(const char *s, kg_size *out);

/* Formats like c10 `format_size`: "<=1024" → "N bytes", then KiB, MiB, GiB
 * with two decimals (no TiB: 37252902.99 GiB occurs). Writes at most n
 * bytes (NUL included) and returns buf. */
char *kg_size_format(int64_t bytes, char *buf, size_t n);
/* x truncated toward zero to an int64, saturating: INT64_MAX at or above
 * 2^63, INT64_MIN + 1 at or below -2^63 (never KG_NONE), KG_NONE for NaN.
 * A double converted to an integer type it does not fit is undefined
 * behaviour (C11 6.3.1.4; x86-64 gives INT64_MIN, which reads as KG_NONE,
 * aarch64 saturates): every double-to-int64 conversion of a value read
 * from input goes through this (issue 26: 10^20 GiB, 10^26 MiB, 1e30). */
int64_t kg_clamp_i64(double x);

/* True when a and b could be the same quantity given their intervals. */
bool kg_size_near(kg_size a, kg_size b);

/* Formats an exact byte count with thousands separators
 * ("21,464,350,720"), as the calculators show exact bytes next to the
 * c10 format_size rendering. Writes at most n bytes and returns buf. */
char *kg_bytes_grouped(int64_t bytes, char *buf, size_t n);

/* Element width of a dtype, in bytes. Accepts PyTorch names (`float32`,
 * `bfloat16`, `float8_e4m3fn`, `complex64`, … as in torch/_C dtypes, with
 * or without a `torch.` prefix), their PyTorch aliases (`float`, `half`,
 * `double`, `long`, `int`, `short`, `cfloat`, `cdouble`), TensorFlow names
 * as its OOM messages print them (`float` = float32, `double`, `half`,
 * `bfloat16`, `int64`, `uint8`, `bool`, `complex64`) and JAX/NumPy short
 * forms (`f32`, `f16`, `bf16`, `f64`, `i8`…`i64`, `u8`, `c64`, `c128`,
 * `fp32`, `fp16`, `fp8`). Case-insensitive. Returns the width (1–16) and
 * sets *canonical (if non-NULL) to the PyTorch name; -1 when unknown. */
int kg_dtype_bytes(const char *name, const char **canonical);

/* Width of the values a training precision setting stores activations in:
 * `32`, `fp32`, `float32`, `32-true` → 4; `16`, `16-mixed`, `fp16`,
 * `bf16`, `bf16-mixed`, `mixed`, `amp`, `true` (an `fp16: true` flag) → 2;
 * `64` → 8; otherwise the dtype table above. -1 when unknown. */
int kg_precision_bytes(const char *precision);

#endif

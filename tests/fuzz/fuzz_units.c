/* fuzz_units.c — libFuzzer harness for the size parser (kg_size_parse,
 * kg_size_parse_str) and its round trip through kg_size_format: a parsed
 * size must have lo <= bytes <= hi, consume at most n bytes, and a formatted
 * byte count must parse back to an interval containing it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "model/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		size = 4096;
	char *s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = 0;
	kg_size z;
	size_t used = 0;
	if (kg_size_parse(s, size, &z, &used) == 0) {
		if (used == 0 || used > size || z.lo > z.bytes || z.bytes > z.hi || z.bytes < 0)
			abort();
		if (z.bytes >= ((int64_t)1 << 53))
			goto out; /* beyond 8 PiB c10's double arithmetic loses the last byte */
		char buf[64];
		kg_size_format(z.bytes, buf, sizeof buf);
		kg_size back;
		if (kg_size_parse_str(buf, &back) != 0)
			abort(); /* the formatter's output must parse */
		if (back.lo > z.bytes || back.hi < z.bytes)
			abort(); /* and its interval must contain the value */
	}
out:
	(void)kg_size_parse_str(s, &z);
	free(s);
	return 0;
}

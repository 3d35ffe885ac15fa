/* fuzz_summary.c — libFuzzer harness for the memory_summary() table parser
 * (summary.h) on arbitrary text held in an exact-size heap block, so a read
 * past n trips ASan. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "read/summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);
	memcpy(text, data, size);
	kg_error err = {0};
	kg_snapshot *v = kg_summary_parse(text, size, "fuzz.txt", &err);
	if (v)
		kg_snapshot_free(v);
	else if (!err.msg[0])
		abort(); /* a refusal must say why */
	free(text);
	return 0;
}

/* fuzz_oom.c — libFuzzer harness for the OOM grammars: kg_oom_candidate and
 * kg_oom_parse on arbitrary text, the way logscan.c calls them (first line
 * of the window, then up to KG_OOM_WINDOW_BYTES). The text is copied into an
 * exact-size heap block so any read past n trips ASan. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "read/oom.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	if (!ready) {
		kg_error e = {0};
		if (kg_oom_init(&e) != 0)
			abort();
		ready = 1;
	}
	if (size > KG_OOM_WINDOW_BYTES)
		size = KG_OOM_WINDOW_BYTES;
	char *text = malloc(size ? size : 1);
	memcpy(text, data, size);
	const char *nl = memchr(text, '\n', size);
	size_t first = nl ? (size_t)(nl - text) : size;
	(void)kg_oom_candidate(text, first);
	kg_oom o;
	memset(&o, 0, sizeof o);
	if (kg_oom_parse(text, size, first, &o) == 1) {
		if (o.start > o.end || o.end > size || o.start >= first)
			abort(); /* the message must lie in the text and start on line 1 */
		kg_oom_free(&o);
	}
	free(text);
	return 0;
}

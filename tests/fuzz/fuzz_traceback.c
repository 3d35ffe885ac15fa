/* fuzz_traceback.c — libFuzzer harness for the traceback frame parsers
 * (kg_tb_parse_frame, kg_tb_parse_arrow) and kg_tb_phase over the frames
 * parsed from each input line. Lines are exact-size heap copies so reads
 * past n trip ASan. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "read/traceback.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kg_frame frames[64];
	size_t nf = 0;
	size_t pos = 0;
	while (pos <= size) {
		const uint8_t *nl = memchr(data + pos, '\n', size - pos);
		size_t end = nl ? (size_t)(nl - data) : size;
		size_t n = end - pos;
		char *line = malloc(n ? n : 1);
		memcpy(line, data + pos, n);
		kg_frame f;
		memset(&f, 0, sizeof f);
		if (kg_tb_parse_frame(line, n, &f) == 1) {
			if (nf < 64)
				frames[nf++] = f;
			else
				kg_frame_free(&f);
		}
		const char *code = NULL;
		size_t codelen = 0;
		if (kg_tb_parse_arrow(line, n, &code, &codelen) != 0 && code &&
		    (code < line || code + codelen > line + n))
			abort(); /* the code must lie inside the line */
		free(line);
		pos = end + 1;
	}
	(void)kg_tb_phase(frames, nf);
	for (size_t i = 0; i < nf; i++)
		kg_frame_free(&frames[i]);
	return 0;
}

/* fuzz_envelope.c — libFuzzer harness for the envelope decoders (issue 13):
 * the first byte picks the decoders (a KG_ENV_* mask; 0 = what
 * kg_envelope_sniff says of the rest) and the read size, the rest is the
 * input, read through kg_envelope_read from a memfd source in small reads
 * (so lines, CRI P pieces, UTF-16 code units and surrogate pairs are cut
 * at every place). Checks: the decoder ends, and what it hands out is at
 * most what the input can give (a line expands by a bounded prefix).
 * Build: meson setup build-fuzz -Dfuzz=true (clang); see tests/fuzz/README.md. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "read/envelope.h"
#include "fuzz_common.h"
#include "read/source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned mask = data[0] & 63;
	size_t chunk = 1 + (size_t)(data[0] >> 6) * 97;
	kg_source src;
	kg_error err = {0};
	if (fuzz_open_mem(&src, data + 1, size - 1, "fuzz.log", &err) == 0) {
		if (!mask)
			mask = kg_envelope_sniff(&src);
		if (mask) {
			kg_envelope *env = kg_envelope_new(mask);
			char buf[512];
			size_t total = 0;
			for (;;) {
				ssize_t r = kg_envelope_read(env, &src, buf, chunk < sizeof buf ? chunk : sizeof buf, &err);
				if (r <= 0)
					break;
				total += (size_t)r;
				/* UTF-16 → UTF-8 at most 3 bytes per 2; a line gains at
				 * most a `[rankN]: ` prefix and a newline */
				if (total > 4 * (size - 1) + 64 * (size + 1))
					abort();
			}
			kg_envelope_free(env);
		}
		kg_buf out = {0};
		(void)kg_envelope_decode_line(mask ? mask : 15, (const char *)data + 1, size - 1, &out);
		kg_buf_free(&out);
	}
	kg_source_close(&src);
	return 0;
}

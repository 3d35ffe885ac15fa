/* fuzz_snapshot.c — libFuzzer harness for the snapshot readers
 * (snapshot.h, pickle.h, summary.h): the input, read from a memfd like a
 * file (gzip included), is sniffed and handed to kg_snapshot_load as the
 * CLI would (pickle → the safe pickle reader, JSON → snapshot or
 * memory_stats, a memory_summary() table → the summary parser); a result
 * is turned into facts and printed as text. */
#include <stdint.h>
#include <stdio.h>
#include "model/facts.h"
#include "fuzz_common.h"
#include "read/snapshot.h"
#include "report/snapshot_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	kg_source src;
	kg_error err = {0};
	if (fuzz_open_mem(&src, data, size, "fuzz.snapshot", &err) == 0) {
		kg_kind kind = kg_source_sniff(&src);
		if (kind == KG_KIND_PICKLE || kind == KG_KIND_JSON || kind == KG_KIND_SUMMARY) {
			kg_snapshot *snap = kg_snapshot_load(&src, kind, &err);
			if (snap) {
				kg_facts facts = {0};
				kg_snapshot_facts(snap, &facts);
				kg_facts_free(&facts);
				kg_snapshot_text(snap, devnull);
				kg_snapshot_free(snap);
			}
		}
	}
	kg_source_close(&src);
	return 0;
}

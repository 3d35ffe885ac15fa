/* fuzz_logscan.c — libFuzzer harness for the log scanner: the input bytes
 * are a whole log (plain or gzip, as a user would pipe it in), read through
 * kg_source_open_fd on a memfd, scanned by kg_scan_log (with log facts:
 * memory readings, parallelism hints, turned into facts), then reported as
 * JSON and text (exercises every incident field the scanner filled).
 * Build: meson setup build-fuzz -Dfuzz=true (clang); see tests/fuzz/README.md. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "fuzz_common.h"
#include "read/logfacts.h"
#include "read/logscan.h"
#include "read/oom.h"
#include "report/report.h"
#include "read/source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	if (!devnull) {
		kg_error e = {0};
		if (kg_oom_init(&e) != 0)
			abort();
		devnull = fopen("/dev/null", "w");
	}
	kg_source src;
	kg_error err = {0};
	kg_report rep;
	kg_report_init(&rep);
	kg_log_facts lf;
	kg_log_facts_init(&lf);
	if (fuzz_open_mem(&src, data, size, "fuzz.log", &err) == 0) {
		(void)kg_source_sniff(&src);
		(void)kg_scan_log(&src, &rep, &lf, &err);
		kg_facts facts = {0};
		kg_facts_from_log(&lf, "fuzz.log", 0, &facts);
		kg_facts_free(&facts);
		kg_report_json(&rep, devnull);
		kg_text_style st = {0};
		kg_report_text(&rep, devnull, &st);
	}
	kg_source_close(&src);
	kg_report_free(&rep);
	kg_log_facts_free(&lf);
	return 0;
}

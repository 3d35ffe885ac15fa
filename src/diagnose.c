/* diagnose.c — the main job (DESIGN §2 data flow): open each input, sniff
 * its kind from content, hand it to its parser, then run the stages that
 * turn evidence into findings, and fill the report. */
#include "diagnose.h"
#include "logscan.h"
#include "source.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static kg_input *add_input(kg_report *rep, const kg_source *src, kg_kind kind)
{
	rep->inputs = kg_realloc(rep->inputs, (rep->ninputs + 1) * sizeof *rep->inputs);
	kg_input *in = &rep->inputs[rep->ninputs++];
	in->path = kg_strdup(src->path);
	in->name = kg_strdup(src->name);
	in->kind = kg_kind_name(kind);
	in->bytes = src->bytes_read;
	in->gzip = src->gzip;
	return in;
}

/* One input: returns 0, or -1 with err filled. */
static int one_input(const char *path, const kg_options *opt, kg_report *rep, kg_error *err)
{
	kg_source src;
	if (kg_source_open(&src, path, err) < 0) {
		kg_source_close(&src);
		return -1;
	}
	kg_kind kind = kg_source_sniff(&src);
	/* progress: forced by --progress, else only on a terminal, never under
	 * CI, and only for inputs over 64 MiB */
	bool progress = opt->progress == 1;
	if (opt->progress < 0) {
		const char *ci = getenv("CI");
		progress = isatty(STDERR_FILENO) && !(ci && *ci) &&
			   (src.file_size > (64 << 20) || (src.file_size < 0 && src.gzip));
	}
	kg_source_set_progress(&src, progress);
	int rc = 0;
	switch (kind) {
	case KG_KIND_LOG: {
		rc = kg_scan_log(&src, rep, err);
		kg_input *in = add_input(rep, &src, kind);
		in->bytes = src.bytes_read;
		break;
	}
	case KG_KIND_EMPTY:
		rc = kg_fail(err, "empty input: no log text to read");
		break;
	case KG_KIND_BINARY:
		rc = kg_fail_at(err, 0, "binary data: not a text log, allocator snapshot, JSON or YAML config");
		break;
	case KG_KIND_ZIP:
		rc = kg_fail_at(err, 0, "a zip archive (torch.save output?); write the snapshot with "
				"torch.cuda.memory._dump_snapshot() instead");
		break;
	case KG_KIND_PICKLE:
		rc = kg_fail_at(err, 0, "an allocator snapshot (pickle); snapshot input is not supported by this build yet");
		break;
	case KG_KIND_JSON:
		rc = kg_fail_at(err, 0, "a JSON document; snapshot and memory_stats input is not supported by this build yet");
		break;
	case KG_KIND_SUMMARY:
		rc = kg_fail_line(err, 1, "a memory_summary() table; tables are not supported by this build yet");
		break;
	case KG_KIND_YAML:
		rc = kg_fail_line(err, 1, "a YAML training config; pass it with --config (config input is not supported by this build yet)");
		break;
	}
	kg_source_close(&src);
	return rc;
}

static void first_failed_rank(kg_report *rep)
{
	for (size_t i = 0; i < rep->nincidents; i++) {
		if (rep->incidents[i].rank != KG_NONE) {
			rep->first_failed_rank = rep->incidents[i].rank;
			return;
		}
	}
}

int kg_diagnose(const char *const *paths, size_t npaths, const kg_options *opt,
		kg_report *rep, kg_error *err, const char **bad_path)
{
	int status = 0;
	static char bad_name[4096];
	for (size_t i = 0; i < npaths; i++) {
		kg_error e = {0};
		if (one_input(paths[i], opt, rep, &e) < 0 && status == 0) {
			status = KG_EXIT_INPUT;
			*err = e;
			snprintf(bad_name, sizeof bad_name, "%s", strcmp(paths[i], "-") ? paths[i] : "<stdin>");
			*bad_path = bad_name;
		}
	}
	first_failed_rank(rep);
	return status;
}

/* cmd_snapshot.c — `kgmem-diagnose snapshot [--format text|json] FILE…`:
 * the readable view and JSON of allocator snapshots, memory_stats() JSON and
 * memory_summary() tables (DESIGN §1, §4–§5). */
#include "read/snapshot.h"
#include "cli.h"
#include "run/pipeline.h"
#include "kg_build.h"
#include "report/snapshot_text.h"
#include "report/svg.h"
#include "model/units.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
"Usage: kgmem-diagnose snapshot [--format text|json] [--svg FILE] FILE...\n"
"\n"
"Reads allocator snapshots (torch.cuda.memory._dump_snapshot() pickles, or the\n"
"same dict as JSON), torch.cuda.memory_stats() JSON and memory_summary() tables,\n"
"and prints per-device reserved/allocated/active/inactive bytes, the largest\n"
"free block and fragmentation, trace replay peaks, OOM events and the top\n"
"allocation sites. The pickle reader never executes anything: pickles that\n"
"import or build objects are refused.\n"
"\n"
"Options:\n"
"  -f, --format FORMAT   text (default) or json (the snapshots[] objects)\n"
"      --svg FILE        also write the trace replay and segment map as SVG\n"
"  -h, --help            print this help and exit\n");
}

int kg_cmd_snapshot(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'},
		{"svg", required_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false;
	const char *svg = NULL;
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":f:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "json"))
				json = true;
			else if (!strcmp(optarg, "text"))
				json = false;
			else {
				fprintf(stderr, "kgmem-diagnose: snapshot: unknown format '%s' (text, json)\n", optarg);
				return KG_EXIT_USAGE;
			}
			break;
		case 's':
			svg = optarg;
			break;
		case 'h':
			usage(stdout);
			return KG_EXIT_OK;
		case ':':
			fprintf(stderr, "kgmem-diagnose: snapshot: option '%s' needs an argument\n", argv[optind - 1]);
			return KG_EXIT_USAGE;
		default:
			fprintf(stderr, "kgmem-diagnose: snapshot: unknown option '%s'\nTry 'kgmem-diagnose snapshot --help'.\n",
				argv[optind - 1]);
			return KG_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "kgmem-diagnose: snapshot: no FILE given\nTry 'kgmem-diagnose snapshot --help'.\n");
		return KG_EXIT_USAGE;
	}
	kg_report rep;  /* only its snapshots */
	kg_report_init(&rep);
	int rc = KG_EXIT_OK;
	for (int i = optind; i < argc && rc == KG_EXIT_OK; i++) {
		kg_source src;
		kg_error err = {.offset = -1};
		kg_snapshot *snap = NULL;
		if (kg_source_open(&src, argv[i], &err) == 0)
			snap = kg_snapshot_load_ex(&src, kg_source_sniff(&src), svg ? KG_SNAP_SERIES : 0, &err);
		if (!snap) {
			if (err.line > 0)
				fprintf(stderr, "kgmem-diagnose: %s:%ld: %s\n", src.name ? src.name : argv[i], err.line, err.msg);
			else if (err.offset >= 0)
				fprintf(stderr, "kgmem-diagnose: %s: byte %lld: %s\n", src.name ? src.name : argv[i],
					(long long)err.offset, err.msg);
			else
				fprintf(stderr, "kgmem-diagnose: %s: %s\n", src.name ? src.name : argv[i], err.msg);
			rc = KG_EXIT_INPUT;
		} else {
			if (!json)
				kg_snapshot_text(snap, stdout);
			kg_report_add_snapshot(&rep, snap);
		}
		kg_source_close(&src);
	}
	if (svg && rc == KG_EXIT_OK) {
		kg_error err = {.offset = -1};
		if (kg_svg_write(&rep, NULL, NULL, 0, svg, &err) < 0) {
			fprintf(stderr, "kgmem-diagnose: %s\n", err.msg);
			rc = KG_EXIT_INPUT;
		}
		for (size_t i = 0; i < rep.nsnapshots; i++)
			kg_snapshot_strip_detail(rep.snapshots[i]);
	}
	if (json && rc == KG_EXIT_OK)
		kg_snapshots_json(rep.snapshots, rep.nsnapshots, stdout);
	kg_report_free(&rep);
	return rc;
}

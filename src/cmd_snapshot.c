/* cmd_snapshot.c — `kgmem-diagnose snapshot [--format text|json] FILE…`:
 * the readable view and JSON of allocator snapshots, memory_stats() JSON and
 * memory_summary() tables (DESIGN §1, §4–§5). */
#include "read/snapshot.h"
#include "cli.h"
#include "run/pipeline.h"
#include "kg_build.h"
#include "report/report.h"
#include "report/snapshot_text.h"
#include "report/svg.h"
#include "model/units.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
"Usage: kgmem-diagnose snapshot [--format text|json] [--svg FILE] [--width N] FILE...\n"
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
"      --width N         wrap the text view at N columns (0: never; default: the\n"
"                        terminal's width, or COLUMNS when it has none, on a\n"
"                        terminal; else never), as the diagnosis wraps\n"
"  -h, --help            print this help and exit\n");
}

/* The text view of SNAP on stdout, each line wrapped at WIDTH columns
 * (0: never) as the diagnosis's text report wraps. */
static void snapshot_text(const kg_snapshot *snap, int width)
{
	if (width <= 0) {
		kg_snapshot_text(snap, stdout);
		return;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	if (!mem) {
		kg_snapshot_text(snap, stdout);
		return;
	}
	kg_snapshot_text(snap, mem);
	if (fclose(mem) != 0) {
		free(text);
		kg_snapshot_text(snap, stdout);
		return;
	}
	for (char *line = text, *nl; line < text + len; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(text + len - line));
		if (!nl)
			nl = text + len;
		*nl = '\0';
		kg_text_wrap(stdout, line, width);
	}
	free(text);
}

int kg_cmd_snapshot(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'},
		{"svg", required_argument, NULL, 's'},
		{"width", required_argument, NULL, 'w'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false;
	const char *svg = NULL;
	int width = -1;  /* --width; -1: the terminal's */
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
		case 'w':
			width = kg_cli_parse_width(optarg);
			if (width < 0) {
				fprintf(stderr, "kgmem-diagnose: snapshot: --width needs 0 (never wrap) or a number of "
					"columns from 20 to 10000, got '%s'\n", optarg);
				return KG_EXIT_USAGE;
			}
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
				snapshot_text(snap, width >= 0 ? width : kg_cli_terminal_width());
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

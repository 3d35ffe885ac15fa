/* main.c — the command line only: options (getopt_long), subcommand
 * dispatch, colour and exit status. Everything else lives in the library
 * (see the architecture map, doc/architecture.md). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <pcre2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <yaml.h>
#include <zlib.h>

#include "cli.h"
#include "run/pipeline.h"
#include "kg_build.h"
#include "report/report.h"
#include "report/report_ci.h"
#include "diagnose/rules.h"
#include "read/snapshot.h"
#include "model/util.h"

static const char *progname = "kgmem-diagnose";

static void usage(FILE *out)
{
	fprintf(out,
"Usage: kgmem-diagnose [OPTIONS] [FILE...]\n"
"       kgmem-diagnose snapshot [OPTIONS] FILE...\n"
"       kgmem-diagnose calc EXPR [DTYPE] [--budget SIZE --solve NAME] (calc --help)\n"
"       kgmem-diagnose calc full-ranking|negatives|adam|kv-cache|activations|\n"
"                           attention|logits|alloc [OPTIONS]\n"
"       kgmem-diagnose explain SIZE [--config FILE] [--known NAME=N] [--tensor]\n"
"       kgmem-diagnose rules list|show ID|check [DIR]|facts\n"
"       kgmem-diagnose run [OPTIONS] -- CMD [ARGS...]   (run --help)\n"
"\n"
"Post-mortem analyzer for GPU out-of-memory crashes. Reads a crashed run's\n"
"log (plain or gzip; a directory is every file under it; no FILE or \"-\"\n"
"reads standard input), its allocator\n"
"snapshot and its training config, and reports every OOM incident: where,\n"
"on which rank and step, in which phase, why, and what to change.\n"
"\n"
"Options:\n"
"  -c, --config FILE      training config (YAML); may be repeated\n"
"  -f, --format FORMAT    text (default), json, jsonl, markdown, github, sarif\n"
"  -o, --output FILE      write the report to FILE instead of stdout (a regular\n"
"                         file is replaced atomically, keeping its mode)\n"
"      --stdin-filename NAME  name standard input NAME in the report (SARIF,\n"
"                         GitHub annotations, headlines)\n"
"      --label KEY=VALUE  add KEY to every jsonl line's labels; may be repeated\n"
"      --fail-on LEVEL    exit 1 when an incident is at least LEVEL:\n"
"                         never (default), info, warning, error\n"
"      --diff             print suggested config changes as a unified diff\n"
"      --apply            write suggested changes to the --config files\n"
"                         (numbered .orig backup; nothing else is written)\n"
"  -r, --rules DIR        extra or replacement rule files; may be repeated\n"
"  -s, --set NAME=VALUE   supply a fact, e.g. --set dataset.entities=40943\n"
"      --color WHEN       auto (default), always, never; NO_COLOR is honoured\n"
"      --progress         show a progress line on stderr even when not a TTY\n"
"      --no-progress      never show a progress line\n"
"      --svg FILE         write a picture of memory over time (SVG)\n"
"      --width N          wrap the text report at N columns (0: never; default:\n"
"                         the terminal's width, or COLUMNS when it has none,\n"
"                         on a terminal; else never)\n"
"  -q, --quiet            print only the verdict line of each incident\n"
"  -v, --verbose          print every finding, frame and remedy\n"
"  -V, --version          print version information and exit\n"
"  -h, --help             print this help and exit\n"
"\n"
"Exit status: 0 no incident at or above --fail-on; 1 incidents at or above it;\n"
"2 usage error; 3 unreadable or invalid input.\n"
"\n"
"Examples:\n"
"  kgmem-diagnose crash.log\n"
"  kubectl logs job/train | kgmem-diagnose --format json\n"
"  kgmem-diagnose --fail-on error --format github train.log.gz\n"
"\n"
"See kgmem-diagnose(1) and kgmem-rules(5).\n");
}

/* Reads the first line of DIR/VERSION into buf; 0 on success. */
static int read_rules_version(const char *dir, size_t dirlen, char *buf, size_t n)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof path, "%.*s/VERSION", (int)dirlen, dir) >= (int)sizeof path)
		return -1;
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char *ok = fgets(buf, (int)n, f);
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\r\n")] = 0;
	return buf[0] ? 0 : -1;
}

/* Version of the rule set that would be used: its VERSION file
 * (paths.h kg_rules_data_dir: the first $KGMEM_RULES_PATH directory with
 * one, else the installed rules'). */
static void rules_version(char *ver, size_t n, char *where, size_t wn)
{
	const char *dir = kg_rules_data_dir("VERSION");
	snprintf(where, wn, "%s", dir);
	if (read_rules_version(dir, strlen(dir), ver, n) < 0) {
		snprintf(ver, n, "unknown");
		snprintf(where, wn, "no VERSION in %s", dir);
	}
}

static void version(void)
{
	char ver[64], where[PATH_MAX];
	rules_version(ver, sizeof ver, where, sizeof where);
	char pcre[64] = "?";
	uint32_t jit = 0;
	pcre2_config(PCRE2_CONFIG_VERSION, pcre);
	pcre2_config(PCRE2_CONFIG_JIT, &jit);
	printf("kgmem-diagnose %s\n", KG_VERSION);
	printf("rules %s (%s)\n", ver, where);
	printf("PCRE2 %s%s\n", pcre, jit ? " (JIT)" : " (no JIT)");
	printf("cJSON %s\n", cJSON_Version());
	printf("libyaml %s\n", yaml_get_version_string());
	printf("zlib %s\n", zlibVersion());
}

int kg_cli_parse_fail_on(const char *s, enum kg_severity *out)
{
	int sev = kg_vocab_index(&kg_severities, s);
	if (!strcmp(s, "never"))
		*out = KG_SEV_NONE;
	else if (sev > KG_SEV_NONE)
		*out = (enum kg_severity)sev;
	else
		return -1;
	return 0;
}

/* Exit status rc, or 3 with one line on stderr when what went to stdout
 * could not all be written (a full disk, a closed descriptor). */
static int flushed(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: standard output: cannot write: %s\n", progname, strerror(errno));
		return KG_EXIT_INPUT;
	}
	return rc;
}

/* Columns of the terminal on standard output, 0 when it is not one (the
 * text report is wrapped on a terminal only): its size (TIOCGWINSZ), or,
 * when the terminal reports none (a serial line, some CI and container
 * terminals say 0), COLUMNS from 20 to 10000; else 0. */
int kg_cli_terminal_width(void)
{
	struct winsize ws;
	if (!isatty(STDOUT_FILENO))
		return 0;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		return ws.ws_col;
	const char *c = getenv("COLUMNS");
	char *end;
	long v = c && *c ? strtol(c, &end, 10) : 0;
	return c && *c && !*end && v >= 20 && v <= 10000 ? (int)v : 0;
}

int kg_cli_parse_width(const char *s)
{
	char *end = NULL;
	long w = strtol(s, &end, 10);
	if (!*s || *end || w < 0 || w > 10000 || (w > 0 && w < 20))
		return -1;
	return (int)w;
}

static int bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", progname);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", progname);
	return KG_EXIT_USAGE;
}

static void push(const char ***v, size_t *n, const char *s)
{
	*v = kg_realloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = s;
}

/* Writes a finished output to stdout as valid UTF-8 (invalid bytes become
 * U+FFFD); returns rc, or 3 with one line on stderr when it cannot all be
 * written (a full disk, a closed descriptor). */
static int emit(const char *out, size_t len, int rc)
{
	size_t cleanlen = 0;
	char *clean = kg_utf8_repair(out ? out : "", out ? len : 0, &cleanlen);
	fflush(stdout);
	if (kg_write_fd(STDOUT_FILENO, clean, cleanlen) < 0) {
		fprintf(stderr, "%s: standard output: cannot write: %s\n", progname, strerror(errno));
		rc = KG_EXIT_INPUT;
	}
	free(clean);
	return rc;
}

/* The main report streamed to standard output (issue 15: holding a report
 * of 1,000 incidents, and its repaired copy, was most of the peak memory):
 * what the reporter writes is made valid UTF-8 as kg_utf8_repair does on
 * the whole text and written in pieces of about 64 KiB, each cut before a
 * sequence that the next piece completes. A failed write is kept (errno)
 * and the rest dropped. */
typedef struct out_stream {
	kg_buf pend;
	int err;      /* errno of the first failed write, 0 if none */
} out_stream;

/* Where pend may be cut so that repairing the two sides alone gives what
 * repairing the whole would: before a lead byte in the last three whose
 * sequence is well-formed so far but goes on past the end (a lead byte is
 * never inside a well-formed sequence, so it starts one), else the end. */
static size_t utf8_cut(const char *s, size_t n)
{
	for (size_t i = n > 3 ? n - 3 : 0; i < n; i++)
		if (kg_utf8_len((const unsigned char *)s + i, n - i, true) > n - i)
			return i;
	return n;
}

static void out_flush(out_stream *o, size_t upto)
{
	if (!o->pend.len)
		return;
	if (!o->err && upto) {
		size_t cl = 0;
		char *clean = kg_utf8_repair(o->pend.data, upto, &cl);
		if (kg_write_fd(STDOUT_FILENO, clean, cl) < 0)
			o->err = errno ? errno : EIO;
		free(clean);
	}
	memmove(o->pend.data, o->pend.data + upto, o->pend.len - upto);
	o->pend.len -= upto;
}

static ssize_t out_write(void *cookie, const char *buf, size_t n)
{
	out_stream *o = cookie;
	kg_buf_append(&o->pend, buf, n);
	if (o->pend.len >= (64u << 10))
		out_flush(o, utf8_cut(o->pend.data, o->pend.len));
	return (ssize_t)n;
}

static int out_close(void *cookie)
{
	out_stream *o = cookie;
	out_flush(o, o->pend.len);
	return 0;
}

/* Subcommands implemented in their own modules. */
typedef int (*kg_cmd_fn)(int argc, char **argv);

/* Runs a subcommand with its standard output collected in memory, then
 * emitted as above: the same UTF-8 and write-error guarantees as the main
 * report, without touching the subcommands. */
static int run_captured(kg_cmd_fn fn, int argc, char **argv)
{
	char *out = NULL;
	size_t len = 0;
	fflush(stdout);
	FILE *mem = open_memstream(&out, &len);
	if (!mem)
		return flushed(fn(argc, argv));
	FILE *real = stdout;
	stdout = mem;
	int rc = fn(argc, argv);
	stdout = real;
	if (fclose(mem) != 0) {
		free(out);
		fprintf(stderr, "%s: out of memory\n", progname);
		return KG_EXIT_INPUT;
	}
	/* calc, explain, rules and the snapshot view print the report's
	 * glyphs too (×, ≈, …): ASCII where the locale is not UTF-8, as the
	 * text report; a JSON document stays UTF-8 */
	if (len && out[strspn(out, " \n")] != '{' && !kg_locale_utf8()) {
		char *a = kg_ascii_glyphs(out);
		free(out);
		out = a;
		len = strlen(a);
	}
	rc = emit(out, len, rc);
	free(out);
	return rc;
}
static const struct {
	const char *name;
	kg_cmd_fn fn;
	bool live;  /* passes a command's output through as it comes: never
	               collected or repaired (run_captured is for reports) */
} commands[] = {
	{"snapshot", kg_cmd_snapshot, false},
	{"calc", kg_cmd_calc, false},
	{"explain", kg_cmd_explain, false},
	{"rules", kg_cmd_rules, false},
	{"run", kg_cmd_run, true},
};

/* Memory exhaustion anywhere (ours, cJSON's through its hooks, libyaml's)
 * is a one-line error and exit 3, never an abort. */
static void out_of_memory(size_t n)
{
	static const char msg[] = "kgmem-diagnose: out of memory\n";
	(void)!write(STDERR_FILENO, msg, sizeof msg - 1);
	_exit(KG_EXIT_INPUT);
}

/* Edit distance (insertions, deletions, substitutions, adjacent swaps)
 * between a and b, capped at 9; for did-you-mean. */
static int distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 32 || lb > 32)
		return 9;
	int d[33][33];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			int v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[la][lb] < 9 ? d[la][lb] : 9;
}

/* The candidate nearest to word (n of them), or NULL when none is within
 * two edits (one for words of four letters or fewer). */
static const char *nearest(const char *word, const char *const *cand, size_t n)
{
	const char *best = NULL;
	int bd = strlen(word) <= 4 ? 2 : 3;
	for (size_t i = 0; i < n; i++) {
		int d = distance(word, cand[i]);
		if (d < bd) {
			bd = d;
			best = cand[i];
		}
	}
	return best;
}

/* A descriptor 0-2 the caller left closed (`2>&-`) would be the next file
 * opened (run's capture file became fd 2, and every stderr line reached it
 * twice): /dev/null is opened on each closed one first. */
static void open_closed_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* the lowest free descriptor is fd itself, so open lands there */
		int nfd = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
		if (nfd > 2)
			close(nfd);
	}
}

/* The heap in 2 MiB pages where the kernel gives them (transparent huge
 * pages in "madvise" mode), as the scanner's buffer is (logscan.c,
 * reader_alloc): a report of many incidents grows the heap by megabytes
 * (the rules' rendered evidence, kept until the report is written), and on
 * a VM a 4 KiB page fault costs 10-35 µs (1,500 faults for 300 incidents,
 * 350 with this). The heap is made HEAP_PAD larger than it needs when it
 * first grows (M_TOP_PAD: glibc then grows it, and keeps it when memory is
 * freed, that much at a time), and that first extent is advised; what
 * grows past it is in 4 KiB pages as before. Nothing is done where the
 * allocator is not glibc's sbrk heap (then sbrk(0) does not move): ASan,
 * valgrind, a heap already there. Only for a large input (an argument, or
 * standard input redirected from a file, of HEAP_HUGE_INPUT bytes or
 * more): the first huge page costs a 10-line log 0.5-0.7 ms (12 %) of
 * zeroing it never uses. */
#define HEAP_PAD (8u << 20)
#define HEAP_HUGE_INPUT (64u << 20)
static bool large_input(int argc, char **argv)
{
	struct stat st;
	if (fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= (off_t)HEAP_HUGE_INPUT)
		return true;
	for (int i = 1; i < argc; i++)
		if (argv[i][0] != '-' && stat(argv[i], &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_size >= (off_t)HEAP_HUGE_INPUT)
			return true;
	return false;
}

static void heap_huge_pages(int argc, char **argv)
{
#if defined(M_TOP_PAD) && defined(MADV_HUGEPAGE)
	if (!large_input(argc, argv))
		return;
	mallopt(M_TOP_PAD, HEAP_PAD);
	char *b0 = sbrk(0);
	void *volatile p = malloc(64); /* volatile: not optimised away */
	char *end = sbrk(0);
	uintptr_t lo = ((uintptr_t)b0 + KG_HUGE_PAGE - 1) & ~(uintptr_t)(KG_HUGE_PAGE - 1);
	if (b0 != (char *)-1 && lo < (uintptr_t)end)
		(void)madvise((void *)lo, (uintptr_t)end - lo, MADV_HUGEPAGE); /* a hint */
	free(p);
#endif
}

int main(int argc, char **argv)
{
	heap_huge_pages(argc, argv);
	open_closed_std_fds();
	kg_set_oom_handler(out_of_memory);
	cJSON_InitHooks(&(cJSON_Hooks){.malloc_fn = kg_hook_malloc, .free_fn = free});
	if (argc > 1) {
		for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
			if (strcmp(argv[1], commands[i].name) != 0)
				continue;
			if (!commands[i].fn) {
				fprintf(stderr, "%s: '%s' is not available in this build\n",
					progname, commands[i].name);
				return KG_EXIT_USAGE;
			}
			if (commands[i].live)
				return flushed(commands[i].fn(argc - 1, argv + 1));
			return run_captured(commands[i].fn, argc - 1, argv + 1);
		}
		/* a mistyped subcommand (not a file that exists) */
		const char *names[sizeof commands / sizeof commands[0]];
		for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
			names[i] = commands[i].name;
		const char *near = argv[1][0] != '-' && access(argv[1], F_OK) != 0
			? nearest(argv[1], names, sizeof names / sizeof *names) : NULL;
		if (near) {
			char what[160];
			snprintf(what, sizeof what, "unknown command '%.64s'; did you mean '%s'?", argv[1], near);
			return bad_usage("%s", what);
		}
	}

	kg_options opt = {0};
	bool verbose = false;
	const char *output = NULL, *stdin_name = NULL;
	const char **labels = NULL;
	size_t nlabels = 0;
	opt.format = "text";
	opt.color = -1;
	opt.progress = -1;
	int width = -1;   /* --width; -1: the terminal's */

	enum { OPT_FAIL_ON = 256, OPT_DIFF, OPT_APPLY, OPT_COLOR, OPT_PROGRESS,
	       OPT_NO_PROGRESS, OPT_SVG, OPT_STDIN_FILENAME, OPT_LABEL, OPT_WIDTH };
	static const struct option longopts[] = {
		{"config", required_argument, NULL, 'c'},
		{"format", required_argument, NULL, 'f'},
		{"fail-on", required_argument, NULL, OPT_FAIL_ON},
		{"diff", no_argument, NULL, OPT_DIFF},
		{"apply", no_argument, NULL, OPT_APPLY},
		{"rules", required_argument, NULL, 'r'},
		{"set", required_argument, NULL, 's'},
		{"color", required_argument, NULL, OPT_COLOR},
		{"colour", required_argument, NULL, OPT_COLOR},
		{"progress", no_argument, NULL, OPT_PROGRESS},
		{"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
		{"svg", required_argument, NULL, OPT_SVG},
		{"width", required_argument, NULL, OPT_WIDTH},
		{"quiet", no_argument, NULL, 'q'},
		{"verbose", no_argument, NULL, 'v'},
		{"output", required_argument, NULL, 'o'},
		{"stdin-filename", required_argument, NULL, OPT_STDIN_FILENAME},
		{"label", required_argument, NULL, OPT_LABEL},
		{"version", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:f:o:r:s:qvVh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': push(&opt.configs, &opt.nconfigs, optarg); break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "json") && strcmp(optarg, "jsonl") &&
			    strcmp(optarg, "markdown") && strcmp(optarg, "github") &&
			    strcmp(optarg, "sarif"))
				return bad_usage("unknown format '%s' (text, json, jsonl, markdown, github, sarif)", optarg);
			opt.format = optarg;
			break;
		case OPT_FAIL_ON:
			if (kg_cli_parse_fail_on(optarg, &opt.fail_on) < 0)
				return bad_usage("unknown --fail-on level '%s' (never, info, warning, error)", optarg);
			break;
		case OPT_DIFF: opt.diff = true; break;
		case OPT_APPLY: opt.apply = true; break;
		case 'r': push(&opt.rules_dirs, &opt.nrules_dirs, optarg); break;
		case 's':
			if (!strchr(optarg, '=') || optarg[0] == '=')
				return bad_usage("--set needs NAME=VALUE, got '%s'", optarg);
			push(&opt.sets, &opt.nsets, optarg);
			break;
		case OPT_COLOR:
			if (!strcmp(optarg, "auto")) opt.color = -1;
			else if (!strcmp(optarg, "always")) opt.color = 1;
			else if (!strcmp(optarg, "never")) opt.color = 0;
			else return bad_usage("unknown --color value '%s' (auto, always, never)", optarg);
			break;
		case OPT_PROGRESS: opt.progress = 1; break;
		case OPT_NO_PROGRESS: opt.progress = 0; break;
		case OPT_SVG: opt.svg = optarg; break;
		case OPT_WIDTH:
			width = kg_cli_parse_width(optarg);
			if (width < 0)
				return bad_usage("--width needs 0 (never wrap) or a number of columns from 20 to 10000, got '%s'", optarg);
			break;
		case 'q': opt.quiet = true; break;
		case 'v': verbose = true; break;
		case 'o': output = optarg; break;
		case OPT_STDIN_FILENAME:
			if (!*optarg)
				return bad_usage("--stdin-filename needs a name%s", "");
			stdin_name = optarg;
			break;
		case OPT_LABEL:
			if (optarg[0] == '=' || !strchr(optarg, '='))
				return bad_usage("--label '%s' is not KEY=VALUE", optarg);
			push(&labels, &nlabels, optarg);
			break;
		case 'V': version(); return flushed(KG_EXIT_OK);
		case 'h': usage(stdout); return flushed(KG_EXIT_OK);
		case ':': {
			char o[3] = {'-', (char)optopt, 0};
			return bad_usage("option '%s' needs an argument",
					 optopt ? o : argv[optind - 1]);
		}
		default: {
			char o[3] = {'-', (char)optopt, 0};
			const char *bad = optopt ? o : argv[optind - 1];
			if (!optopt && !strncmp(bad, "--", 2)) {
				/* did you mean: the nearest long option */
				char word[64];
				snprintf(word, sizeof word, "%s", bad + 2);
				word[strcspn(word, "=")] = 0;
				const char *names[sizeof longopts / sizeof *longopts];
				size_t nn = 0;
				for (size_t i = 0; longopts[i].name; i++)
					names[nn++] = longopts[i].name;
				const char *near = nearest(word, names, nn);
				if (near) {
					char what[160];
					snprintf(what, sizeof what, "unknown option '%s'; did you mean '--%s'?", bad, near);
					return bad_usage("%s", what);
				}
			}
			return bad_usage("unknown option '%s'", bad);
		}
		}
	}

	const char *stdin_only[] = {"-"};
	const char *const *paths = (const char *const *)(argv + optind);
	size_t npaths = (size_t)(argc - optind);
	if (npaths == 0) {
		if (isatty(STDIN_FILENO)) {
			fprintf(stderr, "%s: reading the log from standard input (Ctrl-D to end; --help for usage)\n",
				progname);
		}
		paths = stdin_only;
		npaths = 1;
	}

	if (opt.color < 0) {
		/* NO_COLOR, then FORCE_COLOR / CLICOLOR_FORCE (set and not "0"),
		 * then a terminal on stdout (never when writing to -o FILE) */
		const char *nc = getenv("NO_COLOR"), *fc = getenv("FORCE_COLOR"),
			   *cf = getenv("CLICOLOR_FORCE");
		bool force = (fc && *fc && strcmp(fc, "0")) || (cf && *cf && strcmp(cf, "0"));
		opt.color = (nc && *nc) ? 0 : force ? 1 : !output && isatty(STDOUT_FILENO);
	}

	kg_report rep;
	kg_report_init(&rep);
	/* progress: forced by --progress, else only on a terminal and never
	 * under CI, for inputs over 64 MiB */
	if (opt.progress < 0) {
		const char *ci = getenv("CI");
		opt.progress = isatty(STDERR_FILENO) && !(ci && *ci) ? 2 : 0;
	}
	kg_error err = {0};
	enum kg_status st = kg_diagnose(paths, npaths, &opt, &rep, &err);
	int rc = st == KG_STATUS_OK ? KG_EXIT_OK : st == KG_STATUS_USAGE ? KG_EXIT_USAGE : KG_EXIT_INPUT;
	const char *bad = err.path[0] ? err.path : NULL;
	if (stdin_name)
		kg_report_rename_input(&rep, "<stdin>", stdin_name);

	/* whatever the inputs held, what reaches stdout is valid UTF-8
	 * (invalid bytes become U+FFFD), and a failed or short write (a full
	 * disk, a closed pipe) is exit 3; stdout gets the report streamed
	 * (out_stream), -o FILE the whole of it from memory, atomically */
	char *out = NULL;
	size_t outlen = 0;
	out_stream os = {0};
	fflush(stdout);
	FILE *mem = output ? open_memstream(&out, &outlen)
		    : fopencookie(&os, "w", (cookie_io_functions_t){.write = out_write, .close = out_close});
	if (!mem) {
		fprintf(stderr, "%s: out of memory\n", progname);
		return KG_EXIT_INPUT;
	}
	if ((rc == KG_EXIT_INPUT && (rep.nincidents == 0 || (bad && !strcmp(bad, "rules")))) ||
	    rc == KG_EXIT_USAGE) {
		/* nothing useful to show, or an error in what the user asked
		 * for (--set, --rules): only the error line below */
	} else if (!strcmp(opt.format, "json")) {
		kg_report_json(&rep, mem);
	} else if (!strcmp(opt.format, "jsonl")) {
		kg_report_jsonl(&rep, labels, nlabels, mem);
	} else if (!strcmp(opt.format, "github")) {
		kg_report_github(&rep, mem);
	} else if (!strcmp(opt.format, "sarif")) {
		kg_report_sarif(&rep, NULL, 0, mem);
	} else if (!strcmp(opt.format, "markdown")) {
		kg_report_markdown(&rep, mem);
	} else {
		kg_text_style st = {.color = opt.color > 0, .quiet = opt.quiet, .verbose = verbose,
				    .diff = opt.diff || opt.apply, .width = width >= 0 ? width : output ? 0 : kg_cli_terminal_width(),
				    .ascii = !kg_locale_utf8()};
		kg_report_text(&rep, mem, &st);
	}
	if (fclose(mem) != 0) {
		fprintf(stderr, "%s: out of memory writing the report\n", progname);
		rc = KG_EXIT_INPUT;
	} else if (output) {
		/* -o FILE: the whole report, repaired, through the output
		 * writer --svg uses (a regular file replaced atomically keeping
		 * its mode and owner; a FIFO, device, hard-linked file or
		 * /dev/stdout written in place; a symlink's target written) */
		size_t clen = 0;
		char *clean = kg_utf8_repair(out ? out : "", out ? outlen : 0, &clen);
		kg_error we = {0};
		if (kg_write_output(output, clean, clen, &we) < 0) {
			/* we.msg names the path */
			fprintf(stderr, "%s: %s\n", progname, we.msg);
			if (rc == KG_EXIT_OK)
				rc = KG_EXIT_INPUT;
		}
		free(clean);
	} else if (os.err) {
		fprintf(stderr, "%s: standard output: cannot write: %s\n", progname, strerror(os.err));
		rc = KG_EXIT_INPUT;
	}
	kg_buf_free(&os.pend);
	free(out);
	size_t cleanlen = 0;

	if (rc == KG_EXIT_USAGE) {
		char *m = kg_utf8_repair(err.msg, strlen(err.msg), &cleanlen);
		fprintf(stderr, "%s: %s\n", progname, m);
		free(m);
	} else if (rc == KG_EXIT_INPUT && err.msg[0]) {
		char *line;
		if (err.line > 0)
			line = kg_asprintf("%s: %s:%ld: %s\n", progname, bad ? bad : "?", err.line, err.msg);
		else if (err.offset >= 0)
			line = kg_asprintf("%s: %s: byte %lld: %s\n", progname, bad ? bad : "?",
					   (long long)err.offset, err.msg);
		else
			line = kg_asprintf("%s: %s: %s\n", progname, bad ? bad : "?", err.msg);
		char *m = kg_utf8_repair(line, strlen(line), &cleanlen);
		fputs(m, stderr);
		free(m);
		free(line);
	}
	if (rc == 0 && opt.fail_on != KG_SEV_NONE) {
		for (size_t i = 0; i < rep.nincidents; i++)
			if (kg_incident_severity(&rep.incidents[i]) >= opt.fail_on)
				rc = KG_EXIT_FINDINGS;
	}
	kg_report_free(&rep);
	free(opt.configs);
	free(opt.rules_dirs);
	free(opt.sets);
	free(labels);
	return rc;
}

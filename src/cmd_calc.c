/* cmd_calc.c — the `calc` and `explain` subcommands (DESIGN §1). The
 * arithmetic lives in calc.c; this file parses arguments and shows the
 * working: "2 × 128 × 40943 × 512 × 4 B = 19.99 GiB (21,465,923,584 bytes)". */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "diagnose/calc.h"
#include "read/config.h"
#include "cli.h"
#include "run/pipeline.h"
#include "model/units.h"
#include "model/util.h"


static const char calc_usage[] =
"Usage: kgmem-diagnose calc EXPR [DTYPE] [--budget SIZE --solve NAME [--round pow2|N]]\n"
"                           [--set NAME=VALUE]...\n"
"       kgmem-diagnose calc full-ranking --batch B (--entities N | --dataset NAME) --dim D\n"
"                           [--model rotate|complex|transe|quate…] [--dtype T]\n"
"       kgmem-diagnose calc negatives --batch B --negatives K --dim D [--model M] [--dtype T]\n"
"       kgmem-diagnose calc adam --params P [--precision bf16-mixed|fp32|…] [--8bit]\n"
"                           [--zero 0-3 --gpus N]\n"
"       kgmem-diagnose calc kv-cache --layers L --kv-heads H --head-dim D --seq S --batch B [--dtype T]\n"
"       kgmem-diagnose calc activations --seq S --batch B --hidden H --heads A [--layers L]\n"
"       kgmem-diagnose calc attention --batch B --heads A --seq S [--dtype T]\n"
"       kgmem-diagnose calc logits --batch B --seq S --vocab V [--dtype T]\n"
"       kgmem-diagnose calc alloc SIZE [--divisions SPEC]\n"
"\n"
"EXPR is a product or sum of numbers, sizes (9GiB), names given by --set or solved\n"
"for, and dtype names (float32 = 4): '2x128x40943x512', 'test_bs*40943*512*2*4'.\n"
"A trailing DTYPE multiplies by its width. --budget with --solve NAME prints the\n"
"largest NAME whose value fits, rounded down to a power of two (--round pow2,\n"
"default) or a multiple. 'alloc SIZE' shows the caching allocator's block and\n"
"segment for a request, or, for a printed size, the requests that print it.\n"
"Numbers accept 7e9; in EXPR 1.5M is bytes (sizes are binary), while the counts\n"
"of the named calculators' options take K, M, B, T (thousand … trillion):\n"
"'calc adam --params 7B'.\n";

static int usage_error(const char *cmd, const char *msg, const char *arg)
{
	fprintf(stderr, "kgmem-diagnose %s: ", cmd);
	fprintf(stderr, msg, arg);
	fprintf(stderr, "\nTry 'kgmem-diagnose %s --help' for more information.\n", cmd);
	return KG_EXIT_USAGE;
}

static void show_result(const char *shown, int64_t bytes)
{
	char h[64], g[64];
	if (bytes < 0) {
		printf("%s = overflow (more than 2^63 bytes)\n", shown);
		return;
	}
	printf("%s = %s (%s bytes)\n", shown, kg_size_format(bytes, h, sizeof h),
	       kg_bytes_grouped(bytes, g, sizeof g));
}

/* ---- expressions ---- */

typedef struct vars {
	const char **name;
	long double *value;
	bool *known;
	size_t n;
} vars;

typedef struct parser {
	const char *s;
	const vars *v;
	kg_buf shown;
	bool show;
	const char *error;
} parser;

static long double expr(parser *p);

static void skip(parser *p)
{
	while (*p->s == ' ' || *p->s == '\t')
		p->s++;
}

static bool is_op_x(const parser *p)
{
	/* 'x' or '×' between factors: "2x128", "2 x 128", "a × b" */
	if (!strncmp(p->s, "×", strlen("×")))
		return true;
	return (p->s[0] == 'x' || p->s[0] == 'X') && !(isalnum((unsigned char)p->s[1]) && !isdigit((unsigned char)p->s[1])) &&
	       p->s[1] != '_';
}

static long double factor(parser *p)
{
	skip(p);
	if (*p->s == '(') {
		p->s++;
		if (p->show)
			kg_buf_putc(&p->shown, '(');
		long double v = expr(p);
		skip(p);
		if (*p->s != ')') {
			p->error = "missing ')'";
			return 0;
		}
		p->s++;
		if (p->show)
			kg_buf_putc(&p->shown, ')');
		return v;
	}
	if (isdigit((unsigned char)*p->s) || *p->s == '.') {
		kg_size sz;
		size_t used = 0;
		size_t n = strcspn(p->s, "*/+-()x× \t");
		/* a number with a size unit: 9GiB, 512MiB */
		if (kg_size_parse(p->s, n, &sz, &used) == 0 && used == n && n > 0 &&
		    isalpha((unsigned char)p->s[n - 1]) && tolower((unsigned char)p->s[n - 1]) != 'e') {
			if (p->show)
				kg_buf_append(&p->shown, p->s, n);
			p->s += n;
			return (long double)sz.bytes;
		}
		char *end;
		long double v = strtold(p->s, &end);
		if (p->show)
			kg_buf_append(&p->shown, p->s, (size_t)(end - p->s));
		p->s = end;
		return v;
	}
	if (isalpha((unsigned char)*p->s) || *p->s == '_') {
		const char *st = p->s;
		while (isalnum((unsigned char)*p->s) || *p->s == '_' || *p->s == '.')
			p->s++;
		char *name = kg_strndup(st, (size_t)(p->s - st));
		for (size_t i = 0; i < p->v->n; i++) {
			if (strcmp(p->v->name[i], name) == 0) {
				if (p->show) {
					if (p->v->known[i])
						kg_buf_printf(&p->shown, "%.0Lf", p->v->value[i]);
					else
						kg_buf_puts(&p->shown, name);
				}
				free(name);
				return p->v->value[i];
			}
		}
		const char *canon;
		int w = kg_dtype_bytes(name, &canon);
		free(name);
		if (w > 0) {
			if (p->show)
				kg_buf_printf(&p->shown, "%d B", w);
			return w;
		}
		p->error = "unknown name (give it with --set NAME=VALUE)";
		return 0;
	}
	p->error = "expected a number, a name or '('";
	return 0;
}

static long double term(parser *p)
{
	long double v = factor(p);
	for (;;) {
		skip(p);
		if (p->error)
			return v;
		bool mul = *p->s == '*' || is_op_x(p);
		if (!mul && *p->s != '/')
			return v;
		size_t adv = !strncmp(p->s, "×", strlen("×")) ? strlen("×") : 1;
		p->s += adv;
		if (p->show)
			kg_buf_puts(&p->shown, mul ? " × " : " / ");
		long double r = factor(p);
		if (mul)
			v *= r;
		else if (r == 0)
			p->error = "division by zero";
		else
			v /= r;
	}
}

static long double expr(parser *p)
{
	long double v = term(p);
	for (;;) {
		skip(p);
		if (p->error || (*p->s != '+' && *p->s != '-'))
			return v;
		char op = *p->s++;
		if (p->show)
			kg_buf_puts(&p->shown, op == '+' ? " + " : " − ");
		long double r = term(p);
		v = op == '+' ? v + r : v - r;
	}
}

static int eval(const char *s, const vars *v, bool show, long double *out, char **shown,
		const char **error)
{
	parser p = {.s = s, .v = v, .show = show};
	*out = expr(&p);
	skip(&p);
	if (!p.error && *p.s)
		p.error = "unexpected text";
	if (shown)
		*shown = kg_buf_steal(&p.shown);
	else
		kg_buf_free(&p.shown);
	*error = p.error;
	return p.error ? -1 : 0;
}

static int64_t to_bytes(long double v)
{
	if (v < 0 || v > 9.2e18L)
		return -1;
	return (int64_t)(v + 0.5L);
}

struct solve_ctx {
	const char *expr;
	vars *v;
	size_t idx;
};

static int64_t solve_f(int64_t x, void *c)
{
	struct solve_ctx *s = c;
	s->v->value[s->idx] = (long double)x;
	long double r;
	const char *e;
	if (eval(s->expr, s->v, false, &r, NULL, &e) < 0)
		return -1;
	return to_bytes(r);
}

static int calc_expr(int argc, char **argv)
{
	const char *budget_s = NULL, *solve = NULL, *round_s = "pow2";
	vars v = {0};
	static const struct option lo[] = {
		{"budget", required_argument, NULL, 'b'}, {"solve", required_argument, NULL, 'S'},
		{"round", required_argument, NULL, 'r'}, {"set", required_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	int c, rc = KG_EXIT_OK;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "b:S:r:s:h", lo, NULL)) != -1) {
		switch (c) {
		case 'b': budget_s = optarg; break;
		case 'S': solve = optarg; break;
		case 'r': round_s = optarg; break;
		case 's': {
			char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg)
				return usage_error("calc", "--set needs NAME=VALUE, got '%s'", optarg);
			v.name = kg_realloc(v.name, (v.n + 1) * sizeof *v.name);
			v.value = kg_realloc(v.value, (v.n + 1) * sizeof *v.value);
			v.known = kg_realloc(v.known, (v.n + 1) * sizeof *v.known);
			*eq = 0;
			v.name[v.n] = optarg;
			v.value[v.n] = strtold(eq + 1, NULL);
			v.known[v.n++] = true;
			break;
		}
		case 'h': fputs(calc_usage, stdout); return KG_EXIT_OK;
		default: return usage_error("calc", "unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	/* EXPR may be split over several words; a last word that is a dtype multiplies */
	kg_buf e = {0};
	for (int i = optind; i < argc; i++) {
		if (i > optind) {
			kg_buf_puts(&e, kg_dtype_bytes(argv[i], NULL) > 0 && i == argc - 1 ? " * " : " ");
		}
		kg_buf_puts(&e, argv[i]);
	}
	if (!e.len) {
		kg_buf_free(&e);
		return usage_error("calc", "%s", "needs an expression");
	}
	size_t solve_idx = 0;
	if (solve) {
		bool have = false;
		for (size_t i = 0; i < v.n; i++)
			if (!strcmp(v.name[i], solve))
				have = true, solve_idx = i;
		if (!have) {
			v.name = kg_realloc(v.name, (v.n + 1) * sizeof *v.name);
			v.value = kg_realloc(v.value, (v.n + 1) * sizeof *v.value);
			v.known = kg_realloc(v.known, (v.n + 1) * sizeof *v.known);
			v.name[v.n] = solve;
			v.value[v.n] = 1;
			v.known[v.n] = false;
			solve_idx = v.n++;
		}
	}
	long double val;
	char *shown = NULL;
	const char *err;
	if (eval(e.data, &v, true, &val, &shown, &err) < 0) {
		fprintf(stderr, "kgmem-diagnose calc: %s in '%s'\n", err, e.data);
		rc = KG_EXIT_USAGE;
		goto out;
	}
	if (!solve || v.known[solve_idx]) {
		show_result(shown, to_bytes(val));
	}
	if (solve) {
		kg_size budget;
		if (!budget_s || kg_size_parse_str(budget_s, &budget) < 0) {
			fprintf(stderr, "kgmem-diagnose calc: --solve needs --budget SIZE (e.g. 9GiB)\n");
			rc = KG_EXIT_USAGE;
			goto out;
		}
		bool was_known = v.known[solve_idx];
		long double old = v.value[solve_idx];
		v.known[solve_idx] = false;
		struct solve_ctx sc = {e.data, &v, solve_idx};
		int64_t best = kg_solve_max(solve_f, &sc, budget.bytes, (int64_t)1 << 40);
		char h[64], g[64];
		printf("budget %s (%s bytes)\n", kg_size_format(budget.bytes, h, sizeof h),
		       kg_bytes_grouped(budget.bytes, g, sizeof g));
		if (best < 0) {
			printf("no value of %s fits: even %s = 0 exceeds the budget\n", solve, solve);
		} else {
			int64_t mult = !strcmp(round_s, "pow2") ? 0 : !strcmp(round_s, "none") ? -1 : atoll(round_s); /* not vocabulary: --round */
			v.known[solve_idx] = true;
			v.value[solve_idx] = (long double)best;
			char *s2 = NULL;
			eval(e.data, &v, true, &val, &s2, &err);
			printf("largest %s that fits: %lld\n  ", solve, (long long)best);
			show_result(s2, to_bytes(val));
			free(s2);
			int64_t r = kg_round_down(best, mult);
			if (mult >= 0 && r != best) {
				v.value[solve_idx] = (long double)r;
				eval(e.data, &v, true, &val, &s2, &err);
				printf("rounded down to %s: %lld\n  ", mult == 0 ? "a power of two" : "the multiple",
				       (long long)r);
				show_result(s2, to_bytes(val));
				free(s2);
			}
			if (was_known)
				printf("%s is %.0Lf now: %.2Lf× what fits\n", solve, old, old / (long double)best);
		}
	}
out:
	free(shown);
	kg_buf_free(&e);
	free(v.name);
	free(v.value);
	free(v.known);
	return rc;
}

/* ---- named calculators ---- */

/* A count: a non-negative number, with an optional decimal suffix K
 * (thousand), M (million), B (billion) or T (trillion), either case, as
 * model sizes are written ("7B", "1.5M"); rounded to an integer. */
static int64_t num_arg(const char *s, bool *ok)
{
	char *end;
	long double v = strtold(s, &end);
	if (end != s && end[0] && !end[1]) {
		const char *sfx = "KkMmBbTt", *at = strchr(sfx, end[0]);
		if (at) {
			static const long double mult[] = {1e3L, 1e6L, 1e9L, 1e12L};
			v *= mult[(at - sfx) / 2];
			end++;
		}
	}
	if (end == s || *end || v < 0 || v > 9.2e18L) {
		*ok = false;
		return 0;
	}
	return (int64_t)(v + 0.5L);
}

static int calc_named(const char *what, int argc, char **argv)
{
	enum { O_BATCH = 300, O_ENT, O_DATASET, O_DIM, O_MODEL, O_DTYPE, O_NEG, O_PARAMS, O_PREC,
	       O_8BIT, O_ZERO, O_GPUS, O_LAYERS, O_KVH, O_HD, O_SEQ, O_HIDDEN, O_HEADS, O_VOCAB,
	       O_DIV };
	static const struct option lo[] = {
		{"batch", required_argument, NULL, O_BATCH}, {"entities", required_argument, NULL, O_ENT},
		{"dataset", required_argument, NULL, O_DATASET}, {"dim", required_argument, NULL, O_DIM},
		{"model", required_argument, NULL, O_MODEL}, {"dtype", required_argument, NULL, O_DTYPE},
		{"negatives", required_argument, NULL, O_NEG}, {"params", required_argument, NULL, O_PARAMS},
		{"precision", required_argument, NULL, O_PREC}, {"8bit", no_argument, NULL, O_8BIT},
		{"zero", required_argument, NULL, O_ZERO}, {"gpus", required_argument, NULL, O_GPUS},
		{"layers", required_argument, NULL, O_LAYERS}, {"kv-heads", required_argument, NULL, O_KVH},
		{"head-dim", required_argument, NULL, O_HD}, {"seq", required_argument, NULL, O_SEQ},
		{"hidden", required_argument, NULL, O_HIDDEN}, {"heads", required_argument, NULL, O_HEADS},
		{"vocab", required_argument, NULL, O_VOCAB}, {"divisions", required_argument, NULL, O_DIV},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	int64_t batch = -1, ent = -1, dim = -1, neg = -1, params = -1, zero = -1, gpus = 1,
		layers = -1, kvh = -1, hd = -1, seq = -1, hidden = -1, heads = -1, vocab = -1;
	const char *model = "rotate", *dtype = "float32", *prec = "bf16-mixed", *dataset = NULL,
		   *div = NULL;
	bool eight = false, ok = true, dtype_given = false;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case O_BATCH: batch = num_arg(optarg, &ok); break;
		case O_ENT: ent = num_arg(optarg, &ok); break;
		case O_DATASET: dataset = optarg; break;
		case O_DIM: dim = num_arg(optarg, &ok); break;
		case O_MODEL: model = optarg; break;
		case O_DTYPE: dtype = optarg; dtype_given = true; break;
		case O_NEG: neg = num_arg(optarg, &ok); break;
		case O_PARAMS: params = num_arg(optarg, &ok); break;
		case O_PREC: prec = optarg; break;
		case O_8BIT: eight = true; break;
		case O_ZERO: zero = num_arg(optarg, &ok); break;
		case O_GPUS: gpus = num_arg(optarg, &ok); break;
		case O_LAYERS: layers = num_arg(optarg, &ok); break;
		case O_KVH: kvh = num_arg(optarg, &ok); break;
		case O_HD: hd = num_arg(optarg, &ok); break;
		case O_SEQ: seq = num_arg(optarg, &ok); break;
		case O_HIDDEN: hidden = num_arg(optarg, &ok); break;
		case O_HEADS: heads = num_arg(optarg, &ok); break;
		case O_VOCAB: vocab = num_arg(optarg, &ok); break;
		case O_DIV: div = optarg; break;
		case 'h': fputs(calc_usage, stdout); return KG_EXIT_OK;
		default: return usage_error("calc", "unknown or incomplete option '%s'", argv[optind - 1]);
		}
		if (!ok)
			return usage_error("calc", "'%s' is not a count (a non-negative number, optionally with K, M, B or T)", optarg);
	}
	const char *canon = NULL;
	int w = kg_dtype_bytes(dtype, &canon);
	if (w < 0)
		return usage_error("calc", "unknown dtype '%s'", dtype);
	char *shown = NULL;
	int64_t bytes = -1;
#define NEED(cond, what) do { if (!(cond)) return usage_error("calc", "%s", what); } while (0)
	if (!strcmp(what, "full-ranking") || !strcmp(what, "negatives")) {
		if (dataset) {
			kg_error err = {0};
			/* the registry comes with any config; load it through an empty one */
			kg_config *cf = kg_config_parse("-", "{}", 2, NULL, &err);
			const kg_dataset *x = cf ? kg_dataset_find(cf, dataset) : NULL;
			if (!x) {
				kg_config_free(cf);
				return usage_error("calc", "unknown dataset '%s' (rules/datasets.yaml)", dataset);
			}
			ent = x->entities;
			kg_config_free(cf);
		}
		int comp = kg_model_components(model);
		NEED(comp > 0, "unknown --model (transe, distmult, complex, rotate, quate, …)");
		NEED(batch >= 0 && dim >= 0, "needs --batch and --dim");
		if (!strcmp(what, "negatives")) {
			NEED(neg >= 0, "needs --negatives");
			bytes = kg_calc_negatives(batch, neg, dim, comp, w);
			shown = kg_asprintf("%lld (batch) × %lld (negatives) × %lld (dim) × %d (%s components) × %d B (%s)",
					    (long long)batch, (long long)neg, (long long)dim, comp, model, w, canon);
			show_result(shown, bytes);
		} else {
			NEED(ent >= 0, "needs --entities or --dataset");
			bytes = kg_calc_full_ranking(batch, ent, dim, comp, w);
			shown = kg_asprintf("%d (%s components) × %lld (batch) × %lld (entities) × %lld (dim) × %d B (%s)",
					    comp, model, (long long)batch, (long long)ent, (long long)dim, w, canon);
			show_result(shown, bytes);
			free(shown);
			int64_t peak = kg_calc_full_ranking_peak(batch, ent, dim, KG_ROTATE_PEAK_TEMPORARIES, w);
			shown = kg_asprintf("peak ≈ %d (B, N, d) temporaries × %lld × %lld × %lld × %d B",
					    KG_ROTATE_PEAK_TEMPORARIES, (long long)batch, (long long)ent,
					    (long long)dim, w);
			show_result(shown, peak);
		}
	} else if (!strcmp(what, "adam")) {
		NEED(params >= 0, "needs --params");
		kg_adam_kind k;
		if (kg_adam_kind_of(prec, eight, &k) < 0)
			return usage_error("calc", "unknown --precision '%s'", prec);
		int per = kg_adam_bytes_per_param(k);
		bytes = kg_calc_adam(params, k);
		shown = kg_asprintf("%lld params × %d B (Adam%s model states, %s)", (long long)params, per,
				    eight ? " 8-bit" : "", prec);
		show_result(shown, bytes);
		if (zero >= 0) {
			free(shown);
			bytes = kg_calc_zero(params, (int)zero, gpus);
			NEED(bytes >= 0, "--zero is 0 to 3 and --gpus at least 1");
			shown = kg_asprintf("ZeRO-%lld on %lld GPUs, per GPU (Rajbhandari et al. 2020)",
					    (long long)zero, (long long)gpus);
			show_result(shown, bytes);
		}
	} else if (!strcmp(what, "kv-cache")) {
		NEED(layers >= 0 && kvh >= 0 && hd >= 0 && seq >= 0 && batch >= 0,
		     "needs --layers --kv-heads --head-dim --seq --batch");
		if (!dtype_given)
			w = 2, canon = "bfloat16";
		bytes = kg_calc_kv_cache(layers, kvh, hd, seq, batch, w);
		shown = kg_asprintf("2 (K, V) × %lld (layers) × %lld (kv heads) × %lld (head dim) × %lld (seq) × %lld (batch) × %d B (%s)",
				    (long long)layers, (long long)kvh, (long long)hd, (long long)seq,
				    (long long)batch, w, canon);
		show_result(shown, bytes);
	} else if (!strcmp(what, "activations")) {
		NEED(seq >= 0 && batch >= 0 && hidden > 0 && heads >= 0, "needs --seq --batch --hidden --heads");
		bytes = kg_calc_activations(seq, batch, hidden, heads);
		shown = kg_asprintf("s·b·h·(34 + 5·a·s/h) = %lld·%lld·%lld·(34 + 5·%lld·%lld/%lld) per layer (16-bit, Korthikanti et al. 2022)",
				    (long long)seq, (long long)batch, (long long)hidden, (long long)heads,
				    (long long)seq, (long long)hidden);
		show_result(shown, bytes);
		if (layers > 0) {
			free(shown);
			shown = kg_asprintf("× %lld layers", (long long)layers);
			show_result(shown, bytes < 0 ? -1 : kg_calc_product((int64_t[]){bytes, layers}, 2));
		}
	} else if (!strcmp(what, "attention")) {
		NEED(batch >= 0 && heads >= 0 && seq >= 0, "needs --batch --heads --seq");
		bytes = kg_calc_attention_scores(batch, heads, seq, w);
		shown = kg_asprintf("%lld (batch) × %lld (heads) × %lld² (seq) × %d B (%s)", (long long)batch,
				    (long long)heads, (long long)seq, w, canon);
		show_result(shown, bytes);
	} else if (!strcmp(what, "logits")) {
		NEED(batch >= 0 && seq >= 0 && vocab >= 0, "needs --batch --seq --vocab");
		bytes = kg_calc_logits(batch, seq, vocab, w);
		shown = kg_asprintf("%lld (batch) × %lld (seq) × %lld (vocab) × %d B (%s)", (long long)batch,
				    (long long)seq, (long long)vocab, w, canon);
		show_result(shown, bytes);
	} else if (!strcmp(what, "alloc")) {
		NEED(optind < argc, "alloc needs a SIZE (bytes, or as printed: \"19.99 GiB\")");
		kg_alloc_conf conf = {0};
		kg_error err = {0};
		if (div && kg_alloc_conf_parse_divisions(div, &conf, &err) < 0)
			return usage_error("calc", "%s", err.msg);
		kg_size s;
		if (kg_size_parse_str(argv[optind], &s) < 0)
			return usage_error("calc", "'%s' is not a size", argv[optind]);
		char h[64], g[64], h2[64];
		if (s.lo == s.hi) {
			int64_t b = kg_alloc_round_size(s.bytes, div ? &conf : NULL);
			int64_t seg = kg_alloc_segment_size(b);
			printf("request %s bytes → block %s bytes (%s pool) → segment %s (\"Tried to allocate %s\")\n",
			       kg_bytes_grouped(s.bytes, g, sizeof g), kg_bytes_grouped(b, h2, sizeof h2),
			       kg_alloc_small_pool(b) ? "small" : "large", kg_size_format(seg, h, sizeof h),
			       kg_size_format(seg, h, sizeof h));
		}
		if (s.lo == s.hi)
			return KG_EXIT_OK;
		kg_range r[3];
		size_t n = kg_alloc_request_ranges(s, div ? &conf : NULL, r, 3);
		printf("\"Tried to allocate %s\" is printed for requests of:\n", kg_size_format(s.bytes, h, sizeof h));
		if (!n)
			printf("  none (the allocator never asks for that size)\n");
		for (size_t i = 0; i < n; i++) {
			char a[64], b2[64];
			printf("  %s to %s bytes\n", kg_bytes_grouped(r[i].lo, a, sizeof a),
			       kg_bytes_grouped(r[i].hi, b2, sizeof b2));
		}
		return KG_EXIT_OK;
	} else {
		return usage_error("calc", "unknown calculator '%s'", what);
	}
	free(shown);
	return bytes < 0 ? KG_EXIT_USAGE : KG_EXIT_OK;
}

int kg_cmd_calc(int argc, char **argv)
{
	static const char *const named[] = {"full-ranking", "negatives", "adam", "kv-cache",
		"activations", "attention", "logits", "alloc"};
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(calc_usage, stdout);
		return KG_EXIT_OK;
	}
	if (argc >= 2)
		for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
			if (!strcmp(argv[1], named[i]))
				return calc_named(named[i], argc - 1, argv + 1);
	return calc_expr(argc, argv);
}

/* ---- explain ---- */

static const char explain_usage[] =
"Usage: kgmem-diagnose explain SIZE [--config FILE]... [--known NAME=VALUE]...\n"
"                              [--tensor] [--divisions SPEC] [--dtype T] [-n N]\n"
"\n"
"Finds products of known numbers that make SIZE, as a message printed it\n"
"(\"19.99 GiB\", 19.99 GiB, \"1.97GiB\", \"7406166528 bytes\"; a unit that is not\n"
"one of bytes is refused). By default SIZE is PyTorch's\n"
"\"Tried to allocate\" value: the caching allocator's segment, so every request\n"
"that rounds to it counts. --tensor takes SIZE as the tensor's own size\n"
"(TensorFlow, JAX). Known numbers: the config's batch sizes, dimensions and\n"
"other integers, its dataset's entity and relation counts (rules/datasets.yaml),\n"
"--known values, small constants (2, 3, 4) and dtype widths. Shows the N best\n"
"(default 5), most plausible first.\n";

int kg_cmd_explain(int argc, char **argv)
{
	static const struct option lo[] = {
		{"config", required_argument, NULL, 'c'}, {"known", required_argument, NULL, 'k'},
		{"tensor", no_argument, NULL, 't'}, {"divisions", required_argument, NULL, 'd'},
		{"dtype", required_argument, NULL, 'T'}, {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char **configs = NULL;
	size_t nconfigs = 0;
	kg_knowns k = {0};
	bool tensor = false;
	const char *div = NULL, *dtype = NULL;
	long top = 5;
	int c, rc = KG_EXIT_OK;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "c:k:n:h", lo, NULL)) != -1) {
		switch (c) {
		case 'c':
			configs = kg_realloc(configs, (nconfigs + 1) * sizeof *configs);
			configs[nconfigs++] = optarg;
			break;
		case 'k': {
			char *eq = strchr(optarg, '=');
			char *end;
			long long v = eq ? strtoll(eq + 1, &end, 10) : 0;
			if (!eq || eq == optarg || *end || v < 2) {
				kg_knowns_free(&k);
				free(configs);
				return usage_error("explain", "--known needs NAME=INTEGER (≥ 2), got '%s'", optarg);
			}
			*eq = 0;
			kg_knowns_add(&k, v, optarg, KG_KNOWN_OTHER);
			break;
		}
		case 't': tensor = true; break;
		case 'd': div = optarg; break;
		case 'T': dtype = optarg; break;
		case 'n': top = strtol(optarg, NULL, 10); break;
		case 'h': fputs(explain_usage, stdout); free(configs); kg_knowns_free(&k); return KG_EXIT_OK;
		default:
			free(configs);
			kg_knowns_free(&k);
			return usage_error("explain", "unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (top < 1 || top > 50)
		top = 5;
	kg_size s;
	if (optind >= argc) {
		free(configs);
		kg_knowns_free(&k);
		return usage_error("explain", "needs a SIZE as printed, e.g. \"19.99 GiB\"%s", "");
	}
	/* SIZE is one word ("19.99GiB", "19.99 GiB" quoted) or two (19.99 GiB):
	 * a second word is its unit, and a word that is no unit of bytes
	 * ("12 pounds") is refused, never dropped */
	char *size_arg = kg_strdup(argv[optind]);
	if (optind + 1 < argc) {
		char *two = kg_asprintf("%s %s", argv[optind], argv[optind + 1]);
		free(size_arg);
		size_arg = two;
	}
	if (optind + 2 < argc || kg_size_parse_str(size_arg, &s) < 0) {
		free(configs);
		kg_knowns_free(&k);
		if (optind + 2 < argc)
			rc = usage_error("explain", "takes one SIZE, got more: '%s'", argv[optind + 2]);
		else
			rc = usage_error("explain", "'%s' is not a size as printed: a number and a unit of bytes "
					 "(B, KiB, MiB, GiB, TiB, PiB, KB, MB, GB, TB, PB, bytes), e.g. \"19.99 GiB\"",
					 size_arg);
		free(size_arg);
		return rc;
	}
	bool have_defaults = false;
	for (size_t i = 0; i < nconfigs; i++) {
		kg_error err = {0};
		kg_config *cf = kg_config_load(configs[i], &err);
		if (!cf) {
			if (err.line > 0)
				fprintf(stderr, "kgmem-diagnose: %s:%ld: %s\n", configs[i], err.line, err.msg);
			else
				fprintf(stderr, "kgmem-diagnose: %s: %s\n", configs[i], err.msg);
			rc = KG_EXIT_INPUT;
			goto out;
		}
		for (size_t w = 0; w < cf->nwarnings; w++)
			fprintf(stderr, "kgmem-diagnose: warning: %s\n", cf->warnings[w]);
		if (dtype || have_defaults) {
			/* constants and widths once, from the first config or --dtype */
			kg_knowns tmp = {0};
			kg_config_knowns(cf, &tmp);
			for (size_t j = 0; j < tmp.n; j++)
				if (tmp.v[j].kind != KG_KNOWN_CONSTANT && tmp.v[j].kind != KG_KNOWN_DTYPE)
					kg_knowns_add(&k, tmp.v[j].value, tmp.v[j].label, tmp.v[j].kind);
			kg_knowns_free(&tmp);
		} else {
			kg_config_knowns(cf, &k);
			have_defaults = true;
		}
		kg_config_free(cf);
	}
	if (!have_defaults)
		kg_knowns_add_defaults(&k, dtype);
	kg_range r[3];
	size_t nr;
	kg_alloc_conf conf;
	kg_error derr = {0};
	if (div && kg_alloc_conf_parse_divisions(div, &conf, &derr) < 0) {
		rc = usage_error("explain", "%s", derr.msg);
		goto out;
	}
	if (tensor) {
		r[0] = (kg_range){s.lo, s.hi};
		nr = 1;
	} else {
		nr = kg_alloc_request_ranges(s, div ? &conf : NULL, r, 3);
	}
	char h[64], a[64], b[64];
	printf("%s means %s to %s bytes", size_arg, kg_bytes_grouped(s.lo, a, sizeof a),
	       kg_bytes_grouped(s.hi, b, sizeof b));
	if (!tensor) {
		printf(" (the allocator's segment); the request was");
		for (size_t i = 0; i < nr; i++)
			printf("%s %s to %s bytes", i ? " or" : "", kg_bytes_grouped(r[i].lo, a, sizeof a),
			       kg_bytes_grouped(r[i].hi, b, sizeof b));
		if (!nr)
			printf(" none: PyTorch never prints that size");
	}
	printf("\n");
	kg_explanation ex[50];
	size_t n = kg_explain(&k, r, nr, s.bytes, ex, (size_t)top);
	if (!n)
		printf("no product of the known numbers makes it; add --config or --known NAME=VALUE\n");
	for (size_t i = 0; i < n; i++) {
		char *t = kg_explanation_format(&k, &ex[i]);
		printf("%s%s = %s (%s bytes)\n", n > 1 ? (i ? "  or " : "  ") : "  ", t,
		       kg_size_format(ex[i].product, h, sizeof h), kg_bytes_grouped(ex[i].product, a, sizeof a));
		free(t);
	}
	rc = n ? KG_EXIT_OK : KG_EXIT_FINDINGS;
out:
	kg_knowns_free(&k);
	free(configs);
	free(size_arg);
	return rc;
}

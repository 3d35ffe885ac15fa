/* cmd_rules.c — `kgmem-diagnose rules list|show ID|check [PATH...]|facts`
 * (DESIGN §1, kgmem-rules(5)). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "run/pipeline.h"
#include "model/facts.h"
#include "diagnose/rules.h"
#include "model/util.h"

static void rules_usage(FILE *out)
{
	fprintf(out,
"Usage: kgmem-diagnose rules list [--rules DIR]...\n"
"       kgmem-diagnose rules show ID [--rules DIR]...\n"
"       kgmem-diagnose rules check [PATH...]\n"
"       kgmem-diagnose rules facts\n"
"\n"
"list   one line per rule: id, severity, category, title\n"
"show   one rule in full, with the file and line it comes from\n"
"check  validate rule files (the shipped ones when no PATH is given);\n"
"       prints FILE:LINE:COL: reason per problem and exits 3 if any\n"
"facts  the fact names rules may use, with their types\n"
"\n"
"--rules DIR adds rule files; a rule with the same id replaces the shipped one.\n"
"$KGMEM_RULES_PATH (DIR:DIR...) adds rule files the same way, searched before\n"
"the installed ones (the first DIR's rule wins); keys.yaml, datasets.yaml,\n"
"priors.yaml and VERSION come from the first DIR that has one, else the\n"
"installed set.\n"
"See kgmem-rules(5).\n");
}

static int list_facts(void)
{
	size_t n;
	const kg_fact_info *r = kg_fact_registry(&n);
	for (size_t i = 0; i < n; i++) {
		printf("%-40s %-7s %s", r[i].name, kg_fact_type_name(r[i].type), r[i].desc);
		/* a fact that carries a vocabulary lists its words (vocab.h) */
		const kg_vocab *v = kg_vocab_named(r[i].name);
		if (v) {
			char *words = kg_vocab_join(v, 0, ", ");
			printf(": %s", words);
			free(words);
		}
		putchar('\n');
	}
	return KG_EXIT_OK;
}

int kg_cmd_rules(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"rules", required_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	size_t nset;
	const char *const *set = kg_rules_dirs(&nset);
	const char **dirs = kg_malloc(sizeof *dirs * (nset + (size_t)argc));
	size_t ndirs = 0;
	for (size_t i = 0; i < nset; i++)
		dirs[ndirs++] = set[i];
	int c, rc = KG_EXIT_OK;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:r:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': dirs[ndirs++] = optarg; break;
		case 'h': rules_usage(stdout); free(dirs); return KG_EXIT_OK;
		case ':':
			fprintf(stderr, "kgmem-diagnose rules: option needs an argument\n");
			free(dirs);
			return KG_EXIT_USAGE;
		default:
			fprintf(stderr, "kgmem-diagnose rules: unknown option '%s'\n", argv[optind - 1]);
			rules_usage(stderr);
			free(dirs);
			return KG_EXIT_USAGE;
		}
	}
	/* options may also follow the action: parse the rest by hand */
	const char *action = optind < argc ? argv[optind++] : NULL;
	const char **args = kg_malloc(sizeof *args * (size_t)(argc + 1));
	size_t nargs = 0;
	for (int i = optind; i < argc; i++) {
		if (!strcmp(argv[i], "--rules") && i + 1 < argc)
			dirs[ndirs++] = argv[++i];
		else if (!strncmp(argv[i], "--rules=", 8))
			dirs[ndirs++] = argv[i] + 8;
		else
			args[nargs++] = argv[i];
	}
	if (!action) {
		rules_usage(stderr);
		rc = KG_EXIT_USAGE;
	} else if (!strcmp(action, "facts")) {
		rc = list_facts();
	} else if (!strcmp(action, "check")) {
		int bad = nargs ? kg_rules_check(args, nargs, stderr)
				: kg_rules_check(dirs, ndirs, stderr);
		if (bad) {
			fprintf(stderr, "kgmem-diagnose rules: %d problem%s found\n", bad, bad == 1 ? "" : "s");
			rc = KG_EXIT_INPUT;
		}
	} else if (!strcmp(action, "list") || !strcmp(action, "show")) {
		bool show = action[0] == 's';
		if ((show && nargs != 1) || (!show && nargs)) {
			fprintf(stderr, "kgmem-diagnose rules: %s\n",
				show ? "'show' needs exactly one rule id" : "'list' takes no arguments");
			rc = KG_EXIT_USAGE;
		} else {
			kg_error err = {0};
			kg_ruleset *rs = kg_rules_load(dirs, ndirs, &err);
			if (!rs) {
				fprintf(stderr, "kgmem-diagnose: %s\n", err.msg);
				rc = KG_EXIT_INPUT;
			} else if (show) {
				if (kg_rules_show(rs, args[0], stdout) < 0) {
					fprintf(stderr, "kgmem-diagnose rules: no rule '%s' (try 'rules list')\n", args[0]);
					rc = KG_EXIT_USAGE;
				}
			} else {
				kg_rules_list(rs, stdout);
			}
			kg_rules_free(rs);
		}
	} else {
		fprintf(stderr, "kgmem-diagnose rules: unknown action '%s' (list, show, check, facts)\n", action);
		rc = KG_EXIT_USAGE;
	}
	free(args);
	free(dirs);
	return rc;
}

/* cli.h — the command line's own floor: exit statuses (DESIGN §1) and the
 * subcommands. Only src/ includes this; the library (lib/, include/)
 * never exits, never names an exit status and reads no environment
 * variable for policy (colour, CI, terminals are decided here). */
#ifndef KG_CLI_H
#define KG_CLI_H

/* Exit statuses (DESIGN §1). */
enum {
	KG_EXIT_OK = 0,        /* no incident at or above --fail-on */
	KG_EXIT_FINDINGS = 1,  /* incidents at or above --fail-on */
	KG_EXIT_USAGE = 2,     /* usage error */
	KG_EXIT_INPUT = 3,     /* unreadable or invalid input */
};

/* --fail-on LEVEL: never, info, warning, error into *out; -1 for another
 * word (main.c). */
#include "model/incident.h"
int kg_cli_parse_fail_on(const char *s, enum kg_severity *out);

/* --width N: 0 (never wrap) or 20 to 10000 columns; -1 for anything else
 * (main.c). */
int kg_cli_parse_width(const char *s);

/* The columns of the terminal on standard output, 0 when it is not one:
 * its size, or COLUMNS (20 to 10000) when it reports none (main.c). The
 * default of --width. */
int kg_cli_terminal_width(void);

/* Subcommands; argv[0] is the subcommand's name. Each returns an exit
 * status above. */
/* `snapshot [--format text|json] FILE…`: 0, 2 on usage errors, 3 on
 * unreadable input (cmd_snapshot.c). */
int kg_cmd_snapshot(int argc, char **argv);
/* `calc EXPR… [--budget SIZE]` (cmd_calc.c). */
int kg_cmd_calc(int argc, char **argv);
/* `explain SIZE [--config F]`: 1 when no product explains SIZE (cmd_calc.c). */
int kg_cmd_explain(int argc, char **argv);
/* `rules list|show ID|check [PATH...]|facts` (cmd_rules.c). */
int kg_cmd_rules(int argc, char **argv);
/* `run [OPTIONS] -- CMD [ARGS...]`: CMD's exit status (128+N for signal
 * N), 1 with --fail-on, 2 on usage errors, 125/126/127 when CMD could not
 * be started, not executed, not found (cmd_run.c). */
int kg_cmd_run(int argc, char **argv);

#endif

/* paths.c — see include/model/paths.h. */
#include "model/paths.h"
#include "model/util.h"
#include "kg_build.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *kg_rules_dir(void)
{
	static char dir[PATH_MAX];
	char exe[PATH_MAX];
	ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (k > 0) {
		exe[k] = '\0';
		char *slash = strrchr(exe, '/');
		char beside[PATH_MAX + 64];
		if (slash) {
			*slash = '\0';
			snprintf(beside, sizeof beside, "%s/%s", exe, KG_BIN_TO_RULES);
			if (realpath(beside, dir) && is_dir(dir))
				return dir;
		}
	}
	if (is_dir(KG_SOURCE_RULES_DIR))
		return KG_SOURCE_RULES_DIR;
	return KG_RULES_DIR;
}

/* $KGMEM_RULES_PATH split once per value: its entries in the order given
 * (entry[0] the first), empty ones left out. */
static struct {
	char *value;      /* the variable as split, NULL when unset */
	char *copy;       /* value with every ':' a NUL */
	const char **entry;
	size_t n;
	const char **load; /* kg_rules_dirs' answer */
	size_t nload;
} P;

static void split_path(void)
{
	const char *env = getenv("KGMEM_RULES_PATH");
	if (!env)
		env = "";
	if (P.value && !strcmp(P.value, env))
		return;
	free(P.value);
	free(P.copy);
	free(P.entry);
	free(P.load);
	size_t len = strlen(env);
	P.value = kg_strdup(env);
	P.copy = kg_strdup(env);
	P.entry = kg_malloc((len / 2 + 2) * sizeof *P.entry);
	P.load = kg_malloc((len / 2 + 3) * sizeof *P.load);
	P.n = 0;
	for (char *s = P.copy, *e; s; s = e) {
		e = strchr(s, ':');
		if (e)
			*e++ = '\0';
		if (*s)
			P.entry[P.n++] = s;
	}
	const char *inst = kg_rules_dir();
	P.nload = 0;
	if (!P.n || is_dir(inst))
		P.load[P.nload++] = inst;
	for (size_t i = P.n; i-- > 0;)
		P.load[P.nload++] = P.entry[i];
}

const char *const *kg_rules_dirs(size_t *n)
{
	split_path();
	*n = P.nload;
	return P.load;
}

int kg_rules_path_set(void)
{
	split_path();
	return P.n > 0;
}

const char *kg_rules_data_dir(const char *name)
{
	split_path();
	for (size_t i = 0; i < P.n; i++) {
		char f[PATH_MAX];
		struct stat st;
		if (snprintf(f, sizeof f, "%s/%s", P.entry[i], name) < (int)sizeof f && stat(f, &st) == 0 &&
		    S_ISREG(st.st_mode))
			return P.entry[i];
	}
	return kg_rules_dir();
}

/* paths.c — see include/model/paths.h. */
#include "model/paths.h"
#include "kg_build.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *kg_rules_dir(void)
{
	static char dir[PATH_MAX];
	const char *env = getenv("KGMEM_RULES_PATH");
	if (env && *env) {
		snprintf(dir, sizeof dir, "%.*s", (int)strcspn(env, ":"), env);
		return dir;
	}
	struct stat st;
	char exe[PATH_MAX];
	ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (k > 0) {
		exe[k] = '\0';
		char *slash = strrchr(exe, '/');
		char beside[PATH_MAX + 64];
		if (slash) {
			*slash = '\0';
			snprintf(beside, sizeof beside, "%s/%s", exe, KG_BIN_TO_RULES);
			if (realpath(beside, dir) && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
				return dir;
		}
	}
	if (stat(KG_SOURCE_RULES_DIR, &st) == 0 && S_ISDIR(st.st_mode))
		return KG_SOURCE_RULES_DIR;
	return KG_RULES_DIR;
}

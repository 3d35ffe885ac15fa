/* paths.h — where the rule set lives (the bottom floor: every module may
 * call it; it calls only util.h's allocation). A rule set is the installed rules
 * directory plus the directories of $KGMEM_RULES_PATH, searched before it
 * (kgmem-diagnose(1) ENVIRONMENT, kgmem-rules(5)). */
#ifndef KG_PATHS_H
#define KG_PATHS_H

#include <stddef.h>

/* The installed rules directory: the rules installed beside the binary
 * (<bindir>/KG_BIN_TO_RULES, so a relocated install finds its own); else
 * the source tree's rules/ (an uninstalled build, KG_SOURCE_RULES_DIR);
 * else KG_RULES_DIR (all from the generated kg_build.h). $KGMEM_RULES_PATH
 * does not change it. Returns a static string; never fails. */
const char *kg_rules_dir(void);

/* The directories rule files are loaded from, in load order (a rule
 * loaded later replaces the one with its id loaded earlier): the installed
 * rules (kg_rules_dir()), then each non-empty entry of the ':'-separated
 * $KGMEM_RULES_PATH from the last to the first, so that the first entry's
 * rule wins, as on a search path. Empty entries (":", "a::b", a leading
 * or trailing ':') are ignored. When the path names a directory and no
 * installed rules directory exists (a binary copied on its own), the
 * path's directories are the whole set. Sets *n (at least 1); the array
 * and its strings are static, valid until $KGMEM_RULES_PATH changes;
 * never fails (a missing directory is the rule loader's error). */
const char *const *kg_rules_dirs(size_t *n);

/* Whether $KGMEM_RULES_PATH names at least one directory (empty entries
 * do not count). */
int kg_rules_path_set(void);

/* The directory to read the rule set's data file NAME from (keys.yaml,
 * datasets.yaml, VERSION: one file each, not merged; priors.yaml is the
 * same by load order, kg_rules_dirs()): the first entry of
 * $KGMEM_RULES_PATH holding a file of that name, else the installed
 * rules directory (whether or not it has one: the reader names the
 * missing file). Static, as kg_rules_dirs(); never fails. */
const char *kg_rules_data_dir(const char *name);

#endif

/* paths.h — where the shipped data lives (the bottom floor: every module
 * may call it, it calls nothing of ours). */
#ifndef KG_PATHS_H
#define KG_PATHS_H

/* The directory of shipped rule files and registries (keys.yaml,
 * datasets.yaml, VERSION) — the one lookup every part uses:
 * $KGMEM_RULES_PATH (first entry of a ':'-separated list) when set; else
 * the rules installed beside the binary (<bindir>/KG_BIN_TO_RULES, so a
 * relocated install finds its own); else the source tree's rules/ (an
 * uninstalled build, KG_SOURCE_RULES_DIR); else KG_RULES_DIR (all from the
 * generated kg_build.h). Returns a static string; never fails. */
const char *kg_rules_dir(void);

#endif

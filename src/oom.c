/* oom.c — placeholder until the grammars land. */
#include "oom.h"
#include "util.h"
#include <string.h>
int kg_oom_init(kg_error *err) { (void)err; return 0; }
void kg_oom_fini(void) {}
bool kg_oom_candidate(const char *line, size_t n) { return memmem(line, n, "out of memory", 13) != NULL; }
int kg_oom_parse(const char *text, size_t n, size_t first_len, kg_oom *out) { (void)text; (void)n; (void)first_len; (void)out; return 0; }
void kg_oom_free(kg_oom *o) { (void)o; }

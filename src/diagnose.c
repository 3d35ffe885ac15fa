/* diagnose.c — placeholder */
#include "diagnose.h"
int kg_diagnose(const char *const *paths, size_t npaths, const kg_options *opt,
		kg_report *rep, kg_error *err, const char **bad_path)
{ (void)paths; (void)npaths; (void)opt; (void)rep; (void)err; (void)bad_path; return 0; }

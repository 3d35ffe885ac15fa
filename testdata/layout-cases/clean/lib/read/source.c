#include "read/source.h"
#include "kg_build.h"
// getenv("CI") in a comment
int x = 0;

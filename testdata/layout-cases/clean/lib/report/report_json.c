#include "read/source.h"
void f(void) { cJSON_Parse("{}"); }

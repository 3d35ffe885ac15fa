void f(void) { cJSON_Parse("{}"); }

int f(void) { return KG_EXIT_INPUT; }

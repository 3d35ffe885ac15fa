int f(void) { return getenv ("CI") != 0; }

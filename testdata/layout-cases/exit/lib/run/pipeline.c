void f(void) { exit(3); }

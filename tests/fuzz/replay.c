/* replay.c — runs a fuzz harness (LLVMFuzzerTestOneInput) without libFuzzer,
 * so the harnesses' checks run in every build (gcc, ASan+UBSan, valgrind):
 * each FILE (or each file of a DIR) is fed once in a child process, and the
 * result is printed as TAP — a crash, abort or sanitizer error in the child
 * is "not ok", and so is one that runs over REPLAY_SECONDS or
 * REPLAY_AS_BYTES. Files under a directory named `open` are known, reported
 * bugs not fixed yet: when they fail they print with "# TODO" (expected
 * failures), so the suite stays green; move a file out of `open` when its
 * bug is fixed.
 * usage: replay FILE|DIR… */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#if defined(__SANITIZE_ADDRESS__)
#define KG_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KG_ASAN 1
#endif
#endif

/* Bounds for one input, as the fuzzer's -timeout and -rss_limit_mb: a hang
 * or a runaway allocation is a finding, not a stuck test. ASan reserves
 * terabytes of address space, so no address-space cap there. */
#define REPLAY_SECONDS 10
#define REPLAY_AS_BYTES (4ull << 30)

static int n, failed;

static void replay(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		printf("not ok %d - %s: cannot open\n", ++n, path);
		failed++;
		return;
	}
	size_t cap = 1 << 16, len = 0;
	uint8_t *data = malloc(cap);
	size_t r;
	while ((r = fread(data + len, 1, cap - len, f)) > 0) {
		len += r;
		if (len == cap)
			data = realloc(data, cap *= 2);
	}
	fclose(f);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		alarm(REPLAY_SECONDS);
#ifndef KG_ASAN
		struct rlimit rl = {REPLAY_AS_BYTES, REPLAY_AS_BYTES};
		setrlimit(RLIMIT_AS, &rl);
#endif
		LLVMFuzzerTestOneInput(data, len);
		free(data);
		exit(0); /* exit, not _exit: sanitizers and valgrind check for leaks */
	}
	int st = 0;
	waitpid(pid, &st, 0);
	free(data);
	int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
	int todo = strstr(path, "/open/") != NULL;
	/* An open bug that does not show in this build (e.g. undefined
	 * behaviour that only UBSan reports) prints a plain "ok". */
	printf("%s %d - %s%s\n", ok ? "ok" : "not ok", ++n, path,
	       todo && !ok ? " # TODO open bug, see tests/fuzz/README.md" : "");
	if (!ok && !todo)
		failed++;
}

static void walk(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		replay(path);
		return;
	}
	struct dirent **ents;
	int k = scandir(path, &ents, NULL, alphasort);
	for (int i = 0; i < k; i++) {
		if (ents[i]->d_name[0] != '.') {
			char sub[4096];
			snprintf(sub, sizeof sub, "%s/%s", path, ents[i]->d_name);
			walk(sub);
		}
		free(ents[i]);
	}
	if (k >= 0)
		free(ents);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		walk(argv[i]);
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}

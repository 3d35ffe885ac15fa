/* faultinj.c — a test-only LD_PRELOAD shim (built by tests/meson.build as a
 * shared module, never installed) that makes one chosen call of write(2),
 * rename(2), link(2)/linkat(2) or fsync(2) misbehave, so the tests can
 * reach, deterministically, the moments a full disk or a kill would hit
 * at random (issue 26).
 *
 *   KGMEM_FAULT=FUNC:N:ACTION[:MATCH]
 *     FUNC    write, rename, link (link and linkat), fsync
 *     N       the Nth call of FUNC (1-based) whose path contains MATCH;
 *             write and fsync on descriptors 0-2 never count (the wrapper's
 *             pass-through and error lines)
 *     ACTION  fail       return -1 with ENOSPC (write, fsync) or EIO
 *             short      write only: write half (at least 1 byte), return
 *                        that; every later write to that descriptor fails
 *                        with ENOSPC (a disk that fills mid-record)
 *             kill       SIGKILL this process before the call
 *             killafter  make the call, then SIGKILL this process
 *             term       send this process SIGTERM, then make the call (a
 *                        program holding signals around the call gets it
 *                        when it releases them)
 *     MATCH   a substring of the path: the file the descriptor is open on
 *             (/proc/self/fd/N, so an unnamed O_TMPFILE file reads as its
 *             directory), rename's and link's new name; absent = any
 *   KGMEM_FAULT_LOG=FILE  when the fault fires, "FUNC N ACTION\n" is
 *             appended to FILE (so a test knows the Nth call happened and
 *             can stop counting up)
 *
 * Calls glibc makes inside itself (stdio's buffered writes) do not go
 * through the PLT and are not seen: only the program's own write(2). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the real functions, from the next object that defines them (libc) */
static ssize_t (*real_write)(int, const void *, size_t);
static int (*real_fsync)(int);
static int (*real_rename)(const char *, const char *);
static int (*real_linkat)(int, const char *, int, const char *, int);

static void resolve(void)
{
	if (real_write)
		return;
	real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	real_rename = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
	real_linkat = (int (*)(int, const char *, int, const char *, int))dlsym(RTLD_NEXT, "linkat");
	real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
}

static struct {
	int parsed;
	char func[16];
	long n;
	char action[16];
	char match[512];
	long count;
	int fired;
	int short_fd; /* after a short write: later writes to it fail */
} F = {.short_fd = -1};

static void parse(void)
{
	if (F.parsed)
		return;
	F.parsed = 1;
	const char *s = getenv("KGMEM_FAULT");
	if (!s)
		return;
	char buf[600];
	snprintf(buf, sizeof buf, "%s", s);
	char *save = NULL, *f = strtok_r(buf, ":", &save), *n = strtok_r(NULL, ":", &save),
	     *a = strtok_r(NULL, ":", &save), *m = strtok_r(NULL, "", &save);
	if (!f || !n || !a)
		return;
	snprintf(F.func, sizeof F.func, "%s", f);
	F.n = atol(n);
	snprintf(F.action, sizeof F.action, "%s", a);
	snprintf(F.match, sizeof F.match, "%s", m ? m : "");
}

static void note(void)
{
	const char *log = getenv("KGMEM_FAULT_LOG");
	if (!log)
		return;
	int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	char line[64];
	int len = snprintf(line, sizeof line, "%s %ld %s\n", F.func, F.n, F.action);
	(void)!real_write(fd, line, (size_t)len);
	close(fd);
}

static int fd_matches(int fd)
{
	if (!F.match[0])
		return 1;
	char p[64], target[4096];
	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	ssize_t k = readlink(p, target, sizeof target - 1);
	if (k < 0)
		return 0;
	target[k] = 0;
	return strstr(target, F.match) != NULL;
}

/* 1 when this call is the chosen one (counted, noted). */
static int chosen(const char *func, int fd, const char *path)
{
	resolve();
	parse();
	if (F.fired || strcmp(F.func, func) != 0)
		return 0;
	if (fd >= 0 ? (fd <= 2 || !fd_matches(fd)) : (F.match[0] && !strstr(path, F.match)))
		return 0;
	if (++F.count != F.n)
		return 0;
	F.fired = 1;
	note();
	if (!strcmp(F.action, "kill"))
		kill(getpid(), SIGKILL);
	if (!strcmp(F.action, "term"))
		kill(getpid(), SIGTERM);
	return 1;
}

static void after(void)
{
	if (!strcmp(F.action, "killafter"))
		kill(getpid(), SIGKILL);
}

static int fail_with(int e)
{
	errno = e;
	return -1;
}

ssize_t write(int fd, const void *buf, size_t n)
{
	resolve();
	if (fd == F.short_fd && fd >= 0)
		return fail_with(ENOSPC);
	if (chosen("write", fd, NULL)) {
		if (!strcmp(F.action, "fail"))
			return fail_with(ENOSPC);
		if (!strcmp(F.action, "short") && n > 0) {
			F.short_fd = fd;
			return real_write(fd, buf, n > 1 ? n / 2 : 1);
		}
		ssize_t r = real_write(fd, buf, n);
		after();
		return r;
	}
	return real_write(fd, buf, n);
}

int fsync(int fd)
{
	if (chosen("fsync", fd, NULL)) {
		if (!strcmp(F.action, "fail"))
			return fail_with(ENOSPC);
		int r = real_fsync(fd);
		after();
		return r;
	}
	return real_fsync(fd);
}

int rename(const char *from, const char *to)
{
	if (chosen("rename", -1, to)) {
		if (!strcmp(F.action, "fail"))
			return fail_with(EIO);
		int r = real_rename(from, to);
		after();
		return r;
	}
	return real_rename(from, to);
}

int linkat(int d1, const char *from, int d2, const char *to, int flags)
{
	if (chosen("link", -1, to)) {
		if (!strcmp(F.action, "fail"))
			return fail_with(EIO);
		int r = real_linkat(d1, from, d2, to, flags);
		after();
		return r;
	}
	return real_linkat(d1, from, d2, to, flags);
}

int link(const char *from, const char *to)
{
	return linkat(AT_FDCWD, from, AT_FDCWD, to, 0);
}

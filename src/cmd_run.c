/* cmd_run.c — `kgmem-diagnose run [OPTIONS] -- CMD [ARGS…]`: runs CMD,
 * passes its stdout and stderr through unchanged, watches both for OOM
 * messages as they are printed, records the machine's memory state at that
 * moment (read/readings.h: NVML, the memory cgroup, /proc/meminfo), and when CMD exits
 * after an OOM prints the diagnosis on stderr and writes --report.
 *
 * Design (README "Catching it as it happens"):
 *  - CMD runs in its own process group; SIGINT, SIGTERM, SIGHUP, SIGUSR1
 *    and SIGUSR2 sent to the wrapper are forwarded to that group. When
 *    standard input is the controlling terminal and the wrapper is in the
 *    foreground, CMD's group becomes the terminal's foreground group (as a
 *    shell does), so Ctrl-C and terminal reads reach CMD exactly as without
 *    the wrapper; Ctrl-Z stops the wrapper with it.
 *  - Each of CMD's stdout and stderr is a pipe, or a pseudo-terminal when
 *    the wrapper's own stream is a terminal (output post-processing off, so
 *    bytes pass unchanged; the window size follows the wrapper's terminal).
 *    When the wrapper's stream is a regular file, CMD writes into it
 *    directly and the wrapper reads what was appended every 100 ms through
 *    its own opening of the file (no copy on the output's path, no
 *    wake-up per write).
 *  - Every chunk read is first written to the wrapper's stream of the same
 *    name, then its complete lines go into one private capture file (the
 *    two streams' lines interleaved in arrival order, each line whole; one
 *    longer than KG_MAX_LINE ended after each KG_MAX_LINE bytes), which
 *    kg_diagnose() reads after CMD exits, through a descriptor of ours:
 *    the file is unlinked as soon as it is made. The scanner's literal
 *    prefilter (atoms.h, on the OOM grammars' trigger literals) runs on
 *    the same lines live; a line that parses as an OOM message
 *    (kg_oom_parse) triggers a reading of the machine's memory.
 *  - After CMD exits, a process it left behind holding a pipe or pty
 *    still has its output passed on until it closes it, for at most
 *    KG_RUN_LINGER_S (2 s).
 *  - The exit status is CMD's, 128 + N when signal N killed it. Signals
 *    that arrive after CMD exited are dropped, so that the diagnosis and
 *    --report are finished first. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <dirent.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "read/atoms.h"
#include "cli.h"
#include "run/pipeline.h"
#include "read/cgroup.h"
#include "read/readings.h"
#include "run/runinfo.h"
#include "read/logscan.h"
#include "read/oom.h"
#include "report/report.h"
#include "report/report_ci.h"
#include "model/util.h"
#include "kg_build.h"
#include "model/paths.h"


#define MAX_READINGS 8       /* readings of the machine per run */
#define CHUNK (64 * 1024)
/* After CMD exits, how long (seconds) output of processes it left behind
 * holding its stdout or stderr is still passed on (run(1): "a process that
 * outlives CMD") */
#define KG_RUN_LINGER_S 2.0

static const char *progname = "kgmem-diagnose run";

static void run_usage(FILE *out)
{
	fprintf(out,
"Usage: kgmem-diagnose run [OPTIONS] -- CMD [ARGS...]\n"
"\n"
"Runs CMD, passes its stdout and stderr through unchanged, and watches them\n"
"for out-of-memory messages. At an OOM it records the GPU processes and\n"
"memory (NVML), the cgroup's memory limit and oom_kill count, and host\n"
"memory; when CMD exits after an OOM the diagnosis goes to stderr.\n"
"\n"
"Options:\n"
"      --report FILE        write the JSON report to FILE (every run)\n"
"      --label KEY=VALUE    add run metadata; FILE then gets one JSON line\n"
"                           per run, appended (JSON Lines); may be repeated\n"
"      --log FILE           keep CMD's captured output in FILE\n"
"      --snapshot-on-oom DIR  Python: dump the CUDA allocator snapshot into\n"
"                           DIR at an OOM (a sitecustomize hook) and read it\n"
"  -f, --format FORMAT      stderr diagnosis: text (default), json, markdown,\n"
"                           github, sarif\n"
"      --fail-on LEVEL      exit 1 when CMD exited 0 but an incident is at\n"
"                           least LEVEL: never (default), info, warning, error\n"
"  -c, --config FILE        training config (YAML) for the diagnosis\n"
"  -h, --help               print this help and exit\n"
"\n"
"Exit status: CMD's own status, 128+N when signal N killed it; 1 with\n"
"--fail-on as above; 2 usage error; 126 CMD not executable; 127 CMD not\n"
"found; 125 the wrapper could not start CMD.\n");
}

static int run_bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", progname);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'kgmem-diagnose run --help' for more information.\n");
	return KG_EXIT_USAGE;
}

/* --- signals: forwarded from the handler; SIGCHLD and SIGWINCH wake the
 * loop through a self-pipe */
static volatile sig_atomic_t child_pgid;
static volatile sig_atomic_t got_chld, got_winch;
static int wake_pipe[2] = {-1, -1};

static void on_forward(int sig)
{
	int e = errno;
	if (child_pgid > 0)
		kill(-(pid_t)child_pgid, sig);
	errno = e;
}

static void on_wake(int sig)
{
	int e = errno;
	if (sig == SIGCHLD)
		got_chld = 1;
	else
		got_winch = 1;
	char c = 0;
	(void)!write(wake_pipe[1], &c, 1);
	errno = e;
}

/* What the wrapper does with each signal while CMD runs: forwarded to
 * CMD's process group (SIGUSR1 and SIGUSR2 too: the preemption warnings of
 * Slurm's --signal and of other schedulers), noted (SIGCHLD, SIGWINCH), or
 * ignored (SIGPIPE: a closed reader is handled where the write fails). */
static const struct {
	int sig;
	void (*handler)(int);
} run_signals[] = {
	{SIGINT, on_forward}, {SIGTERM, on_forward}, {SIGHUP, on_forward},
	{SIGUSR1, on_forward}, {SIGUSR2, on_forward},
	{SIGCHLD, on_wake}, {SIGWINCH, on_wake}, {SIGPIPE, SIG_IGN},
};
enum { NSIG_RUN = sizeof run_signals / sizeof run_signals[0] };

/* Puts back the dispositions the wrapper found (sa_old) of the signals
 * whose handler is `which` (NULL: of all). SIGPIPE stays ignored: the
 * report may still meet a closed pipe. */
static void restore_signals(const struct sigaction *sa_old, void (*which)(int))
{
	for (size_t i = 0; i < NSIG_RUN; i++)
		if (run_signals[i].sig != SIGPIPE && (!which || run_signals[i].handler == which))
			sigaction(run_signals[i].sig, &sa_old[i], NULL);
}

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				struct pollfd pf = {.fd = fd, .events = POLLOUT};
				poll(&pf, 1, -1);
				continue;
			}
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* One of CMD's output streams. */
typedef struct stream {
	int fd;          /* our read end (pipe or pty master), -1 when closed */
	int out;         /* STDOUT_FILENO or STDERR_FILENO */
	int slave;       /* pty slave (child side) or pipe write end */
	bool pty;
	bool file;       /* ours is a regular file: CMD writes into it
	                    directly and fd is our own read-only opening of
	                    it, read from off on (no pass-through needed) */
	bool shared;     /* stderr is the same file as stdout: read once */
	off_t off;
	bool out_broken; /* our own stream failed (EPIPE): stop passing on */
	kg_buf pend;     /* bytes after the last complete line */
} stream;

typedef struct watch {
	FILE *cap;                 /* capture file */
	const kg_atoms *atoms;
	long lines;                /* complete lines captured */
	kg_reading ev[MAX_READINGS];
	size_t nev;
	long ooms;                 /* OOM messages seen live */
	bool cap_failed;
} watch;

static long count_nl(const char *p, size_t n)
{
	long k = 0;
	for (const char *e = p + n; (p = memchr(p, '\n', (size_t)(e - p))); p++)
		k++;
	return k;
}

/* Complete lines text[0..n) (n ends after a '\n', or is a forced cut,
 * which cut_line ends): into the capture file, and through the scanner's
 * prefilter (SIMD, the same atoms kg_scan_log uses) and, on a hit, its
 * OOM grammars. */
static void take_lines(watch *w, const char *text, size_t n)
{
	if (!n)
		return;
	if (!w->cap_failed && fwrite(text, 1, n, w->cap) != n)
		w->cap_failed = true;
	size_t pos = 0, counted = 0;
	long line_no = w->lines; /* complete lines before text[counted] */
	while (pos < n) {
		uint32_t cls = 0;
		size_t hit = kg_atoms_find(w->atoms, text, n, pos, &cls);
		if (hit >= n)
			break;
		const char *ls = text + hit;
		while (ls > text + pos && ls[-1] != '\n')
			ls--;
		const char *le = memchr(text + hit, '\n', n - hit);
		size_t len = le ? (size_t)(le - ls) : (size_t)(text + n - ls);
		line_no += count_nl(text + counted, (size_t)(ls - text) - counted);
		counted = (size_t)(ls - text);
		if (kg_oom_candidate(ls, len)) {
			/* the window: this line, noise-stripped, and what
			 * follows (a message wrapped over lines) */
			size_t wn = (size_t)(text + n - ls);
			if (wn > KG_OOM_WINDOW_BYTES)
				wn = KG_OOM_WINDOW_BYTES;
			if (len > wn)
				len = wn;
			char *first = kg_strndup(ls, len);
			int64_t rank = -1;
			size_t fn = kg_strip_noise(first, len, &rank);
			kg_buf win = {0};
			kg_buf_append(&win, first, fn);
			kg_buf_append(&win, ls + len, wn - len);
			kg_oom o;
			if (kg_oom_parse(win.data, win.len, fn, &o) == 1) {
				if (!strcmp(o.kind, "oom")) {
					w->ooms++;
					if (w->nev < MAX_READINGS)
						/* the wrapper's own cgroup: CMD's
						 * is the same, and CMD may already
						 * be a zombie (whose cgroup reads
						 * as the root) once its traceback
						 * is out */
						kg_reading_take(&w->ev[w->nev++], "oom-message",
								    line_no + 1, 0, NULL);
				}
				kg_oom_free(&o);
			}
			kg_buf_free(&win);
			free(first);
		}
		pos = le ? (size_t)(le - text) + 1 : n;
	}
	w->lines += count_nl(text, n);
}

/* The first n bytes of a line that has gone on for more than KG_MAX_LINE
 * bytes without an end: into the capture file as a line of their own,
 * ended there, so that the other stream's next line starts a line (glued
 * to the piece, more than 1 MiB into a line, the scanner never matched it:
 * an OOM on stderr after a tqdm bar on stdout went unseen; issue 34). The
 * rest goes on as the next line. */
static void cut_line(watch *w, const char *text, size_t n)
{
	take_lines(w, text, n);
	if (!w->cap_failed && fputc('\n', w->cap) == EOF)
		w->cap_failed = true;
	w->lines++;
}

/* New bytes of one stream: pass through, then capture whole lines (a line
 * longer than KG_MAX_LINE in pieces of that size, cut_line). */
static void feed(stream *s, watch *w, const char *buf, size_t n)
{
	if (!s->file && !s->out_broken && write_all(s->out, buf, n) < 0) {
		s->out_broken = true;
		/* our reader went away: close CMD's stream so CMD sees EPIPE
		 * (SIGPIPE) on its next write, as it would without us */
		close(s->fd);
		s->fd = -1;
	}
	kg_buf_append(&s->pend, buf, n);
	const char *last = NULL;
	for (size_t i = s->pend.len; i > 0; i--)
		if (s->pend.data[i - 1] == '\n') {
			last = s->pend.data + i;
			break;
		}
	size_t done = last ? (size_t)(last - s->pend.data) : 0;
	if (done)
		take_lines(w, s->pend.data, done);
	while (s->pend.len - done > KG_MAX_LINE) {
		cut_line(w, s->pend.data + done, KG_MAX_LINE);
		done += KG_MAX_LINE;
	}
	if (done) {
		memmove(s->pend.data, s->pend.data + done, s->pend.len - done);
		s->pend.len -= done;
	}
}

/* Reads what is there; returns false at end of stream. */
static bool pump(stream *s, watch *w, char *buf)
{
	ssize_t r = read(s->fd, buf, CHUNK);
	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (r <= 0) /* EOF, or EIO from a pty master whose slave is closed */
		return false;
	feed(s, w, buf, (size_t)r);
	return true;
}

/* A file stream: everything appended since the last call. */
static void pump_file(stream *s, watch *w, char *buf)
{
	if (!s->file || s->fd < 0)
		return;
	struct stat st;
	if (fstat(s->fd, &st) == 0 && st.st_size < s->off)
		s->off = 0; /* truncated under us: start again */
	for (;;) {
		ssize_t r = pread(s->fd, buf, CHUNK, s->off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;
		s->off += r;
		feed(s, w, buf, (size_t)r);
	}
}

static void close_stream(stream *s, watch *w)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	if (s->pend.len) {
		/* a last line without '\n': capture it with one */
		kg_buf_putc(&s->pend, '\n');
		take_lines(w, s->pend.data, s->pend.len);
		s->pend.len = 0;
	}
}

/* Reads what a pipe or pty holds now without waiting, passes it on, and
 * closes the stream. */
static void drain_close(stream *s, watch *w, char *buf)
{
	if (s->fd < 0)
		return;
	fcntl(s->fd, F_SETFL, fcntl(s->fd, F_GETFL) | O_NONBLOCK);
	for (;;) {
		ssize_t n = read(s->fd, buf, CHUNK);
		if (n > 0) {
			feed(s, w, buf, (size_t)n);
			if (s->fd < 0)
				break;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		break;
	}
	close_stream(s, w);
}

static int open_stream(stream *s, int out, const stream *other)
{
	*s = (stream){.fd = -1, .out = out, .slave = -1};
	struct stat st;
	if (fstat(out, &st) == 0 && S_ISREG(st.st_mode)) {
		/* a regular file (a Slurm --output, `> log`): CMD keeps it, so
		 * its bytes land there untouched and unbuffered by us; we read
		 * what it appends through a second opening of the same file
		 * (its own offset), polled. Where that opening is refused (a
		 * write-only file), the pipe below is used instead. */
		struct stat ost;
		if (other && other->file && fstat(other->out, &ost) == 0 &&
		    ost.st_dev == st.st_dev && ost.st_ino == st.st_ino) {
			s->file = s->shared = true;
			s->slave = out;
			return 0;
		}
		char path[64];
		snprintf(path, sizeof path, "/proc/self/fd/%d", out);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			s->fd = fd;
			s->file = true;
			s->slave = out;
			s->off = st.st_size; /* where CMD's first byte will land
			                        (a truncated or appended file) */
			return 0;
		}
	}
	if (isatty(out)) {
		int m, sl;
		struct winsize ws;
		bool have_ws = ioctl(out, TIOCGWINSZ, &ws) == 0;
		if (openpty(&m, &sl, NULL, NULL, have_ws ? &ws : NULL) == 0) {
			struct termios t;
			if (tcgetattr(sl, &t) == 0) {
				t.c_oflag &= ~(tcflag_t)OPOST; /* bytes unchanged */
				tcsetattr(sl, TCSANOW, &t);
			}
			fcntl(m, F_SETFD, FD_CLOEXEC);
			s->fd = m;
			s->slave = sl;
			s->pty = true;
			return 0;
		}
	}
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	/* a larger pipe lets a fast writer run ahead instead of blocking on
	 * every 64 KiB (best effort: limited by /proc/sys/fs/pipe-max-size) */
	fcntl(p[0], F_SETPIPE_SZ, 1 << 20);
	s->fd = p[0];
	s->slave = p[1];
	return 0;
}

/* The directory holding the Python hook (hooks/sitecustomize.py): beside
 * the rules in use, the first $KGMEM_RULES_PATH directory's first, then
 * the installed rules' (<datadir>/kgmem-diagnose/hooks when installed, the
 * source tree's hooks/ when run from a build directory), else the
 * configured install location. NULL when none has the hook. */
static const char *hook_dir(void)
{
	static char dir[4200];
	struct stat st;
	size_t nrules;
	const char *const *rules = kg_rules_dirs(&nrules);
	for (size_t i = nrules; i-- > 0;) {
		const char *slash = strrchr(rules[i], '/');
		if (!slash)
			continue;
		snprintf(dir, sizeof dir, "%.*s/hooks", (int)(slash - rules[i]), rules[i]);
		char f[4300];
		snprintf(f, sizeof f, "%s/sitecustomize.py", dir);
		if (stat(f, &st) == 0)
			return dir;
	}
	if (stat(KG_SOURCE_HOOK_DIR "/sitecustomize.py", &st) == 0)
		return KG_SOURCE_HOOK_DIR;
	if (stat(KG_HOOK_DIR "/sitecustomize.py", &st) == 0)
		return KG_HOOK_DIR;
	return NULL;
}

/* In the child: PYTHONPATH with the hook directory first, and the hook's
 * output directory. */
static void set_hook_env(const char *hook, const char *dir, const char *tag)
{
	const char *old = getenv("PYTHONPATH");
	char *pp = old && *old ? kg_asprintf("%s:%s", hook, old) : kg_strdup(hook);
	setenv("PYTHONPATH", pp, 1);
	free(pp);
	setenv("KGMEM_SNAPSHOT_DIR", dir, 1);
	setenv("KGMEM_SNAPSHOT_TAG", tag, 1);
}

/* The name by which kg_diagnose() reads exactly the file open as fd:
 * /proc/self/fd/FD, or NULL where /proc does not show it. malloc'd. */
static char *fd_name(int fd)
{
	char *p = kg_asprintf("/proc/self/fd/%d", fd);
	struct stat a, b;
	if (fstat(fd, &a) == 0 && stat(p, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return p;
	free(p);
	return NULL;
}

/* A file the diagnosis reads under another name: the snapshot `name`,
 * open as fd, read as `read_as` (fd_name, or name itself without /proc). */
typedef struct runfile {
	char *name, *read_as;
	int fd;
} runfile;

static int runfile_cmp(const void *a, const void *b)
{
	return strcmp(((const runfile *)a)->name, ((const runfile *)b)->name);
}

static void runfiles_free(runfile *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (v[i].read_as != v[i].name)
			free(v[i].read_as);
		free(v[i].name);
		if (v[i].fd >= 0)
			close(v[i].fd);
	}
	free(v);
}

/* Snapshots the hook wrote during this run: the files
 * DIR/kgmem-oom-TAG-*.pickle, TAG being this wrapper's (set_hook_env), so
 * ranks sharing DIR each read only their own. DIR is a name, never a
 * pattern (a directory "sn[1]" is read as itself), and each file is opened
 * here without following a link or waiting for a writer (O_NOFOLLOW,
 * O_NONBLOCK) and read through that descriptor: anything but a regular
 * file at such a name (a FIFO someone planted at the predictable name,
 * which hung the wrapper, a device, a link) is skipped with a note in
 * *skipped (issue 34). */
static void find_snapshots(const char *dir, const char *tag, time_t since, runfile **v, size_t *n,
			   char ***skipped, size_t *nskipped)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	char *prefix = kg_asprintf("kgmem-oom-%s-", tag);
	size_t pl = strlen(prefix), sl = strlen(".pickle");
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *f = de->d_name;
		size_t fl = strlen(f);
		if (fl <= pl + sl || strncmp(f, prefix, pl) || strcmp(f + fl - sl, ".pickle"))
			continue;
		char *path = kg_asprintf("%s/%s", dir, f);
		int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			*skipped = kg_realloc(*skipped, (*nskipped + 1) * sizeof **skipped);
			(*skipped)[(*nskipped)++] = kg_asprintf(
				"run: --snapshot-on-oom: %s: %s; not read", path,
				fd < 0 ? strerror(errno) : "not a regular file");
			if (fd >= 0)
				close(fd);
			free(path);
			continue;
		}
		if (st.st_mtime < since - 1) {
			close(fd);
			free(path);
			continue;
		}
		*v = kg_realloc(*v, (*n + 1) * sizeof **v);
		runfile *r = &(*v)[(*n)++];
		r->name = path;
		r->fd = fd;
		r->read_as = fd_name(fd);
		if (!r->read_as)
			r->read_as = path;
	}
	closedir(d);
	free(prefix);
	if (*n > 1) /* readdir's order is the file system's */
		qsort(*v, *n, sizeof **v, runfile_cmp);
}

/* Appends one record (a JSON line) to a spool in a single write(2) with
 * O_APPEND, so records of ranks sharing the spool do not interleave on a
 * local file system, after checking the file system has room for it. A
 * short write is taken back (truncated to where it began, unless another
 * record already follows it; then the partial line is ended, so the next
 * record starts on a line of its own). Returns 0, or -1 with errno. */
static int append_record(const char *path, const char *line, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	struct statvfs vs;
	if (fstatvfs(fd, &vs) == 0 && vs.f_blocks > 0 &&
	    (uint64_t)(geteuid() == 0 ? vs.f_bfree : vs.f_bavail) * vs.f_frsize < n) {
		close(fd);
		errno = ENOSPC;
		return -1;
	}
	ssize_t w;
	while ((w = write(fd, line, n)) < 0 && errno == EINTR)
		;
	if (w == (ssize_t)n)
		return close(fd);
	int e = w < 0 ? errno : ENOSPC;
	if (w > 0) {
		struct stat st;
		off_t end = lseek(fd, 0, SEEK_CUR);
		if (end >= w && fstat(fd, &st) == 0 && st.st_size == end && ftruncate(fd, end - w) == 0)
			;
		else
			(void)!write(fd, "\n", 1);
	}
	close(fd);
	errno = e;
	return -1;
}

/* Writes the report: pretty JSON through the output writer (a regular
 * file replaced atomically, a FIFO or device written in place), or with
 * labels one compact line appended to the spool (append_record). Returns
 * 0, or -1 with a reason naming the path in err. */
static int write_report(const char *path, const kg_report *rep, bool lines, kg_error *err)
{
	char *text = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&text, &n);
	if (!m)
		return kg_fail(err, "%s: out of memory", path);
	if (lines)
		kg_report_json_line(rep, m);
	else
		kg_report_json(rep, m);
	if (fclose(m) != 0) {
		free(text);
		return kg_fail(err, "%s: out of memory", path);
	}
	int rc = lines ? append_record(path, text, n) : kg_write_output(path, text, n, err);
	if (rc < 0 && lines)
		kg_fail(err, "%s: cannot append the record: %s", path, strerror(errno));
	free(text);
	return rc;
}

int kg_cmd_run(int argc, char **argv)
{
	const char *report = NULL, *logpath = NULL, *snapdir = NULL, *format = "text";
	struct sigaction sa_old[NSIG_RUN]; /* the dispositions found, once handlers is set */
	bool handlers = false;
	runfile *snaps = NULL;    /* this run's snapshots (find_snapshots) */
	size_t nsnaps = 0, nskipped = 0;
	char **skipped = NULL;    /* notes on files skipped in DIR */
	int cap_keep = -1;        /* the capture file, open for the diagnosis */
	char *cap_name = NULL;    /* its /proc/self/fd name, once unlinked */
	char *snapabs = NULL; /* --snapshot-on-oom DIR made absolute */
	enum kg_severity fail_on = KG_SEV_NONE;
	const char **configs = NULL;
	size_t nconfigs = 0;
	char **labels = NULL;
	size_t nlabels = 0;

	enum { O_REPORT = 256, O_LABEL, O_LOG, O_SNAP, O_FAIL };
	static const struct option longopts[] = {
		{"report", required_argument, NULL, O_REPORT},
		{"label", required_argument, NULL, O_LABEL},
		{"log", required_argument, NULL, O_LOG},
		{"snapshot-on-oom", required_argument, NULL, O_SNAP},
		{"format", required_argument, NULL, 'f'},
		{"fail-on", required_argument, NULL, O_FAIL},
		{"config", required_argument, NULL, 'c'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, rc = KG_EXIT_OK;
	optind = 1;
	opterr = 0;
	/* '+': stop at CMD, so CMD's own options stay CMD's */
	while ((c = getopt_long(argc, argv, "+:f:c:h", longopts, NULL)) != -1) {
		switch (c) {
		case O_REPORT: report = optarg; break;
		case O_LABEL:
			if (!strchr(optarg, '=') || optarg[0] == '=') {
				rc = run_bad_usage("--label needs KEY=VALUE, got '%s'", optarg);
				goto out;
			}
			labels = kg_realloc(labels, (nlabels + 1) * sizeof *labels);
			labels[nlabels++] = optarg;
			break;
		case O_LOG: logpath = optarg; break;
		case O_SNAP: snapdir = optarg; break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "json") && strcmp(optarg, "markdown") &&
			    strcmp(optarg, "github") && strcmp(optarg, "sarif")) {
				rc = run_bad_usage("unknown format '%s' (text, json, markdown, github, sarif)", optarg);
				goto out;
			}
			format = optarg;
			break;
		case O_FAIL:
			if (kg_cli_parse_fail_on(optarg, &fail_on) < 0) {
				rc = run_bad_usage("unknown --fail-on level '%s' (never, info, warning, error)", optarg);
				goto out;
			}
			break;
		case 'c':
			configs = kg_realloc(configs, (nconfigs + 1) * sizeof *configs);
			configs[nconfigs++] = optarg;
			break;
		case 'h': run_usage(stdout); goto out;
		case ':': {
			char o[3] = {'-', (char)optopt, 0};
			rc = run_bad_usage("option '%s' needs an argument", optopt ? o : argv[optind - 1]);
			goto out;
		}
		default: {
			char o[3] = {'-', (char)optopt, 0};
			rc = run_bad_usage("unknown option '%s'", optopt ? o : argv[optind - 1]);
			goto out;
		}
		}
	}
	if (optind >= argc) {
		rc = run_bad_usage("%s", "no command to run (kgmem-diagnose run [OPTIONS] -- CMD [ARGS...])");
		goto out;
	}
	char **cmd = argv + optind;
	size_t ncmd = (size_t)(argc - optind);

	const char *hook = NULL;
	/* names this run's snapshots: host and wrapper pid */
	char tag[128], host[64] = "host";
	gethostname(host, sizeof host - 1);
	host[strcspn(host, "/")] = 0;
	snprintf(tag, sizeof tag, "%s-%d", host, (int)getpid());
	if (snapdir && !(hook = hook_dir())) {
		fprintf(stderr, "%s: --snapshot-on-oom: the Python hook (hooks/sitecustomize.py) is not installed in %s\n",
			progname, KG_HOOK_DIR);
		rc = 125;
		goto out;
	}
	if (snapdir) {
		struct stat st;
		if ((stat(snapdir, &st) < 0 && mkdir(snapdir, 0755) < 0) ||
		    !(snapabs = realpath(snapdir, NULL))) {
			fprintf(stderr, "%s: --snapshot-on-oom %s: %s\n", progname, snapdir, strerror(errno));
			rc = KG_EXIT_USAGE;
			goto out;
		}
		/* absolute before CMD starts: the hook writes into it from
		 * whatever directory the program is in at its OOM */
		snapdir = snapabs;
	}

	/* the capture file: --log FILE, or a private temporary file, removed
	 * at once where /proc lets the diagnosis read it through a descriptor
	 * of ours (cap_keep), so that no kill leaves it behind */
	char tmpl[4096] = "";
	const char *td = getenv("TMPDIR");
	td = td && *td ? td : "/tmp";
	FILE *cap = NULL;
	if (logpath) {
		cap = fopen(logpath, "w");
		if (!cap) {
			fprintf(stderr, "%s: --log %s: %s\n", progname, logpath, strerror(errno));
			rc = KG_EXIT_USAGE;
			goto out;
		}
	} else {
		snprintf(tmpl, sizeof tmpl, "%s/kgmem-run.XXXXXX", td);
		int fd = mkostemp(tmpl, O_CLOEXEC);
		if (fd < 0 || !(cap = fdopen(fd, "w"))) {
			fprintf(stderr, "%s: cannot create a capture file in %s: %s\n", progname, td,
				strerror(errno));
			rc = 125;
			goto out;
		}
		cap_keep = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (cap_keep >= 0 && (cap_name = fd_name(cap_keep))) {
			unlink(tmpl);
			tmpl[0] = '\0';
		}
	}
	const char *cap_path = logpath ? logpath : cap_name ? cap_name : tmpl;
	/* one write(2) per MiB of output, not one per chunk read */
	setvbuf(cap, NULL, _IOFBF, 1 << 20);

	stream st[2];
	if (open_stream(&st[0], STDOUT_FILENO, NULL) < 0 || open_stream(&st[1], STDERR_FILENO, &st[0]) < 0 ||
	    pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		fprintf(stderr, "%s: cannot create pipes: %s\n", progname, strerror(errno));
		rc = 125;
		goto out_cap;
	}
	int errpipe[2];
	if (pipe2(errpipe, O_CLOEXEC) < 0) {
		fprintf(stderr, "%s: cannot create pipes: %s\n", progname, strerror(errno));
		rc = 125;
		goto out_cap;
	}

	/* the prefilter: exactly the OOM grammars' trigger literals (the
	 * scanner's A_OOM atoms), so a training log's progress lines cost one
	 * SIMD pass and no parse */
	static kg_atoms oom_atoms;
	if (!oom_atoms.natoms) {
		size_t ntrig;
		const char *const *trig = kg_oom_triggers(&ntrig);
		for (size_t i = 0; i < ntrig; i++)
			kg_atoms_add(&oom_atoms, trig[i], 1);
	}
	watch w = {.cap = cap, .atoms = &oom_atoms};
	kg_cgroup_mem cg0;
	kg_cgroup_read(&cg0, 0, NULL, NULL);
	char started[40];
	kg_time_iso(started, sizeof started);
	double t0 = mono();
	time_t wall0 = time(NULL);

	/* signals: block until the handlers are in place and the pid known;
	 * CMD gets back the dispositions the wrapper found */
	sigset_t all, old;
	sigemptyset(&all);
	for (size_t i = 0; i < NSIG_RUN; i++)
		sigaddset(&all, run_signals[i].sig);
	sigprocmask(SIG_BLOCK, &all, &old);
	struct sigaction ttou_old;
	handlers = true;
	for (size_t i = 0; i < NSIG_RUN; i++) {
		struct sigaction sa = {0};
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = SA_RESTART;
		sa.sa_handler = run_signals[i].handler;
		sigaction(run_signals[i].sig, &sa, &sa_old[i]);
	}
	sigaction(SIGTTOU, NULL, &ttou_old);

	bool fg = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "%s: fork: %s\n", progname, strerror(errno));
		sigprocmask(SIG_SETMASK, &old, NULL);
		rc = 125;
		goto out_cap;
	}
	if (pid == 0) {
		setpgid(0, 0);
		if (fg) {
			signal(SIGTTOU, SIG_IGN);
			tcsetpgrp(STDIN_FILENO, getpid());
		}
		for (size_t i = 0; i < NSIG_RUN; i++)
			sigaction(run_signals[i].sig, &sa_old[i], NULL);
		sigaction(SIGTTOU, &ttou_old, NULL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (!st[0].file)
			dup2(st[0].slave, STDOUT_FILENO);
		if (!st[1].file)
			dup2(st[1].slave, STDERR_FILENO);
		if (snapdir)
			set_hook_env(hook, snapdir, tag);
		execvp(cmd[0], cmd);
		int e = errno;
		(void)!write(errpipe[1], &e, sizeof e);
		_exit(e == ENOENT ? 127 : 126);
	}
	setpgid(pid, pid);
	child_pgid = pid;
	if (fg) {
		signal(SIGTTOU, SIG_IGN);
		tcsetpgrp(STDIN_FILENO, pid);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(errpipe[1]);
	for (int i = 0; i < 2; i++)
		if (!st[i].file)
			close(st[i].slave);
	int exec_errno = 0;
	if (read(errpipe[0], &exec_errno, sizeof exec_errno) != (ssize_t)sizeof exec_errno)
		exec_errno = 0;
	close(errpipe[0]);

	char *buf = kg_malloc(CHUNK);
	int status = 0;
	bool reaped = false;
	double linger_until = 0;
	for (;;) {
		struct pollfd pf[3];
		int np = 0, idx[2] = {-1, -1};
		pf[np++] = (struct pollfd){.fd = wake_pipe[0], .events = POLLIN};
		bool files = false;
		for (int i = 0; i < 2; i++) {
			if (st[i].fd >= 0 && st[i].file)
				files = true;
			else if (st[i].fd >= 0) {
				idx[i] = np;
				pf[np++] = (struct pollfd){.fd = st[i].fd, .events = POLLIN};
			}
		}
		if (np == 1 && reaped)
			break;
		/* files are read every 100 ms: CMD's writes reach the file
		 * directly, only the scan waits; after CMD's exit, wake up
		 * when the wait for its leftover writers ends */
		int ms = files ? 100 : -1;
		if (reaped) {
			int left = (int)((linger_until - mono()) * 1000) + 1;
			ms = left < 0 ? 0 : ms < 0 || left < ms ? left : ms;
		}
		if (poll(pf, (nfds_t)np, ms) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < 2; i++)
			pump_file(&st[i], &w, buf);
		if (pf[0].revents & POLLIN) {
			char d[64];
			while (read(wake_pipe[0], d, sizeof d) > 0) {}
		}
		if (got_winch) {
			got_winch = 0;
			for (int i = 0; i < 2; i++) {
				struct winsize ws;
				if (st[i].pty && st[i].fd >= 0 && ioctl(st[i].out, TIOCGWINSZ, &ws) == 0)
					ioctl(st[i].fd, TIOCSWINSZ, &ws);
			}
		}
		for (int i = 0; i < 2; i++) {
			if (idx[i] < 0 || st[i].fd < 0)
				continue;
			if (pf[idx[i]].revents & (POLLIN | POLLHUP | POLLERR)) {
				if (!pump(&st[i], &w, buf))
					close_stream(&st[i], &w);
			}
		}
		if (got_chld && !reaped) {
			got_chld = 0;
			pid_t r = waitpid(pid, &status, WNOHANG | WUNTRACED);
			if (r == pid && WIFSTOPPED(status)) {
				/* Ctrl-Z stopped CMD's group (at a terminal; a stop
				 * from elsewhere is left alone): take the terminal
				 * back and stop too, so the shell sees the job
				 * stopped; on SIGCONT (fg, bg) hand it back and
				 * continue CMD */
				if (fg) {
					tcsetpgrp(STDIN_FILENO, getpgrp());
					raise(SIGSTOP);
					if (tcgetpgrp(STDIN_FILENO) == getpgrp())
						tcsetpgrp(STDIN_FILENO, pid);
					kill(-pid, SIGCONT);
				}
				continue;
			}
			if (r == pid) {
				reaped = true;
				/* a process CMD left behind may still write into the
				 * pipes: pass its output on until every writer has
				 * closed them, for at most KG_RUN_LINGER_S */
				linger_until = mono() + KG_RUN_LINGER_S;
				for (int i = 0; i < 2; i++) {
					if (st[i].fd >= 0 && st[i].file) {
						pump_file(&st[i], &w, buf);
						close_stream(&st[i], &w);
					}
				}
			}
		}
		if (reaped && mono() >= linger_until) {
			/* what is in the pipes now is passed on; a background
			 * process keeping them open longer must not keep us
			 * waiting (its later writes meet a closed pipe) */
			for (int i = 0; i < 2; i++)
				drain_close(&st[i], &w, buf);
		}
	}
	free(buf);
	for (int i = 0; i < 2; i++) {
		close_stream(&st[i], &w);
		kg_buf_free(&st[i].pend);
	}
	if (!reaped)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
	/* CMD is gone: from here to the exit, SIGINT, SIGTERM, SIGHUP, SIGUSR1
	 * and SIGUSR2 reach on_forward with no group to pass them to, so they
	 * are dropped: a scheduler's SIGTERM at a time limit, or a terminal
	 * closing, while the output is diagnosed no longer kills the wrapper
	 * before --report is written (the exit status stays CMD's; issue 34).
	 * SIGKILL still ends it; the capture file is already unlinked. */
	child_pgid = 0;
	if (fg)
		tcsetpgrp(STDIN_FILENO, getpgrp());
	restore_signals(sa_old, on_wake);
	close(wake_pipe[0]);
	close(wake_pipe[1]);
	wake_pipe[0] = wake_pipe[1] = -1;
	bool cap_bad = w.cap_failed | (fflush(cap) != 0);
	fclose(cap);
	cap = NULL;

	int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	rc = sig ? 128 + sig : code;
	if (exec_errno) {
		fprintf(stderr, "%s: %s: %s\n", progname, cmd[0], strerror(exec_errno));
		rc = exec_errno == ENOENT ? 127 : 126;
		goto out_ev;
	}

	kg_run_info ri = {.argv = cmd, .argc = ncmd, .pid = pid, .duration_s = mono() - t0,
			  .exit_code = code, .signal = sig, .labels = labels, .nlabels = nlabels,
			  .log = (char *)logpath, .snapshot_dir = (char *)snapdir, .readings = w.ev, .nreadings = w.nev,
			  .oom_kill_before = cg0.found ? cg0.oom_kill : -1, .oom_kill_after = -1};
	snprintf(ri.started, sizeof ri.started, "%s", started);
	kg_time_iso(ri.ended, sizeof ri.ended);
	kg_cgroup_mem cg1;
	kg_cgroup_read(&cg1, 0, NULL, NULL);
	if (cg1.found)
		ri.oom_kill_after = cg1.oom_kill;
	bool host_oom = ri.oom_kill_before >= 0 && ri.oom_kill_after > ri.oom_kill_before;
	if (host_oom && w.nev < MAX_READINGS) {
		/* no message marks a host OOM kill: read the state at exit */
		kg_reading_take(&w.ev[w.nev++], "exit", 0, 0, NULL);
		ri.nreadings = w.nev;
	}

	if (snapdir)
		find_snapshots(snapdir, tag, wall0, &snaps, &nsnaps, &skipped, &nskipped);
	bool oom = w.ooms > 0 || host_oom || nsnaps > 0;
	if (!oom && !report)
		goto out_ev;

	/* the diagnosis: the captured output (unless CMD printed nothing;
	 * after a host OOM kill even then: the kill is its incident), then
	 * any snapshot */
	const char **paths = kg_malloc((1 + nsnaps) * sizeof *paths);
	size_t npaths = 0;
	struct stat cst;
	if (stat(cap_path, &cst) == 0 && (cst.st_size > 0 || host_oom))
		paths[npaths++] = cap_path;
	for (size_t i = 0; i < nsnaps; i++)
		paths[npaths++] = snaps[i].read_as;
	kg_options opt = {.format = format, .fail_on = fail_on, .configs = configs,
			  .nconfigs = nconfigs, .color = 0, .progress = 0, .run = &ri};
	kg_report rep;
	kg_report_init(&rep);
	kg_error err = {0};
	enum kg_status ds = npaths ? kg_diagnose(paths, npaths, &opt, &rep, &err) : KG_STATUS_OK;
	/* the report names what was read as the user knows it: the captured
	 * output "<output>", a snapshot by its path (not /proc/self/fd/N) */
	if (!logpath)
		kg_report_rename_input(&rep, cap_path, "<output>");
	for (size_t i = 0; i < nsnaps; i++)
		if (snaps[i].read_as != snaps[i].name)
			kg_report_rename_input(&rep, snaps[i].read_as, snaps[i].name);
	for (size_t i = 0; i < nskipped; i++)
		kg_report_note(&rep, "%s", skipped[i]);
	if (cap_bad) {
		if (logpath)
			kg_report_note(&rep, "run: the capture file %s could not be written completely (disk full?); "
				       "the diagnosis saw only part of the output", logpath);
		else
			kg_report_note(&rep, "run: the capture file in %s could not be written completely (disk full?); "
				       "the diagnosis saw only part of the output", td);
	}
	kg_run_attach(&rep, &ri);
	if (snapdir && w.ooms > 0 && nsnaps == 0)
		kg_report_note(&rep, "run: --snapshot-on-oom %s: no snapshot of this run was found there "
			       "(the hook writes one when a Python program using torch runs out of CUDA memory)",
			       snapdir);
	if (ds != KG_STATUS_OK) {
		const char *where = err.path[0] ? err.path : "?";
		if (!logpath && !strcmp(where, cap_path))
			where = "<output>";
		for (size_t i = 0; i < nsnaps; i++)
			if (!strcmp(where, snaps[i].read_as))
				where = snaps[i].name;
		fprintf(stderr, "%s: diagnosis: %s: %s\n", progname, where, err.msg);
	}
	if (oom) {
		fflush(stdout);
		if (!strcmp(format, "json")) {
			kg_report_json(&rep, stderr);
		} else if (!strcmp(format, "github")) {
			kg_report_github(&rep, stderr);
		} else if (!strcmp(format, "sarif")) {
			kg_report_sarif(&rep, NULL, 0, stderr);
		} else if (!strcmp(format, "markdown")) {
			kg_report_markdown(&rep, stderr);
		} else {
			kg_text_style ts = {.color = false, .ascii = !kg_locale_utf8()};
			fprintf(stderr, "\n== kgmem-diagnose: %s ==\n",
				host_oom && !w.ooms ? "host out of memory" : "out of memory");
			kg_report_text(&rep, stderr, &ts);
		}
		fflush(stderr);
	}
	kg_error we = {0};
	if (report && write_report(report, &rep, nlabels > 0, &we) < 0) {
		fprintf(stderr, "%s: --report %s\n", progname, we.msg);
		if (rc == 0)
			rc = KG_EXIT_INPUT;
	}
	if (rc == 0 && fail_on != KG_SEV_NONE)
		for (size_t i = 0; i < rep.nincidents; i++)
			if (kg_incident_severity(&rep.incidents[i]) >= fail_on)
				rc = KG_EXIT_FINDINGS;
	kg_report_free(&rep);
	free(paths);
out_ev:
	for (size_t i = 0; i < w.nev; i++)
		kg_reading_free(&w.ev[i]);
out_cap:
	if (cap)
		fclose(cap);
	if (tmpl[0])
		unlink(tmpl);
out:
	if (handlers)
		restore_signals(sa_old, NULL);
	runfiles_free(snaps, nsnaps);
	for (size_t i = 0; i < nskipped; i++)
		free(skipped[i]);
	free(skipped);
	if (cap_keep >= 0)
		close(cap_keep);
	free(cap_name);
	free(snapabs);
	free(configs);
	free(labels);
	return rc;
}

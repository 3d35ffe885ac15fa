/* Unit tests for patch.c: the seed 001 remedy (test_bs 128 → the batch the
 * solver computes) as a diff that changes only the test_bs line and keeps
 * the comments; insertion of a missing key; --apply in a temporary
 * directory (new text, .orig backup, mode kept); refusals. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diagnose/calc.h"
#include "read/config.h"
#include "report/patch.h"
#include "tap.h"
#include "cases.h"

#define CFG(name) KG_TESTDATA_DIR "/configs/" name

static void copy(const char *from, const char *to)
{
	char *t = tc_slurp(from);
	FILE *f = fopen(to, "wb");
	fputs(t, f);
	fclose(f);
	free(t);
}

/* Plans eval_batch_size = value on path (NULL on failure). */
static kg_patch *plan(const char *path, const char *value)
{
	kg_error err = {0};
	kg_config *c = kg_config_load(path, &err);
	const char *r[] = {"eval_batch_size"}, *v[] = {value};
	kg_patch *p = c ? kg_patch_make(c, r, v, 1, &err) : NULL;
	kg_config_free(c);
	return p;
}

static bool has(const char *path, const char *needle)
{
	char *t = tc_slurp(path);
	bool ok = t && strstr(t, needle);
	free(t);
	return ok;
}

/* Issue 14: writes that keep what the user has. */
static void keeps(const char *dir)
{
	const char *src = CFG("seed001-rotate-wn18rr.yaml");
	char *orig_text = tc_slurp(src);
	kg_error err = {0};

	/* the first original survives any number of applies; a user's own
	 * .orig is never overwritten: the next free name is used and named */
	char *a = kg_asprintf("%s/keep.yaml", dir), *ao = kg_asprintf("%s.orig", a);
	char *ao1 = kg_asprintf("%s.orig.1", a), *ao2 = kg_asprintf("%s.orig.2", a);
	copy(src, a);
	char *bk = NULL;
	kg_patch *p = plan(a, "64");
	TAP_OK(p && kg_patch_apply(p, &bk, &err) == 0 && bk && !strcmp(bk, ao), "first apply: backup %s (%s)", bk ? bk : "-", err.msg);
	free(bk);
	kg_patch_free(p);
	p = plan(a, "32");
	TAP_OK(p && kg_patch_apply(p, &bk, &err) == 0 && bk && !strcmp(bk, ao1), "second apply: backup %s (%s)", bk ? bk : "-", err.msg);
	free(bk);
	kg_patch_free(p);
	char *o = tc_slurp(ao);
	TAP_EQ_STR(o, orig_text, "the first original is still in .orig");
	free(o);
	TAP_OK(has(ao1, "test_bs: 64 ") && has(a, "test_bs: 32 "), ".orig.1 holds the first edit, the file the second");
	unlink(ao);
	unlink(ao1);
	copy(src, a);
	FILE *f = fopen(ao, "w");
	fputs("my own notes\n", f);
	fclose(f);
	p = plan(a, "64");
	TAP_OK(p && kg_patch_apply(p, &bk, &err) == 0 && bk && !strcmp(bk, ao1), "a user's own .orig: backup goes to %s", bk ? bk : "-");
	free(bk);
	kg_patch_free(p);
	TAP_OK(has(ao, "my own notes"), "… and the user's .orig is untouched");
	unlink(ao);
	unlink(ao1);
	unlink(ao2);

	/* a symlink stays a symlink to the edited target */
	char *sub = kg_asprintf("%s/real", dir), *target = kg_asprintf("%s/real/target.yaml", dir);
	char *lnk = kg_asprintf("%s/link.yaml", dir), *to = kg_asprintf("%s.orig", target);
	mkdir(sub, 0755);
	copy(src, target);
	TAP_OK(symlink("real/target.yaml", lnk) == 0, "symlink made");
	p = plan(lnk, "64");
	TAP_OK(p && kg_patch_apply(p, &bk, &err) == 0 && bk && !strcmp(bk, to), "apply through a symlink: backup beside the target %s (%s)", bk ? bk : "-", err.msg);
	free(bk);
	kg_patch_free(p);
	struct stat st;
	char lt[256] = "";
	ssize_t ln = readlink(lnk, lt, sizeof lt - 1);
	lt[ln > 0 ? ln : 0] = 0;
	TAP_OK(lstat(lnk, &st) == 0 && S_ISLNK(st.st_mode) && !strcmp(lt, "real/target.yaml"), "the link is still a link to real/target.yaml");
	TAP_OK(has(target, "test_bs: 64 "), "the target is edited");
	o = tc_slurp(to);
	TAP_EQ_STR(o, orig_text, "the target's .orig holds the old text");
	free(o);
	unlink(lnk);
	unlink(target);
	unlink(to);
	rmdir(sub);

	/* hard links stay one file; owner, group and mode are kept */
	char *h1 = kg_asprintf("%s/h1.yaml", dir), *h2 = kg_asprintf("%s/h2.yaml", dir);
	char *h1o = kg_asprintf("%s.orig", h1);
	copy(src, h1);
	TAP_OK(link(h1, h2) == 0, "hard link made");
	struct stat before;
	stat(h1, &before);
	p = plan(h1, "64");
	TAP_OK(p && kg_patch_apply(p, NULL, &err) == 0, "apply to a file with two links (%s)", err.msg);
	kg_patch_free(p);
	TAP_OK(stat(h2, &st) == 0 && st.st_ino == before.st_ino && st.st_nlink == 2 && has(h2, "test_bs: 64 "),
	       "both names still one file, both see the edit");
	unlink(h1);
	unlink(h2);
	unlink(h1o);
	char *own = kg_asprintf("%s/own.yaml", dir), *owno = kg_asprintf("%s.orig", own);
	copy(src, own);
	chmod(own, 0604);
	bool root = geteuid() == 0;
	if (root)
		TAP_OK(chown(own, 1234, 4321) == 0, "owner set to 1234:4321");
	stat(own, &before);
	p = plan(own, "64");
	TAP_OK(p && kg_patch_apply(p, NULL, &err) == 0, "apply (%s)", err.msg);
	kg_patch_free(p);
	TAP_OK(stat(own, &st) == 0 && st.st_uid == before.st_uid && st.st_gid == before.st_gid &&
	       (st.st_mode & 07777) == 0604, "owner %d:%d and mode %o kept%s", (int)st.st_uid, (int)st.st_gid,
	       (unsigned)(st.st_mode & 07777), root ? "" : " (not root: own user)");
	TAP_OK(stat(owno, &st) == 0 && st.st_uid == before.st_uid && (st.st_mode & 07777) == 0604,
	       "the backup has the same owner and mode");
	unlink(own);
	unlink(owno);

	/* two applies at once: one writes, the other finds the file changed
	 * (before: both said "written" and one update was lost) */
	char *cc = kg_asprintf("%s/conc.yaml", dir);
	int lost = 0, both = 0;
	for (int round = 0; round < 20; round++) {
		copy(src, cc);
		kg_patch *p1 = plan(cc, "64"), *p2 = plan(cc, "32");
		int go[2];
		if (pipe(go) != 0)
			break;
		pid_t kid[2];
		/* nothing buffered may be inherited: valgrind's exit in a child
		 * flushes stdio even after _exit, and the TAP lines doubled */
		fflush(stdout);
		for (int k = 0; k < 2; k++) {
			kid[k] = fork();
			if (kid[k] == 0) {
				char x;
				close(go[1]);
				if (read(go[0], &x, 1) < 0)
					_exit(9);
				kg_error e = {0};
				int r = kg_patch_apply(k ? p2 : p1, NULL, &e) == 0 ? 0
					: strstr(e.msg, "changed since") ? 1 : 2;
				/* the child's copies too (valgrind checks each process) */
				kg_patch_free(p1);
				kg_patch_free(p2);
				free(cc);
				_exit(r);
			}
		}
		close(go[0]);
		close(go[1]); /* both start */
		int st0, st1;
		waitpid(kid[0], &st0, 0);
		waitpid(kid[1], &st1, 0);
		int r0 = WEXITSTATUS(st0), r1 = WEXITSTATUS(st1);
		if (!((r0 == 0 && r1 == 1) || (r0 == 1 && r1 == 0)))
			both++;
		else if (!has(cc, r0 == 0 ? "test_bs: 64 " : "test_bs: 32 "))
			lost++;
		kg_patch_free(p1);
		kg_patch_free(p2);
		char *g = kg_asprintf("rm -f %s.orig*", cc);
		if (system(g) != 0)
			lost++;
		free(g);
	}
	TAP_OK(both == 0 && lost == 0, "20 rounds of two concurrent applies: one writes, one refuses (%d bad, %d lost)", both, lost);
	unlink(cc);

	/* nothing else is left in the directory: no temporary file */
	char *cmd = kg_asprintf("ls -A %s | grep -q kgmem-", dir);
	TAP_OK(system(cmd) != 0, "no temporary file left behind");
	free(cmd);
	free(cc);
	free(own);
	free(owno);
	free(h1);
	free(h2);
	free(h1o);
	free(sub);
	free(target);
	free(lnk);
	free(to);
	free(a);
	free(ao);
	free(ao1);
	free(ao2);
	free(orig_text);
}

int main(void)
{
	char dir[] = "/tmp/kgmem-patch-XXXXXX";
	TAP_OK(mkdtemp(dir) != NULL, "temp dir");
	char *path = kg_asprintf("%s/cfg.yaml", dir);
	copy(CFG("seed001-rotate-wn18rr.yaml"), path);
	chmod(path, 0640);

	/* remedy: the batch that fits 13.21 GiB free + 512.00 MiB cached (see test_calc) */
	int64_t bs = kg_solve_full_ranking_batch(14183790694LL + 536870912LL, 40943, 512, 2, 4, 0);
	TAP_EQ_I64(bs, 64, "solver: 64");
	char val[32];
	snprintf(val, sizeof val, "%lld", (long long)bs);

	kg_error err = {0};
	kg_config *c = kg_config_load(path, &err);
	TAP_OK(c != NULL, "load");
	const char *roles[] = {"eval_batch_size"};
	const char *vals[] = {val};
	kg_patch *p = kg_patch_make(c, roles, vals, 1, &err);
	TAP_OK(p != NULL, "plan (%s)", err.msg);
	char *d = p ? kg_patch_diff(p) : NULL;
	char *want = kg_asprintf(
		"--- a/%s\n+++ b/%s\n"
		"@@ -6,7 +6,7 @@\n"
		"   dataset: WN18RR        # 40,943 entities, 11 relations\n"
		"   data_dir: ./data/WN18RR\n"
		"   train_bs: 1024\n"
		"-  test_bs: 128           # full ranking: every test triple scored against all entities\n"
		"+  test_bs: 64            # full ranking: every test triple scored against all entities\n"
		"   num_workers: 4\n"
		" \n"
		" model:\n", path + 1, path + 1);  /* an absolute path loses its /: patch -p1 -d / */
	TAP_EQ_STR(d, want, "diff changes only the test_bs line, comment column kept; the headers "
		   "a/tmp/... (patch -p1), never a//tmp/...");
	free(want);
	free(d);

	/* apply */
	TAP_OK(p && kg_patch_apply(p, NULL, &err) == 0, "apply (%s)", err.msg);
	char *orig = kg_asprintf("%s.orig", path);
	char *o = tc_slurp(orig), *n = tc_slurp(path), *src = tc_slurp(CFG("seed001-rotate-wn18rr.yaml"));
	TAP_EQ_STR(o, src, ".orig holds the old text");
	TAP_OK(n && strstr(n, "  test_bs: 64            # full ranking") && strstr(n, "# RotatE + MED + RSCF"),
	       "new text has the value and the comments");
	struct stat st;
	TAP_OK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0640, "mode kept");
	kg_config *c2 = kg_config_load(path, &err);
	int64_t v = 0;
	TAP_OK(c2 && kg_config_role_int(c2, "eval_batch_size", &v) && v == 64, "re-read: 64");
	kg_config_free(c2);
	/* the file changed since it was read: refuse */
	TAP_OK(kg_patch_apply(p, NULL, &err) < 0 && strstr(err.msg, "changed since"), "stale plan refused: %s", err.msg);
	free(o);
	free(n);
	kg_patch_free(p);
	kg_config_free(c);

	/* a read-only file is refused and untouched */
	char *ro = kg_asprintf("%s/ro.yaml", dir);
	copy(CFG("hf-trainer.yaml"), ro);
	chmod(ro, 0444);
	c = kg_config_load(ro, &err);
	const char *r2[] = {"grad_accum_steps"}, *v2[] = {"16"};
	p = c ? kg_patch_make(c, r2, v2, 1, &err) : NULL;
	if (geteuid() != 0) {
		TAP_OK(p && kg_patch_apply(p, NULL, &err) < 0 && strstr(err.msg, "not writable"), "read-only: %s", err.msg);
		char *ro_orig = kg_asprintf("%s.orig", ro);
		TAP_OK(access(ro_orig, F_OK) != 0, "no backup written");
		free(ro_orig);
	}
	char *after = tc_slurp(ro), *before = tc_slurp(CFG("hf-trainer.yaml"));
	TAP_EQ_STR(after, before, "file untouched");
	free(after);
	free(before);
	kg_patch_free(p);
	kg_config_free(c);

	/* insertion of a missing key next to the train batch size */
	c = kg_config_load(CFG("lightning-no-eval.yaml"), &err);
	const char *r3[] = {"eval_batch_size"}, *v3[] = {"64"};
	p = c ? kg_patch_make(c, r3, v3, 1, &err) : NULL;
	d = p ? kg_patch_diff(p) : NULL;
	TAP_OK(d && strstr(d, "@@ -6,6 +6,7 @@\n   dataset: codex-m\n   batch_size: 512\n   num_workers: 8\n+  test_bs: 64\n model:\n"),
	       "missing key inserted in data: at its indentation");
	free(d);
	kg_patch_free(p);
	kg_config_free(c);

	/* a mapping where the value should be */
	c = kg_config_load(CFG("mapping-for-number.yaml"), &err);
	p = c ? kg_patch_make(c, r3, v3, 1, &err) : NULL;
	TAP_OK(p == NULL && err.line == 4 && strstr(err.msg, "is a mapping"), "mapping refused: %s", err.msg);
	kg_config_free(c);
	/* issue 26: a bare CR is a line break to libyaml (the config fuzz
	 * harness's reproducer, as the issue quotes it): the edit lands on the value of the
	 * key, not on the next line's ("f: 1" became "f: 14") */
	c = kg_config_load(CFG("bare-cr-line-break.yaml"), &err);
	const char *r5[] = {"grad_accum_steps"}, *v5[] = {"8"};
	p = c ? kg_patch_make(c, r5, v5, 1, &err) : NULL;
	TAP_OK(p && p->new_len == 28 && !memcmp(p->new_text, "\raccumulation_steps: 8\nf: 1\n", 28),
	       "bare CR line break: accumulation_steps 4 -> 8 in place, f: 1 untouched (%s)",
	       p ? "patched" : err.msg);
	kg_patch_free(p);
	kg_config_free(c);
	/* unknown role */
	c = kg_config_load(CFG("hf-trainer.yaml"), &err);
	const char *r4[] = {"learning_rate_role"};
	p = c ? kg_patch_make(c, r4, v3, 1, &err) : NULL;
	TAP_OK(p == NULL && strstr(err.msg, "unknown config role"), "unknown role refused");
	kg_config_free(c);

	/* a role whose value is an alias of another key's: editing it would
	 * change both, so it is refused (issue 14) */
	const char *shared = "base_bs: &n 128\ndata:\n  test_bs: *n\n";
	c = kg_config_parse("shared.yaml", shared, strlen(shared), NULL, &err);
	p = c ? kg_patch_make(c, r3, v3, 1, &err) : NULL;
	TAP_OK(c && p == NULL && err.line == 3 && strstr(err.msg, "shares its value with base_bs (line 1)"),
	       "an aliased value is not edited: %s", err.msg);
	kg_patch_free(p);
	kg_config_free(c);

	keeps(dir);

	chmod(ro, 0644);
	unlink(ro);
	unlink(orig);
	unlink(path);
	rmdir(dir);
	free(ro);
	free(orig);
	free(path);
	free(src);
	return tap_done();
}

/* Unit tests for patch.c: the seed 001 remedy (test_bs 128 → the batch the
 * solver computes) as a diff that changes only the test_bs line and keeps
 * the comments; insertion of a missing key; --apply in a temporary
 * directory (new text, .orig backup, mode kept); refusals. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calc.h"
#include "config.h"
#include "patch.h"
#include "tap.h"

#define CFG(name) KG_TESTDATA_DIR "/configs/" name

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	kg_buf b = {0};
	char chunk[4096];
	size_t r;
	while ((r = fread(chunk, 1, sizeof chunk, f)) > 0)
		kg_buf_append(&b, chunk, r);
	fclose(f);
	return kg_buf_steal(&b);
}

static void copy(const char *from, const char *to)
{
	char *t = read_all(from);
	FILE *f = fopen(to, "wb");
	fputs(t, f);
	fclose(f);
	free(t);
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
		" model:\n", path, path);
	TAP_EQ_STR(d, want, "diff changes only the test_bs line, comment column kept");
	free(want);
	free(d);

	/* apply */
	TAP_OK(p && kg_patch_apply(p, &err) == 0, "apply (%s)", err.msg);
	char *orig = kg_asprintf("%s.orig", path);
	char *o = read_all(orig), *n = read_all(path), *src = read_all(CFG("seed001-rotate-wn18rr.yaml"));
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
	TAP_OK(kg_patch_apply(p, &err) < 0 && strstr(err.msg, "changed since"), "stale plan refused: %s", err.msg);
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
		TAP_OK(p && kg_patch_apply(p, &err) < 0 && strstr(err.msg, "not writable"), "read-only: %s", err.msg);
		char *ro_orig = kg_asprintf("%s.orig", ro);
		TAP_OK(access(ro_orig, F_OK) != 0, "no backup written");
		free(ro_orig);
	}
	char *after = read_all(ro), *before = read_all(CFG("hf-trainer.yaml"));
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

/* inputs.c — directories of logs, reading order, rank from a path (see
 * include/read/inputs.h). */
#include "read/inputs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct walk {
	kg_input_file *v;
	size_t n, cap;
	kg_error *err;
} walk;

/* Splits a file name into the name it rotates from and its rotation number:
 * "train.log.2.gz" → ("train.log", 2), "train.log.1" → ("train.log", 1),
 * "train.log" → ("train.log", 0). *baselen is the base's length. */
static long rotation(const char *name, size_t *baselen)
{
	size_t n = strlen(name);
	if (n > 3 && !strcmp(name + n - 3, ".gz"))
		n -= 3;
	size_t d = n;
	while (d > 0 && isdigit((unsigned char)name[d - 1]))
		d--;
	if (d < n && d > 1 && name[d - 1] == '.' && n - d <= 4) {
		*baselen = d - 1;
		return strtol(name + d, NULL, 10);
	}
	*baselen = strlen(name);
	return 0;
}

/* Name order with runs of digits compared as numbers (rank2 < rank10). */
static int natural_cmp(const char *a, const char *b, size_t an, size_t bn)
{
	size_t i = 0, j = 0;
	while (i < an && j < bn) {
		if (isdigit((unsigned char)a[i]) && isdigit((unsigned char)b[j])) {
			size_t i2 = i, j2 = j;
			while (i2 < an && a[i2] == '0')
				i2++;
			while (j2 < bn && b[j2] == '0')
				j2++;
			size_t ie = i2, je = j2;
			while (ie < an && isdigit((unsigned char)a[ie]))
				ie++;
			while (je < bn && isdigit((unsigned char)b[je]))
				je++;
			if (ie - i2 != je - j2)
				return ie - i2 < je - j2 ? -1 : 1;
			int c = memcmp(a + i2, b + j2, ie - i2);
			if (c)
				return c;
			i = ie;
			j = je;
			continue;
		}
		if (a[i] != b[j])
			return (unsigned char)a[i] < (unsigned char)b[j] ? -1 : 1;
		i++;
		j++;
	}
	return (i < an) - (j < bn);
}

static int file_cmp(const void *pa, const void *pb)
{
	const char *a = ((const kg_input_file *)pa)->path, *b = ((const kg_input_file *)pb)->path;
	const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
	size_t da = sa ? (size_t)(sa - a) : 0, db = sb ? (size_t)(sb - b) : 0;
	int c = natural_cmp(a, b, da, db);
	if (c)
		return c;
	const char *na = sa ? sa + 1 : a, *nb = sb ? sb + 1 : b;
	size_t la, lb;
	long ra = rotation(na, &la), rb = rotation(nb, &lb);
	c = natural_cmp(na, nb, la, lb);
	if (c)
		return c;
	if (ra != rb)
		return ra > rb ? -1 : 1; /* older (higher number) first */
	return strcmp(na, nb);
}

static int add_dir(walk *w, const char *dir, int depth)
{
	DIR *d = opendir(dir);
	if (!d)
		return kg_fail(w->err, "cannot read the directory %s: %s", dir, strerror(errno));
	struct dirent *e;
	int rc = 0;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char *p = kg_asprintf("%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", e->d_name);
		struct stat st, lst;
		if (stat(p, &st) != 0 || lstat(p, &lst) != 0) {
			free(p);
			continue; /* vanished, or a dangling link */
		}
		if (S_ISDIR(st.st_mode)) {
			if (!S_ISLNK(lst.st_mode) && depth < KG_DIR_MAX_DEPTH)
				rc = add_dir(w, p, depth + 1);
			free(p);
			continue;
		}
		if (!S_ISREG(st.st_mode)) {
			free(p);
			continue;
		}
		if (w->n >= KG_DIR_MAX_FILES) {
			free(p);
			rc = kg_fail(w->err, "more than %d files under the directory", KG_DIR_MAX_FILES);
			break;
		}
		if (w->n == w->cap) {
			w->cap = w->cap ? 2 * w->cap : 16;
			w->v = kg_realloc(w->v, w->cap * sizeof *w->v);
		}
		w->v[w->n++] = (kg_input_file){p, KG_NONE};
	}
	closedir(d);
	return rc;
}

/* Slurm %t: files in one directory whose names differ only in their last
 * run of digits (out-1234-0.log, out-1234-1.log, …) take it as the rank. */
static void slurm_sibling_ranks(kg_input_file *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (v[i].rank != KG_NONE)
			continue;
		const char *a = v[i].path;
		const char *ad = NULL, *ae = NULL; /* last digit run in the name */
		const char *an = strrchr(a, '/');
		an = an ? an + 1 : a;
		for (const char *q = an; *q; q++) {
			if (isdigit((unsigned char)*q) && (q == an || !isdigit((unsigned char)q[-1])))
				ad = q;
			if (isdigit((unsigned char)*q))
				ae = q + 1;
		}
		if (!ad || ad == an || !strchr("-_.", ad[-1]))
			continue;
		size_t pre = (size_t)(ad - a);
		bool sibling = false;
		for (size_t j = 0; j < n && !sibling; j++) {
			const char *b = v[j].path;
			if (j == i || strncmp(a, b, pre))
				continue;
			const char *bd = b + pre;
			const char *be = bd;
			while (isdigit((unsigned char)*be))
				be++;
			sibling = be > bd && !strcmp(be, ae) && !strchr(bd, '/') &&
				  (be - bd != ae - ad || memcmp(bd, ad, (size_t)(be - bd)));
		}
		if (sibling && ae - ad < 7)
			v[i].rank = strtol(ad, NULL, 10);
	}
}

int kg_dir_files(const char *dir, kg_input_file **files, size_t *n, kg_error *err)
{
	walk w = {.err = err};
	if (add_dir(&w, dir, 0) < 0) {
		kg_input_files_free(w.v, w.n);
		return -1;
	}
	if (w.n)
		qsort(w.v, w.n, sizeof *w.v, file_cmp);
	for (size_t i = 0; i < w.n; i++)
		w.v[i].rank = kg_path_rank(w.v[i].path);
	slurm_sibling_ranks(w.v, w.n);
	*files = w.v;
	*n = w.n;
	return 0;
}

void kg_input_files_free(kg_input_file *files, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(files[i].path);
	free(files);
}

int64_t kg_path_rank(const char *path)
{
	int64_t rank = KG_NONE;
	const char *comp = path;
	while (comp && *comp) {
		const char *end = strchr(comp, '/');
		size_t len = end ? (size_t)(end - comp) : strlen(comp);
		/* "rank" + [-_.] + digits, anywhere in the component */
		for (size_t i = 0; i + 4 < len; i++) {
			if (strncasecmp(comp + i, "rank", 4))
				continue;
			if (i > 0 && isalpha((unsigned char)comp[i - 1]))
				continue;
			size_t k = i + 4;
			if (k < len && strchr("-_.", comp[k]))
				k++;
			size_t d = k;
			while (d < len && isdigit((unsigned char)comp[d]))
				d++;
			if (d > k && d - k < 7)
				rank = strtol(comp + k, NULL, 10);
		}
		/* torchrun --log-dir: …/attempt_N/<local_rank>/stdout.log */
		if (end && len && len < 7 && strspn(comp, "0123456789") == len &&
		    (!strcmp(end + 1, "stdout.log") || !strcmp(end + 1, "stderr.log") ||
		     !strcmp(end + 1, "stdout.log.gz") || !strcmp(end + 1, "stderr.log.gz")))
			rank = strtol(comp, NULL, 10);
		comp = end ? end + 1 : NULL;
	}
	return rank;
}

bool kg_same_rotation(const char *a, const char *b)
{
	const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
	size_t da = sa ? (size_t)(sa - a) : 0, db = sb ? (size_t)(sb - b) : 0;
	if (da != db || memcmp(a, b, da))
		return false;
	const char *na = sa ? sa + 1 : a, *nb = sb ? sb + 1 : b;
	size_t la, lb;
	long ra = rotation(na, &la), rb = rotation(nb, &lb);
	return la == lb && !memcmp(na, nb, la) && ra != rb;
}

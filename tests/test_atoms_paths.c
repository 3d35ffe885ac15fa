/* test_atoms_paths.c — every vector path of the literal prefilter
 * (lib/read/atoms.c: SSSE3, AVX2, AVX-512 VBMI on x86-64; NEON on aarch64, run
 * there or under qemu-user: .ci/aarch64) against its scalar path. Each
 * buffer's hits are enumerated on both (kg_atoms_find_lines from `from`,
 * then from each hit + 1) and every hit's position, classes and newline
 * count must be the same: the scanner's atoms and random literal sets;
 * every atom at every alignment to the vectors, with newlines around it
 * and cut short by the buffer's end; every length 0..200; long random
 * buffers; the golden logs (testdata/logs). */
#include "read/atoms.h"
#include "read/logscan.h"
#include "tap.h"

#include <dirent.h>
#include <stdlib.h>

static int paths[8], npaths;  /* the vector paths this CPU has */
static long compared;         /* hits (and ends) compared */

/* Compares the hits of `a` in buf[0..n) from `from` on every vector path
 * with the scalar path's; returns the number of paths that differ (the
 * first difference of each printed as a TAP comment, `what` naming the
 * buffer). */
static int compare(const kg_atoms *a, const char *buf, size_t n, size_t from, const char *what)
{
	int bad = 0;
	for (int p = 0; p < npaths; p++) {
		size_t f = from;
		for (;;) {
			uint32_t c1, c2;
			size_t l1, l2;
			kg_atoms_force_isa(1);
			size_t h1 = kg_atoms_find_lines(a, buf, n, f, &c1, &l1);
			kg_atoms_force_isa(paths[p]);
			size_t h2 = kg_atoms_find_lines(a, buf, n, f, &c2, &l2);
			compared++;
			if (h1 != h2 || c1 != c2 || l1 != l2) {
				if (bad++ < 1)
					printf("# path %d, %s (n %zu, from %zu): got %zu/%x/%zu, scalar %zu/%x/%zu\n",
					       paths[p], what, n, f, h2, c2, l2, h1, c1, l1);
				break;
			}
			if (h1 >= n)
				break;
			f = h1 + 1;
		}
	}
	kg_atoms_force_isa(0);
	return bad;
}

/* A random literal set over a small alphabet (collisions, shared
 * prefixes, literals shorter than the fingerprint, bytes ≥ 0x80). */
static void random_atoms(kg_atoms *a, char lits[][16], int nlits)
{
	static const char alpha[] = "abcAB \x80\xff";
	memset(a, 0, sizeof *a);
	for (int i = 0; i < nlits; i++) {
		int len = 1 + (int)tap_rnd(8);
		for (int j = 0; j < len; j++)
			lits[i][j] = alpha[tap_rnd(sizeof alpha - 1)];
		lits[i][len] = 0;
		kg_atoms_add(a, lits[i], 1u << tap_rnd(5));
	}
}

/* Appends random pieces to buf until it holds n bytes: the table's
 * literals, whole or cut short, newlines, log-like text and other bytes. */
static void random_fill(const kg_atoms *a, char *buf, size_t n)
{
	static const char *const text[] = {
		"step 17 | loss 2.5895 | lr 2.550e-06 | grad_norm 0.925\n",
		"Epoch 0:  2%|          | 20/1000 [20:20<39:09,  5.20it/s, loss=2.517]\r",
		"{'loss': 0.6931, 'learning_rate': 4.9e-05, 'epoch': 0.12}\n",
		"  File \"train.py\", line 12, in <module>\n",
	};
	size_t i = 0;
	while (i < n) {
		const char *p;
		size_t len;
		char one;
		switch (tap_rnd(6)) {
		case 0:
		case 1: {
			int k = (int)tap_rnd((unsigned)a->natoms);
			p = a->atom[k].lit;
			len = a->atom[k].len;
			if (tap_rnd(3) == 0)
				len = tap_rnd((unsigned)len); /* cut short */
			break;
		}
		case 2:
			p = text[tap_rnd(sizeof text / sizeof *text)];
			len = strlen(p);
			break;
		case 3:
			p = "\n";
			len = 1;
			break;
		default:
			one = (char)tap_rnd(256);
			p = &one;
			len = 1;
		}
		for (size_t j = 0; j < len && i < n; j++)
			buf[i++] = p[j];
	}
}

/* Every atom of `a` at every offset 0..160 in a buffer of `filler`, with a
 * newline right before and right after it, from several starts, and the
 * same buffer cut at every byte of the atom. */
static int every_alignment(const kg_atoms *a, char filler, const char *what)
{
	char buf[200];
	char name[96];
	int bad = 0;
	for (int k = 0; k < a->natoms; k++) {
		size_t len = a->atom[k].len;
		for (size_t off = 1; off + len + 1 < 162; off++) {
			memset(buf, filler, sizeof buf);
			buf[off - 1] = '\n';
			memcpy(buf + off, a->atom[k].lit, len);
			buf[off + len] = '\n';
			snprintf(name, sizeof name, "%s: atom \"%.20s\" at %zu", what, a->atom[k].lit, off);
			for (size_t from = 0; from < 4 && from <= off; from++)
				bad += compare(a, buf, sizeof buf, from, name);
			for (size_t cut = off; cut <= off + len + 1; cut++)
				bad += compare(a, buf, cut, 0, name);
		}
	}
	return bad;
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *b = NULL;
	size_t cap = 0, len = 0;
	for (;;) {
		if (len == cap) {
			cap = cap ? 2 * cap : 65536;
			b = realloc(b, cap);
		}
		size_t r = fread(b + len, 1, cap - len, f);
		if (!r)
			break;
		len += r;
	}
	fclose(f);
	*n = len;
	return b;
}

int main(void)
{
	for (int isa = 2; isa <= 5; isa++)
		if (kg_atoms_path(isa) == isa)
			paths[npaths++] = isa;
	printf("# vector paths here:");
	for (int p = 0; p < npaths; p++)
		printf(" %d", paths[p]);
	printf(" (2 SSSE3, 3 AVX2, 4 AVX-512 VBMI, 5 NEON)\n");
	if (!getenv("KGMEM_SIMD"))
		TAP_EQ_I64(kg_atoms_path(0), npaths ? paths[npaths - 1] : 1, "the default path is the best this CPU has");
#if defined(__aarch64__)
	TAP_OK(npaths == 1 && paths[0] == 5, "aarch64: the vector path is NEON");
#endif

	const kg_atoms *s = kg_scan_atoms();
	static char lits[40][16];
	kg_atoms r;

	int bad;  /* per section: the paths that differ */
	TAP_EQ_I64(every_alignment(s, ' ', "scanner atoms in blanks"), 0,
		   "every scanner atom at every alignment, cut at every byte (in blanks)");
	TAP_EQ_I64(every_alignment(s, '\n', "scanner atoms in newlines"), 0,
		   "every scanner atom at every alignment, cut at every byte (in newlines)");
	bad = 0;
	for (int round = 0; round < 8; round++) {
		random_atoms(&r, lits, 1 + (int)tap_rnd(40));
		bad += every_alignment(&r, round % 2 ? 'z' : '\n', "random atoms");
	}
	TAP_EQ_I64(bad, 0, "random literal sets: every atom at every alignment, cut at every byte");

	/* every length 0..200, from several starts */
	bad = 0;
	char small[200];
	for (int round = 0; round < 6; round++) {
		const kg_atoms *a = s;
		if (round % 2) {
			random_atoms(&r, lits, 1 + (int)tap_rnd(40));
			a = &r;
		}
		random_fill(a, small, sizeof small);
		for (size_t n = 0; n <= sizeof small; n++)
			for (size_t from = 0; from <= n; from += 1 + n / 3)
				bad += compare(a, small, n, from, "every length");
	}
	TAP_EQ_I64(bad, 0, "every buffer length 0..200, scanner atoms and random sets");

	/* long random buffers */
	bad = 0;
	size_t big = 1 << 16;
	char *buf = malloc(big);
	for (int round = 0; round < 12; round++) {
		const kg_atoms *a = s;
		if (round % 3 == 2) {
			random_atoms(&r, lits, 1 + (int)tap_rnd(40));
			a = &r;
		}
		size_t n = big - tap_rnd(200);
		random_fill(a, buf, n);
		bad += compare(a, buf, n, tap_rnd(70), "long random buffer");
	}
	free(buf);
	TAP_EQ_I64(bad, 0, "long random buffers (64 KiB): every hit the same");

	/* the golden logs, whole, from the first bytes */
	bad = 0;
	int logs = 0;
	DIR *d = opendir(KG_TESTDATA_DIR "/logs");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 4 || strcmp(e->d_name + len - 4, ".log") != 0)
			continue;
		char path[512];
		snprintf(path, sizeof path, "%s/logs/%s", KG_TESTDATA_DIR, e->d_name);
		size_t n;
		char *b = slurp(path, &n);
		if (!b)
			continue;
		logs++;
		for (size_t from = 0; from < 3; from++)
			bad += compare(s, b, n, from, e->d_name);
		free(b);
	}
	if (d)
		closedir(d);
	TAP_OK(bad == 0 && logs >= 10, "the golden logs (%d): every hit the same (%d differ)", logs, bad);
	TAP_OK(compared > 100000, "%ld hits and ends compared", compared);
	return tap_done();
}

/* test_atoms.c — the literal prefilter (lib/read/atoms.c) against a naive search:
 * random literal sets (short ones, shared prefixes, bytes ≥ 0x80, literals
 * shorter than the fingerprint) and random buffers over a small alphabet so
 * that matches, near misses and fingerprint collisions are frequent; every
 * code path the CPU has (scalar, SSSE3, AVX2, AVX-512 VBMI; NEON on
 * aarch64) must give the position, classes and newline count the naive
 * search gives, for every start offset and buffer end. */
#include "read/atoms.h"
#include "read/atomtab.h"
#include "read/config.h"
#include "read/logscan.h"
#include "tap.h"

#include <ctype.h>
#include <stdlib.h>


/* Naive: first q ≥ from where some atom's fingerprint starts and the atom
 * matches inside [0, n). */
static size_t naive(const kg_atoms *a, const char *buf, size_t n, size_t from, uint32_t *cls, size_t *nl)
{
	*cls = 0;
	*nl = 0;
	for (size_t q = from; q < n; q++) {
		uint32_t c = 0;
		for (int i = 0; i < a->natoms; i++) {
			size_t fp = a->atom[i].fp, len = a->atom[i].len;
			if (q >= fp && q - fp + len <= n && memcmp(buf + q - fp, a->atom[i].lit, len) == 0)
				c |= a->atom[i].cls;
		}
		if (c) {
			*cls = c;
			return q;
		}
		*nl += buf[q] == '\n';
	}
	return n;
}

int main(void)
{
	static const char alpha[] = "abcAB\n \x80\xff";
	static char lits[40][16];
	int bad = 0, checks = 0;
	for (int round = 0; round < 60; round++) {
		kg_atoms a;
		memset(&a, 0, sizeof a);
		int nl_ = 1 + (int)tap_rnd(40);
		for (int i = 0; i < nl_; i++) {
			int len = 1 + (int)tap_rnd(8);
			for (int j = 0; j < len; j++) {
				char c;
				/* odd rounds: ASCII literals only */
				do
					c = alpha[tap_rnd(sizeof alpha - 1)];
				while (c == '\n' || (round % 2 && (unsigned char)c >= 0x80));
				lits[i][j] = c;
			}
			lits[i][len] = 0;
			if (kg_atoms_add(&a, lits[i], 1u << tap_rnd(5)) < 0)
				bad++;
		}
		char buf[300];
		for (size_t i = 0; i < sizeof buf; i++)
			buf[i] = alpha[tap_rnd(sizeof alpha - 1)];
		for (int isa = 1; isa <= 5; isa++) {
			if (kg_atoms_path(isa) != isa)
				continue; /* a path this CPU lacks */
			kg_atoms_force_isa(isa);
			for (size_t n = 0; n <= sizeof buf; n += 1 + tap_rnd(37)) {
				for (size_t from = 0; from <= n; from += 1 + tap_rnd(11)) {
					uint32_t c1, c2;
					size_t l1, l2;
					size_t h1 = kg_atoms_find_lines(&a, buf, n, from, &c1, &l1);
					size_t h2 = naive(&a, buf, n, from, &c2, &l2);
					checks++;
					if (h1 != h2 || c1 != c2 || l1 != l2) {
						if (bad++ < 5)
							printf("# isa %d round %d n %zu from %zu: got %zu/%x/%zu, want %zu/%x/%zu\n",
							       isa, round, n, from, h1, c1, l1, h2, c2, l2);
					}
				}
			}
		}
		kg_atoms_force_isa(0);
	}
	TAP_OK(bad == 0 && checks > 10000, "random literal sets: every path agrees with a naive search (%d checks, %d bad)", checks, bad);

	/* a literal shorter than the fingerprint: the positions past it
	 * accept any byte, a newline too. Before the fix the AVX2 path
	 * counted a newline right after a one-byte atom that starts two bytes
	 * before a 32-byte block (its lane in the next block) as a line
	 * before the atom. */
	kg_atoms one;
	memset(&one, 0, sizeof one);
	kg_atoms_add(&one, "x", 1);
	bad = 0;
	int paths = 0;
	for (int isa = 1; isa <= 5; isa++) {
		if (kg_atoms_path(isa) != isa)
			continue;
		paths++;
		kg_atoms_force_isa(isa);
		for (size_t at = 0; at < 140; at++) {
			char b[160];
			memset(b, 'z', sizeof b);
			b[at] = 'x';
			b[at + 1] = '\n';
			b[at + 2] = '\n';
			uint32_t c;
			size_t l, h = kg_atoms_find_lines(&one, b, sizeof b, 0, &c, &l);
			if (h != at || c != 1 || l != 0) {
				if (bad++ < 3)
					printf("# isa %d, \"x\\n\\n\" at %zu: got %zu/%x/%zu\n", isa, at, h, c, l);
			}
		}
		kg_atoms_force_isa(0);
	}
	TAP_EQ_I64(bad, 0, "a one-byte atom before newlines, at every offset: no newline counted before it (%d paths)", paths);

	/* the table is bounded */
	kg_atoms full;
	memset(&full, 0, sizeof full);
	int added = 0;
	while (kg_atoms_add(&full, "xyz", 1) == 0)
		added++;
	TAP_EQ_I64(added, KG_ATOMS_MAX, "a table takes %d atoms, then refuses", KG_ATOMS_MAX);
	TAP_EQ_I64(kg_atoms_add(&full, "", 1), -1, "an empty literal is refused");

	/* the scanner's full set, placed at build time (kg_atoms_placed.h),
	 * is the one kg_atoms_place_scanner places now: the generated header
	 * cannot drift from atomtab.h and the placement code */
	static kg_atoms sets[KG_ATOMS_NSETS];
	TAP_EQ_I64(kg_atoms_place_scanner(sets), 0, "the scanner's sets fit KG_ATOMS_MAX");
	const kg_atoms *s = kg_scan_atoms(), *p = &sets[KG_ATOMS_FULL];
	bool same = s->natoms == p->natoms && !memcmp(s->lo, p->lo, sizeof s->lo) &&
		    !memcmp(s->hi, p->hi, sizeof s->hi) && !memcmp(s->byte, p->byte, sizeof s->byte) &&
		    !memcmp(s->nin, p->nin, sizeof s->nin) && !memcmp(s->in, p->in, sizeof s->in) &&
		    !memcmp(s->exact, p->exact, sizeof s->exact) && s->wild == p->wild;
	for (int i = 0; same && i < s->natoms; i++)
		same = !strcmp(s->atom[i].lit, p->atom[i].lit) && s->atom[i].fp == p->atom[i].fp &&
		       s->atom[i].bucket == p->atom[i].bucket && s->atom[i].cls == p->atom[i].cls;
	TAP_OK(same, "the build's placement of the %d atoms is the one placed now", p->natoms);

	/* every key of a role that a log's text gives (rules/keys.yaml's
	 * `log:` kinds, kg_parse_settings) holds a settings atom in one of
	 * its spellings (words joined by `_`, by `-`, upper case), so the
	 * prefilter hands its line to the reader */
	const char *rd = getenv("KG_RULES");
	kg_role *roles;
	size_t nroles;
	kg_error err = {0};
	TAP_EQ_I64(kg_roles_load(rd ? rd : "rules", &roles, &nroles, &err), 0, "keys.yaml: %s", err.msg);
	for (size_t r = 0; r < nroles; r++) {
		if (!roles[r].log)
			continue;
		for (size_t k = 0; k < roles[r].nkeys; k++) {
			const char *key = roles[r].keys[k];
			if (strchr(key, '.'))
				continue;
			char dash[96], up[96], flag[100];
			snprintf(dash, sizeof dash, "%s", key);
			snprintf(up, sizeof up, "%s", key);
			for (char *c = dash; *c; c++)
				*c = *c == '_' ? '-' : *c;
			for (char *c = up; *c; c++)
				*c = (char)toupper((unsigned char)*c);
			bool held = false;
			const char *forms[] = {key, dash, up};
			for (int f = 0; f < 3 && !held; f++) {
				snprintf(flag, sizeof flag, "--%s=1", forms[f]);
				uint32_t c;
				for (size_t at = 0; !held;) {
					size_t h = kg_atoms_find(s, flag, strlen(flag), at, &c);
					if (h >= strlen(flag))
						break;
					held = (c & A_BATCH) != 0;
					at = h + 1;
				}
			}
			TAP_OK(held, "the settings key %s (%s) holds an A_BATCH atom", key, roles[r].name);
		}
	}
	kg_roles_free(roles, nroles);

	/* the scanner's atoms on training-log lines: ordinary lines stop
	 * nothing, each trigger is found where it is */
	static const char *const quiet[] = {
		"step 17 | loss 2.5895 | lr 2.550e-06 | grad_norm 0.925 | 191.9 ms/it",
		"Epoch 0:  2%|          | 20/1000 [20:20<39:09,  5.20it/s, loss=2.517, v_num=3]",
		"{'loss': 0.6931, 'learning_rate': 4.9e-05, 'epoch': 0.12}",
	};
	for (size_t i = 0; i < sizeof quiet / sizeof *quiet; i++) {
		uint32_t c;
		TAP_EQ_I64(kg_atoms_find(s, quiet[i], strlen(quiet[i]), 0, &c), strlen(quiet[i]), "no atom in \"%.30s…\"", quiet[i]);
	}
	const char *oom = "RuntimeError: CUDA out of memory. Tried to allocate 20.00 GiB";
	uint32_t c;
	size_t l;
	size_t at = kg_atoms_find_lines(s, oom, strlen(oom), 0, &c, &l);
	const char *want = strstr(oom, "out of memory");
	TAP_OK(at >= (size_t)(want - oom) && at < (size_t)(want - oom) + 13 && c != 0 && l == 0,
	       "the OOM trigger is found inside \"out of memory\" (at %zu)", at);
	const char *two = "a\nb\nc out of memory";
	at = kg_atoms_find_lines(s, two, strlen(two), 0, &c, &l);
	TAP_EQ_I64(l, 2, "newlines before the hit are counted");
	return tap_done();
}

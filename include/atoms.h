/* atoms.h — the literal prefilter in front of every regex (YARA's "atoms"):
 * short literals chosen from the grammars and context parsers, each with an
 * anchor byte (its rarest byte). A buffer is scanned once for the set of
 * anchor bytes with a SIMD byte-class test (SSSE3 pshufb nibble tables on
 * x86-64, a 256-entry table elsewhere); each anchor hit is verified against
 * the literals that own that byte. Cost: one pass over the bytes at several
 * GB/s plus a few compares per anchor hit. */
#ifndef KG_ATOMS_H
#define KG_ATOMS_H

#include <stddef.h>
#include <stdint.h>

#define KG_ATOMS_MAX 64

typedef struct kg_atoms {
	struct {
		const char *lit;
		uint8_t len, anchor; /* anchor: index of the anchor byte in lit */
		uint32_t cls;        /* class bits reported on a hit */
	} atom[KG_ATOMS_MAX];
	int natoms;
	uint8_t first[256];          /* per byte: 1 + index of its first atom, 0 if none */
	uint8_t next[KG_ATOMS_MAX];  /* chain of atoms sharing an anchor byte (1-based) */
	uint8_t lo[16], hi[16];      /* nibble tables for the SIMD class test */
	uint8_t member[256];         /* scalar fallback */
	uint8_t next_ok[256][32];    /* per anchor byte: bitset of bytes that
	                                may follow it in some atom */
	uint8_t last[256];           /* an atom ends at this anchor byte */
} kg_atoms;

/* Adds a literal (static storage, 1–255 bytes); its anchor is chosen as the
 * byte that is rarest in English/log text among its bytes. Returns -1 when
 * the table is full or the anchors use more than 8 distinct high nibbles. */
int kg_atoms_add(kg_atoms *a, const char *lit, uint32_t cls);

/* Finds the first verified atom at or after buf+from within buf[0..n).
 * Returns its offset (of the anchor byte's atom start) and sets *cls, or
 * returns n when there is none. Literals are matched whole inside [0, n). */
size_t kg_atoms_find(const kg_atoms *a, const char *buf, size_t n, size_t from, uint32_t *cls);

/* Counts '\n' bytes in buf[0..n) (SIMD). */
size_t kg_count_newlines(const char *buf, size_t n);

#endif

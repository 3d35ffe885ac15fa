/* atoms.h — the literal prefilter in front of every regex (YARA's "atoms"):
 * short literals chosen from the grammars and context parsers. Each literal
 * gets a three-byte fingerprint (the three adjacent bytes of it that are
 * rarest in training logs) and one of 8 buckets; a buffer is scanned once
 * with a "Teddy" filter (Hyperscan's multi-literal matcher; the Rust `regex`
 * crate's `aho-corasick` packed searcher describes it): per input byte and
 * per fingerprint position, two pshufb nibble lookups give the set of
 * buckets whose fingerprint byte could be that byte; the three sets, shifted
 * into line, are ANDed. Only positions where some bucket survives, and
 * whose three bytes hash into the set of the atoms' exact fingerprints
 * (64 Kibit, 8 KiB: it drops the nibbles' cross-product, which on
 * training logs let through one position in about twenty), are verified
 * against the literals of that bucket. AVX-512 VBMI (64 bytes a
 * step, 7-bit table lookups with vpermi2b), AVX2 (32) or SSSE3 (16) on
 * x86-64, chosen at run time; NEON (tbl lookups, 64 bytes a step) on
 * aarch64; a scalar table walk elsewhere.
 * Cost: one pass at memory speed plus a verify on the rare fingerprint hits.
 * Results are identical on every path. */
#ifndef KG_ATOMS_H
#define KG_ATOMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KG_ATOMS_MAX 255 /* the scanner places its triggers and table atoms (logscan.c); at most 255: indexes and counts are uint8_t */
#define KG_ATOMS_BUCKETS 8
#define KG_ATOMS_FP 3  /* fingerprint length in bytes */

typedef struct kg_atoms {
	struct {
		const char *lit;
		uint8_t len;
		uint8_t fp;      /* offset of the fingerprint in lit */
		uint8_t bucket;
		uint32_t cls;    /* class bits reported on a hit */
	} atom[KG_ATOMS_MAX];
	int natoms;
	/* per fingerprint byte j: bucket bits by low and by high nibble */
	uint8_t lo[KG_ATOMS_FP][16], hi[KG_ATOMS_FP][16];
	/* per fingerprint byte j: bucket bits by the byte's low 7 bits (the
	 * AVX-512 VBMI path) */
	uint8_t byte[KG_ATOMS_FP][128];
	uint8_t nin[KG_ATOMS_BUCKETS];                    /* atoms per bucket */
	uint8_t in[KG_ATOMS_BUCKETS][KG_ATOMS_MAX];       /* their indexes */
	double cost[KG_ATOMS_BUCKETS];  /* estimated stops per sample (atoms.c) */
	/* the second filter (verify): the set of the atoms' exact
	 * fingerprints, each its three bytes hashed to 16 bits
	 * (kg_atoms_fp_hash): a position the nibble lookups pass whose three
	 * bytes are no atom's is dropped before any bucket is walked (the
	 * nibbles' cross-product lets through bytes no atom has). wild: some
	 * literal is shorter than a fingerprint, and the filter is off. */
	uint64_t exact[1024];
	bool wild;
} kg_atoms;

/* The 16-bit hash of a fingerprint's three bytes s[0..2] (the exact
 * filter's index): the top half of a 32-bit multiplicative hash. */
static inline unsigned kg_atoms_fp_hash(const unsigned char *s)
{
	uint32_t x = (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16;
	return (x * 0x9E3779B1u) >> 16;
}

/* Adds a literal (static storage, 1–255 bytes, no '\n'); picks its
 * fingerprint and bucket (greedily, the bucket whose filter accepts the
 * least more of typical log text). Returns -1 when the table is full or the
 * literal is empty or too long. */
int kg_atoms_add(kg_atoms *a, const char *lit, uint32_t cls);

/* The log scanner's atom sets (logscan.c, atomtab.h), in this order. */
enum {
	KG_ATOMS_FULL,        /* the triggers, then every context atom (tier 2) */
	KG_ATOMS_QUIET,       /* the same without the reading-only atoms */
	KG_ATOMS_TIER1,       /* the triggers and the tier-1 atoms */
	KG_ATOMS_TIER1_READ,  /* tier 1 with the reading atoms (a probe) */
	KG_ATOMS_HEAD_LAZY,   /* tier 1 with the traceback atoms: the log's
	                         head while its full reading waits for an OOM */
	KG_ATOMS_NSETS
};

/* Places the scanner's sets into sets[KG_ATOMS_NSETS] with kg_atoms_add,
 * in atomtab.h's order (each set starts with the same triggers, so the
 * same choices). The build runs it once (atoms.c compiled with
 * KG_ATOMS_GEN writes the result as kg_atoms_placed.h, which logscan.c
 * uses); the tests run it to check that header against it. Returns -1
 * when a set overflows KG_ATOMS_MAX (a bug in the tables). */
int kg_atoms_place_scanner(kg_atoms sets[KG_ATOMS_NSETS]);

/* Finds the first position at or after buf+from where some atom's
 * fingerprint starts and the whole atom matches inside buf[0..n) (the atom
 * itself may start up to its fingerprint offset before `from`). Returns that
 * fingerprint position and sets *cls to the OR of the classes of every atom
 * verified there, or returns n (cls 0) when there is none. */
size_t kg_atoms_find(const kg_atoms *a, const char *buf, size_t n, size_t from, uint32_t *cls);

/* kg_atoms_find that also sets *nl to the number of '\n' bytes in
 * buf[from..returned position) — counted in the same pass, so the scanner
 * keeps line numbers without reading the bytes twice. */
size_t kg_atoms_find_lines(const kg_atoms *a, const char *buf, size_t n, size_t from, uint32_t *cls, size_t *nl);

/* Code path kg_atoms_find uses: 0 = pick the best the CPU has (default),
 * 1 = scalar, 2 = SSSE3, 3 = AVX2, 4 = AVX-512 VBMI, 5 = NEON. On x86-64 a
 * path the CPU lacks falls back to the next lower one (NEON: the best); on
 * aarch64 every value but 1 is NEON. The environment variable KGMEM_SIMD
 * (scalar, ssse3, avx2, avx512vbmi, neon) caps the path the same way. For
 * tests and benchmarks. */
void kg_atoms_force_isa(int isa);

/* The path (numbers as above) that a request for `isa` gets on this CPU,
 * after KGMEM_SIMD: kg_atoms_path(0) is the one kg_atoms_find uses by
 * default. */
int kg_atoms_path(int isa);

#endif

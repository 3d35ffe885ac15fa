/* atoms.c — see include/read/atoms.h. */
#include "read/atoms.h"
#include "read/atomtab.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#if defined(__aarch64__) && defined(__ARM_NEON)
#define KG_ATOMS_NEON 1
#include <arm_neon.h>
#endif

/* ---- how common a byte, or three adjacent bytes, are in training logs --- */

/* Rough share of each byte in training logs: letters by English frequency
 * (about half the bytes), the capitals logs print all the time (INFO,
 * WARNING, Epoch, MiB, GB, timestamps' T …) above the other capitals,
 * digits, blanks and the punctuation of numbers, paths and key=value pairs
 * frequent, other punctuation and non-ASCII rare. Only the ranking matters. */
static double byte_freq_of(unsigned char c)
{
	static const double en[26] = {
		8.2, 1.5, 2.8, 4.3, 12.7, 2.2, 2.0, 6.1, 7.0, 0.15, 0.8, 4.0, 2.4,
		6.7, 7.5, 1.9, 0.1, 6.0, 6.3, 9.1, 2.8, 1.0, 2.4, 0.15, 2.0, 0.07,
	};
	if (c >= 'a' && c <= 'z')
		return en[c - 'a'] * 0.0045;
	if (c >= 'A' && c <= 'Z')
		return strchr("TIEWSMBGKPDNRC", c) ? 0.004 : 0.001;
	if (c >= '0' && c <= '9')
		return 0.03;
	if (c == ' ')
		return 0.13;
	if (c && strchr(".:/|,-=_()[]\"'\t", c))
		return 0.012;
	return c < 0x80 ? 0.0005 : 0.0002;
}

/* Lines of the kinds training logs repeat thousands of times (PyTorch
 * Lightning and tqdm bars, Hugging Face Trainer dicts, fairseq, DeepSpeed
 * and glog lines, memory prints, evaluation and checkpoint lines). A
 * fingerprint found in them, or a bucket filter that fires on them, would
 * stop the scan all the time; the atoms' choices are scored against this
 * sample. */
static const char sample[] =
	"2024-05-01 12:34:56,789 - INFO - __main__ - Epoch 3/100, step 1200/5000: loss=0.4321, lr=1.2e-4, grad_norm=0.98\n"
	"2024-05-01T12:34:56.7890123Z step 17 | loss 2.5895 | lr 2.550e-06 | grad_norm 0.925 | 191.9 ms/it\n"
	"{'loss': 0.6931, 'learning_rate': 4.9e-05, 'epoch': 0.12, 'train_runtime': 12.5, 'eval_accuracy': 0.91}\n"
	"Epoch 1:  45%|####5     | 450/1000 [01:23<01:42,  5.38it/s, loss=0.234, v_num=0, train_loss_step=0.21]\n"
	"Validation DataLoader 0: 100%|##########| 500/500 [00:42<00:00, 11.8it/s]\n"
	"[2024-05-01 12:34:56,789] [INFO] [logging.py:96:log_dist] [Rank 0] step=100, skipped=0, lr=[0.0001], mom=[(0.9, 0.999)]\n"
	"[Rank 0] MemAllocated=0.93GB MaxMemAllocated=1.2GB ReservedMemory=2.0GB MaxReservedMemory=2.5GB\n"
	"Memory: 3.10GB allocated, 3.90GB reserved, 3.50GB max allocated; torch.cuda.memory_allocated: 1234567 bytes\n"
	"epoch 002 | loss 3.456 | nll_loss 1.234 | ppl 2.35 | wps 12345 | ups 3.2 | wpb 4096 | bsz 128 | num_updates 2000 | gnorm 0.567 | train_wall 123 | gb_free 10.2\n"
	"I0501 12:34:56.789012 140234 trainer.py:123] Training iteration 1000 took 0.18 s, throughput 5120 samples/s, tokens/sec 91234\n"
	"WARNING:root:Evaluating on the test set: mean reciprocal rank 0.345, hits@1 0.25, hits@10 0.52, MRR 0.3456, MR 123.4\n"
	"Saving model checkpoint to /home/user/output/checkpoint-1000/pytorch_model.bin; config.json; optimizer.pt\n"
	"Total params: 123,456,789 | Trainable params: 123,456,789 | batch_size 128 | world_size 8 | precision bf16-mixed\n"
	"Using device cuda:0, total validation time 12.3 s, best score so far 0.4567, patience 3, early stopping counter 1 of 10\n"
	/* multi-rank runs: NCCL's start-up (NCCL_DEBUG=INFO), JSON metrics,
	 * tqdm's block bars */
	"3: node1:2003:2053 [3] NCCL INFO comm 0x7f3a9c004b20 rank 3 nranks 16 cudaDev 3 busId 4d000 commId 0x9d95847bd299753 - Init COMPLETE\n"
	"1: node1:2001:2051 [1] NCCL INFO Channel 04/32 : 1[1] -> 2[2] via P2P/IPC/read; Connected all rings, nRanks 16 localRanks 8\n"
	"{\"step\": 1200, \"loss\": 2.1135, \"grad_norm\": 2.689, \"lr\": 0.0003, \"tokens_per_s\": 115426, \"mfu\": 0.33, \"rank\": 2}\n"
	"Epoch 3:  45%|\u2588\u2588\u2588\u2588\u258c     | 450/1000 [01:23<01:42,  5.38it/s]\n";

#define SAMPLE_LEN (sizeof sample - 1)

/* Tables built once from the above: byte shares, the sample in lower
 * case, and the sample's positions grouped by their byte. */
static struct {
	bool ready;
	double freq[256];
	char lower[SAMPLE_LEN];
	uint16_t at[SAMPLE_LEN];   /* positions, grouped by byte … */
	uint16_t first[257];       /* … those of byte c: at[first[c] .. first[c+1]) */
	/* the sample's lower-case three-byte runs and how often each occurs
	 * (open addressing; key 0 = empty slot): fp_cost's count in one probe */
	uint32_t tri_key[4096];
	uint16_t tri_n[4096];
} st;

static unsigned tri_slot(uint32_t key)
{
	unsigned h = (key * 2654435761u) >> 20;
	while (st.tri_key[h] && st.tri_key[h] != key)
		h = (h + 1) & 4095;
	return h;
}

static void stats_init(void)
{
	if (st.ready)
		return;
	for (int c = 0; c < 256; c++)
		st.freq[c] = byte_freq_of((unsigned char)c);
	uint16_t count[256] = {0};
	for (size_t i = 0; i < SAMPLE_LEN; i++) {
		st.lower[i] = (char)tolower((unsigned char)sample[i]);
		count[(unsigned char)sample[i]]++;
	}
	for (int c = 0; c < 256; c++)
		st.first[c + 1] = (uint16_t)(st.first[c] + count[c]);
	uint16_t fill[256];
	memcpy(fill, st.first, sizeof fill);
	for (size_t i = 0; i < SAMPLE_LEN; i++)
		st.at[fill[(unsigned char)sample[i]]++] = (uint16_t)i;
	for (size_t i = 0; i + KG_ATOMS_FP <= SAMPLE_LEN; i++) {
		const unsigned char *l = (const unsigned char *)st.lower + i;
		uint32_t key = (1u << 24) | (uint32_t)l[0] << 16 | (uint32_t)l[1] << 8 | l[2];
		unsigned h = tri_slot(key);
		st.tri_key[h] = key;
		st.tri_n[h]++;
	}
	st.ready = true;
}

/* Expected share of log positions where the k bytes at p occur: the
 * bytes' shares multiplied, and much more when the sample has them (in
 * any case). */
static double fp_cost(const char *p, size_t k)
{
	double f = 1;
	char low[KG_ATOMS_FP];
	for (size_t j = 0; j < k; j++) {
		f *= st.freq[(unsigned char)p[j]];
		low[j] = (char)tolower((unsigned char)p[j]);
	}
	if (k == KG_ATOMS_FP) {
		/* the same count as the walk below, from the table */
		uint32_t key = (1u << 24) | (uint32_t)(unsigned char)low[0] << 16 |
			       (uint32_t)(unsigned char)low[1] << 8 | (unsigned char)low[2];
		unsigned h = tri_slot(key);
		return f * (1 + 1000.0 * (st.tri_key[h] ? st.tri_n[h] : 0));
	}
	int n = 0;
	int c0 = (unsigned char)low[0], c1 = toupper(c0);
	for (int c = c0;; c = c1) {
		for (unsigned i = st.first[c]; i < st.first[c + 1]; i++) {
			size_t q = st.at[i];
			n += q + k <= SAMPLE_LEN && memcmp(st.lower + q, low, k) == 0;
		}
		if (c == c1)
			break;
	}
	return f * (1 + 1000.0 * n);
}

/* Cost of bucket `bit`'s filter, with one more fingerprint (fp, k bytes)
 * when fp is set: the sample positions it accepts, plus the share of other
 * log text it would accept if bytes were independent (scaled to the
 * sample's size). */
static double bucket_cost(const kg_atoms *a, uint8_t bit, const char *fp, size_t k)
{
	/* the filter accepts byte h*16+l at position j when l is in lo[j] and
	 * h in hi[j] (nibble masks) */
	unsigned lo[KG_ATOMS_FP] = {0}, hi[KG_ATOMS_FP] = {0};
	uint64_t acc[KG_ATOMS_FP][4] = {{0}};
	double model = 1;
	for (int j = 0; j < KG_ATOMS_FP; j++) {
		for (int x = 0; x < 16; x++) {
			lo[j] |= (a->lo[j][x] & bit) ? 1u << x : 0;
			hi[j] |= (a->hi[j][x] & bit) ? 1u << x : 0;
		}
		if (fp && (size_t)j >= k) {
			lo[j] = hi[j] = 0xffff;
		} else if (fp) {
			lo[j] |= 1u << ((unsigned char)fp[j] & 15);
			hi[j] |= 1u << ((unsigned char)fp[j] >> 4);
		}
		double share = 0;
		for (unsigned h = hi[j]; h; h &= h - 1)
			for (unsigned l = lo[j]; l; l &= l - 1) {
				int c = __builtin_ctz(h) * 16 + __builtin_ctz(l);
				acc[j][c >> 6] |= UINT64_C(1) << (c & 63);
				share += st.freq[c];
			}
		model *= share;
	}
#define ACCEPTS(j, c) (acc[j][(c) >> 6] >> ((c) & 63) & 1)
	int hits = 0;
	for (unsigned h = hi[0]; h; h &= h - 1)
		for (unsigned l = lo[0]; l; l &= l - 1) {
			int c = __builtin_ctz(h) * 16 + __builtin_ctz(l);
			for (unsigned i = st.first[c]; i < st.first[c + 1]; i++) {
				size_t p = st.at[i];
				if (p + KG_ATOMS_FP <= SAMPLE_LEN && ACCEPTS(1, (unsigned char)sample[p + 1]) &&
				    ACCEPTS(2, (unsigned char)sample[p + 2]))
					hits++;
			}
		}
#undef ACCEPTS
	return hits + model * (double)SAMPLE_LEN;
}

int kg_atoms_add(kg_atoms *a, const char *lit, uint32_t cls)
{
	size_t len = strlen(lit);
	if (a->natoms >= KG_ATOMS_MAX || len == 0 || len > 255)
		return -1;
	/* fingerprint: the rarest run of KG_ATOMS_FP bytes (the whole literal
	 * when shorter; the positions past it then accept any byte) */
	stats_init();
	size_t k = len < KG_ATOMS_FP ? len : KG_ATOMS_FP;
	size_t best = 0;
	double bcost = fp_cost(lit, k);
	for (size_t i = 1; i + k <= len; i++) {
		double c = fp_cost(lit + i, k);
		if (c < bcost) {
			best = i;
			bcost = c;
		}
	}
	/* bucket: the one whose filter's cost grows least */
	int bb = 0;
	double bgrow = 0;
	for (int b = 0; b < KG_ATOMS_BUCKETS; b++) {
		uint8_t bit = (uint8_t)(1u << b);
		double grow = bucket_cost(a, bit, lit + best, k) - a->cost[b];
		if (b == 0 || grow < bgrow) {
			bb = b;
			bgrow = grow;
		}
	}
	uint8_t bit = (uint8_t)(1u << bb);
	a->cost[bb] += bgrow;
	for (int j = 0; j < KG_ATOMS_FP; j++) {
		if ((size_t)j < k) {
			unsigned char c = (unsigned char)lit[best + j];
			a->lo[j][c & 15] |= bit;
			a->hi[j][c >> 4] |= bit;
			a->byte[j][c & 127] |= bit;
		} else {
			for (int x = 0; x < 16; x++) {
				a->lo[j][x] |= bit;
				a->hi[j][x] |= bit;
			}
			for (int x = 0; x < 128; x++)
				a->byte[j][x] |= bit;
		}
	}
	if (k == KG_ATOMS_FP) {
		unsigned h = kg_atoms_fp_hash((const unsigned char *)lit + best);
		a->exact[h >> 6] |= UINT64_C(1) << (h & 63);
	} else {
		a->wild = true;
	}
	int idx = a->natoms++;
	a->atom[idx].lit = lit;
	a->atom[idx].len = (uint8_t)len;
	a->atom[idx].fp = (uint8_t)best;
	a->atom[idx].bucket = (uint8_t)bb;
	a->atom[idx].cls = cls;
	a->in[bb][a->nin[bb]++] = (uint8_t)idx;
	return 0;
}

/* ---- verification ------------------------------------------------------ */

/* Verifies the atoms of the buckets in `buckets` whose fingerprint would
 * start at buf[q]; returns the ORed classes of those that match whole. */
static inline uint32_t verify(const kg_atoms *a, const char *buf, size_t n, size_t q, unsigned buckets)
{
	uint32_t cls = 0;
	if (!a->wild && q + KG_ATOMS_FP <= n) {
		unsigned h = kg_atoms_fp_hash((const unsigned char *)buf + q);
		if (!(a->exact[h >> 6] >> (h & 63) & 1))
			return 0;
	}
	while (buckets) {
		int b = __builtin_ctz(buckets);
		buckets &= buckets - 1;
		for (int i = 0; i < a->nin[b]; i++) {
			const __typeof__(a->atom[0]) *t = &a->atom[a->in[b][i]];
			if (q < t->fp || q - t->fp + t->len > n)
				continue;
			const char *p = buf + q - t->fp;
			if (p[t->fp] == t->lit[t->fp] && memcmp(p, t->lit, t->len) == 0)
				cls |= t->cls;
		}
	}
	return cls;
}

/* The bucket bits at q, byte by byte; bytes past n accept every bucket
 * (verify checks the bounds). */
static inline unsigned buckets_at(const kg_atoms *a, const unsigned char *s, size_t n, size_t q)
{
	unsigned r = 0xff;
	for (int j = 0; j < KG_ATOMS_FP && q + (size_t)j < n; j++) {
		unsigned char c = s[q + (size_t)j];
		r &= (unsigned)(a->lo[j][c & 15] & a->hi[j][c >> 4]);
	}
	return r;
}

static size_t find_scalar(const kg_atoms *a, const char *buf, size_t n, size_t from, uint32_t *cls, size_t *nl)
{
	const unsigned char *s = (const unsigned char *)buf;
	size_t lines = 0;
	for (size_t q = from; q < n; q++) {
		unsigned r = buckets_at(a, s, n, q);
		if (r) {
			uint32_t c = verify(a, buf, n, q, r);
			if (c) {
				*cls = c;
				*nl += lines;
				return q;
			}
		}
		lines += s[q] == '\n';
	}
	*nl += lines;
	return n;
}

#if defined(__x86_64__)
/* Candidates of one block: lanes of `bits` (bucket sets in r[]) from q0;
 * nlbits: the block's newline lanes, counted into *nl up to the hit. Only
 * the SIMD paths call it, each chosen on a CPU with POPCNT (kg_atoms_find's
 * dispatch): without the target its counts were calls to libgcc's
 * __popcountdi2. */
__attribute__((target("popcnt")))
static inline size_t block_hits(const kg_atoms *a, const char *buf, size_t n, size_t q0,
				uint64_t bits, const uint8_t *r, uint32_t *cls, uint64_t nlbits, size_t *nl)
{
	while (bits) {
		unsigned b = (unsigned)__builtin_ctzll(bits);
		bits &= bits - 1;
		uint32_t c = verify(a, buf, n, q0 + b, r[b]);
		if (c) {
			*cls = c;
			*nl += (size_t)__builtin_popcountll(nlbits & ((UINT64_C(1) << b) - 1));
			return q0 + b;
		}
	}
	*nl += (size_t)__builtin_popcountll(nlbits);
	return (size_t)-1;
}

__attribute__((target("ssse3,popcnt")))
static size_t find_ssse3(const kg_atoms *a, const char *buf, size_t n, size_t from, uint32_t *cls, size_t *nl)
{
	__m128i lo[KG_ATOMS_FP], hi[KG_ATOMS_FP];
	for (int j = 0; j < KG_ATOMS_FP; j++) {
		lo[j] = _mm_loadu_si128((const __m128i *)a->lo[j]);
		hi[j] = _mm_loadu_si128((const __m128i *)a->hi[j]);
	}
	const __m128i nib = _mm_set1_epi8(0x0f);
	const __m128i zero = _mm_setzero_si128();
	const __m128i eol = _mm_set1_epi8('\n');
	size_t q = from;
	for (; q + 16 + KG_ATOMS_FP - 1 <= n; q += 16) {
		__m128i r = _mm_set1_epi8(-1);
		unsigned nlbits = 0;
		for (int j = 0; j < KG_ATOMS_FP; j++) {
			__m128i v = _mm_loadu_si128((const __m128i *)(buf + q + j));
			if (j == 0)
				nlbits = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, eol));
			__m128i l = _mm_shuffle_epi8(lo[j], _mm_and_si128(v, nib));
			__m128i h = _mm_shuffle_epi8(hi[j], _mm_and_si128(_mm_srli_epi16(v, 4), nib));
			r = _mm_and_si128(r, _mm_and_si128(l, h));
		}
		unsigned bits = (unsigned)~_mm_movemask_epi8(_mm_cmpeq_epi8(r, zero)) & 0xffffu;
		if (bits) {
			uint8_t rb[16];
			_mm_storeu_si128((__m128i *)rb, r);
			size_t hit = block_hits(a, buf, n, q, bits, rb, cls, nlbits, nl);
			if (hit != (size_t)-1)
				return hit;
		} else {
			*nl += (size_t)__builtin_popcount(nlbits);
		}
	}
	return find_scalar(a, buf, n, q, cls, nl);
}

/* AVX2, as Hyperscan's Teddy does it: one load per 32 bytes; the three
 * positions' bucket sets come from the same nibbles and are lined up by
 * shifting them in from the previous block, so lane i holds the
 * candidates whose fingerprint ENDS at byte i (starts at i - 2). Two
 * blocks a step share one test for "no candidate"; `lines` counts the
 * newlines of the bytes before q (the blocks' own, not lined up), and a
 * block with candidates lines its newlines up with theirs (avx2_hits). */
_Static_assert(KG_ATOMS_FP == 3, "find_avx2 lines up three positions");

/* The candidates `r` of the block at q (lane b: start q - 2 + b), nlv
 * its newline lanes, pnl the previous block's; lines: the newlines before
 * q. On a hit sets *cls and *nl (the newlines before the hit) and returns
 * its start; otherwise adds the block's newlines to *lines and returns
 * (size_t)-1. */
__attribute__((target("avx2,popcnt")))
static size_t avx2_hits(const kg_atoms *a, const char *buf, size_t n, size_t q, __m256i r,
			unsigned nlv, unsigned pnl, uint32_t *cls, size_t *lines, size_t *nl)
{
	unsigned bits = ~(unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(r, _mm256_setzero_si256()));
	if (bits) {
		uint8_t rb[32];
		_mm256_storeu_si256((__m256i *)rb, r);
		/* lane b's byte is q + b - 2: the newlines before a start are
		 * those of the lanes before its lane */
		size_t before = *lines - (size_t)__builtin_popcount(pnl >> 30);
		size_t hit = block_hits(a, buf, n, q - 2, bits, rb, cls, nlv << 2 | pnl >> 30, &before);
		if (hit != (size_t)-1) {
			*nl += before;
			return hit;
		}
	}
	*lines += (size_t)__builtin_popcount(nlv);
	return (size_t)-1;
}

__attribute__((target("avx2,popcnt")))
static size_t find_avx2(const kg_atoms *a, const char *buf, size_t n, size_t from, uint32_t *cls, size_t *nl)
{
	const __m256i lo0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)a->lo[0]));
	const __m256i hi0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)a->hi[0]));
	const __m256i lo1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)a->lo[1]));
	const __m256i hi1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)a->hi[1]));
	const __m256i lo2 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)a->lo[2]));
	const __m256i hi2 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)a->hi[2]));
	const __m256i nib = _mm256_set1_epi8(0x0f);
	const __m256i eol = _mm256_set1_epi8('\n');
	/* the sets of positions 0, 1 and 2 at every byte of v */
#define AVX2_SETS(v, s0, s1, s2) do { \
		__m256i vl_ = _mm256_and_si256(v, nib); \
		__m256i vh_ = _mm256_and_si256(_mm256_srli_epi16(v, 4), nib); \
		s0 = _mm256_and_si256(_mm256_shuffle_epi8(lo0, vl_), _mm256_shuffle_epi8(hi0, vh_)); \
		s1 = _mm256_and_si256(_mm256_shuffle_epi8(lo1, vl_), _mm256_shuffle_epi8(hi1, vh_)); \
		s2 = _mm256_and_si256(_mm256_shuffle_epi8(lo2, vl_), _mm256_shuffle_epi8(hi2, vh_)); \
	} while (0)
	/* s0 two bytes later, s1 one byte later (p0, p1: the block before) */
#define AVX2_LINE_UP(s0, s1, s2, p0, p1) _mm256_and_si256(_mm256_and_si256(s2, \
		_mm256_alignr_epi8(s1, _mm256_permute2x128_si256(p1, s1, 0x21), 15)), \
		_mm256_alignr_epi8(s0, _mm256_permute2x128_si256(p0, s0, 0x21), 14))
	__m256i prev0 = _mm256_setzero_si256(), prev1 = prev0; /* last block's sets, positions 0 and 1 */
	unsigned prevnl = 0;                /* last block's newline lanes */
	size_t q = from, lines = 0, hit;
	for (; q + 64 <= n; q += 64) {
		__m256i va = _mm256_loadu_si256((const __m256i *)(buf + q));
		__m256i vb = _mm256_loadu_si256((const __m256i *)(buf + q + 32));
		__m256i a0, a1, a2, b0, b1, b2;
		AVX2_SETS(va, a0, a1, a2);
		AVX2_SETS(vb, b0, b1, b2);
		__m256i ra = AVX2_LINE_UP(a0, a1, a2, prev0, prev1);
		__m256i rb = AVX2_LINE_UP(b0, b1, b2, a0, a1);
		prev0 = b0;
		prev1 = b1;
		unsigned na = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(va, eol));
		unsigned nb = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(vb, eol));
		unsigned pnl = prevnl;
		prevnl = nb;
		__m256i any = _mm256_or_si256(ra, rb);
		if (__builtin_expect(_mm256_testz_si256(any, any), 1)) {
			lines += (size_t)__builtin_popcount(na) + (size_t)__builtin_popcount(nb);
			continue;
		}
		if ((hit = avx2_hits(a, buf, n, q, ra, na, pnl, cls, &lines, nl)) != (size_t)-1 ||
		    (hit = avx2_hits(a, buf, n, q + 32, rb, nb, na, cls, &lines, nl)) != (size_t)-1)
			return hit;
	}
	for (; q + 32 <= n; q += 32) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(buf + q));
		__m256i s0, s1, s2;
		AVX2_SETS(v, s0, s1, s2);
		__m256i r = AVX2_LINE_UP(s0, s1, s2, prev0, prev1);
		prev0 = s0;
		prev1 = s1;
		unsigned nv = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, eol));
		unsigned pnl = prevnl;
		prevnl = nv;
		if ((hit = avx2_hits(a, buf, n, q, r, nv, pnl, cls, &lines, nl)) != (size_t)-1)
			return hit;
	}
#undef AVX2_SETS
#undef AVX2_LINE_UP
	/* starts q-2 and q-1 were never lanes of a block: the scalar walk
	 * takes them, with their newlines */
	*nl += lines - (size_t)__builtin_popcount(prevnl >> 30);
	return find_scalar(a, buf, n, q - from < 2 ? from : q - 2, cls, nl);
}

/* AVX-512 VBMI: vpermi2b looks a byte's bucket set up in a 128-entry table
 * indexed by its low 7 bits (no nibble cross-product, so fewer false
 * candidates than the nibble paths), 64 bytes a vector. A byte ≥ 0x80 reads
 * the entry of its ASCII twin: at worst a false candidate, which the
 * verification rejects. Unrolled by hand, two vectors a step sharing one
 * test for "no candidate", with the newline count in a register: written
 * as a loop over the fingerprint's positions, GCC kept the tables on the
 * stack and looped over them for every vector (twice the time). */
#define VBMI_TABLES(a) \
	const __m512i t00 = _mm512_loadu_si512((const void *)(a)->byte[0]); \
	const __m512i t01 = _mm512_loadu_si512((const void *)((a)->byte[0] + 64)); \
	const __m512i t10 = _mm512_loadu_si512((const void *)(a)->byte[1]); \
	const __m512i t11 = _mm512_loadu_si512((const void *)((a)->byte[1] + 64)); \
	const __m512i t20 = _mm512_loadu_si512((const void *)(a)->byte[2]); \
	const __m512i t21 = _mm512_loadu_si512((const void *)((a)->byte[2] + 64))
/* the bucket sets of the fingerprints starting at p[0..64) */
#define VBMI_SETS(p) _mm512_and_si512(_mm512_and_si512( \
		_mm512_permutex2var_epi8(t00, _mm512_loadu_si512((const void *)(p)), t01), \
		_mm512_permutex2var_epi8(t10, _mm512_loadu_si512((const void *)((p) + 1)), t11)), \
		_mm512_permutex2var_epi8(t20, _mm512_loadu_si512((const void *)((p) + 2)), t21))

/* The quiet stretch: from q, 128 bytes a step, the first block with a
 * candidate, or where fewer than a block's bytes are left; *lines counts
 * the newlines of the blocks passed. A function of its own, with no call
 * in it, so the six tables stay in registers: with the verification
 * (block_hits, a call) in the same loop, every zmm register is the
 * callee's to clobber and GCC reloaded the tables from the stack for
 * every block. */
__attribute__((target("avx512f,avx512bw,avx512vbmi,popcnt"), noinline))
static size_t vbmi_quiet(const kg_atoms *a, const char *buf, size_t n, size_t q, size_t *lines)
{
	VBMI_TABLES(a);
	const __m512i eol = _mm512_set1_epi8('\n');
	size_t nls = 0;
	for (; q + 128 + KG_ATOMS_FP - 1 <= n; q += 128) {
		__m512i any = _mm512_or_si512(VBMI_SETS(buf + q), VBMI_SETS(buf + q + 64));
		if (__builtin_expect(_mm512_test_epi8_mask(any, any) != 0, 0))
			break;
		nls += (size_t)__builtin_popcountll(_mm512_cmpeq_epi8_mask(_mm512_loadu_si512((const void *)(buf + q)), eol)) +
		       (size_t)__builtin_popcountll(_mm512_cmpeq_epi8_mask(_mm512_loadu_si512((const void *)(buf + q + 64)), eol));
	}
	*lines += nls;
	return q;
}

__attribute__((target("avx512f,avx512bw,avx512vbmi,popcnt")))
static size_t find_vbmi(const kg_atoms *a, const char *buf, size_t n, size_t from, uint32_t *cls, size_t *nl)
{
	VBMI_TABLES(a);
	const __m512i eol = _mm512_set1_epi8('\n');
	size_t q = from, lines = 0;
	for (; q + 128 + KG_ATOMS_FP - 1 <= n; q += 128) {
		q = vbmi_quiet(a, buf, n, q, &lines);
		if (q + 128 + KG_ATOMS_FP - 1 > n)
			break;
		/* the block with a candidate, again */
		__m512i r0 = VBMI_SETS(buf + q), r1 = VBMI_SETS(buf + q + 64);
		uint64_t e0 = _mm512_cmpeq_epi8_mask(_mm512_loadu_si512((const void *)(buf + q)), eol);
		uint64_t e1 = _mm512_cmpeq_epi8_mask(_mm512_loadu_si512((const void *)(buf + q + 64)), eol);
		uint8_t rb[128];
		_mm512_storeu_si512((void *)rb, r0);
		_mm512_storeu_si512((void *)(rb + 64), r1);
		size_t hit = block_hits(a, buf, n, q, _mm512_test_epi8_mask(r0, r0), rb, cls, e0, &lines);
		if (hit == (size_t)-1)
			hit = block_hits(a, buf, n, q + 64, _mm512_test_epi8_mask(r1, r1), rb + 64, cls, e1, &lines);
		if (hit != (size_t)-1) {
			*nl += lines;
			return hit;
		}
	}
	for (; q + 64 + KG_ATOMS_FP - 1 <= n; q += 64) {
		__m512i r = VBMI_SETS(buf + q);
		uint64_t e = _mm512_cmpeq_epi8_mask(_mm512_loadu_si512((const void *)(buf + q)), eol);
		uint64_t bits = _mm512_test_epi8_mask(r, r);
		if (bits) {
			uint8_t rb[64];
			_mm512_storeu_si512((void *)rb, r);
			size_t hit = block_hits(a, buf, n, q, bits, rb, cls, e, &lines);
			if (hit != (size_t)-1) {
				*nl += lines;
				return hit;
			}
		} else {
			lines += (size_t)__builtin_popcountll(e);
		}
	}
	*nl += lines;
	return find_scalar(a, buf, n, q, cls, nl);
}
#undef VBMI_SETS
#undef VBMI_TABLES
#endif

#if defined(KG_ATOMS_NEON)
/* NEON (every aarch64 CPU has it): the AVX2 path's scheme on 16-byte
 * vectors. One load per 16 bytes; its nibbles look up the bucket sets of
 * all three fingerprint positions (tbl, the pshufb of aarch64); the sets of
 * positions 0 and 1 are lined up with `ext` from the previous vector, so
 * lane i holds the candidates whose fingerprint ENDS at byte i (starts at
 * i - 2). The newline lanes are lined up the same way, so a vector's
 * newlines are those of bytes i - 2 and every start before a lane's has
 * been counted exactly once. Four vectors a step share one test for "no
 * candidate"; the rest of the buffer goes a vector at a time, the last
 * bytes (and the two starts no vector ended) through the scalar walk. */
_Static_assert(KG_ATOMS_FP == 3, "find_neon lines up three positions");

typedef struct {
	uint8x16_t lo[KG_ATOMS_FP], hi[KG_ATOMS_FP];
	uint8x16_t p0, p1, pe; /* the previous vector's sets at positions 0, 1 and its newlines */
} neon_state;

/* The candidates (r) and newlines (e) of the 16 starts q - 2 .. q + 13. */
static inline void neon_step(neon_state *ns, const unsigned char *s, size_t q, uint8x16_t *r, uint8x16_t *e)
{
	const uint8x16_t v = vld1q_u8(s + q);
	const uint8x16_t vl = vandq_u8(v, vdupq_n_u8(0x0f)), vh = vshrq_n_u8(v, 4);
	uint8x16_t s0 = vandq_u8(vqtbl1q_u8(ns->lo[0], vl), vqtbl1q_u8(ns->hi[0], vh));
	uint8x16_t s1 = vandq_u8(vqtbl1q_u8(ns->lo[1], vl), vqtbl1q_u8(ns->hi[1], vh));
	uint8x16_t s2 = vandq_u8(vqtbl1q_u8(ns->lo[2], vl), vqtbl1q_u8(ns->hi[2], vh));
	uint8x16_t ev = vceqq_u8(v, vdupq_n_u8('\n'));
	/* s1 one byte later, s0 two bytes later (their first bytes from the
	 * previous vector) */
	*r = vandq_u8(vandq_u8(s2, vextq_u8(ns->p1, s1, 15)), vextq_u8(ns->p0, s0, 14));
	*e = vextq_u8(ns->pe, ev, 14);
	ns->p0 = s0;
	ns->p1 = s1;
	ns->pe = ev;
}

/* 0x00/0xff lanes → bit 4i+3 of the result for lane i (shrn packs each
 * lane into a nibble; there is no movemask). */
static inline uint64_t neon_lanes(uint8x16_t m)
{
	uint8x8_t x = vshrn_n_u16(vreinterpretq_u16_u8(m), 4);
	return vget_lane_u64(vreinterpret_u64_u8(x), 0) & UINT64_C(0x8888888888888888);
}

/* Verifies the candidates of one vector (starts q - 2 + i); on a hit sets
 * *cls, adds the newlines before it to *lines and returns its start;
 * otherwise adds the vector's newlines and returns (size_t)-1. */
__attribute__((noinline)) static size_t neon_hits(const kg_atoms *a, const char *buf, size_t n, size_t q, uint8x16_t r, uint8x16_t e,
			       uint32_t *cls, size_t *lines)
{
	uint64_t bits = neon_lanes(vtstq_u8(r, r)), nlb = neon_lanes(e);
	if (bits) {
		uint8_t rb[16];
		vst1q_u8(rb, r);
		do {
			unsigned b = (unsigned)__builtin_ctzll(bits) >> 2;
			bits &= bits - 1;
			uint32_t c = verify(a, buf, n, q + b - 2, rb[b]);
			if (c) {
				*cls = c;
				*lines += (size_t)__builtin_popcountll(nlb & ((UINT64_C(1) << (4 * b)) - 1));
				return q + b - 2;
			}
		} while (bits);
	}
	*lines += (size_t)__builtin_popcountll(nlb);
	return (size_t)-1;
}

static size_t find_neon(const kg_atoms *a, const char *buf, size_t n, size_t from, uint32_t *cls, size_t *nl)
{
	const unsigned char *s = (const unsigned char *)buf;
	neon_state ns;
	for (int j = 0; j < KG_ATOMS_FP; j++) {
		ns.lo[j] = vld1q_u8(a->lo[j]);
		ns.hi[j] = vld1q_u8(a->hi[j]);
	}
	/* starts before `from` are no candidates and their newlines not counted */
	ns.p0 = ns.p1 = ns.pe = vdupq_n_u8(0);
	size_t q = from, lines = 0;
	for (; q + 64 <= n; q += 64) {
		/* unrolled by hand: the sets stay in registers */
		uint8x16_t r0, r1, r2, r3, e0, e1, e2, e3;
		neon_step(&ns, s, q, &r0, &e0);
		neon_step(&ns, s, q + 16, &r1, &e1);
		neon_step(&ns, s, q + 32, &r2, &e2);
		neon_step(&ns, s, q + 48, &r3, &e3);
		if (vmaxvq_u8(vorrq_u8(vorrq_u8(r0, r1), vorrq_u8(r2, r3))) == 0) {
			/* newline lanes are 0xff: the sum of 64 of them is minus
			 * their count, modulo 256 */
			uint8x16_t sum = vaddq_u8(vaddq_u8(e0, e1), vaddq_u8(e2, e3));
			lines += (uint8_t)-vaddvq_u8(sum);
			continue;
		}
		size_t hit;
		if ((hit = neon_hits(a, buf, n, q, r0, e0, cls, &lines)) != (size_t)-1 ||
		    (hit = neon_hits(a, buf, n, q + 16, r1, e1, cls, &lines)) != (size_t)-1 ||
		    (hit = neon_hits(a, buf, n, q + 32, r2, e2, cls, &lines)) != (size_t)-1 ||
		    (hit = neon_hits(a, buf, n, q + 48, r3, e3, cls, &lines)) != (size_t)-1) {
			*nl += lines;
			return hit;
		}
	}
	for (; q + 16 <= n; q += 16) {
		uint8x16_t r, e;
		neon_step(&ns, s, q, &r, &e);
		size_t hit = neon_hits(a, buf, n, q, r, e, cls, &lines);
		if (hit != (size_t)-1) {
			*nl += lines;
			return hit;
		}
	}
	/* starts q-2 and q-1 were never lanes of a vector: the scalar walk
	 * takes them, with their newlines */
	*nl += lines;
	return find_scalar(a, buf, n, q - from < 2 ? from : q - 2, cls, nl);
}
#endif

static int isa_forced;

void kg_atoms_force_isa(int isa)
{
	isa_forced = isa;
}

size_t kg_atoms_find(const kg_atoms *a, const char *buf, size_t n, size_t from, uint32_t *cls)
{
	size_t nl;
	return kg_atoms_find_lines(a, buf, n, from, cls, &nl);
}

/* The path that serves a request for path `isa` (kg_atoms_force_isa's
 * numbers) on a CPU whose best is `have`: on x86-64 a path the CPU lacks
 * falls back to the next lower one, and NEON means the best there is; on
 * aarch64 everything but scalar means NEON. */
static int path_for(int isa, int have)
{
	if (isa <= 0)
		return have;
#if defined(KG_ATOMS_NEON)
	return isa == 1 ? 1 : have;
#else
	return isa < have ? isa : have;
#endif
}

int kg_atoms_path(int isa)
{
	static int have = -1;
	if (have < 0) {
#if defined(__x86_64__)
		__builtin_cpu_init();
		have = __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw") ? 4
		     : __builtin_cpu_supports("avx2") ? 3
		     : __builtin_cpu_supports("ssse3") && __builtin_cpu_supports("popcnt") ? 2 : 1;
#elif defined(KG_ATOMS_NEON)
		have = 5;
#else
		have = 1;
#endif
		/* KGMEM_SIMD caps the path (benchmarks of machines without the
		 * newest instructions; `scalar` everywhere); an unknown name, or
		 * one of another architecture, leaves the default */
		static const char *const names[] = {"", "scalar", "ssse3", "avx2", "avx512vbmi", "neon"};
		const char *env = getenv("KGMEM_SIMD");
		for (int i = 1; env && i <= 5; i++)
			if (!strcmp(env, names[i]))
				have = path_for(i, have);
	}
	return path_for(isa, have);
}

size_t kg_atoms_find_lines(const kg_atoms *a, const char *buf, size_t n, size_t from, uint32_t *cls, size_t *nl)
{
	*cls = 0;
	*nl = 0;
	if (from >= n)
		return n;
	int isa = kg_atoms_path(isa_forced);
#if defined(__x86_64__)
	if (isa == 4)
		return find_vbmi(a, buf, n, from, cls, nl);
	if (isa == 3)
		return find_avx2(a, buf, n, from, cls, nl);
	if (isa == 2)
		return find_ssse3(a, buf, n, from, cls, nl);
#elif defined(KG_ATOMS_NEON)
	if (isa == 5)
		return find_neon(a, buf, n, from, cls, nl);
#endif
	return find_scalar(a, buf, n, from, cls, nl);
}

/* ---- the scanner's sets, placed at build time --------------------------- */

int kg_atoms_place_scanner(kg_atoms sets[KG_ATOMS_NSETS])
{
	kg_atoms *full = &sets[KG_ATOMS_FULL];
	memset(full, 0, sizeof *full);
	int bad = 0;
#define TRIG(lit) bad |= kg_atoms_add(full, lit, A_OOM);
	KG_OOM_TRIGGERS(TRIG)
#undef TRIG
	sets[KG_ATOMS_QUIET] = *full;
	sets[KG_ATOMS_TIER1] = *full;
#define ALL(lit, cls) bad |= kg_atoms_add(full, lit, cls);
#define QUIET(lit, cls) if ((cls) != A_READ) bad |= kg_atoms_add(&sets[KG_ATOMS_QUIET], lit, cls);
#define T1(lit, cls) bad |= kg_atoms_add(&sets[KG_ATOMS_TIER1], lit, cls);
#define T1R(lit, cls) if ((cls) == A_READ) bad |= kg_atoms_add(&sets[KG_ATOMS_TIER1_READ], lit, cls);
#define HL(lit, cls) if ((cls) & A_TB) bad |= kg_atoms_add(&sets[KG_ATOMS_HEAD_LAZY], lit, cls);
	KG_CONTEXT_ATOMS(ALL)
	KG_CONTEXT_ATOMS(QUIET)
	KG_TIER1_ATOMS(T1)
	sets[KG_ATOMS_TIER1_READ] = sets[KG_ATOMS_TIER1];
	sets[KG_ATOMS_HEAD_LAZY] = sets[KG_ATOMS_TIER1];
	KG_CONTEXT_ATOMS(T1R)
	KG_CONTEXT_ATOMS(HL)
#undef ALL
#undef QUIET
#undef T1
#undef T1R
#undef HL
	return bad ? -1 : 0;
}

#ifdef KG_ATOMS_GEN

#include "read/gen_c.h"

/* The generator: `atoms-gen OUT.h` writes the placed sets as C. */
static void put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++)
		kg_gen_put_char(f, (unsigned char)*s);
	fputc('"', f);
}

static void put_bytes(FILE *f, const uint8_t *v, size_t n)
{
	fputc('{', f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%u", i ? "," : "", v[i]);
	fputc('}', f);
}

int main(int argc, char **argv)
{
	static kg_atoms sets[KG_ATOMS_NSETS];
	if (argc != 2 || kg_atoms_place_scanner(sets) < 0) {
		fprintf(stderr, "atoms-gen: %s\n", argc != 2 ? "usage: atoms-gen OUT.h" : "an atom set overflows KG_ATOMS_MAX");
		return 1;
	}
	FILE *f = fopen(argv[1], "w");
	if (!f) {
		fprintf(stderr, "atoms-gen: %s: cannot write\n", argv[1]);
		return 1;
	}
	fprintf(f, "/* Generated by atoms-gen (lib/read/atoms.c, KG_ATOMS_GEN) from\n"
		   " * read/atomtab.h: the scanner's atom sets as kg_atoms_place_scanner\n"
		   " * places them; do not edit. */\n");
	fprintf(f, "static const kg_atoms kg_atoms_placed[KG_ATOMS_NSETS] = {\n");
	for (int s = 0; s < KG_ATOMS_NSETS; s++) {
		const kg_atoms *a = &sets[s];
		fprintf(f, "{\n.atom = {");
		for (int i = 0; i < a->natoms; i++) {
			fprintf(f, "%s\n\t{", i ? "," : "");
			put_str(f, a->atom[i].lit);
			fprintf(f, ", %u, %u, %u, %uu}", a->atom[i].len, a->atom[i].fp, a->atom[i].bucket,
				(unsigned)a->atom[i].cls);
		}
		fprintf(f, "},\n.natoms = %d,\n.lo = {", a->natoms);
		for (int j = 0; j < KG_ATOMS_FP; j++) {
			fputs(j ? "," : "", f);
			put_bytes(f, a->lo[j], 16);
		}
		fprintf(f, "},\n.hi = {");
		for (int j = 0; j < KG_ATOMS_FP; j++) {
			fputs(j ? "," : "", f);
			put_bytes(f, a->hi[j], 16);
		}
		fprintf(f, "},\n.byte = {");
		for (int j = 0; j < KG_ATOMS_FP; j++) {
			fputs(j ? ",\n" : "", f);
			put_bytes(f, a->byte[j], 128);
		}
		fprintf(f, "},\n.nin = ");
		put_bytes(f, a->nin, KG_ATOMS_BUCKETS);
		fprintf(f, ",\n.in = {");
		for (int b = 0; b < KG_ATOMS_BUCKETS; b++) {
			fputs(b ? ",\n" : "", f);
			put_bytes(f, a->in[b], KG_ATOMS_MAX);
		}
		fprintf(f, "},\n.cost = {");
		for (int b = 0; b < KG_ATOMS_BUCKETS; b++)
			fprintf(f, "%s%a", b ? "," : "", a->cost[b]);
		fprintf(f, "},\n.exact = {");
		for (int w = 0, first = 1; w < 1024; w++) {
			if (!a->exact[w])
				continue;
			fprintf(f, "%s[%d] = UINT64_C(0x%016llx)", first ? "" : ",", w, (unsigned long long)a->exact[w]);
			first = 0;
		}
		fprintf(f, "},\n.wild = %s},\n", a->wild ? "true" : "false");
	}
	fprintf(f, "};\n");
	int bad = ferror(f);
	if (fclose(f) || bad) {
		fprintf(stderr, "atoms-gen: %s: write error\n", argv[1]);
		return 1;
	}
	return 0;
}

#endif

/* logfacts.c — see include/read/logfacts.h. Each parser first looks for a
 * literal keyword with kg_memcasemem and runs PCRE2 (JIT) only on lines
 * that have one. The compiled patterns are process-wide and compiled on
 * first use; the parsers are not safe to call from two threads at once. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "read/logfacts.h"
#include "read/config.h"
#include "read/regex.h"
#include "read/modelinfo.h"
#include "model/util.h"

#include <ctype.h>
#include <math.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pattern {
	const char *src;
	pcre2_code *re;
	pcre2_match_data *md;
	uint32_t uses;   /* kg_regex_use */
} pattern;

static pcre2_match_context *mctx;

static pcre2_code *pat(pattern *p)
{
	if (!p->re) {
		int ec;
		PCRE2_SIZE eo;
		p->re = pcre2_compile((PCRE2_SPTR)p->src, PCRE2_ZERO_TERMINATED,
				      PCRE2_CASELESS, &ec, &eo, NULL);
		if (!p->re)
			abort(); /* a bug in the literal patterns below */
		p->md = pcre2_match_data_create_from_pattern(p->re, NULL);
		if (!mctx) {
			mctx = pcre2_match_context_create(NULL);
			pcre2_set_match_limit(mctx, 100000);
			pcre2_set_depth_limit(mctx, 1000);
		}
	}
	return p->re;
}

/* Matches p at or after *start; on success returns the ovector and moves
 * *start past the match. */
static PCRE2_SIZE *match(pattern *p, const char *s, size_t n, size_t *start)
{
	if (*start > n)
		return NULL;
	pcre2_code *re = pat(p); /* compiles p->md on first use: before reading it */
	kg_regex_use(re, &p->uses, n - *start);
	int rc = pcre2_match(re, (PCRE2_SPTR)s, n, *start, 0, p->md, mctx);
	if (rc < 0)
		return NULL;
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(p->md);
	*start = ov[1] > ov[0] ? ov[1] : ov[0] + 1;
	return ov;
}

static bool has_any(const char *s, size_t n, const char *const *words, size_t nw)
{
	for (size_t i = 0; i < nw; i++)
		if (kg_memcasemem(s, n, words[i], strlen(words[i])))
			return true;
	return false;
}

/* Whether p matches at an occurrence of one of words (case-insensitive) in
 * s[0..n), anchored there (PCRE2_ANCHORED; its lookbehinds still see the
 * bytes before it): a phrase that starts with its word costs one attempt
 * per occurrence, not one per byte of a 100 KiB line. */
static bool match_at_words(pattern *p, const char *s, size_t n, const char *const *words, size_t nw)
{
	for (size_t i = 0; i < nw; i++) {
		size_t wl = strlen(words[i]);
		for (const char *q = s; (q = kg_memcasemem(q, (size_t)(s + n - q), words[i], wl)) != NULL; q += wl) {
			pcre2_code *re = pat(p);
			kg_regex_use(re, &p->uses, wl);
			if (pcre2_match(re, (PCRE2_SPTR)s, n, (size_t)(q - s), PCRE2_ANCHORED, p->md, mctx) >= 0)
				return true;
		}
	}
	return false;
}

static int64_t int_at(const char *s, size_t a, size_t b)
{
	int64_t v = 0;
	for (size_t i = a; i < b; i++) {
		if (s[i] < '0' || s[i] > '9' || v > INT64_MAX / 10 - 10)
			return KG_NONE;
		v = v * 10 + (s[i] - '0');
	}
	return b > a ? v : KG_NONE;
}

/* ---- readings ---------------------------------------------------------- */

static pattern p_named = {.src =
	"\\b(max_?mem(?:ory)?_?(?:allocated|reserved|cached)|mem(?:ory)?_?(?:allocated|reserved|cached)"
	"|max_ma|max_ca|ma|ca|gpu_?mem)(?:\\(\\))?\\s*[:=]?\\s*([0-9]+(?:\\.[0-9]+)?\\s*(?:[KMGT]i?B|bytes|[KMGT]\\b)?)"};
static pattern p_value_word = {.src =
	"\\b([0-9]+(?:\\.[0-9]+)?\\s*[KMGT]i?B)\\s+(?:max(?:imum)?\\s+|peak\\s+)?(allocated|reserved|cached)\\b"};
static pattern p_word_value = {.src =
	"\\b((?:max(?:imum)?[ _]|peak[ _])?(?:allocated|reserved|cached))(?:\\s+memory)?\\s*[:=]\\s*([0-9]+(?:\\.[0-9]+)?\\s*[KMGT]i?B)"};
static pattern p_epoch = {.src = "\\bepoch\\s*[:=#]?\\s*\\[?\\s*([0-9]+)"};
static pattern p_step = {.src = "\\b(?:global_|train_)?(?:step|iter(?:ation)?)\\s*[:=#]?\\s*\\[?\\s*([0-9]+)"};

static kg_reading_kind kind_of(const char *w, size_t n)
{
	bool max = kg_memcasemem(w, n, "max", 3) || kg_memcasemem(w, n, "peak", 4);
	bool res = kg_memcasemem(w, n, "reserved", 8) || kg_memcasemem(w, n, "cached", 6) ||
		   (n >= 2 && (w[n - 2] == 'C' || w[n - 2] == 'c') && (w[n - 1] == 'A' || w[n - 1] == 'a')) ||
		   kg_memcasemem(w, n, "gpu", 3); /* ultralytics GPU_mem = memory_reserved() */
	if (max)
		return res ? KG_READ_MAX_RESERVED : KG_READ_MAX_ALLOCATED;
	return res ? KG_READ_RESERVED : KG_READ_ALLOCATED;
}

static int64_t ctx_number(pattern *p, const char *s, size_t n)
{
	size_t at = 0;
	PCRE2_SIZE *ov = match(p, s, n, &at);
	return ov ? int_at(s, ov[2], ov[3]) : KG_NONE;
}

static size_t add_reading(kg_log_reading *out, size_t k, size_t max, kg_reading_kind kind,
			  const char *s, size_t a, size_t b)
{
	if (k >= max)
		return k;
	kg_size v;
	size_t used;
	if (kg_size_parse(s + a, b - a, &v, &used) < 0)
		return k;
	for (size_t i = 0; i < k; i++)
		if (out[i].kind == kind)
			return k; /* one reading per kind and line */
	out[k].kind = kind;
	out[k].value = v;
	out[k].si = 0;
	const char *u = memchr(s + a, 'B', b - a);
	if (u && u > s + a && u[-1] != 'i' && u[-1] != 'I') {
		const char *pw = strchr("KMGT", u[-1] == 'k' ? 'K' : u[-1]);
		out[k].si = pw && u[-1] ? (int)(pw - "KMGT") + 1 : 0;
	}
	out[k].step = out[k].epoch = KG_NONE;
	out[k].line = 0;
	out[k].rank = KG_NONE;
	return k + 1;
}

size_t kg_parse_readings(const char *s, size_t n, kg_log_reading *out, size_t max)
{
	static const char *const pre[] = {"alloc", "reserved", "cached", "MA ", "CA ", "mem"};
	if (!max || !has_any(s, n, pre, sizeof pre / sizeof *pre))
		return 0;
	size_t k = 0, at = 0;
	PCRE2_SIZE *ov;
	while ((ov = match(&p_named, s, n, &at)) && k < max) {
		const char *w = s + ov[2];
		size_t wl = ov[3] - ov[2];
		/* DeepSpeed's "MA"/"CA" must be upper case and followed by a unit */
		bool short_name = wl <= 6 && (kg_memcasemem(w, wl, "ma", 2) || kg_memcasemem(w, wl, "ca", 2)) &&
				  !kg_memcasemem(w, wl, "mem", 3);
		if (short_name && (w[wl - 1] != 'A' || w[wl - 2] == 'a' || w[wl - 2] == 'c'))
			continue;
		const char *num = s + ov[4];
		size_t nl = ov[5] - ov[4];
		bool unit = nl && (num[nl - 1] < '0' || num[nl - 1] > '9');
		if (!unit && (short_name || memchr(num, '.', nl)))
			continue; /* a bare decimal has no unit we could trust */
		k = add_reading(out, k, max, kind_of(w, wl), s, ov[4], ov[5]);
	}
	at = 0;
	while ((ov = match(&p_value_word, s, n, &at)) && k < max) {
		/* "3.2GB allocated" — the word may be "max allocated" (group 0 span) */
		const char *w = s + ov[0];
		k = add_reading(out, k, max, kind_of(w, ov[1] - ov[0]), s, ov[2], ov[3]);
	}
	at = 0;
	while ((ov = match(&p_word_value, s, n, &at)) && k < max)
		k = add_reading(out, k, max, kind_of(s + ov[2], ov[3] - ov[2]), s, ov[4], ov[5]);
	if (k) {
		int64_t ep = ctx_number(&p_epoch, s, n), st = ctx_number(&p_step, s, n);
		for (size_t i = 0; i < k; i++) {
			out[i].epoch = ep;
			out[i].step = st;
		}
	}
	return k;
}

/* ---- parallelism hints ------------------------------------------------ */

static struct {
	pattern p;
	const char *kind;
	int plus;   /* added to the number (gwN → N + 1 workers) */
} hints[] = {
	{{.src = "\\bn_jobs\\s*[=:]\\s*([0-9]+)"}, "n_jobs", 0},
	{{.src = "--nproc[_-]per[_-]node(?:\\s*=\\s*|\\s+)([0-9]+)"}, "nproc_per_node", 0},
	{{.src = "\\bpytest\\b.*?\\s-n\\s*([0-9]+)\\b"}, "pytest-xdist", 0},
	{{.src = "\\bcreated:\\s*([0-9]+)/[0-9]+\\s+workers\\b"}, "pytest-xdist", 0},
	{{.src = "\\[gw([0-9]+)\\]"}, "pytest-xdist", 1},
	{{.src = "\\b(?:num_parallel_trials|n_parallel|max_concurrent_trials|parallel_trials)\\s*[=:]\\s*([0-9]+)"}, "parallel-trials", 0},
	{{.src = "\\bparallel(?:\\s+(?:jobs|trials|workers))?\\s*:\\s*([0-9]+)\\b"}, "parallel", 0},
	{{.src = "(?-i:\\bPAR)\\s*[?]?=\\s*([0-9]+)\\b"}, "parallel", 0},
};

int kg_parse_parallel_hint(const char *s, size_t n, int64_t *jobs, const char **kind)
{
	static const char *const pre[] = {"n_jobs", "parallel", "PAR", "nproc", "pytest",
					  "workers", "[gw", "concurrent"};
	if (!has_any(s, n, pre, sizeof pre / sizeof *pre))
		return 0;
	for (size_t i = 0; i < sizeof hints / sizeof *hints; i++) {
		size_t at = 0;
		PCRE2_SIZE *ov = match(&hints[i].p, s, n, &at);
		if (!ov)
			continue;
		int64_t v = int_at(s, ov[2], ov[3]);
		if (v == KG_NONE || v < 1 || v > 1000000)
			continue;
		*jobs = v + hints[i].plus;
		if (kind)
			*kind = hints[i].kind;
		return 1;
	}
	return 0;
}

/* ---- markers ------------------------------------------------------------ */

static pattern pat_wsl = {.src = "microsoft-standard-WSL2|/usr/lib/wsl/|\\bWSL\\s?2\\b|Windows Subsystem for Linux"};
/* Jetson: its allocator (NvMap), its SoC (Tegra), its name, and the
 * newer modules' GPUs as CUDA and ggml name them ("Device 0: NVIDIA Thor",
 * "Orin (nvgpu)", "AGX Orin"); each form holds one of the scanner's
 * atoms ("NvMap", "Jetson", "jetson", " Thor", " Orin", …) */
static pattern pat_jetson = {.src = "\\bNvMap\\w*|\\bnvmap\\b|\\bTegra\\b|\\bJetson\\b"
				     "|\\bNVIDIA\\s+(?:Thor|Orin)\\b|\\bOrin\\s+\\(nvgpu\\)|\\bAGX\\s+(?:Thor|Orin)\\b"};
static pattern pat_tf1 = {.src = "totalMemory:\\s*([0-9.]+\\s*[KMGT]i?B)\\s+freeMemory:\\s*([0-9.]+\\s*[KMGT]i?B)"};
/* TensorFlow 1.0-1.4 printed the device's memory on lines of their own
 * after "Found device 0 with properties:" ("Total memory: 7.92GiB", then
 * "Free memory: 190.31MiB", strings::HumanReadableNumBytes: no space,
 * binary units; tensorflow/tensorflow#8170, TF 1.0): read as the line
 * alone holds it, and the free line only right after the total one */
static pattern pat_tf_split_total = {.src = "^\\s*Total memory:\\s*([0-9.]+[KMGT]iB)\\s*$"};
static pattern pat_tf_split_free = {.src = "^\\s*Free memory:\\s*([0-9.]+[KMGT]iB)\\s*$"};
/* The Linux amdgpu driver's VRAM at boot (drivers/gpu/drm/amd/amdgpu/
 * amdgpu_ttm.c, amdgpu_ttm_init: "amdgpu: %uM of VRAM memory ready",
 * MiB), as users paste it from dmesg (ROCm/TheRock#1054: 98304M on an
 * APU whose HIP device reported 15.24 GiB) */
static pattern pat_amdgpu_vram = {.src = "\\bamdgpu:\\s+([0-9]{1,9})M\\s+of\\s+VRAM\\s+memory\\s+ready\\b"};
static pattern pat_tf_size = {.src = "deviceMemorySize:\\s*([0-9.]+\\s*[KMGT]i?B)"};
static pattern pat_tf_device = {.src = "Created\\s+(?:TensorFlow\\s+)?device\\s+\\(?/job:\\S+\\s+with\\s+([0-9]+)\\s+MB\\s+memory"};

static kg_size size_at(const char *s, size_t a, size_t b)
{
	kg_size z = kg_size_none();
	char buf[40];
	if (b - a >= sizeof buf)
		return z;
	memcpy(buf, s + a, b - a);
	buf[b - a] = '\0';
	/* TensorFlow prints "10.92GiB" with no space, as kg_size_parse reads it */
	if (kg_size_parse_str(buf, &z) < 0)
		return kg_size_none();
	return z;
}

int kg_parse_marker(const char *s, size_t n, long lineno, kg_log_markers *m)
{
	static const char *const pre[] = {"wsl", "nvmap", "tegra", "jetson", "thor", "orin", "memory"};
	if (!has_any(s, n, pre, sizeof pre / sizeof *pre))
		return 0;
	size_t at = 0;
	PCRE2_SIZE *ov;
	/* each pattern below holds one of these literals (caseless, as the
	 * patterns are): a line with "memory" alone, most of those that pass
	 * the prefilter, runs no regex */
	static const char *const platform_lit[] = {"wsl", "windows subsystem", "nvmap", "tegra", "jetson",
						   "thor", "orin"};
	static const char *const tf_lit[] = {"totalmemory", "devicememorysize", "total memory:", "free memory:"};
	if (!m->platform && has_any(s, n, platform_lit, sizeof platform_lit / sizeof *platform_lit)) {
		const char *kind = NULL;
		if ((at = 0, match(&pat_wsl, s, n, &at)))
			kind = "wsl";
		else if ((at = 0, match(&pat_jetson, s, n, &at)))
			kind = "jetson";
		if (kind) {
			m->platform = kind;
			size_t k = n < sizeof m->platform_text - 1 ? n : sizeof m->platform_text - 1;
			memcpy(m->platform_text, s, k);
			m->platform_text[k] = '\0';
			m->platform_line = lineno;
			return 1;
		}
	}
	if (m->tf_total_line == 0 && has_any(s, n, tf_lit, sizeof tf_lit / sizeof *tf_lit)) {
		if ((at = 0, ov = match(&pat_tf1, s, n, &at))) {
			m->tf_total = size_at(s, ov[2], ov[3]);
			m->tf_free = size_at(s, ov[4], ov[5]);
		} else if ((at = 0, ov = match(&pat_tf_size, s, n, &at))) {
			m->tf_total = size_at(s, ov[2], ov[3]);
		} else if ((at = 0, ov = match(&pat_tf_split_total, s, n, &at))) {
			m->tf_split_total = size_at(s, ov[2], ov[3]);
			m->tf_split_line = lineno;
			return 1;
		} else if (m->tf_split_line && lineno == m->tf_split_line + 1 &&
			   (at = 0, ov = match(&pat_tf_split_free, s, n, &at)) &&
			   kg_size_known(m->tf_split_total)) {
			m->tf_total = m->tf_split_total;
			m->tf_free = size_at(s, ov[2], ov[3]);
			m->tf_total_line = m->tf_split_line; /* the pair's first line */
			return 1;
		}
		if (kg_size_known(m->tf_total)) {
			m->tf_total_line = lineno;
			return 1;
		}
	}
	if (m->driver_vram_line == 0 && kg_memcasemem(s, n, "VRAM memory ready", 17) &&
	    (at = 0, ov = match(&pat_amdgpu_vram, s, n, &at))) {
		int64_t mib = int_at(s, ov[2], ov[3]);
		if (mib != KG_NONE && mib > 0) {
			m->driver_vram = mib << 20;
			m->driver_vram_line = lineno;
			return 1;
		}
	}
	if (m->tf_device_line == 0 && kg_memcasemem(s, n, "device", 6) &&
	    (at = 0, ov = match(&pat_tf_device, s, n, &at))) {
		int64_t mb = int_at(s, ov[2], ov[3]);
		if (mb != KG_NONE) {
			m->tf_device = mb << 20;
			m->tf_device_line = lineno;
			return 1;
		}
	}
	return 0;
}

/* ---- nvidia-smi rows and the reporter's words -------------------------- */

/* nvidia-smi's process table (nvidia-smi(1), "Processes": GPU, [GI ID, CI
 * ID,] PID, Type C/G/C+G, Process name, GPU Memory Usage) and its device
 * row ("Memory-Usage": used / total, both MiB). */
static pattern p_smi_proc = {.src = "^\\s*\\|\\s*([0-9]{1,2})\\s+(?:(?:N/A|[0-9]+)\\s+(?:N/A|[0-9]+)\\s+)?([0-9]{1,10})\\s+(C|G|C\\+G|M|M\\+C)\\s+\\S.*?\\s([0-9]{1,9})\\s*MiB\\s*\\|\\s*$"};
/* nvidia-smi's device row ("| 7785MiB / 16280MiB |      0%      Default |")
 * and gpustat's ("[0] Tesla V100-SXM2-16GB | 44'C,   0 % | 15836 / 16130 MB |",
 * or with power "45'C,  0 %,  10 / 180 W | …"; gpustat prints MiB and calls
 * them MB). The GPU's utilization is the cell after the memory in
 * nvidia-smi (group 4), the figure after the temperature in gpustat
 * (group 1). */
static pattern p_smi_dev = {.src = "(?:'C,\\s*([0-9]{1,3})\\s*%[^|]*)?\\|\\s*([0-9]{1,9})\\s*(?:MiB)?\\s*/\\s*([0-9]{1,9})\\s*(?:MiB|MB)\\s*\\|(?:\\s*([0-9]{1,3})\\s*%)?"};
/* A late failure: after two or more epochs, after hours, the Nth (N ≥ 2)
 * epoch, "after running for a while", "training … for too long". Each form
 * holds one of the scanner's atoms (logscan.c: "epochs", "th epoch",
 * "nd epoch", "rd epoch", "hour", "for a while", "too long"). */
static pattern p_late = {.src = "\\bafter\\s+(?:about\\s+|around\\s+|~\\s*)?(?:(?:[2-9]|[1-9][0-9]+)\\s+epochs|(?:a\\s+few|several|many|some)\\s+(?:epochs|hours)|[0-9]+(?:\\.[0-9]+)?\\s+hours?)\\b"
		"|\\b(?:[2-9]|[1-9][0-9]+)(?:nd|rd|th)\\s+epoch\\b"
		"|\\bafter\\s+(?:running|training)\\s+(?:for\\s+)?(?:a\\s+while|hours)\\b"
		"|\\btrain(?:ing|ed)?\\b[^.\\n]{0,40}\\bfor\\s+too\\s+long\\b"};
/* A batch of one: "batch size 1", "batch_size=1", "batch size of 1",
 * "minibatch_size to 1", "bs=1". */
static pattern p_batch1 = {.src = "(?:batch[_ -]?size|\\bbs)\\s*(?:of|=|:|to|is|as|at)?\\s*(?:only\\s+)?1(?![0-9]|[.,][0-9]|\\s*[0-9])"};
/* The evaluation phase in words: "during (the) evaluation/validation/
 * inference/testing", "the validation loop/step/phase/routine", "eval
 * loop", "test step", "Loading valid dataset", "when the valid(ation)
 * starts", "the valid going to start", "validation starts". Each form
 * holds one of the scanner's atoms ("during", "valid ", "ation loop",
 * "eval step", "when the", "ation start", "going to start", …). */
static pattern p_evalw = {.src = "\\bduring\\s+(?:the\\s+)?(?:evaluation|validation|inference|testing|prediction|eval)\\b"
		"|\\b(?:evaluation|validation)\\s+(?:loop|step|phase|routine)\\b"
		"|\\b(?:eval|test)\\s+(?:loop|step)\\b"
		"|\\bloading\\s+(?:the\\s+)?valid\\s+(?:data\\s*set|data|set)\\b"
		"|\\bwhen\\s+the\\s+(?:valid|validation|evaluation|eval|test|testing|inference)\\b[^.\\n]{0,30}\\b(?:start|begin|run)"
		"|\\b(?:valid|validation|evaluation|eval|testing)\\s+(?:is\\s+|was\\s+)?(?:going\\s+to\\s+|about\\s+to\\s+)?start(?:s|ed|ing)?\\b"
		/* "when evaluating", "while running the validation", "at inference
		 * time", "OOM in evaluation", "in evaluate()" (a method named in
		 * prose), "if the validation set gets bigger" (its size drives the
		 * memory) */
		"|\\b(?:when|while|whilst)\\s+(?:i\\s+am\\s+|i'm\\s+|it\\s+is\\s+|we\\s+are\\s+)?(?:evaluating|validating|predicting"
		"|running\\s+(?:the\\s+|an?\\s+)?(?:evaluation|validation|inference|eval))\\b"
		"|\\bat\\s+(?:evaluation|validation|inference|eval)\\s+time\\b"
		"|\\b(?:oom|out\\s+of\\s+memory)\\s+(?:error\\s+)?(?:at|in|on)\\s+(?:the\\s+)?(?:evaluation|validation|inference|eval)\\b"
		"|\\bin\\s+(?:the\\s+)?`?(?:evaluate|validation_step|evaluation_loop)\\(\\)"
		"|\\b(?:validation|test|eval|evaluation)\\s+(?:set|data\\s*set|data)\\s+(?:gets|is|grows|becomes)\\s+(?:too\\s+)?(?:big|bigger|large|larger)\\b"};

/* Memory that grows, in the reporter's words: "memory leak", "the GPU
 * memory allocation keeps on increasing", "memory grows after each batch",
 * "the memory use increasing per step", "leaks GPU memory", "the memory
 * grows until OOM", "GPU memory consumption: a slow and steady increase";
 * and the mechanism named, the autograd graph kept from step to step
 * ("holding on to the graph", "the sum of non-detached tensors": the
 * PyTorch FAQ's "don't accumulate history across your training loop").
 * Each form holds one of the scanner's atoms ("leak", "keep", "grow",
 * "increas", "graph", "detach"). */
static pattern p_leakw = {.src = "\\bmemory\\s+leak(?:s|age)?\\b|\\bleak(?:s|ing)?\\s+(?:gpu\\s+|cuda\\s+)?memory\\b"
		"|\\b(?:memory|usage|allocation|vram)(?:\\s+\\w+){0,3}?\\s+(?:keeps?|kept)\\s+(?:on\\s+)?(?:increasing|growing|rising|going\\s+up)\\b"
		"|\\b(?:memory|usage|vram)(?:\\s+\\w+){0,2}?\\s+(?:increases|grows|goes\\s+up|increasing|growing)\\s+"
		"(?:(?:after|with|on|at|in)\\s+(?:every|each)|per)\\s+(?:batch|step|iteration|epoch)\\b"
		"|\\b(?:memory|usage|vram)\\s+(?:\\w+\\s+){0,2}?(?:grows|increases|rises|keeps\\s+(?:growing|increasing))\\b[^.\\n]{0,40}?\\buntil\\b"
		"|\\b(?:memory|usage|vram|consumption)\\b[^.\\n]{0,60}?\\b(?:slow|steady|gradual|constant|continuous|linear)"
		"(?:\\s+and\\s+(?:slow|steady|gradual|constant|continuous|linear))?\\s+(?:increase|growth)\\b"
		"|\\b(?:hold(?:s|ing)?|keep(?:s|ing)?|retain(?:s|ing)?)\\s+(?:on\\s+)?(?:on)?to\\s+the\\s+(?:computation(?:al)?\\s+|autograd\\s+)?graph\\b"
		"|\\bnon-detached\\b"};
/* A checkpoint in the reporter's words: loading or resuming from one
 * ("when it loads the existing checkpoint"), saving the model ("runs out
 * of memory when saving the model"): the prose of a report, where a log's
 * own "Saving model checkpoint to …" is read as its phase word
 * (context.c). Each form holds the atom "checkpoint", "resum" or "saving". */
static pattern p_ckptw = {.src = "\\b(?:load|loads|loading|loaded|resum(?:e|es|ing|ed)|restor(?:e|es|ing|ed))\\s+(?:from\\s+)?(?:the\\s+|a\\s+|an\\s+|my\\s+)?(?:existing\\s+|saved\\s+|last\\s+|latest\\s+|previous\\s+)?checkpoints?\\b(?!\\s+shards)"
		"|\\bresum(?:e|ing)\\s+(?:the\\s+)?training\\b"
		"|\\b(?:when|while|during|after)\\s+(?:it\\s+is\\s+|I\\s+am\\s+)?sav(?:e|es|ing)\\s+(?:the\\s+|a\\s+|my\\s+)?(?:model|checkpoint|weights|state[_ ]dict)\\b"};
/* Several jobs on one device, in the reporter's words: "two processes on
 * the same GPU", "7 training scripts sharing one card", "run both
 * evaluation scripts simultaneously", and every process on the first GPU
 * ("GPU 0 occupies memory for each script", "all ranks use cuda:0": a
 * process that does not call torch.cuda.set_device creates its context
 * and default tensors on device 0, PyTorch "CUDA semantics" and the
 * DistributedDataParallel tutorial). Each form holds the atom "same",
 * "single", "shared", "simultaneous", "concurrent", "parallel", "GPU 0"
 * or "cuda:0". */
static pattern p_parw = {.src = "\\b(?:two|three|four|several|multiple|many|other|another|both|[2-9]|[1-9][0-9])\\s+(?:\\w+\\s+)?(?:process(?:es)?|jobs?|scripts?|programs?|instances?|models?|notebooks?|kernels?|trainings?|experiments?|workers?|engines?|replicas?|copies|servers?)\\b[^.\\n]{0,60}?\\b(?:same|one|single|shared?)\\s+(?:gpu|card|device)s?\\b"
		"|\\b(?:run|runs|running|launch\\w*|start\\w*|initiali[sz]\\w*)\\b[^.\\n]{0,60}?\\b(?:simultaneously|concurrently|at\\s+the\\s+same\\s+time|in\\s+parallel)\\b"
		"|\\b(?:gpu\\s*0|cuda:0)\\b[^.\\n]{0,80}?\\b(?:each|every|all(?:\\s+of)?(?:\\s+the)?)\\s+(?:\\w+\\s+)?(?:process(?:es)?|scripts?|ranks?|workers?|jobs?)\\b"
		"|\\b(?:each|every|all(?:\\s+of)?(?:\\s+the)?)\\s+(?:\\w+\\s+)?(?:process(?:es)?|scripts?|ranks?|workers?|jobs?)\\b[^.\\n]{0,60}?\\b(?:on|to|in|uses?|using|occup\\w*|allocat\\w*)\\s+(?:the\\s+)?(?:gpu\\s*0|cuda:0)\\b"};

/* The inputs named large, in the reporter's words: "if I try to use large
 * point cloud data", "when not skipping large bags", "long sequences",
 * "higher-resolution images". Activation memory grows with one input's
 * size (sequence length, resolution, points or nodes per sample: HF
 * "Model training anatomy"), so the reporter naming the inputs' size names
 * what filled the device. Not the dataset's size ("a large number of
 * images", "a big dataset"), nor a negation ("no long sequences"). Each
 * form holds one of the scanner's atoms ("large", "Large", "long", "Long",
 * "big", "huge", "igh-res", "igh res", "igher-res", "igher res") and
 * starts with one of the words it is anchored at (match_at_words:
 * "large", "long", "big", "huge", "high"; a negation is looked for behind). */
static pattern p_largew = {.src = "(?<!not |n't |no |not very |not too |not so )\\b"
		"(?:large|larger|long|longer|big|bigger|huge|(?:high|higher)[- ]?res(?:olution)?)\\s+"
		"(?:(?!(?:batch|number|amount|set|dataset|collection|lot|count|list|quantity|model|memory)\\b)[\\w-]+\\s+){0,2}?"
		"(?:images?|inputs?|sequences?|sentences?|texts?|documents?|audios?|videos?|point\\s*clouds?|graphs?|bags?"
		"|samples?|prompts?|lines?|volumes?|molecules?|proteins?|pictures?|photos?|scenes?|meshes|requests?"
		"|utterances?|transcripts?|articles?|passages?|clips?|recordings?|slides?|crops?|patches|frames|tiles?)\\b"};

/* The failure tied to a software version, in the reporter's words: "a
 * recent update causes OOM", "worked before update", "after updating from
 * ROCm 7.1.1 to ROCm 7.14.0", "Update from 0.1.29 to 0.1.30", "This does
 * not occur in v2.6.3", "with the previous version it works",
 * "downgrading to 2.1 fixes it", "OOM errors with latest update",
 * "introduced by recent commits", "the previous commit does NOT OOM",
 * "back to commit 3715be6 works", "after applying commit 6a3a9da". A
 * workload that ran and fails after only the software changed says the
 * software's memory behaviour changed (a regression, a new default), not
 * the workload's need: most public threads that report one are settled by
 * a version or a setting that undoes it (bench/README.md, issue 31's
 * eleventh session; rules/platform.yaml's after-update). Not an
 * optimizer's update ("after each update", "after update 1000", "after
 * updating the weights"), a learning rate's change, nor an issue
 * template's "fixed in the latest version". Each form holds one of the
 * scanner's atoms ("pdat", "pgrad", "owngrad", "ersion", "ommit"). */
static pattern p_verw = {.src = "\\b(?:after|since)\\s+(?:(?:the|a|an|my|this|that|last|latest|recent|most|new|newest)\\s+)*(?:update|upgrade)s?\\b"
		"(?!\\s*[0-9])(?!\\s+(?:step|rule|of\\s+(?:the\\s+)?(?:weights|parameters|params|model|gradients)))"
		"|\\b(?:after|since|when)\\s+(?:i\\s+|we\\s+)?(?:updat|upgrad)(?:ing|ed)\\b"
		"(?!\\s+(?:the\\s+|its\\s+|my\\s+)?(?:weights|parameters|params|model|gradients|optimizer|lr|learning|embeddings?)\\b)"
		"|\\b(?:update[ds]?|upgrade[ds]?|updating|upgrading)\\s+(?:[\\w.+-]+\\s+){0,2}?from\\s+(?:[a-z]+\\s+)?v?[0-9][\\w.]*\\s+to\\s+(?:[a-z]+\\s+)?v?[0-9]"
		"|\\bdowngrad(?:e|ed|ing)\\b[^.\\n]{0,40}?\\bto\\s+(?:[a-z]+\\s+)?(?:version\\s+)?v?[0-9]"
		"|\\b(?:worked|works|working|ran|runs|running)\\s+(?:\\w+\\s+){0,2}?(?:before|until|prior\\s+to|with|in|on|under)\\s+(?:the\\s+)?"
		"(?:(?:last|latest|recent|previous|prior|older|old)\\s+)?(?:update|upgrade|version\\s+v?[0-9]|versions?\\b(?!\\s+of)|release|v?[0-9]+\\.[0-9][\\w.]*|b[0-9]{3,})"
		"|\\b(?:does(?:\\s+not|n't)|did(?:\\s+not|n't))\\s+(?:occur|happen|appear)\\s+(?:in|on|with|under)\\s+(?:version\\s+|v)?[0-9]+\\.[0-9]"
		"|\\b(?:recent|latest|last|new)\\s+(?:update|upgrade|version|release)s?\\s+(?:\\w+\\s+)?(?:causes?|caused|introduced?|breaks?|broke|leads?\\s+to|led\\s+to|results?\\s+in)\\b"
		"|\\b(?:in|on|with)\\s+(?:the\\s+)?(?:previous|prior|older|old|last)\\s+(?:version|release|build)s?\\b[^.\\n]{0,40}?\\b(?:works?|worked|fine|no\\s+(?:problem|issue|error))"
		"|\\b(?:with|in)\\s+(?:the\\s+)?(?:latest|last|recent|newest)\\s+(?:update|upgrade)s?\\b"
		"|\\b(?:introduced|caused|broken|broke)\\s+(?:by|in|with|since)\\s+(?:the\\s+|a\\s+)?(?:(?:recent|latest|last|new)\\s+)?(?:commits?|updates?|upgrades?|releases?|versions?)\\b"
		"|\\b(?:previous|prior|last|older)\\s+(?:commit|version|release|build)\\b[^.\\n]{0,40}?\\b(?:does|did)(?:\\s+not|n't)\\s+(?:OOM|fail|crash|happen)"
		"|\\bback\\s+to\\s+(?:the\\s+)?(?:commit|version|release|build)\\b[^.\\n]{0,40}?\\bworks?\\b"
		"|\\bafter\\s+(?:applying|merging|pulling)\\s+(?:the\\s+|this\\s+|a\\s+)?(?:(?:latest|recent|new)\\s+)?(?:commits?|updates?|upgrades?)\\b"};

static void keep_text(char *dst, size_t cap, const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t' || *s == '>'))
		s++, n--;
	size_t k = n < cap - 1 ? n : cap - 1;
	memcpy(dst, s, k);
	dst[k] = '\0';
}

int kg_parse_signs(const char *s, size_t n, long lineno, kg_log_markers *m)
{
	size_t at = 0;
	PCRE2_SIZE *ov;
	int got = 0;
	if ((memmem(s, n, "MiB", 3) || memmem(s, n, " MB", 3)) && memchr(s, '|', n)) {
		if (m->nsmi < (int)(sizeof m->smi / sizeof *m->smi) &&
		    (at = 0, ov = match(&p_smi_proc, s, n, &at))) {
			int64_t g = int_at(s, ov[2], ov[3]), pid = int_at(s, ov[4], ov[5]);
			int64_t mib = int_at(s, ov[8], ov[9]);
			bool dup = false;
			for (int i = 0; i < m->nsmi; i++)
				dup |= m->smi[i].gpu == g && m->smi[i].pid == pid;
			if (g != KG_NONE && pid != KG_NONE && mib != KG_NONE && !dup) {
				m->smi[m->nsmi].gpu = (int)g;
				m->smi[m->nsmi].pid = pid;
				m->smi[m->nsmi].compute = s[ov[6]] == 'C' || ov[7] - ov[6] > 1;
				m->smi[m->nsmi++].bytes = mib << 20;
				if (!m->smi_line)
					m->smi_line = lineno;
				got = 1;
			}
		}
		if (!m->smi_dev_line && (at = 0, ov = match(&p_smi_dev, s, n, &at))) {
			int64_t u = int_at(s, ov[4], ov[5]), t = int_at(s, ov[6], ov[7]);
			int64_t util = ov[2] != PCRE2_UNSET ? int_at(s, ov[2], ov[3])
				     : ov[8] != PCRE2_UNSET ? int_at(s, ov[8], ov[9]) : KG_NONE;
			if (u != KG_NONE && t != KG_NONE && t > 0 && u <= t) {
				m->smi_used = u << 20;
				m->smi_total = t << 20;
				m->smi_util = util != KG_NONE && util <= 100 ? (int)util : -1;
				m->smi_dev_line = lineno;
				got = 1;
			}
		}
	}
	if (!m->late_line && (kg_memcasemem(s, n, "epoch", 5) || kg_memcasemem(s, n, "hour", 4) ||
			      kg_memcasemem(s, n, "while", 5) || kg_memcasemem(s, n, "too long", 8)) &&
	    (at = 0, match(&p_late, s, n, &at))) {
		keep_text(m->late_text, sizeof m->late_text, s, n);
		m->late_line = lineno;
		got = 1;
	}
	if (!m->batch1_line &&
	    ((kg_memcasemem(s, n, "batch", 5) && kg_memcasemem(s, n, "size", 4)) || kg_memcasemem(s, n, "bs", 2)) &&
	    (at = 0, match(&p_batch1, s, n, &at))) {
		keep_text(m->batch1_text, sizeof m->batch1_text, s, n);
		m->batch1_line = lineno;
		got = 1;
	}
	if (!m->eval_line && (kg_memcasemem(s, n, "eval", 4) || kg_memcasemem(s, n, "valid", 5) ||
			      kg_memcasemem(s, n, "infer", 5) || kg_memcasemem(s, n, "test", 4) ||
			      kg_memcasemem(s, n, "predict", 7)) &&
	    (at = 0, match(&p_evalw, s, n, &at))) {
		keep_text(m->eval_text, sizeof m->eval_text, s, n);
		m->eval_line = lineno;
		got = 1;
	}
	/* the words of later signs (a table: the marker, its pattern, the
	 * words one of which every match holds) */
	struct {
		char *text;
		long *line;
		pattern *p;
		const char *words[10];
		bool at_word; /* the phrase starts with one of its words: match_at_words */
	} more[] = {
		{m->leak_text, &m->leak_line, &p_leakw, {"leak", "keep", "kept", "grow", "increas", "goes up", "graph", "detach", NULL}, false}, /* not vocabulary: log text */
		{m->ckpt_text, &m->ckpt_line, &p_ckptw, {"checkpoint", "resum", "sav", NULL}, false}, /* not vocabulary: log text */
		{m->par_text, &m->par_line, &p_parw, {"same", "single", "shared", "simultaneous", "concurrent",
						      "parallel", "gpu 0", "cuda:0", NULL}, false},
		{m->large_text, &m->large_line, &p_largew, {"large", "long", "big", "huge", "high", NULL}, true}, /* not vocabulary: log text */
		{m->ver_text, &m->ver_line, &p_verw, {"updat", "upgrad", "owngrad", "version", "commit", NULL}, false}, /* not vocabulary: log text */
	};
	for (size_t k = 0; k < sizeof more / sizeof *more; k++) {
		size_t nw = 0;
		while (more[k].words[nw])
			nw++;
		if (*more[k].line)
			continue;
		/* a phrase at its word is a sentence of prose: looked for in a
		 * line's first 2 KiB (not along a JSON record's 100 KiB) */
		if (more[k].at_word ? match_at_words(more[k].p, s, n < 2048 ? n : 2048, more[k].words, nw)
				 : has_any(s, n, more[k].words, nw) && (at = 0, match(more[k].p, s, n, &at))) {
			keep_text(more[k].text, sizeof m->leak_text, s, n);
			*more[k].line = lineno;
			got = 1;
		}
	}
	return got;
}

/* ---- settings: rules/keys.yaml's roles read from the log --------------- */

/* One role a log's text gives (keys.yaml's `log:` kind): the regex built
 * from its key names, and the literals one of which every match holds. */
typedef struct setting_re {
	const char *role;         /* the role's name (static: lives with the table) */
	int kind;                 /* SET_COUNT … SET_BOOL */
	kg_regex *re;
	char **lits;              /* its keys as the regex reads them (lower case) */
	size_t nlits;
} setting_re;

enum { SET_COUNT, SET_FRACTION, SET_SIZE, SET_BOOL };

static setting_re *settings;
static size_t nsettings;
static bool settings_ready;
static kg_role *setting_roles; /* keys.yaml, kept for the roles' names */
static size_t nsetting_roles;

/* The value's pattern by kind: a count, a share (0.9, .45), a size with
 * its unit (8g, 16GB, 512 MiB), a boolean. */
static const char *const value_re[] = {
	"([0-9]+)\\b",
	"([0-9]*\\.[0-9]+|[0-9]+)\\b(?!\\s*(?:%|[KMGT]i?B\\b))",
	"([0-9]+(?:\\.[0-9]+)?\\s*(?:[KMGTkmgt]i?[Bb]?))\\b",
	"(true|false|True|False|TRUE|FALSE)\\b",
};

/* Builds the table from keys.yaml (the installed or the search path's):
 * per role with a `log:` kind, one regex over its keys for the forms of
 * kg_parse_settings. A keys.yaml that cannot be read leaves the table
 * empty: the log's settings are then not read (a diagnosis that needs
 * them says what is missing). */
static void settings_init(void)
{
	settings_ready = true;
	kg_error e = {0};
	if (kg_roles_load(NULL, &setting_roles, &nsetting_roles, &e) < 0)
		return;
	settings = kg_calloc(nsetting_roles ? nsetting_roles : 1, sizeof *settings);
	for (size_t r = 0; r < nsetting_roles; r++) {
		const kg_role *ro = &setting_roles[r];
		int kind = !ro->log ? -1 : !strcmp(ro->log, "count") ? SET_COUNT :
			   !strcmp(ro->log, "fraction") ? SET_FRACTION : !strcmp(ro->log, "size") ? SET_SIZE :
			   !strcmp(ro->log, "bool") ? SET_BOOL : -1;
		if (kind < 0)
			continue;
		kg_buf alt = {0};
		setting_re *t = &settings[nsettings];
		t->lits = kg_calloc(ro->nkeys ? ro->nkeys : 1, sizeof *t->lits);
		for (size_t k = 0; k < ro->nkeys; k++) {
			const char *key = ro->keys[k];
			if (strchr(key, '.'))
				continue; /* a nested config path, not a flag or a keyword */
			if (alt.len)
				kg_buf_putc(&alt, '|');
			/* a word boundary inside the key is `_` or `-` on a command line */
			char *lit = kg_strdup(key);
			for (char *c = lit; *c; c++) {
				*c = (char)tolower((unsigned char)*c);
				if (*c == '_' || *c == '-')
					kg_buf_append(&alt, "[-_]", 4);
				else
					kg_buf_putc(&alt, *c);
			}
			/* the literal the prefilter looks for: the key up to its first
			 * separator (a command line may write either) */
			lit[strcspn(lit, "_-")] = '\0';
			t->lits[t->nlits++] = lit;
		}
		if (!alt.len) {
			kg_buf_free(&alt);
			continue;
		}
		/* --key value, --key=value, -key value (llama.cpp's -ngl),
		 * key=value, key: value, "key": value, key(value) */
		char *src = kg_asprintf("(?:(?<![\\w-])--?(?:%s)(?:\\s*=\\s*|\\s+)|(?<![\\w-])(?:%s)[\"']?\\s*(?:[=:]|\\()\\s*)[\"']?%s",
					alt.data, alt.data, value_re[kind]);
		kg_buf_free(&alt);
		t->re = kg_regex_new(src, PCRE2_CASELESS, &e);
		free(src);
		if (!t->re) {
			for (size_t k = 0; k < t->nlits; k++)
				free(t->lits[k]);
			free(t->lits);
			memset(t, 0, sizeof *t);
			continue;
		}
		t->role = ro->name;
		t->kind = kind;
		nsettings++;
	}
}

/* HF Trainer's start-up banner (transformers trainer.py _inner_training_loop)
 * names the batch in words of its own. */
static struct {
	pattern p;
	const char *role;
} banner[] = {
	{{.src = "\\binstantaneous batch size per device\\s*=\\s*([0-9]+)\\b"}, "train_batch_size"},
	{{.src = "\\bgradient accumulation steps\\s*=\\s*([0-9]+)\\b"}, "grad_accum_steps"},
};

/* Whether the role's key is a longer one's tail in the text: `eval_batch_size=16`
 * holds `batch_size=16`, which is not the training batch. The regex's
 * lookbehind keeps a key from starting inside a longer word. */
static bool value_of(const setting_re *t, const char *s, size_t a, size_t b, double *v)
{
	if (t->kind == SET_BOOL) {
		*v = (s[a] == 't' || s[a] == 'T') ? 1 : 0;
		return true;
	}
	if (t->kind == SET_SIZE) {
		/* docker's and Slurm's units: k, m, g, t (binary), with or
		 * without the i and the B */
		char *end;
		char tmp[40];
		size_t k = b - a < sizeof tmp - 1 ? b - a : sizeof tmp - 1;
		memcpy(tmp, s + a, k);
		tmp[k] = '\0';
		double x = strtod(tmp, &end);
		while (*end == ' ')
			end++;
		const char *u = strchr("kmgt", tolower((unsigned char)*end));
		if (end == tmp || !*end || !u)
			return false;
		*v = x * (double)(1ull << (10 * (1 + (u - "kmgt"))));
		return true;
	}
	char tmp[40];
	size_t k = b - a < sizeof tmp - 1 ? b - a : sizeof tmp - 1;
	memcpy(tmp, s + a, k);
	tmp[k] = '\0';
	char *end;
	double x = strtod(tmp, &end);
	if (end == tmp)
		return false;
	if (t->kind == SET_COUNT)
		return x >= 1 && x <= 100000000 ? (*v = x, true) : false;
	return x >= 0 && x <= 10 ? (*v = x, true) : false; /* a share (an MPS ratio may exceed 1) */
}

int kg_parse_settings(const char *s, size_t n, kg_log_setting *out, int max)
{
	if (max <= 0)
		return 0;
	if (!settings_ready)
		settings_init();
	int got = 0;
	for (size_t i = 0; i < nsettings && got < max; i++) {
		const setting_re *t = &settings[i];
		if (!has_any(s, n, (const char *const *)t->lits, t->nlits))
			continue;
		size_t at = 0;
		kg_match m;
		while (got < max && at <= n && kg_regex_match(t->re, s, n, at, &m)) {
			at = m.eo[0] > at ? m.eo[0] : at + 1;
			double v;
			if (!value_of(t, s, m.so[1], m.eo[1], &v))
				continue;
			bool dup = false;
			for (int k = 0; k < got; k++)
				dup |= out[k].role == t->role;
			if (!dup) {
				out[got].role = t->role;
				out[got++].value = v;
			}
		}
	}
	for (size_t i = 0; i < sizeof banner / sizeof *banner && got < max; i++) {
		size_t at = 0;
		PCRE2_SIZE *ov;
		if (!kg_memcasemem(s, n, "per device", 10) && !kg_memcasemem(s, n, "accumulation steps", 18))
			break;
		if ((ov = match(&banner[i].p, s, n, &at))) {
			int64_t v = int_at(s, ov[2], ov[3]);
			bool dup = false;
			for (int k = 0; k < got; k++)
				dup |= !strcmp(out[k].role, banner[i].role);
			if (v != KG_NONE && v >= 1 && !dup) {
				/* the role's name from the table, so pointers compare */
				const char *name = banner[i].role;
				for (size_t r = 0; r < nsettings; r++)
					if (!strcmp(settings[r].role, name))
						name = settings[r].role;
				out[got].role = name;
				out[got++].value = (double)v;
			}
		}
	}
	return got;
}

/* The fact type of a role's value: the kind its keys.yaml entry gives. */
static kg_fact_type setting_type(const char *role)
{
	for (size_t i = 0; i < nsettings; i++)
		if (!strcmp(settings[i].role, role))
			return settings[i].kind == SET_FRACTION ? KG_FACT_RATIO : settings[i].kind == SET_SIZE ? KG_FACT_BYTES :
			       settings[i].kind == SET_BOOL ? KG_FACT_BOOL : KG_FACT_COUNT;
	return KG_FACT_COUNT;
}

void kg_log_facts_add_setting(kg_log_facts *lf, const kg_log_setting *h, long line)
{
	if (lf->nbatch == lf->batch_cap) {
		if (lf->nbatch >= 4096)
			return; /* bounded: the last ones before an OOM are what matter */
		lf->batch_cap = lf->batch_cap ? lf->batch_cap * 2 : 8;
		lf->batch = kg_realloc(lf->batch, lf->batch_cap * sizeof *lf->batch);
	}
	lf->batch[lf->nbatch] = *h;
	lf->batch[lf->nbatch++].line = line;
}

/* Settings and parallel hints count up to this many lines after the OOM
 * line: a report pastes the call or the command line under the error. */
#define PASTED_AFTER 50

void kg_facts_settings_from_log(const kg_log_facts *lf, const char *path, long before, kg_facts *f)
{
	/* the last value of each role before the line: from the end, each
	 * role once (roles are the table's pointers) */
	const char *done[64];
	size_t ndone = 0;
	for (size_t i = lf->nbatch; i-- > 0 && ndone < sizeof done / sizeof *done;) {
		const kg_log_setting *h = &lf->batch[i];
		if (before > 0 && h->line >= before + PASTED_AFTER)
			continue;
		bool seen = false;
		for (size_t k = 0; k < ndone; k++)
			seen |= done[k] == h->role;
		if (seen)
			continue;
		done[ndone++] = h->role;
		char *name = kg_asprintf("config.%s", h->role);
		char *prov = kg_asprintf("%s:%ld", path ? path : "<log>", h->line);
		kg_facts_set_num(f, name, setting_type(h->role), h->value, prov);
		free(prov);
		free(name);
	}
}

/* ---- store and facts --------------------------------------------------- */

#define MAX_READINGS 1000000

void kg_log_facts_init(kg_log_facts *lf)
{
	memset(lf, 0, sizeof *lf);
	lf->parallel_jobs = KG_NONE;
	lf->markers.tf_total = lf->markers.tf_free = lf->markers.tf_split_total = kg_size_none();
	lf->markers.tf_device = KG_NONE;
	lf->markers.driver_vram = KG_NONE;
	lf->markers.smi_used = lf->markers.smi_total = KG_NONE;
	lf->markers.smi_util = -1;
}

static void index_free(kg_log_facts *lf);

void kg_log_facts_free(kg_log_facts *lf)
{
	index_free(lf);
	free(lf->models);
	free(lf->readings);
	free(lf->batch);
	kg_log_facts_init(lf);
}

void kg_log_facts_add_reading(kg_log_facts *lf, const kg_log_reading *r, int64_t step,
			      int64_t epoch, long line)
{
	if (lf->nreadings >= MAX_READINGS)
		return;
	if (lf->nreadings && line < lf->readings[lf->nreadings - 1].line)
		return; /* out of line order: the queries rely on the order */
	if (lf->nreadings == lf->cap) {
		lf->cap = lf->cap ? lf->cap * 2 : 64;
		lf->readings = kg_realloc(lf->readings, lf->cap * sizeof *lf->readings);
	}
	kg_log_reading *x = &lf->readings[lf->nreadings++];
	*x = *r;
	if (x->step == KG_NONE)
		x->step = step;
	if (x->epoch == KG_NONE)
		x->epoch = epoch;
	x->line = line;
}

struct kg_model_signs *kg_log_facts_models(kg_log_facts *lf)
{
	if (!lf->models) {
		lf->models = kg_malloc(sizeof *lf->models);
		kg_model_signs_init(lf->models);
	}
	return lf->models;
}

void kg_log_facts_add_parallel(kg_log_facts *lf, int64_t jobs, const char *kind, long line)
{
	if (lf->parallel_jobs == KG_NONE || jobs > lf->parallel_jobs) {
		lf->parallel_jobs = jobs;
		lf->parallel_kind = kind;
		lf->parallel_line = line;
	}
}

static const char *const kind_names[] = {"allocated", "reserved", "max_allocated", "max_reserved"};

typedef struct point { double x; kg_size v; long line; } point;

/* ---- index for the per-incident queries ----------------------------------
 * Each incident asks for the facts of the readings before its line, a
 * prefix of the (line-ordered) readings. The index, built once per set of
 * readings, answers each such question in O(log n) plus one pass over the
 * points of the chosen series (for the regression), with exactly the values
 * a direct pass over the prefix gives. */

enum { G_EPOCH, G_STEP, G_READING, NG };

typedef struct lgroup {
	bool built;
	point *pts;         /* final points: last reading of each run of one x */
	uint32_t *start;    /* position (in the kind's list) of each point's first reading */
	size_t np;
	size_t first_bad;   /* first i ≥ 1 with pts[i].v.hi < pts[i-1].v.lo, else np */
	uint32_t *lastkey;  /* per position: the last one at or before it that has
	                       the group's key (UINT32_MAX when none); epoch/step only */
} lgroup;

typedef struct lkind {
	uint32_t *idx;        /* indexes of this kind's readings (≤ MAX_READINGS) */
	uint32_t *maxpos;     /* per position: where the (first) maximum so far is */
	size_t n;
	size_t diff[2];       /* first position whose epoch (step) differs from the
	                         first one seen, else n */
	lgroup g[NG];         /* built when a query first needs one */
} lkind;

struct kg_log_index {
	size_t built_for;     /* nreadings when built */
	lkind k[4];
};

static void index_free(kg_log_facts *lf)
{
	struct kg_log_index *ix = lf->index;
	if (!ix)
		return;
	for (int k = 0; k < 4; k++) {
		free(ix->k[k].idx);
		free(ix->k[k].maxpos);
		for (int g = 0; g < NG; g++) {
			free(ix->k[k].g[g].pts);
			free(ix->k[k].g[g].start);
			free(ix->k[k].g[g].lastkey);
		}
	}
	free(ix);
	lf->index = NULL;
}

static int64_t group_key(const kg_log_reading *r, int g)
{
	return g == G_EPOCH ? r->epoch : r->step;
}

/* The kinds' reading lists, running maxima and key changes. */
static void index_build(kg_log_facts *lf)
{
	if (lf->index && lf->index->built_for == lf->nreadings)
		return;
	index_free(lf);
	struct kg_log_index *ix = kg_malloc(sizeof *ix);
	memset(ix, 0, sizeof *ix);
	ix->built_for = lf->nreadings;
	size_t count[4] = {0};
	for (size_t i = 0; i < lf->nreadings; i++)
		count[lf->readings[i].kind]++;
	for (int k = 0; k < 4; k++) {
		ix->k[k].idx = kg_malloc((count[k] ? count[k] : 1) * sizeof *ix->k[k].idx);
		ix->k[k].maxpos = kg_malloc((count[k] ? count[k] : 1) * sizeof *ix->k[k].maxpos);
	}
	for (size_t i = 0; i < lf->nreadings; i++) {
		lkind *K = &ix->k[lf->readings[i].kind];
		K->idx[K->n++] = (uint32_t)i;
	}
	for (int k = 0; k < 4; k++) {
		lkind *K = &ix->k[k];
		int64_t first[2] = {KG_NONE, KG_NONE};
		K->diff[0] = K->diff[1] = K->n;
		for (size_t p = 0; p < K->n; p++) {
			const kg_log_reading *r = &lf->readings[K->idx[p]];
			uint32_t best = p ? K->maxpos[p - 1] : 0;
			if (p && r->value.bytes > lf->readings[K->idx[best]].value.bytes)
				best = (uint32_t)p;
			K->maxpos[p] = best;
			for (int g = 0; g < 2; g++) {
				int64_t key = group_key(r, g);
				if (key == KG_NONE)
					continue;
				if (first[g] == KG_NONE)
					first[g] = key;
				else if (key != first[g] && K->diff[g] == K->n)
					K->diff[g] = p;
			}
		}
	}
	lf->index = ix;
}

/* One series of a kind: the points as a direct pass over all its readings
 * makes them (last reading of each run of one epoch or step, or every
 * reading), with where each starts. */
static const lgroup *group_of(const kg_log_facts *lf, lkind *K, int g)
{
	lgroup *G = &K->g[g];
	if (G->built)
		return G;
	size_t m = K->n ? K->n : 1;
	G->pts = kg_malloc(m * sizeof *G->pts);
	G->start = kg_malloc(m * sizeof *G->start);
	if (g != G_READING)
		G->lastkey = kg_malloc(m * sizeof *G->lastkey);
	for (size_t p = 0; p < K->n; p++) {
		const kg_log_reading *r = &lf->readings[K->idx[p]];
		double x;
		if (g == G_READING) {
			x = (double)G->np;
		} else {
			int64_t key = group_key(r, g);
			G->lastkey[p] = key != KG_NONE ? (uint32_t)p : p ? G->lastkey[p - 1] : UINT32_MAX;
			if (key == KG_NONE)
				continue;
			x = (double)key;
			if (G->np && G->pts[G->np - 1].x == x) {
				G->pts[G->np - 1].v = r->value;
				G->pts[G->np - 1].line = r->line;
				continue;
			}
		}
		G->pts[G->np] = (point){x, r->value, r->line};
		G->start[G->np++] = (uint32_t)p;
	}
	G->first_bad = G->np;
	for (size_t i = 1; i < G->np; i++)
		if (G->pts[i].v.hi < G->pts[i - 1].v.lo) {
			G->first_bad = i;
			break;
		}
	G->built = true;
	return G;
}

/* Number of entries of the sorted a[0..n) below v. */
static size_t below(const uint32_t *a, size_t n, size_t v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* 1000^p / 1024^p when the first, last and largest readings share the SI
 * power p and the largest, read as binary, exceeds the device's capacity
 * (cap, may be NULL: then 1); else 1. */
static double si_scale(const kg_log_reading *a, const kg_log_reading *b, const kg_log_reading *m,
		       const kg_fact *cap)
{
	if (!cap || !(cap->hi > 0) || !a->si || a->si != b->si || a->si != m->si ||
	    !((double)m->value.lo > cap->hi))
		return 1;
	return pow(1000.0 / 1024.0, a->si);
}

static kg_size scaled(kg_size s, double k)
{
	s.bytes = kg_clamp_i64(floor((double)s.bytes * k + 0.5));
	s.lo = kg_clamp_i64(floor((double)s.lo * k));
	s.hi = kg_clamp_i64(ceil((double)s.hi * k));
	return s;
}

void kg_facts_from_log(kg_log_facts *lf, const char *path, long before, kg_facts *f)
{
	if (!path)
		path = "<log>";
	/* the readings before line `before`: a prefix of them */
	size_t total = lf->nreadings;
	if (before > 0) {
		size_t lo = 0, hi = lf->nreadings;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (lf->readings[mid].line < before)
				lo = mid + 1;
			else
				hi = mid;
		}
		total = lo;
	}
	if (lf->parallel_jobs != KG_NONE && (before <= 0 || lf->parallel_line < before + PASTED_AFTER)) {
		char *prov = kg_asprintf("%s:%ld", path, lf->parallel_line);
		kg_facts_set_num(f, "log.parallel_jobs", KG_FACT_COUNT, (double)lf->parallel_jobs, prov);
		if (lf->parallel_kind)
			kg_facts_set_str(f, "log.parallel_source", lf->parallel_kind, prov);
		free(prov);
	}
	const kg_log_markers *mk = &lf->markers;
	/* the platform is the machine's: a line pasted after the error names
	 * it as well as one before */
	if (mk->platform && (before <= 0 || mk->platform_line < before + PASTED_AFTER)) {
		char *prov = kg_asprintf("%s:%ld", path, mk->platform_line);
		kg_facts_set_str(f, "log.platform", mk->platform, prov);
		kg_facts_set_str(f, "log.platform.text", mk->platform_text, prov);
		free(prov);
	}
	if (mk->tf_total_line && (before <= 0 || mk->tf_total_line < before)) {
		char *prov = kg_asprintf("%s:%ld", path, mk->tf_total_line);
		kg_facts_set_bytes(f, "log.tf.total", mk->tf_total, prov);
		if (kg_size_known(mk->tf_free))
			kg_facts_set_bytes(f, "log.tf.free", mk->tf_free, prov);
		free(prov);
	}
	/* the device's memory is the machine's: pasted after the error too */
	if (mk->driver_vram_line && (before <= 0 || mk->driver_vram_line < before + PASTED_AFTER)) {
		char *prov = kg_asprintf("%s:%ld", path, mk->driver_vram_line);
		kg_facts_set_num(f, "log.driver.vram", KG_FACT_BYTES, (double)mk->driver_vram, prov);
		free(prov);
	}
	if (mk->notebook_line && (before <= 0 || mk->notebook_line <= before)) {
		char *prov = kg_asprintf("%s:%ld", path, mk->notebook_line);
		kg_facts_set_num(f, "log.notebook", KG_FACT_BOOL, 1, prov);
		free(prov);
	}
	if (mk->tf_device_line && (before <= 0 || mk->tf_device_line < before)) {
		char *prov = kg_asprintf("%s:%ld", path, mk->tf_device_line);
		kg_facts_set_num(f, "log.tf.device", KG_FACT_BYTES, (double)mk->tf_device, prov);
		free(prov);
	}
	if (mk->nsmi || mk->smi_dev_line) {
		/* the GPU with the most processes listed (the first of a tie) */
		int best = -1, bestn = 0;
		for (int i = 0; i < mk->nsmi; i++) {
			int c = 0;
			for (int j = 0; j < mk->nsmi; j++)
				c += mk->smi[j].gpu == mk->smi[i].gpu;
			if (c > bestn)
				bestn = c, best = mk->smi[i].gpu;
		}
		if (bestn) {
			char *prov = kg_asprintf("%s:%ld", path, mk->smi_line);
			int64_t sum = 0, big = 0, compute = 0;
			size_t len = 0;
			char pids[200] = "";
			for (int i = 0; i < mk->nsmi; i++) {
				if (mk->smi[i].gpu != best)
					continue;
				sum += mk->smi[i].bytes;
				compute += mk->smi[i].compute;
				if (mk->smi[i].bytes > big)
					big = mk->smi[i].bytes;
				if (len + 24 < sizeof pids)
					len += (size_t)snprintf(pids + len, sizeof pids - len, "%s%lld",
								len ? ", " : "", (long long)mk->smi[i].pid);
			}
			kg_facts_set_num(f, "log.smi.processes", KG_FACT_COUNT, bestn, prov);
			kg_facts_set_num(f, "log.smi.compute", KG_FACT_COUNT, (double)compute, prov);
			kg_facts_set_num(f, "log.smi.gpu", KG_FACT_COUNT, best, prov);
			kg_facts_set_str(f, "log.smi.pids", pids, prov);
			kg_facts_set_num(f, "log.smi.listed", KG_FACT_BYTES, (double)sum, prov);
			/* whichever listed process is this one, the others hold at
			 * least the sum less the largest */
			kg_facts_set_num(f, "log.smi.others", KG_FACT_BYTES, (double)(sum - big), prov);
			free(prov);
		}
		if (mk->smi_dev_line) {
			char *prov = kg_asprintf("%s:%ld", path, mk->smi_dev_line);
			kg_facts_set_num(f, "log.smi.used", KG_FACT_BYTES, (double)mk->smi_used, prov);
			kg_facts_set_num(f, "log.smi.total", KG_FACT_BYTES, (double)mk->smi_total, prov);
			if (mk->smi_util >= 0)
				kg_facts_set_num(f, "log.smi.util", KG_FACT_RATIO, mk->smi_util / 100.0, prov);
			free(prov);
		}
	}
	kg_facts_from_modelinfo(lf->models, path, before, f);
	/* the reporter's words count wherever they are (prose often follows
	 * the pasted error) */
	const struct { const char *fact; long line; const char *text; } words[] = {
		{"log.words.late", mk->late_line, mk->late_text},
		{"log.words.batch_one", mk->batch1_line, mk->batch1_text},
		{"log.words.eval", mk->eval_line, mk->eval_text},
		{"log.words.leak", mk->leak_line, mk->leak_text},
		{"log.words.checkpoint", mk->ckpt_line, mk->ckpt_text},
		{"log.words.parallel", mk->par_line, mk->par_text},
		{"log.words.large_input", mk->large_line, mk->large_text},
		{"log.words.version_change", mk->ver_line, mk->ver_text},
	};
	for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
		if (!words[i].line)
			continue;
		char *prov = kg_asprintf("%s:%ld", path, words[i].line);
		kg_facts_set_str(f, words[i].fact, words[i].text, prov);
		free(prov);
	}
	if (!total) {
		kg_facts_derive(f);
		return;
	}
	index_build(lf);
	/* the series: the first kind (allocated, reserved, max …) seen */
	lkind *K = NULL;
	size_t c = 0;
	int kind = 0;
	for (; kind < 4; kind++) {
		K = &lf->index->k[kind];
		c = below(K->idx, K->n, total);
		if (c)
			break;
	}
	/* group: last reading per epoch, else per step, else every reading */
	bool by_epoch = K->diff[0] < c, by_step = !by_epoch && K->diff[1] < c;
	const kg_log_reading *rf = &lf->readings[K->idx[0]], *rl = &lf->readings[K->idx[c - 1]];
	const kg_log_reading *rm = &lf->readings[K->idx[K->maxpos[c - 1]]];
	kg_size first = rf->value, last = rl->value, mx = rm->value;
	/* "GB" in a user's print is 10^9 bytes as often as 2^30 (`x / 1e9` and
	 * `x / 1024**3` both appear; DeepSpeed's see_memory_usage divides by
	 * 1024^3): read as binary, unless that puts the largest reading above
	 * the device's capacity, which live memory cannot exceed (cudaMalloc
	 * returns device memory only); then the series is SI */
	double scale = si_scale(rf, rl, rm, kg_facts_get(f, "oom.total_capacity"));
	if (scale != 1) {
		first = scaled(first, scale);
		last = scaled(last, scale);
		mx = scaled(mx, scale);
	}
	long first_line = rf->line, last_line = rl->line, max_line = rm->line;
	const lgroup *G = group_of(lf, K, by_epoch ? G_EPOCH : by_step ? G_STEP : G_READING);
	/* the points before the prefix's end; the last one holds the last
	 * reading of its run inside the prefix */
	size_t np = below(G->start, G->np, c);
	point lastpt = {0};
	if (np) {
		lastpt = G->pts[np - 1];
		size_t p = G->lastkey ? G->lastkey[c - 1] : c - 1;
		const kg_log_reading *r = &lf->readings[K->idx[p]];
		lastpt.v = r->value;
		lastpt.line = r->line;
	}
	char *pl = kg_asprintf("%s:%ld", path, last_line);
	char *pf = kg_asprintf("%s:%ld", path, first_line);
	char *pm = kg_asprintf("%s:%ld", path, max_line);
	kg_facts_set_num(f, "log.readings.count", KG_FACT_COUNT, (double)total, pl);
	kg_facts_set_str(f, "log.allocated.kind", kind_names[kind], pl);
	kg_facts_set_bytes(f, "log.allocated.first", first, pf);
	kg_facts_set_bytes(f, "log.allocated.last", last, pl);
	kg_facts_set_bytes(f, "log.allocated.max", mx, pm);
	kg_facts_set_interval(f, "log.allocated.growth", KG_FACT_BYTES,
			      (double)(last.bytes - first.bytes), (double)(last.lo - first.hi),
			      (double)(last.hi - first.lo), pl);
	kg_facts_set_num(f, "log.allocated.points", KG_FACT_COUNT, (double)np, pl);
	kg_facts_set_str(f, "log.allocated.per", by_epoch ? "epoch" : by_step ? "step" : "reading", pl);
	if (np >= 2) {
		/* pairs among finished points from the index, the last one here */
		bool mono = G->first_bad >= np - 1 && !(lastpt.v.hi < G->pts[np - 2].v.lo);
		if (lastpt.v.lo <= G->pts[0].v.hi)
			mono = false;
		kg_facts_set_num(f, "log.allocated.monotonic", KG_FACT_BOOL, mono, pl);
		double sx = 0, sy = 0, sxx = 0, sxy = 0;
		for (size_t i = 0; i < np; i++) {
			const point *pt = i + 1 == np ? &lastpt : &G->pts[i];
			double y = (double)pt->v.bytes * scale;
			sx += pt->x;
			sy += y;
			sxx += pt->x * pt->x;
			sxy += pt->x * y;
		}
		double den = (double)np * sxx - sx * sx;
		if (den != 0 && (by_epoch || by_step)) {
			double slope = ((double)np * sxy - sx * sy) / den;
			kg_facts_set_num(f, by_epoch ? "log.allocated.growth_per_epoch"
					 : "log.allocated.growth_per_step",
					 KG_FACT_BYTES, round(slope), pl);
		}
	}
	free(pl);
	free(pf);
	free(pm);
	kg_facts_derive(f);
}

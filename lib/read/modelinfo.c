/* modelinfo.c — see include/read/modelinfo.h. Each reader first looks for
 * a literal with kg_memcasemem and runs its (lazily compiled) PCRE2 pattern
 * only on lines that have one. Sources of the forms: HF transformers'
 * TrainingArguments and from_pretrained keywords (torch_dtype,
 * load_in_8bit/load_in_4bit, device_map), PEFT's print_trainable_parameters
 * ("trainable params: N || all params: M || trainable%: x"), torchinfo and
 * Keras summaries ("Total params: N"), CompVis ldm ("X has N M params."),
 * llama.cpp's llm_load_print_meta / print_info ("model params = 6.74 B",
 * "n_layer = 32", "n_head_kv = 8", "n_embd_head_k = 128") and
 * llama_new_context_with_model ("n_ctx = 2048"), GGUF file types
 * (ggml-common.h block layouts), /proc/meminfo (proc(5)), free(1), Slurm
 * sbatch(1) --mem (megabytes without a unit), nvidia-smi(1)'s name column,
 * a card a report sizes in prose ("my humble 2GB GPU"). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "read/modelinfo.h"
#include "read/config.h"
#include "read/regex.h"
#include "model/paths.h"
#include "model/units.h"
#include "model/vocab.h"

#include <ctype.h>
#include <math.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define I PCRE2_CASELESS

/* The line being read, lower-cased (its first LC_MAX bytes): the readers'
 * literal prefilters search it with memmem. Set by kg_parse_modelinfo_cat;
 * the parser is not reentrant (nor are the scanner's others). */
#define LC_MAX 4096
static char lc[LC_MAX];
static size_t lcn;

static uint64_t lc_pairs[64]; /* a hash set of its byte pairs (4096 bits) */

static unsigned pair_hash(unsigned char a, unsigned char b)
{
	return (a * 67u + b) & 4095u;
}

static void lower_line(const char *s, size_t n)
{
	lcn = n < LC_MAX ? n : LC_MAX;
	memset(lc_pairs, 0, sizeof lc_pairs);
	for (size_t i = 0; i < lcn; i++) {
		lc[i] = (char)tolower((unsigned char)s[i]);
		if (i) {
			unsigned h = pair_hash((unsigned char)lc[i - 1], (unsigned char)lc[i]);
			lc_pairs[h / 64] |= UINT64_C(1) << (h % 64);
		}
	}
}

/* Whether the line holds w (lower-case), case-insensitively: its byte
 * pairs first (most lines have few of the words), then memmem. */
static bool has(const char *w)
{
	size_t L = strlen(w);
	for (size_t i = 1; i < L; i++) {
		unsigned h = pair_hash((unsigned char)w[i - 1], (unsigned char)w[i]);
		if (!(lc_pairs[h / 64] >> (h % 64) & 1))
			return false;
	}
	return memmem(lc, lcn, w, L) != NULL;
}

static bool has_any(const char *const *w, size_t nw)
{
	for (size_t i = 0; i < nw; i++)
		if (has(w[i]))
			return true;
	return false;
}

/* A count as printed: digits with ',' or '_' grouping, an optional
 * fraction. -1 when s[0..n) holds no digit. */
static double number(const char *s, size_t n)
{
	char buf[48];
	size_t o = 0;
	for (size_t i = 0; i < n && o + 1 < sizeof buf; i++)
		if (isdigit((unsigned char)s[i]) || s[i] == '.')
			buf[o++] = s[i];
		else if (s[i] != ',' && s[i] != '_')
			break;
	buf[o] = 0;
	if (!o || !isdigit((unsigned char)buf[0]))
		return -1;
	return strtod(buf, NULL);
}

/* The multiplier of a count's unit letter or word: K, M, B/G, T, million,
 * billion; 1 for none; 0 for anything else. */
static double unit_of(const char *u, size_t n)
{
	if (!n)
		return 1;
	switch (toupper((unsigned char)u[0])) {
	case 'K': return 1e3;
	case 'M': return 1e6;
	case 'B': case 'G': return 1e9;
	case 'T': return 1e12;
	}
	return 0;
}

/* ---- catalogues ------------------------------------------------------ */

/* s as lower-case letters and digits only. */
static char *squashed(const char *s)
{
	char *o = kg_malloc(strlen(s) + 1), *w = o;
	for (; *s; s++)
		if (isalnum((unsigned char)*s))
			*w++ = (char)tolower((unsigned char)*s);
	*w = 0;
	return o;
}

static void add_key(kg_catalogue_entry *e, const char *k)
{
	char *q = squashed(k);
	for (size_t i = 0; i < e->nkeys; i++)
		if (!strcmp(e->keys[i], q) || !*q) {
			free(q);
			return;
		}
	e->keys = kg_realloc(e->keys, (e->nkeys + 1) * sizeof *e->keys);
	e->keys[e->nkeys++] = q;
}

/* Entries of one registry file; `gpus` reads memory, else params. */
static int load_entries(kg_catalogue *c, const char *dir, bool gpus, kg_error *err)
{
	kg_registry r;
	if (kg_registry_load(dir, gpus ? "gpus.yaml" : "models.yaml", &r, err) < 0)
		return -1;
	for (size_t i = 0; i < r.n; i++) {
		const kg_registry_entry *x = &r.v[i];
		const char *name = kg_registry_get(x, "name");
		const char *num = kg_registry_get(x, gpus ? "memory" : "params");
		if (!name || !num)
			continue;
		double v;
		if (gpus) {
			kg_size sz;
			if (kg_size_parse_str(num, &sz) < 0 || sz.bytes <= 0)
				continue;
			v = (double)sz.bytes;
		} else {
			size_t L = strlen(num);
			size_t d = 0;
			while (d < L && (isdigit((unsigned char)num[d]) || num[d] == '.' || num[d] == ','))
				d++;
			double m = unit_of(num + d, L - d);
			v = number(num, d) * m;
			if (!(v > 0))
				continue;
		}
		kg_catalogue_entry **v_ = gpus ? &c->gpus : &c->models;
		size_t *n_ = gpus ? &c->ngpus : &c->nmodels;
		*v_ = kg_realloc(*v_, (*n_ + 1) * sizeof **v_);
		kg_catalogue_entry *e = &(*v_)[(*n_)++];
		memset(e, 0, sizeof *e);
		e->name = kg_strdup(name);
		e->value = v;
		e->context = -1;
		const char *src = kg_registry_get(x, "source");
		e->source = kg_strdup(src ? src : "");
		add_key(e, name);
		for (size_t k = 0; k < x->n; k++)
			if (!strcmp(x->keys[k], "aliases"))
				add_key(e, x->values[k]);
		const char *ctx = gpus ? NULL : kg_registry_get(x, "context");
		if (ctx) {
			char *q = squashed(ctx);
			size_t j = 0;
			while (j < c->ncontexts && strcmp(c->contexts[j], q))
				j++;
			if (j == c->ncontexts && j < 32) {
				c->contexts = kg_realloc(c->contexts, (j + 1) * sizeof *c->contexts);
				c->contexts[c->ncontexts++] = kg_strdup(q);
			}
			e->context = j < c->ncontexts ? (int)j : -1;
			free(q);
		}
		if (gpus && v > c->largest_gpu) {
			c->largest_gpu = v;
			c->largest_gpu_name = e->name;
		}
	}
	kg_registry_free(&r);
	return 0;
}

int kg_catalogue_load(kg_catalogue *c, const char *dir, kg_error *err)
{
	memset(c, 0, sizeof *c);
	if (load_entries(c, dir, false, err) < 0 || load_entries(c, dir, true, err) < 0) {
		kg_catalogue_free(c);
		return -1;
	}
	return 0;
}

static void free_entries(kg_catalogue_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		for (size_t k = 0; k < v[i].nkeys; k++)
			free(v[i].keys[k]);
		free(v[i].keys);
		free(v[i].source);
	}
	free(v);
}

void kg_catalogue_free(kg_catalogue *c)
{
	free_entries(c->models, c->nmodels);
	free_entries(c->gpus, c->ngpus);
	for (size_t i = 0; i < c->ncontexts; i++)
		free(c->contexts[i]);
	free(c->contexts);
	memset(c, 0, sizeof *c);
}

const kg_catalogue *kg_catalogue_shipped(void)
{
	static kg_catalogue cat;
	static bool ready;
	if (!ready) {
		kg_error err = {0};
		if (kg_catalogue_load(&cat, kg_rules_dir(), &err) < 0)
			memset(&cat, 0, sizeof cat);
		ready = true;
	}
	return &cat;
}

/* ---- matching catalogue names ------------------------------------------- */

/* A line as lower-case letters and digits, with each one's offset in the
 * line. */
typedef struct sq {
	char s[1024];
	uint16_t at[1024];
	size_t n;
	uint64_t pairs[21];  /* bit a*36+b: the characters a, b in a row */
} sq;

/* 0–9 for digits, 10–35 for letters (lower-case input). */
static int alnum_index(char c)
{
	return c <= '9' ? c - '0' : c - 'a' + 10;
}

static void squash_line(const char *s, size_t n, sq *q)
{
	q->n = 0;
	memset(q->pairs, 0, sizeof q->pairs);
	for (size_t i = 0; i < n && i < 65535 && q->n + 1 < sizeof q->s; i++)
		if (isalnum((unsigned char)s[i])) {
			q->s[q->n] = (char)tolower((unsigned char)s[i]);
			q->at[q->n++] = (uint16_t)i;
			if (q->n >= 2) {
				int k = alnum_index(q->s[q->n - 2]) * 36 + alnum_index(q->s[q->n - 1]);
				q->pairs[k / 64] |= UINT64_C(1) << (k % 64);
			}
		}
	q->s[q->n] = 0;
}

/* Whether key's first two characters are in a row in the line (a cheap
 * test before strstr: most keys' are not). */
static bool may_hold(const sq *q, const char *key)
{
	if (!key[0] || !key[1])
		return true;
	int k = alnum_index(key[0]) * 36 + alnum_index(key[1]);
	return q->pairs[k / 64] >> (k % 64) & 1;
}

/* The longest key of any entry found as a whole word of the line: the
 * character before it is not a letter, digit or '_', the one after it not a
 * letter or digit of the same run (a key ending in a digit must not go on
 * with a digit, one ending in a letter not with a letter: "A100" is no
 * "A10", "gpt2-xl" no "gpt2"). Keys of three characters or fewer ("T4",
 * "A2", "L4") must be upper case as written. Returns the entry index (-1
 * when none) and sets *from, *to (offsets in the line). */
static int best_match(const char *s, size_t n, const sq *q, const kg_catalogue_entry *v,
		      size_t nv, size_t *from, size_t *to)
{
	int best = -1;
	size_t blen = 0;
	for (size_t e = 0; e < nv; e++)
		for (size_t k = 0; k < v[e].nkeys; k++) {
			const char *key = v[e].keys[k];
			size_t kl = strlen(key);
			if (kl <= blen || !may_hold(q, key))
				continue;
			for (const char *p = q->s; (p = strstr(p, key)) != NULL; p++) {
				size_t a = (size_t)(p - q->s), b = a + kl - 1;
				size_t oa = q->at[a], ob = q->at[b];
				if (oa && (isalnum((unsigned char)s[oa - 1]) || s[oa - 1] == '_'))
					continue;
				if (ob + 1 < n) {
					unsigned char nx = (unsigned char)s[ob + 1];
					if ((isdigit(nx) && isdigit((unsigned char)s[ob])) ||
					    (isalpha(nx) && isalpha((unsigned char)s[ob])))
						continue;
				}
				bool upper_ok = true;
				if (kl <= 3)
					for (size_t i = a; i <= b; i++)
						upper_ok &= !islower((unsigned char)s[q->at[i]]);
				if (!upper_ok)
					continue;
				best = (int)e;
				blen = kl;
				*from = oa;
				*to = ob + 1;
				break;
			}
		}
	return best;
}

/* ---- patterns ------------------------------------------------------------ */

static kg_regex *re_printed, *re_count_first, *re_llama_params, *re_precision, *re_dtype_word, *re_bits,
	*re_gguf, *re_mlc, *re_train, *re_infer, *re_adapters, *re_split, *re_meminfo, *re_free,
	*re_slurm, *re_ram, *re_ram2, *re_kv, *re_gpu_mem, *re_gpu_sized, *re_standalone;

static void patterns(void)
{
	if (re_printed)
		return;
	/* "Total params: 124,439,808", "trainable params: 4,194,304 || all
	 * params: 6,742,609,920", "Number of parameters: 124.44M",
	 * "num_params = 1.2B" */
	re_printed = kg_regex_new_lazy(
		"\\b((?:non-)?trainable|total|all|number\\s+of|num|n)?[ _]*(?:model\\s+)?param(?:eter)?s?"
		"(?:\\s+count)?\\s*[:=]\\s*([0-9][0-9,_]*(?:\\.[0-9]+)?)\\s*(million|billion|[KMBGT](?![a-z]))?", I);
	/* "859.52 M params", "124 M     Total params", "7.1 M Trainable params" */
	re_count_first = kg_regex_new_lazy(
		"(?<![\\w.])([0-9][0-9,]*(?:\\.[0-9]+)?)\\s*([KMBGT]|million|billion)\\s+"
		"((?:non-)?trainable\\s+|total\\s+)?param(?:eter)?s\\b", I);
	/* llama.cpp: "model params     = 6.74 B" */
	re_llama_params = kg_regex_new_lazy("\\bmodel\\s+params\\s*=\\s*([0-9.]+)\\s*([KMBT])\\b", I);
	re_precision = kg_regex_new_lazy(
		"(?<![a-z0-9])(bfloat16|float16|float32|float8\\w*|fp16|bf16|fp32|fp8|fp4|nf4|int8|int4|"
		"w4a16|w8a8|awq|gptq)(?![a-z0-9])", I);
	/* a dtype given by its short name: vLLM's --dtype ("half" for FP16,
	 * "float" shorthand for FP32: vllm engine args), torch.float and
	 * torch.half (PyTorch's aliases of float32 and float16) */
	re_dtype_word = kg_regex_new_lazy(
		"(?:--dtype|\\b(?:torch_)?dtype)\\s*[=:]?\\s*[\"']?(?:torch\\.)?(float|half)(?![\\w.])", I);
	/* load_in_8bit, --load_8bit, 4bit, 8-bit; an optimizer's adamw_8bit,
	 * paged_adamw_8bit, Adam8bit is not the weights' */
	re_bits = kg_regex_new_lazy("(adam\\w*?|optim\\w*?)?[-_ ]?(?<![0-9])([48])[-_ ]?bit(?![a-z])", I);
	/* GGUF file types (llama.cpp ggml-common.h), Ollama tags */
	re_gguf = kg_regex_new_lazy(
		"(?<![a-z0-9])(i?q[1-8]_(?:k(?:_[sml]|_xl)?|[01]|xxs|xs|s|m|nl)|[fb]f?16)(?![a-z0-9])", I);
	re_mlc = kg_regex_new_lazy("(?<![a-z0-9])q([348])f(16|32)(?:_[0-9])?(?![a-z0-9])", I);
	/* training: a trainer, backward or an optimizer step, a training
	 * script, the reporter's "fine-tuning"/"fine-tune" (not "fine-tuned":
	 * a model tuned before the run that failed), or Adam named (an
	 * optimizer exists only where a model trains) */
	re_train = kg_regex_new_lazy(
		"--do[_-]train\\b|\\bdo_train\\s*[=:]\\s*true|trainer\\b|\\btrainer\\.train\\(|\\.backward\\(|"
		"\\boptimizer\\.step\\(|\\b\\w*(?:train|finetune|fine_tune|sft)\\w*\\.py\\b|"
		"(?<![a-z])fine[- ]?tun(?:e|es|ing)(?![a-z])|(?<![a-z])adamw?(?![a-z])", I);
	re_infer = kg_regex_new_lazy(
		"\\bgenerate(?:\\.py\\b|\\()|\\bpipeline\\(|\\bLLM\\(|\\bvllm\\b|\\bsglang\\b|\\bollama\\b|llama\\.cpp|"
		"\\bllama-(?:server|cli)\\b|\\bllama_(?:model_load|new_context|kv_cache|init)|\\bllm_load_\\w+:|"
		"\\bllama\\s+runner\\b|\\btxt2img\\b|"
		"\\binfer(?:ence)?\\b|\\binfer\\w*\\.(?:py|sh)\\b|\\btranscribe\\b|--do[_-]predict\\b|"
		"\\bmlc_chat|faster[-_]whisper|ctranslate2|"
		"\\bwhisper\\s+\\S+\\.(?:mp3|wav|m4a|flac|ogg|opus|mp4|mkv|webm)\\b", I);
	re_adapters = kg_regex_new_lazy("(?<![a-z0-9])(q?lora|peft|adapters?|p-tuning|prefix[-_]tuning)(?![a-z])", I);
	re_split = kg_regex_new_lazy(
		"(device_map)\\s*[=:]\\s*[\"']?(auto|balanced(?:_low_0)?|sequential)|"
		"((?:tensor|pipeline)[_-]parallel[_-]size)\\s*[=:\\s]\\s*(?:[2-9]|[1-9][0-9])\\b|"
		"\\b(deepspeed|zero[_-]?(?:stage|optimization|[23])|fsdp|fullyshardeddataparallel)\\b|"
		"(model parallel) with size (?:[2-9]|[1-9][0-9])\\b|"
		"(offload)", I);
	re_meminfo = kg_regex_new_lazy("\\bMemTotal:\\s*([0-9]+)\\s*kB\\b", 0);
	/* free(1): "Mem:  15Gi 2.1Gi …" (-h), "Mem: 16318412 …" (KiB) */
	re_free = kg_regex_new_lazy("Mem:\\s+([0-9]+(?:\\.[0-9]+)?)([KMGT]i?|[KMGT]B)?\\s", 0);
	/* sbatch/srun --mem=64G, #SBATCH --mem 32000 (MB without a unit) */
	re_slurm = kg_regex_new_lazy("--mem(?:\\s*=\\s*|\\s+)([0-9]+)([KMGT])?\\b", 0);
	/* "32 GB RAM", "16GB of system RAM"; not VRAM or GPU RAM */
	re_ram = kg_regex_new_lazy(
		"(?<![\\w.])([0-9]+(?:\\.[0-9]+)?)\\s*((?i:GB|GiB|G|TB))\\s+(?:of\\s+)?(?:system\\s+|host\\s+|CPU\\s+|"
		"physical\\s+|DDR[0-9]\\s+)?(?<![Vv])(?:RAM|ram|Ram)\\b", 0);
	re_ram2 = kg_regex_new_lazy("(?<![\\w-])(?<!GPU )RAM\\s*[:=]\\s*([0-9]+(?:\\.[0-9]+)?)\\s*(GB|GiB|G|TB)\\b", 0);
	/* n_layer = 32, "num_key_value_heads": 8, max_model_len=4096 */
	re_kv = kg_regex_new_lazy(
		"(?<![a-z0-9_])(n_layers?|num_hidden_layers|num_layers|n_head_kv|num_key_value_heads|n_kv_heads|"
		"n_heads?|num_attention_heads|n_embd_head_k|head_dim|n_embd|hidden_size|d_model|"
		"n_ctx|max_model_len|max_seq_len|ctx[_-]size)[\"']?\\s*[:=]\\s*([0-9]+)\\b", I);
	/* after a GPU's name: "-SXM2-16GB", " 80GB", "-PCIE-40GB", " (24 GB)" */
	re_gpu_mem = kg_regex_new_lazy("[-_ ]?(?:(?:SXM[0-9]|PCI[Ee]|NVL)[-_ ]?)?\\(?([0-9]{1,3})\\s?GB\\b",
				       PCRE2_ANCHORED);
	/* a card sized in prose, as what someone has: "my humble 2GB GPU",
	 * "I have 6GB memory GPU", "having 3 GB of video memory", "with 2GB
	 * dedicated memory", "GPU memory is 2G", "a GPU with 8 GB"; not what
	 * something uses, needs or leaves ("uses 3 GB GPU memory", "needs 12GB
	 * VRAM", "the GPU has 2GB free"), host RAM ("8 GB RAM"), nor a
	 * message's figures ("2.00 GiB (GPU 0; …") */
	re_gpu_sized = kg_regex_new_lazy(
		"\\b(?:my|a|an|the|with|have|has|having|had|only|own|our|single|one)\\s+"
		"(?:(?!(?:needs?|requires?|uses?|using|used|takes?|took|consumes?|occup\\w*|allocat\\w*|reserv\\w*|free|left"
		"|available|remaining|rest|about|over|under|than)\\b)[\\w-]+\\s+){0,2}?"
		"([0-9]{1,3}(?:\\.[0-9])?)\\s?(?:GB|GiB|Gb|G)\\s+(?:of\\s+)?(?:memory\\s+|dedicated\\s+|graphics?\\s+|video\\s+|gpu\\s+)?"
		"(?:VRAM|video\\s+memory|graphics?\\s+memory|GPU\\s+memory|dedicated\\s+(?:video\\s+|GPU\\s+)?memory|(?:GPU|graphics\\s+card|video\\s+card)s?\\b)"
		"|\\b(?:GPU|VRAM|graphics\\s+card|video\\s+card)\\s+(?:memory\\s+)?(?:is|has|with|of)\\s+(?:only\\s+|just\\s+)?([0-9]{1,3})\\s?(?:GB|GiB|Gb|G)\\b"
		"(?!\\s+(?:of\\s+)?(?:system\\s+|host\\s+)?RAM|\\s+(?:free|left|available|used|in\\s+use)\\b)", I);
	/* "the 70B model", "a 7B-parameter model" */
	re_standalone = kg_regex_new_lazy(
		"(?<![\\w.-])([0-9]{1,4}(?:\\.[0-9]{1,3})?)\\s?((?-i:[BM]))(?:-|\\s+)(?:param|model|LLM)", I);
}

static bool group(const kg_match *m, const char *s, int i, const char **p, size_t *len)
{
	return kg_match_group(m, s, i, p, len) && *len;
}

/* ---- what a line says ------------------------------------------------------ */

void kg_model_signs_init(kg_model_signs *m)
{
	memset(m, 0, sizeof *m);
}

/* Records a model mention: the same name and size again only moves its
 * line (the last mention counts); past KG_MODEL_MENTIONS, dropped. */
static int add_model(kg_model_signs *m, const char *name, size_t nl, double v, double lo, double hi,
		     const char *how, int entry, long line)
{
	char nm[sizeof m->model[0].name];
	snprintf(nm, sizeof nm, "%.*s", (int)nl, name);
	for (int i = 0; i < m->nmodel; i++)
		if (m->model[i].params == v && !strcmp(m->model[i].name, nm)) {
			m->model[i].line = line;
			return 1;
		}
	if (m->nmodel >= KG_MODEL_MENTIONS)
		return 0;
	kg_model_mention *x = &m->model[m->nmodel++];
	snprintf(x->name, sizeof x->name, "%s", nm);
	x->params = v;
	x->lo = lo;
	x->hi = hi;
	x->how = how;
	x->entry = entry;
	x->line = line;
	return 1;
}

static bool tok_char(char c)
{
	return isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-' || c == ':' || c == '/' ||
	       c == '+';
}

/* A size written in a name: a separator, digits (with a fraction), b/B
 * (billions) or m/M (millions), then the end of the name or a separator:
 * "llama-2-7b", "Llama-2-13b-chat-hf", "llama3:70b-instruct",
 * "Meta-Llama-3.1-70B-Instruct-Q4_K_L.gguf", "models/7B/", "opt-1.3b",
 * "bloom-560m". The name before it has two letters in a row. Names round
 * ("gemma-7b" has 8.5 B, "stablelm-3b" 2.8 B, "opt-350m" 331 M): the
 * interval is 0.92–1.3 ×. */
static int sizes_in_names(const char *s, size_t n, long line, kg_model_signs *m)
{
	int got = 0;
	for (size_t a = 0; a < n;) {
		while (a < n && !tok_char(s[a]))
			a++;
		size_t b = a;
		/* where the token first has two letters in a row: a name starts
		 * there (a number, a hash or a tensor dump never does) */
		size_t named = 0;
		while (b < n && tok_char(s[b])) {
			if (!named && b > a && isalpha((unsigned char)s[b]) && isalpha((unsigned char)s[b - 1]))
				named = b;
			b++;
		}
		for (size_t i = named + 1; named && i < b; i++) {
			char before = s[i - 1];
			if (!isdigit((unsigned char)s[i]) || !(before == '-' || before == '_' || before == ':' || before == '/'))
				continue;
			size_t j = i;
			while (j < b && isdigit((unsigned char)s[j]))
				j++;
			if (j + 1 < b && s[j] == '.' && isdigit((unsigned char)s[j + 1]))
				for (j++; j < b && isdigit((unsigned char)s[j]); j++)
					;
			char u = j < b ? s[j] : 0, after = j + 1 < b ? s[j + 1] : '-';
			if (!(u == 'b' || u == 'B' || u == 'm' || u == 'M') ||
			    !(after == '-' || after == '_' || after == '.' || after == '/' || after == ':'))
				continue;
			double v = strtod(s + i, NULL);
			bool billions = s[j] == 'b' || s[j] == 'B';
			if (billions ? !(v >= 0.1 && v <= 2000) : !(v >= 10 && v < 10000))
				continue;
			v *= billions ? 1e9 : 1e6;
			/* the path part that holds the size, with the one before it
			 * when it is the size alone ("models/7B") */
			size_t ps = i, pe = j + 1;
			while (ps > a && s[ps - 1] != '/')
				ps--;
			while (pe < b && s[pe] != '/')
				pe++;
			if (ps == i && ps > a + 1) {
				size_t q = ps - 1;
				while (q > a && s[q - 1] != '/')
					q--;
				ps = q;
			}
			got |= add_model(m, s + ps, pe - ps, v, 0.92 * v, 1.3 * v, "name", -1, line);
			break;
		}
		a = b;
	}
	/* "the 70B model", "a 7B-parameter model" */
	kg_match mt;
	if (has("param") || has("model") || has("llm")) {
		size_t at = 0;
		while (kg_regex_match(re_standalone, s, n, at, &mt)) {
			const char *p, *u;
			size_t pl, ul;
			if (group(&mt, s, 1, &p, &pl) && group(&mt, s, 2, &u, &ul)) {
				double v = number(p, pl) * (u[0] == 'B' ? 1e9 : 1e6);
				if (v >= 1e7 && v <= 2e12)
					got |= add_model(m, p, (size_t)(u + ul - p), v, 0.92 * v, 1.3 * v, "name", -1, line);
			}
			at = mt.eo[0] > at ? mt.eo[0] : at + 1;
		}
	}
	return got;
}

/* Printed parameter counts. */
static int printed_counts(const char *s, size_t n, long line, kg_model_signs *m)
{
	if (!has("param"))
		return 0;
	int got = 0;
	kg_match mt;
	const kg_regex *res[] = {re_printed, re_count_first, re_llama_params};
	for (int r = 0; r < 3; r++) {
		size_t at = 0;
		while (kg_regex_match(res[r], s, n, at, &mt)) {
			at = mt.eo[0] > at ? mt.eo[0] : at + 1;
			const char *q = NULL, *p, *u = NULL;
			size_t ql = 0, pl, ul = 0;
			int num = r == 0 ? 2 : 1, unit = r == 0 ? 3 : 2, qual = r == 0 ? 1 : r == 1 ? 3 : 0;
			if (!group(&mt, s, num, &p, &pl))
				continue;
			if (qual)
				group(&mt, s, qual, &q, &ql);
			group(&mt, s, unit, &u, &ul);
			double mult = unit_of(u, ul), v = number(p, pl) * mult;
			if (!(mult > 0) || !(v >= 1000) || v > 1e14)
				continue;
			bool non = q && kg_memcasemem(q, ql, "non", 3);
			bool trainable = q && kg_memcasemem(q, ql, "trainable", 9);
			if (non)
				continue;
			if (trainable) {
				m->trainable = v;
				m->trainable_line = line;
				got = 1;
				continue;
			}
			/* a figure printed with its unit rounds like a name's last digit */
			double d = 0.5 * mult;
			for (size_t k = 0; k < pl; k++)
				if (p[k] == '.')
					d = 0.5 * mult * pow(10, -(double)(pl - k - 1));
			got |= add_model(m, "printed count", 13, v, v - d, v + d, "printed", -1, line);
		}
	}
	return got;
}

/* GGUF types' bits per weight (ggml-common.h: block_q4_K is 144 bytes per
 * 256 weights, block_q8_0 34 per 32, …); 0 when unknown. */
static double gguf_bits(const char *t, size_t n)
{
	char w[16];
	size_t k = 0;
	for (size_t i = 0; i < n && k + 1 < sizeof w; i++)
		w[k++] = (char)tolower((unsigned char)t[i]);
	w[k] = 0;
	if (strstr(w, "16"))
		return 16;
	bool iq = w[0] == 'i';
	int d = w[iq ? 1 : 0] == 'q' ? w[iq ? 2 : 1] - '0' : 0;
	if (iq)
		return d == 1 ? 1.5625 : d == 2 ? 2.0625 : d == 3 ? 3.0625 : d == 4 ? 4.25 : 0;
	bool kq = strchr(w, 'k') != NULL;
	const char *tail = strchr(w, '_');
	int sub = tail && isdigit((unsigned char)tail[1]) ? tail[1] - '0' : -1;
	switch (d) {
	case 2: return 2.625;
	case 3: return 3.4375;
	case 4: return kq ? 4.5 : sub == 1 ? 5.0 : 4.5;
	case 5: return kq ? 5.5 : sub == 1 ? 6.0 : 5.5;
	case 6: return 6.5625;
	case 8: return 8.5;
	}
	return 0;
}

static void set_precision(kg_model_signs *m, const char *t, size_t n, double width, long line)
{
	if (!(width > 0) || (m->width > 0 && m->width <= width))
		return;
	snprintf(m->precision, sizeof m->precision, "%.*s", (int)n, t);
	m->width = width;
	m->precision_line = line;
}

static int precision(const char *s, size_t n, long line, kg_model_signs *m)
{
	static const char *const pre[] = {"16", "32", "fp8", "float8", "fp4", "nf4", "int8", "int4",
					  "bit", "awq", "gptq", "w4a", "w8a", "q2", "q3", "q4", "q5",
					  "q6", "q8", "dtype"};
	if (!has_any(pre, sizeof pre / sizeof *pre))
		return 0;
	double before = m->width;
	bool optim = m->optim_8bit;
	kg_match mt;
	const char *p, *o;
	size_t pl, ol;
	size_t at = 0;
	while (kg_regex_match(re_precision, s, n, at, &mt)) {
		at = mt.eo[0] > at ? mt.eo[0] : at + 1;
		if (!group(&mt, s, 1, &p, &pl))
			continue;
		char c = (char)tolower((unsigned char)p[pl - 1]);
		double w = kg_memcasemem(p, pl, "32", 2) ? 4
			 : kg_memcasemem(p, pl, "16", 2) ? 2
			 : kg_memcasemem(p, pl, "8", 1) ? 1
			 : (c == '4' || kg_memcasemem(p, pl, "awq", 3) || kg_memcasemem(p, pl, "gptq", 4) ||
			    kg_memcasemem(p, pl, "w4a", 3)) ? 0.5 : 0;
		set_precision(m, p, pl, w, line);
	}
	at = 0;
	while (kg_regex_match(re_dtype_word, s, n, at, &mt)) {
		at = mt.eo[0] > at ? mt.eo[0] : at + 1;
		if (group(&mt, s, 1, &p, &pl))
			set_precision(m, p, pl, tolower((unsigned char)p[0]) == 'f' ? 4 : 2, line);
	}
	at = 0;
	while (kg_regex_match(re_bits, s, n, at, &mt)) {
		at = mt.eo[0] > at ? mt.eo[0] : at + 1;
		if (!group(&mt, s, 2, &p, &pl))
			continue;
		if (group(&mt, s, 1, &o, &ol)) {
			if (p[0] == '8' && !m->optim_8bit) {
				m->optim_8bit = true;
				m->optim_line = line;
			}
			continue;
		}
		set_precision(m, p[0] == '8' ? "8-bit" : "4-bit", 5, p[0] == '8' ? 1 : 0.5, line);
	}
	at = 0;
	while (kg_regex_match(re_gguf, s, n, at, &mt)) {
		at = mt.eo[0] > at ? mt.eo[0] : at + 1;
		if (group(&mt, s, 1, &p, &pl))
			set_precision(m, p, pl, gguf_bits(p, pl) / 8, line);
	}
	at = 0;
	while (kg_regex_match(re_mlc, s, n, at, &mt)) {
		at = mt.eo[0] > at ? mt.eo[0] : at + 1;
		if (group(&mt, s, 1, &p, &pl))
			set_precision(m, s + mt.so[0], mt.eo[0] - mt.so[0], (p[0] - '0') / 8.0, line);
	}
	return m->width != before || m->optim_8bit != optim;
}

/* The engine an inference match names, with its priority (Ollama runs
 * llama.cpp and prints its lines: Ollama first). */
static const char *engine_of(const char *t, size_t n, int *prio)
{
	/* the words are log text (not vocabulary); vLLM's engine word is the
	 * framework's */
	/* engine: a word of its own, or NULL for the framework's word fw */
	static const struct { const char *w; const char *engine; int fw; int prio; } e[] = {
		{"ollama", "ollama", -1, 5}, {"vllm", NULL, KG_FRAMEWORK_VLLM, 4}, /* not vocabulary */
		{"llama runner", "ollama", -1, 5}, /* Ollama's runner process; not vocabulary */
		{"llm_load_", "llama.cpp", -1, 3},
		{"llm(", NULL, KG_FRAMEWORK_VLLM, 4},
		{"sglang", NULL, KG_FRAMEWORK_SGLANG, 4}, /* not vocabulary: log text */
		{"llama", "llama.cpp", -1, 3},
		{"whisper", NULL, KG_FRAMEWORK_CTRANSLATE2, 2},
		{"ctranslate2", NULL, KG_FRAMEWORK_CTRANSLATE2, 2}, /* not vocabulary: log text */
		{"mlc_chat", "mlc", -1, 2},
	};
	for (size_t i = 0; i < sizeof e / sizeof *e; i++)
		if (kg_memcasemem(t, n, e[i].w, strlen(e[i].w))) {
			*prio = e[i].prio;
			return e[i].engine ? e[i].engine : kg_frameworks.words[e[i].fw];
		}
	*prio = 0;
	return NULL;
}

static int mode_and_setup(const char *s, size_t n, long line, kg_model_signs *m)
{
	int got = 0;
	kg_match mt;
	/* not vocabulary: log text */
	static const char *const train_w[] = {"train", /* not vocabulary */
					      "optimizer.step", "finetun", "fine_tune", "fine-tun", "fine tun",
					      "sft", ".backward(", "adam"};
	if (has_any(train_w, sizeof train_w / sizeof *train_w) && kg_regex_match(re_train, s, n, 0, &mt)) {
		if (!m->mode || strcmp(m->mode, KG_MODE_WORD(TRAIN))) {
			m->mode = KG_MODE_WORD(TRAIN);
			m->mode_line = line;
		}
		got = 1;
	}
	static const char *const infer_w[] = {"generate", "pipeline(", "llm(", "vllm", "llama", "llm_load_", "txt2img", /* not vocabulary: log text */
					      "infer", "transcribe", "predict", "mlc_chat", "whisper",
					      "ctranslate2", /* not vocabulary: log text */
					      "sglang"}; /* not vocabulary: log text */
	size_t at = 0;
	while (has_any(infer_w, sizeof infer_w / sizeof *infer_w) &&
	       kg_regex_match(re_infer, s, n, at, &mt)) {
		at = mt.eo[0] > at ? mt.eo[0] : at + 1;
		if (!m->mode) {
			m->mode = "infer";
			m->mode_line = line;
		}
		int prio, old = 0;
		const char *e = engine_of(s + mt.so[0], mt.eo[0] - mt.so[0], &prio);
		if (m->engine)
			engine_of(m->engine, strlen(m->engine), &old);
		if (e && prio > old) {
			m->engine = e;
			m->engine_line = line;
		}
		got = 1;
	}
	const char *p;
	size_t pl;
	static const char *const ad_w[] = {"lora", "peft", "adapter", "tuning"};
	if (!m->adapters_line && has_any(ad_w, 4) && kg_regex_match(re_adapters, s, n, 0, &mt) &&
	    group(&mt, s, 1, &p, &pl)) {
		snprintf(m->adapters, sizeof m->adapters, "%.*s", (int)pl, p);
		m->adapters_line = line;
		got = 1;
	}
	static const char *const split_w[] = {"device_map", "parallel", "deepspeed", "zero", "fsdp",
					      "fullysharded", "offload"};
	if (!m->split_line && has_any(split_w, sizeof split_w / sizeof *split_w) &&
	    kg_regex_match(re_split, s, n, 0, &mt)) {
		const char *v = "";
		size_t vl = 0;
		group(&mt, s, 2, &v, &vl); /* device_map's value */
		for (int g = 1; g <= 6; g++)
			if (g != 2 && group(&mt, s, g, &p, &pl)) {
				snprintf(m->split, sizeof m->split, "%.*s%s%.*s", (int)pl, p, g == 1 ? "=" : "",
					 g == 1 ? (int)vl : 0, v);
				break;
			}
		m->split_line = line;
		got = 1;
	}
	if (!m->optim_sgd && kg_memcasemem(s, n, "sgd", 3)) {
		const char *q = kg_memcasemem(s, n, "sgd", 3);
		bool word = (q == s || !isalnum((unsigned char)q[-1])) &&
			    (q + 3 == s + n || !isalpha((unsigned char)q[3]));
		if (word) {
			m->optim_sgd = true;
			m->optim_line = line;
			got = 1;
		}
	}
	return got;
}

static void set_ram(kg_model_signs *m, double bytes, const char *how, long line)
{
	if (!(bytes >= 256.0 * 1024 * 1024) || (m->host_ram > 0 && m->host_ram <= bytes))
		return;
	m->host_ram = bytes;
	m->host_ram_how = how;
	m->host_ram_line = line;
}

static double binary_unit(const char *u, size_t n, double none)
{
	if (!n)
		return none;
	switch (toupper((unsigned char)u[0])) {
	case 'K': return 1024.0;
	case 'M': return 1024.0 * 1024;
	case 'G': return 1024.0 * 1024 * 1024;
	case 'T': return 1024.0 * 1024 * 1024 * 1024;
	}
	return 0;
}

static int host_ram(const char *s, size_t n, long line, kg_model_signs *m)
{
	static const char *const pre[] = {"memtotal", "mem:", "--mem", "ram"};
	if (!has_any(pre, 4))
		return 0;
	double before = m->host_ram;
	kg_match mt;
	const char *p, *u;
	size_t pl, ul;
	if (kg_regex_match(re_meminfo, s, n, 0, &mt) && group(&mt, s, 1, &p, &pl))
		set_ram(m, number(p, pl) * 1024, "MemTotal", line);
	if (kg_regex_match(re_free, s, n, 0, &mt) && group(&mt, s, 1, &p, &pl)) {
		bool unit = group(&mt, s, 2, &u, &ul);
		double v = number(p, pl);
		if (unit)
			set_ram(m, v * binary_unit(u, ul, 1024), "free", line);
		else if (v >= 100000)
			set_ram(m, v * 1024, "free", line); /* free's default unit: KiB */
	}
	if (kg_regex_match(re_slurm, s, n, 0, &mt) && group(&mt, s, 1, &p, &pl)) {
		bool unit = group(&mt, s, 2, &u, &ul);
		set_ram(m, number(p, pl) * (unit ? binary_unit(u, ul, 1) : 1024.0 * 1024), "Slurm --mem", line);
	}
	const kg_regex *ram[] = {re_ram, re_ram2};
	for (int r = 0; r < 2; r++)
		if (kg_regex_match(ram[r], s, n, 0, &mt) && group(&mt, s, 1, &p, &pl) &&
		    group(&mt, s, 2, &u, &ul))
			set_ram(m, number(p, pl) * binary_unit(u, ul, 1), "RAM", line);
	return m->host_ram != before;
}

static int kv_shape(const char *s, size_t n, long line, kg_model_signs *m)
{
	static const char *const pre[] = {"n_layer", "layers", "n_head", "heads", "n_embd", "head_dim",
					  "hidden_size", "d_model", "n_ctx", "model_len", "seq_len",
					  "ctx_size", "ctx-size"};
	if (!has_any(pre, sizeof pre / sizeof *pre))
		return 0;
	static const struct { const char *key; size_t off; } keys[] = {
		{"n_layer", offsetof(kg_model_signs, layers)}, {"n_layers", offsetof(kg_model_signs, layers)},
		{"num_hidden_layers", offsetof(kg_model_signs, layers)},
		{"num_layers", offsetof(kg_model_signs, layers)},
		{"n_head_kv", offsetof(kg_model_signs, kv_heads)},
		{"num_key_value_heads", offsetof(kg_model_signs, kv_heads)},
		{"n_kv_heads", offsetof(kg_model_signs, kv_heads)},
		{"n_head", offsetof(kg_model_signs, heads)}, {"n_heads", offsetof(kg_model_signs, heads)},
		{"num_attention_heads", offsetof(kg_model_signs, heads)},
		{"n_embd_head_k", offsetof(kg_model_signs, head_dim)},
		{"head_dim", offsetof(kg_model_signs, head_dim)},
		{"n_embd", offsetof(kg_model_signs, hidden)}, {"hidden_size", offsetof(kg_model_signs, hidden)},
		{"d_model", offsetof(kg_model_signs, hidden)}, {"n_ctx", offsetof(kg_model_signs, context)},
		{"max_model_len", offsetof(kg_model_signs, context)},
		{"max_seq_len", offsetof(kg_model_signs, context)},
		{"ctx_size", offsetof(kg_model_signs, context)}, {"ctx-size", offsetof(kg_model_signs, context)},
	};
	int got = 0;
	kg_match mt;
	size_t at = 0;
	while (kg_regex_match(re_kv, s, n, at, &mt)) {
		at = mt.eo[0] > at ? mt.eo[0] : at + 1;
		const char *k, *v;
		size_t kl, vl;
		if (!group(&mt, s, 1, &k, &kl) || !group(&mt, s, 2, &v, &vl))
			continue;
		double x = number(v, vl);
		if (!(x >= 1 && x <= 1e8))
			continue;
		for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
			if (strlen(keys[i].key) == kl && !strncasecmp(keys[i].key, k, kl)) {
				*(int64_t *)((char *)m + keys[i].off) = (int64_t)x;
				m->kv_line = line;
				got = 1;
				break;
			}
	}
	return got;
}

/* Keeps a GPU mention: its name as written (the first 63 bytes of
 * name[0..len)), its memory in bytes, whether the text stated it. 1 when
 * kept; 0 for a name already kept or past KG_GPU_MENTIONS. */
static int add_gpu(kg_model_signs *m, const char *name, size_t len, double bytes, bool stated, long line)
{
	char nm[64];
	snprintf(nm, sizeof nm, "%.*s", (int)(len < 63 ? len : 63), name);
	for (int i = 0; i < m->ngpu; i++)
		if (!strcmp(m->gpu[i].name, nm))
			return 0;
	if (m->ngpu >= KG_GPU_MENTIONS)
		return 0;
	snprintf(m->gpu[m->ngpu].name, sizeof m->gpu[0].name, "%s", nm);
	m->gpu[m->ngpu].bytes = bytes;
	m->gpu[m->ngpu].stated = stated;
	m->gpu[m->ngpu++].line = line;
	return 1;
}

/* GPU names from the catalogue, with the memory a name states. */
static int gpu_names(const char *s, size_t n, const sq *q, long line, kg_model_signs *m,
		     const kg_catalogue *cat)
{
	static const char *const pre[] = {"nvidia", "tesla", "geforce", "quadro", "rtx", "gtx", "radeon",
					  "instinct", "gpu", "titan", "a100", "h100", "h200", "h800",
					  "v100", "a800", "a10g", "a6000", "a5000", "a4000", "l40", "mi3",
					  "mi2", "mi1", "mi50", "arc a", "max 1550", "b200", "b300", "mx1", "mx2",
					  "mx3", "mx4", "0 ti", "0ti"};
	if (!cat->ngpus || !has_any(pre, sizeof pre / sizeof *pre))
		return 0;
	size_t from, to;
	int e = best_match(s, n, q, cat->gpus, cat->ngpus, &from, &to);
	if (e < 0)
		return 0;
	double bytes = cat->gpus[e].value;
	bool stated = false;
	kg_match mt;
	const char *p;
	size_t pl;
	if (kg_regex_match(re_gpu_mem, s, n, to, &mt) && group(&mt, s, 1, &p, &pl)) {
		double gib = number(p, pl) * 1024.0 * 1024 * 1024;
		if (gib >= 1024.0 * 1024 * 1024 && gib <= bytes) {
			bytes = gib;
			stated = true;
		}
	}
	/* the name as written, to the end of its word */
	size_t end = to;
	while (end < n && (isalnum((unsigned char)s[end]) || s[end] == '-' || s[end] == '_'))
		end++;
	return add_gpu(m, s + from, end - from, bytes, stated, line);
}

/* A card the report sizes in prose (re_gpu_sized): kept as a GPU mention
 * named by the phrase, its memory as stated (1-200 GiB). */
static int gpu_sized(const char *s, size_t n, long line, kg_model_signs *m)
{
	static const char *const pre[] = {"gpu", "vram", "video", "graphics", "dedicated"};
	if (!has_any(pre, sizeof pre / sizeof *pre))
		return 0;
	kg_match mt;
	const char *p, *w;
	size_t pl, wl;
	bool size_first = false;
	if (!kg_regex_match(re_gpu_sized, s, n, 0, &mt) || !group(&mt, s, 0, &w, &wl) ||
	    !((size_first = group(&mt, s, 1, &p, &pl)) || group(&mt, s, 2, &p, &pl)))
		return 0;
	double gib = number(p, pl);
	if (!(gib >= 1 && gib <= 200))
		return 0;
	/* named from the size on ("2GB GPU"), or the whole "GPU memory is 2G" */
	if (size_first) {
		wl -= (size_t)(p - w);
		w = p;
	}
	return add_gpu(m, w, wl, gib * 1024.0 * 1024 * 1024, true, line);
}

int kg_parse_modelinfo_cat(const char *s, size_t n, long lineno, kg_model_signs *m,
			   const kg_catalogue *cat)
{
	if (!n || !m)
		return 0;
	/* what a log says about its model is in a line's first 4 KiB (a
	 * command line, an argument dump); beyond is a data dump (tensors,
	 * progress redraws) */
	if (n > LC_MAX)
		n = LC_MAX;
	/* a traceback's file header names a code file, not the model */
	const char *f = memmem(s, n, "File \"", 6);
	if (f && memmem(f, (size_t)(s + n - f), "\", line ", 8))
		return 0;
	patterns();
	lower_line(s, n);
	int got = 0;
	sq q;
	squash_line(s, n, &q);
	for (size_t i = 0; i < cat->ncontexts; i++)
		if (!(m->contexts & (1u << i)) && strstr(q.s, cat->contexts[i]))
			m->contexts |= 1u << i;
	size_t from, to;
	int e = best_match(s, n, &q, cat->models, cat->nmodels, &from, &to);
	if (e >= 0) {
		double v = cat->models[e].value;
		got |= add_model(m, cat->models[e].name, strlen(cat->models[e].name), v, 0.97 * v, 1.03 * v,
				 "catalogue", e, lineno);
	}
	got |= sizes_in_names(s, n, lineno, m);
	got |= printed_counts(s, n, lineno, m);
	got |= precision(s, n, lineno, m);
	got |= mode_and_setup(s, n, lineno, m);
	got |= host_ram(s, n, lineno, m);
	got |= kv_shape(s, n, lineno, m);
	got |= gpu_names(s, n, &q, lineno, m, cat);
	got |= gpu_sized(s, n, lineno, m);
	return got ? 1 : 0;
}

int kg_parse_modelinfo(const char *s, size_t n, long lineno, kg_model_signs *m)
{
	return kg_parse_modelinfo_cat(s, n, lineno, m, kg_catalogue_shipped());
}

/* ---- facts ------------------------------------------------------------------ */

static bool counts(const kg_model_mention *x, const kg_model_signs *m, const kg_catalogue *cat)
{
	if (x->entry < 0 || (size_t)x->entry >= cat->nmodels)
		return true;
	int c = cat->models[x->entry].context;
	return c < 0 || (m->contexts & (1u << c));
}

/* The model of an incident at line `before` (see the header). */
static const kg_model_mention *chosen(const kg_model_signs *m, const kg_catalogue *cat, long before)
{
	const kg_model_mention *printed_in = NULL, *printed = NULL, *last = NULL, *first = NULL;
	for (int i = 0; i < m->nmodel; i++) {
		const kg_model_mention *x = &m->model[i];
		if (!counts(x, m, cat))
			continue;
		bool in = before <= 0 || x->line <= before;
		if (!strcmp(x->how, "printed")) {
			if (!printed || x->params > printed->params)
				printed = x;
			if (in && (!printed_in || x->params > printed_in->params))
				printed_in = x;
		}
		if (in && (!last || x->line >= last->line))
			last = x;
		if (!first || x->line < first->line)
			first = x;
	}
	/* a printed count is the model that was built */
	return printed_in ? printed_in : printed ? printed : last ? last : first;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Distinct sizes among the mentions: sorted, a new size where one is
 * more than 1.3 times the one before. */
static int distinct_sizes(const kg_model_signs *m, const kg_catalogue *cat)
{
	double v[KG_MODEL_MENTIONS];
	int k = 0;
	for (int i = 0; i < m->nmodel; i++)
		if (counts(&m->model[i], m, cat))
			v[k++] = m->model[i].params;
	if (!k)
		return 0;
	qsort(v, (size_t)k, sizeof *v, cmp_double);
	int d = 1;
	for (int i = 1; i < k; i++)
		d += v[i] > 1.3 * v[i - 1];
	return d;
}

static void str_fact(kg_facts *f, const char *name, const char *v, const char *path, long line)
{
	if (!v || !*v || !line)
		return;
	char *prov = kg_asprintf("%s:%ld", path, line);
	kg_facts_set_str(f, name, v, prov);
	free(prov);
}

static void count_fact(kg_facts *f, const char *name, double v, const char *path, long line)
{
	if (!(v > 0) || !line)
		return;
	char *prov = kg_asprintf("%s:%ld", path, line);
	kg_facts_set_num(f, name, KG_FACT_COUNT, v, prov);
	free(prov);
}

void kg_facts_from_modelinfo_cat(const kg_model_signs *m, const char *path, long before,
				 kg_facts *f, const kg_catalogue *cat)
{
	if (!path)
		path = "<log>";
	if (cat->largest_gpu > 0) {
		char *prov = kg_asprintf("rules/gpus.yaml (%s)", cat->largest_gpu_name);
		kg_facts_set_num(f, "gpu.largest", KG_FACT_BYTES, cat->largest_gpu, prov);
		free(prov);
	}
	if (!m)
		return;
	const kg_model_mention *x = chosen(m, cat, before);
	if (x) {
		char *prov = kg_asprintf("%s:%ld%s", path, x->line, x->entry >= 0 ? " (rules/models.yaml)" : "");
		kg_facts_set_str(f, "model.name", x->name, prov);
		kg_facts_set_interval(f, "model.params", KG_FACT_COUNT, x->params, x->lo, x->hi, prov);
		free(prov);
		count_fact(f, "model.sizes", distinct_sizes(m, cat), path, x->line);
	}
	count_fact(f, "model.trainable", m->trainable, path, m->trainable_line);
	if (m->width > 0) {
		str_fact(f, "model.precision", m->precision, path, m->precision_line);
		char *prov = kg_asprintf("%s:%ld", path, m->precision_line);
		kg_facts_set_num(f, "model.precision.bytes", KG_FACT_COUNT, m->width, prov);
		free(prov);
	}
	str_fact(f, "model.optimizer", m->optim_sgd ? "SGD" : m->optim_8bit ? "8-bit Adam" : NULL, path,
		 m->optim_line);
	str_fact(f, "model.mode", m->mode, path, m->mode_line);
	str_fact(f, "model.engine", m->engine, path, m->engine_line);
	str_fact(f, "model.adapters", m->adapters, path, m->adapters_line);
	str_fact(f, "model.split", m->split, path, m->split_line);
	/* what a KV cache needs: GQA's KV heads, else every head (MHA); the
	 * head dim, else hidden / heads */
	int64_t kvh = m->kv_heads ? m->kv_heads : m->heads;
	int64_t hd = m->head_dim ? m->head_dim : m->heads && m->hidden ? m->hidden / m->heads : 0;
	count_fact(f, "model.layers", (double)m->layers, path, m->kv_line);
	count_fact(f, "model.kv_heads", (double)kvh, path, m->kv_line);
	count_fact(f, "model.head_dim", (double)hd, path, m->kv_line);
	count_fact(f, "model.context", (double)m->context, path, m->kv_line);
	int g = -1;
	for (int i = 0; i < m->ngpu; i++)
		if (g < 0 || m->gpu[i].bytes > m->gpu[g].bytes)
			g = i;
	if (g >= 0) {
		char *prov = kg_asprintf("%s:%ld%s", path, m->gpu[g].line,
					 m->gpu[g].stated ? "" : " (rules/gpus.yaml)");
		kg_facts_set_str(f, "gpu.name", m->gpu[g].name, prov);
		kg_facts_set_num(f, "gpu.memory", KG_FACT_BYTES, m->gpu[g].bytes, prov);
		free(prov);
	}
	if (m->host_ram > 0) {
		char *prov = kg_asprintf("%s:%ld (%s)", path, m->host_ram_line, m->host_ram_how);
		kg_facts_set_num(f, "host.ram", KG_FACT_BYTES, m->host_ram, prov);
		free(prov);
	}
}

void kg_facts_from_modelinfo(const kg_model_signs *m, const char *path, long before, kg_facts *f)
{
	kg_facts_from_modelinfo_cat(m, path, before, f, kg_catalogue_shipped());
}

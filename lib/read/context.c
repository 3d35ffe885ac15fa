/* context.c — see include/read/context.h. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "read/context.h"
#include "read/regex.h"
#include "model/vocab.h"

#include <ctype.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

static kg_regex *re_global_step, *re_step, *re_epoch, *re_iter;
static kg_regex *re_eval, *re_ckpt, *re_model_load, *re_train, *re_train_word;
static kg_regex *re_conf_assign, *re_conf_environ;
static kg_regex *re_rank_line, *re_config_path;
static kg_regex *re_prog_bar, *re_prog_epoch, *re_prog_step, *re_prog_item, *re_prog_hfnb, *re_prog_keras;
static bool ready;

int kg_context_init(kg_error *err)
{
	if (ready)
		return 0;
	(void)err; /* nothing can fail here: each pattern compiles on its first
		    * match (kg_regex_new_lazy), as most lines reach few of them */
	uint32_t I = PCRE2_CASELESS;
	re_global_step = kg_regex_new_lazy("\\bglobal[_ ]step\\s*[=:]?\\s*(\\d{1,12})\\b", I);
	re_step = kg_regex_new_lazy("(?<![\\w.])step\\b\\s*[:=#]?\\s*\\[?\\s*(\\d{1,12})\\b", I);
	re_iter = kg_regex_new_lazy("(?<![\\w.])iter(?:ation)?\\b\\s*[:=#]?\\s*\\[?\\s*(\\d{1,12})\\b", I);
	re_epoch = kg_regex_new_lazy("(?<![\\w.])epoch\\b\\s*[:=#]?\\s*\\[?\\s*(\\d{1,9})\\b", I);
	/* …or a command line that runs an evaluation script (python test.py,
	 * python scripts/evaluate.py, python3 eval_completion.py) */
	re_eval = kg_regex_new_lazy("(?:^|[^\\w/.])(?:eval(?:uat(?:e|es|ing|ion))?|validat(?:e|ing|ion)|valid|testing|test set|predict(?:ing|ion|ions)?|inference|generating|rank(?:ing)? (?:all|candidates|entities)"
		       "|python[\\d.]*\\s+(?:-\\S+\\s+)*(?:\\S*/)?(?:test|eval|evaluate|evaluation|inference|infer|predict|validate|validation)(?:_\\w*)?\\.py)\\b",
		       I);
	re_ckpt = kg_regex_new_lazy("\\b(?:sav(?:e|ing|ed)\\b[^\\n]{0,40}\\b(?:checkpoint|ckpt|state[_ ]dict|model)|checkpoint[^\\n]{0,20}\\b(?:sav|writ)|writing\\s+checkpoint|load(?:ing|ed)?\\s+(?:from\\s+)?(?:the\\s+)?(?:checkpoint|ckpt|state[_ ]dict)(?!\\s+shards))",
		       I);
	re_model_load = kg_regex_new_lazy("\\b(?:Loading checkpoint shards|from_pretrained|load(?:ing)? (?:the )?(?:pretrained )?model\\b|model loading)", I);
	re_train = kg_regex_new_lazy("(?:^|[^\\w/.])(?:train(?:ing)?|epoch)\\b", I);
	re_train_word = kg_regex_new_lazy("(?:^|[^\\w/.])train(?:ing)?\\b", I);
	re_conf_assign = kg_regex_new_lazy("\\b(PYTORCH_\\w*ALLOC\\w*)\\s*[=:]\\s*['\"]?([^\\s'\"]+)", 0);
	re_conf_environ = kg_regex_new_lazy("\\[\\s*['\"](PYTORCH_\\w*ALLOC\\w*)['\"]\\s*\\]\\s*=\\s*['\"]([^'\"]*)['\"]", 0);
	re_rank_line = kg_regex_new_lazy("^\\s*rank\\s*:\\s*(\\d{1,7})\\b", 0);
	re_config_path = kg_regex_new_lazy("(?:--config|--cfg|--config-file|--config_file|(?<![\\w-])-c|\\bconfig(?:_file|_path)?)"
			      "\\s*[=: ]\\s*['\"]?([\\w./~+-]+\\.ya?ml)\\b", I);
	/* progress: tqdm "45%|████▌     | 45/100 [", "Epoch 30/100", "Epoch
	 * [30/100]", "epoch 3 of 10", "Step 120/1000", "iter 20/300", and a
	 * bracketed counter that starts the line: "[ 30/210] processing …" */
	re_prog_bar = kg_regex_new_lazy("(\\d{1,3})%\\|[^|\\n]{0,400}\\|\\s*(\\d{1,12})/(\\d{1,12})\\b", 0);
	re_prog_epoch = kg_regex_new_lazy("(?<![\\w.])epoch\\b\\s*[:=#]?\\s*\\[?\\s*(\\d{1,9})\\s*(?:/|of)\\s*(\\d{1,9})\\b", I);
	re_prog_step = kg_regex_new_lazy("(?<![\\w.])(?:step|iter(?:ation)?|batch)\\b\\s*[:=#]?\\s*\\[?\\s*(\\d{1,12})\\s*(?:/|of)\\s*(\\d{1,12})\\b", I);
	re_prog_item = kg_regex_new_lazy("^\\s*\\[\\s*(\\d{1,12})\\s*/\\s*(\\d{1,12})\\s*\\]", 0);
	/* Hugging Face Trainer's notebook bar (transformers utils/notebook.py,
	 * NotebookProgressBar.update_bar): "[ 501/1500 06:35 < 13:11, 1.26
	 * it/s, Epoch 1/3]", the optimizer step (NotebookProgressCallback
	 * shows state.global_step + 1) of max_steps, then the epoch */
	/* Keras' fit/evaluate/predict bar, the batch of the epoch (tf.keras
	 * utils Progbar: "  45/469 [==>.....] - ETA: 1:02 - loss: 0.40";
	 * Keras 3: "  45/469 ━━━━━━━━━━━━━━━━━━━━ 1:02 134ms/step - loss") */
	re_prog_keras = kg_regex_new_lazy("^\\s*(\\d{1,12})/(\\d{1,12}) (?:\\[[=>.]{8,}\\]|(?:\\x{e2}\\x{94}\\x{81}){5,})", 0);
	re_prog_hfnb = kg_regex_new_lazy("^\\s*\\[\\s*(\\d{1,12})/(\\d{1,12}) (?:\\d+:)?\\d\\d:\\d\\d"
					 "(?: < (?:\\d+:)?\\d\\d:\\d\\d)?, [\\d.]+ it/s, Epoch ", 0);
	ready = true;
	return 0;
}

void kg_context_fini(void)
{
	kg_regex **all[] = {&re_global_step, &re_step, &re_epoch, &re_iter, &re_eval, &re_ckpt,
			    &re_model_load, &re_train, &re_train_word, &re_conf_assign, &re_conf_environ,
			    &re_rank_line, &re_config_path, &re_prog_bar, &re_prog_epoch,
			    &re_prog_step, &re_prog_item, &re_prog_hfnb, &re_prog_keras};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		kg_regex_free(*all[i]);
		*all[i] = NULL;
	}
	ready = false;
}

static bool group_int(const kg_match *m, const char *s, int g, int64_t *out)
{
	const char *p;
	size_t len;
	if (!kg_match_group(m, s, g, &p, &len) || len == 0 || len > 12)
		return false;
	int64_t v = 0;
	for (size_t i = 0; i < len; i++)
		v = v * 10 + (p[i] - '0');
	*out = v;
	return true;
}

bool kg_ctx_counters(const char *line, size_t n, int64_t *step, int64_t *epoch)
{
	bool found = false;
	kg_match m;
	bool has_step = kg_memcasemem(line, n, "step", 4) != NULL;
	bool has_iter = kg_memcasemem(line, n, "iter", 4) != NULL;
	bool has_epoch = kg_memcasemem(line, n, "epoch", 5) != NULL;
	if (has_step) {
		if (kg_regex_match(re_global_step, line, n, 0, &m) && group_int(&m, line, 1, step))
			found = true;
		else if (kg_regex_match(re_step, line, n, 0, &m) && group_int(&m, line, 1, step))
			found = true;
	}
	if (!has_step && has_iter && kg_regex_match(re_iter, line, n, 0, &m) &&
	    group_int(&m, line, 1, step))
		found = true;
	if (has_epoch && kg_regex_match(re_epoch, line, n, 0, &m) && group_int(&m, line, 1, epoch))
		found = true;
	return found;
}

bool kg_ctx_progress_maybe(const char *line, size_t n)
{
	return memchr(line, '/', n) || kg_memcasemem(line, n, " of ", 4);
}

bool kg_ctx_progress(const char *line, size_t n, int64_t *done, int64_t *total, const char **kind)
{
	kg_match m;
	const char *k = NULL;
	int g = 1;
	if (!kg_ctx_progress_maybe(line, n))
		return false;
	if (memmem(line, n, "%|", 2) && kg_regex_match(re_prog_bar, line, n, 0, &m))
		k = "bar", g = 2;
	else if (memmem(line, n, " it/s, Epoch ", 13) && kg_regex_match(re_prog_hfnb, line, n, 0, &m))
		k = "trainer";
	else if ((memmem(line, n, "] - ", 4) || memmem(line, n, "\xe2\x94\x81\xe2\x94\x81", 6)) &&
		 kg_regex_match(re_prog_keras, line, n, 0, &m))
		k = "step";
	else if (kg_memcasemem(line, n, "epoch", 5) && kg_regex_match(re_prog_epoch, line, n, 0, &m))
		k = "epoch";
	else if ((kg_memcasemem(line, n, "step", 4) || kg_memcasemem(line, n, "iter", 4) ||
		  kg_memcasemem(line, n, "batch", 5)) &&
		 kg_regex_match(re_prog_step, line, n, 0, &m))
		k = "step";
	else if (memchr(line, '[', n) && kg_regex_match(re_prog_item, line, n, 0, &m))
		k = "item";
	int64_t d, t;
	if (!k || !group_int(&m, line, g, &d) || !group_int(&m, line, g + 1, &t) || t <= 0 || d > t)
		return false;
	*done = d;
	*total = t;
	*kind = k;
	return true;
}

/* Where the last match of re in s[0..n) starts, or -1. */
static long last_match(const kg_regex *re, const char *s, size_t n)
{
	kg_match m;
	long at = -1;
	for (size_t from = 0; from < n && kg_regex_match(re, s, n, from, &m); from = m.eo[0] > m.so[0] ? m.eo[0] : m.so[0] + 1)
		at = (long)m.so[0];
	return at;
}

/* Whether the word at line[so..eo) is a variable of pasted source code:
 * the target of an assignment ("prediction = f(x)"), a side of a
 * comparison ("prediction >= threshold"), or a lone argument
 * ("len(prediction)"). A report's code names its variables after the
 * work they hold, which says nothing of the phase that failed. */
static bool code_variable(const char *line, size_t n, size_t so, size_t eo)
{
	size_t j = eo;
	while (j < n && line[j] == ' ')
		j++;
	if (j < n && line[j] == '=' && (j + 1 >= n || line[j + 1] != '='))
		return true;
	if (j + 1 < n && (line[j] == '=' || line[j] == '!' || line[j] == '<' || line[j] == '>') && line[j + 1] == '=')
		return true;
	if (j < n && (line[j] == '<' || line[j] == '>') && (j + 1 >= n || line[j + 1] == ' '))
		return true;
	size_t i = so;
	while (i > 0 && line[i - 1] == ' ')
		i--;
	return i > 0 && line[i - 1] == '(' && j < n && (line[j] == ')' || line[j] == ',');
}

/* The first of re_eval's matches in line that is not a code variable. */
static bool eval_word(const char *line, size_t n, kg_match *m)
{
	for (size_t from = 0; from < n && kg_regex_match(re_eval, line, n, from, m);
	     from = m->eo[0] > m->so[0] ? m->eo[0] : m->so[0] + 1) {
		size_t ws = m->so[0];
		if (ws < n && !isalnum((unsigned char)line[ws]))
			ws++; /* past the character before the word */
		if (!code_variable(line, n, ws, m->eo[0]))
			return true;
	}
	return false;
}

const char *kg_ctx_phase_marker(const char *line, size_t n)
{
	kg_match m;
	/* cheap literal gates before each regex */
	bool maybe_load = kg_memcasemem(line, n, "load", 4) || kg_memcasemem(line, n, "pretrained", 10);
	/* a line that reports how long the loading took ends that phase
	 * (vLLM's "Loading model weights took 13.4967 GB", before it
	 * profiles a forward pass and allocates its KV cache) */
	if (maybe_load && !kg_memcasemem(line, n, " took ", 6) && kg_regex_match(re_model_load, line, n, 0, &m))
		return KG_PHASE_WORD(MODEL_LOAD);
	if ((kg_memcasemem(line, n, "checkpoint", 10) || kg_memcasemem(line, n, "ckpt", 4) ||
	     kg_memcasemem(line, n, "state", 5) || kg_memcasemem(line, n, "sav", 3)) &&
	    kg_regex_match(re_ckpt, line, n, 0, &m))
		return KG_PHASE_WORD(CHECKPOINT);
	if ((kg_memcasemem(line, n, "eval", 4) || kg_memcasemem(line, n, "valid", 5) ||
	     kg_memcasemem(line, n, "test", 4) || kg_memcasemem(line, n, "predict", 7) ||
	     kg_memcasemem(line, n, "infer", 5) || kg_memcasemem(line, n, "generat", 7) ||
	     kg_memcasemem(line, n, "rank", 4)) &&
	    eval_word(line, n, &m)) {
		/* a line that names training too tells a sequence, and the
		 * phase named last is the one now ("training goes well, but it
		 * fails when the validation starts": eval; "the test and
		 * evaluation sets are fixed … I can't use all the train data":
		 * training; "Epoch 3 validation": eval) */
		if (kg_memcasemem(line, n, "train", 5) && last_match(re_train_word, line, n) > last_match(re_eval, line, n))
			return KG_MODE_WORD(TRAIN);
		return KG_PHASE_WORD(EVAL);
	}
	if ((kg_memcasemem(line, n, "train", 5) || kg_memcasemem(line, n, "epoch", 5)) &&
	    kg_regex_match(re_train, line, n, 0, &m))
		return KG_MODE_WORD(TRAIN);
	/* a plain progress line ("step 120 | loss 0.31") is training too */
	if (kg_memcasemem(line, n, "loss", 4) && kg_memcasemem(line, n, "step", 4))
		return KG_MODE_WORD(TRAIN);
	return NULL;
}

bool kg_ctx_alloc_conf(const char *line, size_t n, char **var, char **value)
{
	if (!memmem(line, n, "PYTORCH_", 8) || !memmem(line, n, "ALLOC", 5))
		return false;
	/* the allocator's own advice inside an OOM message is not an echo */
	if (memmem(line, n, "try setting", 11) || memmem(line, n, "out of memory", 13))
		return false;
	kg_match m;
	const char *p, *q;
	size_t plen, qlen;
	if ((kg_regex_match(re_conf_environ, line, n, 0, &m) ||
	     kg_regex_match(re_conf_assign, line, n, 0, &m)) &&
	    kg_match_group(&m, line, 1, &p, &plen) && kg_match_group(&m, line, 2, &q, &qlen)) {
		*var = kg_strndup(p, plen);
		*value = kg_strndup(q, qlen);
		return true;
	}
	return false;
}

bool kg_ctx_config_path(const char *line, size_t n, char **path)
{
	if (!memmem(line, n, ".yaml", 5) && !memmem(line, n, ".yml", 4))
		return false;
	kg_match m;
	const char *p;
	size_t len;
	if (kg_regex_match(re_config_path, line, n, 0, &m) && kg_match_group(&m, line, 1, &p, &len)) {
		*path = kg_strndup(p, len);
		return true;
	}
	return false;
}

const char *kg_ctx_followup(const char *line, size_t n)
{
	if (memmem(line, n, "device-side assert triggered", 28))
		return "device-side-assert";
	if (memmem(line, n, "illegal memory access", 21))
		return "illegal-memory-access";
	if ((memmem(line, n, "Watchdog caught collective operation timeout", 44) ||
	     (memmem(line, n, "NCCL", 4) && kg_memcasemem(line, n, "timeout", 7) &&
	      (kg_memcasemem(line, n, "watchdog", 8) || memmem(line, n, "ProcessGroupNCCL", 16)))))
		return "nccl-timeout";
	if (memmem(line, n, "failed (exitcode: ", 18) && memmem(line, n, "local_rank", 10))
		return "elastic-child-failed";
	return NULL;
}

int kg_ctx_root_cause(const char *line, size_t n, int64_t *rank)
{
	if (memmem(line, n, "Root Cause (first observed failure)", 35))
		return 1;
	kg_match m;
	if (memmem(line, n, "rank", 4) && kg_regex_match(re_rank_line, line, n, 0, &m) &&
	    group_int(&m, line, 1, rank))
		return 2;
	return 0;
}

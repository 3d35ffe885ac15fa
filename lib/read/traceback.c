/* traceback.c — Python traceback frames and the phase they imply.
 *
 * Layouts (CPython traceback.py; IPython ultratb; VS Code's "Exception has
 * occurred" pane, which lists the same frames innermost first):
 *   File "/path/x.py", line 212, in _eval_one_dim
 *   File /path/x.py:109, in func(args)              (IPython ≥ 8)
 *   ~/anaconda/.../__init__.py in _lazy_new(cls, *args, **kwargs)   (IPython < 8)
 *   <ipython-input-4-8352503114b9> in <module>()
 *   Cell In[12], line 3                             (IPython ≥ 8, a cell)
 *   Cell In[12], line 3, in train(model, loader)
 *   ----> 269     return super(_CudaBase, cls).__new__(cls, *args, **kwargs)
 */
#include "read/traceback.h"
#include "model/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static size_t skip_ws(const char *s, size_t i, size_t n)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

/* `File "path", line N, in func` */
static int parse_cpython(const char *s, size_t n, kg_frame *f)
{
	size_t i = skip_ws(s, 0, n);
	if (n - i < 6 || memcmp(s + i, "File ", 5) != 0)
		return 0;
	i += 5;
	if (i < n && s[i] == '"') {
		const char *q = memchr(s + i + 1, '"', n - i - 1);
		if (!q)
			return 0;
		size_t fend = (size_t)(q - s);
		size_t j = fend + 1;
		if (n - j < 8 || memcmp(s + j, ", line ", 7) != 0)
			return 0;
		j += 7;
		long line = 0;
		size_t d = j;
		while (j < n && isdigit((unsigned char)s[j]) && line < 100000000)
			line = line * 10 + (s[j++] - '0');
		if (j == d)
			return 0;
		const char *fn = NULL;
		size_t fnlen = 0;
		if (n - j >= 5 && memcmp(s + j, ", in ", 5) == 0) {
			fn = s + j + 5;
			fnlen = n - j - 5;
			while (fnlen && isspace((unsigned char)fn[fnlen - 1]))
				fnlen--;
		}
		f->file = kg_strndup(s + i + 1, fend - i - 1);
		f->line = line;
		f->function = fn ? kg_strndup(fn, fnlen) : NULL;
		f->code = NULL;
		return 1;
	}
	/* IPython 8: File /path/x.py:109, in func(args) */
	const char *comma = memmem(s + i, n - i, ", in ", 5);
	if (!comma)
		return 0;
	size_t cend = (size_t)(comma - s);
	size_t colon = cend;
	while (colon > i && isdigit((unsigned char)s[colon - 1]))
		colon--;
	if (colon == cend || colon == i || s[colon - 1] != ':')
		return 0;
	long line = strtol(s + colon, NULL, 10);
	const char *fn = comma + 5;
	size_t fnlen = (size_t)(s + n - fn);
	const char *paren = memchr(fn, '(', fnlen);
	if (paren)
		fnlen = (size_t)(paren - fn);
	f->file = kg_strndup(s + i, colon - 1 - i);
	f->line = line;
	f->function = kg_strndup(fn, fnlen);
	f->code = NULL;
	return 1;
}

/* IPython < 8: `path.py in func(args)` or `<ipython-input-…> in <module>()` */
static int parse_ipython(const char *s, size_t n, kg_frame *f)
{
	size_t i = skip_ws(s, 0, n);
	if (i >= n || isspace((unsigned char)s[i]))
		return 0;
	const char *in = memmem(s + i, n - i, " in ", 4);
	if (!in)
		return 0;
	size_t fend = (size_t)(in - s);
	/* the file part has no spaces and ends in .py or > */
	for (size_t k = i; k < fend; k++)
		if (s[k] == ' ')
			return 0;
	bool pyfile = fend - i > 3 && memcmp(s + fend - 3, ".py", 3) == 0;
	bool angle = s[i] == '<' && s[fend - 1] == '>';
	if (!pyfile && !angle)
		return 0;
	const char *fn = in + 4;
	size_t fnlen = (size_t)(s + n - fn);
	const char *paren = memchr(fn, '(', fnlen);
	if (!paren || s[n - 1] != ')')
		return 0;
	fnlen = (size_t)(paren - fn);
	if (fnlen == 0)
		return 0;
	for (size_t k = 0; k < fnlen; k++)
		if (!(isalnum((unsigned char)fn[k]) || fn[k] == '_' || fn[k] == '<' ||
		      fn[k] == '>' || fn[k] == ' ' || fn[k] == ':' || fn[k] == '.'))
			return 0;
	f->file = kg_strndup(s + i, fend - i);
	f->line = 0;
	f->function = kg_strndup(fn, fnlen);
	f->code = NULL;
	return 1;
}

/* IPython ≥ 8, a notebook cell (ultratb's _format_filename with the
 * compiler's format_code_name: "Cell", "In[N]"): `Cell In[12], line 3`,
 * then `, in func(args)` when the frame is a function the cell defined.
 * The file is `Cell In[12]`; the function `<module>` when none is given. */
static int parse_ipython_cell(const char *s, size_t n, kg_frame *f)
{
	size_t i = skip_ws(s, 0, n);
	if (n - i < 16 || memcmp(s + i, "Cell In[", 8) != 0)
		return 0;
	size_t j = i + 8, d = j;
	while (j < n && isdigit((unsigned char)s[j]))
		j++;
	if (j == d || j - d > 9 || n - j < 9 || memcmp(s + j, "], line ", 8) != 0)
		return 0;
	size_t fend = j + 1;
	j += 8;
	long line = 0;
	d = j;
	while (j < n && isdigit((unsigned char)s[j]) && line < 100000000)
		line = line * 10 + (s[j++] - '0');
	if (j == d)
		return 0;
	const char *fn = "<module>";
	size_t fnlen = 8;
	if (n - j >= 5 && memcmp(s + j, ", in ", 5) == 0) {
		fn = s + j + 5;
		fnlen = n - j - 5;
		const char *paren = memchr(fn, '(', fnlen);
		if (paren)
			fnlen = (size_t)(paren - fn);
		while (fnlen && isspace((unsigned char)fn[fnlen - 1]))
			fnlen--;
		if (!fnlen)
			return 0;
	} else {
		while (j < n && isspace((unsigned char)s[j]))
			j++;
		if (j != n)
			return 0;
	}
	f->file = kg_strndup(s + i, fend - i);
	f->line = line;
	f->function = kg_strndup(fn, fnlen);
	f->code = NULL;
	return 1;
}

int kg_tb_parse_frame(const char *line, size_t n, kg_frame *f)
{
	memset(f, 0, sizeof *f);
	if (n < 6 || n > 4096)
		return 0;
	return parse_cpython(line, n, f) || parse_ipython_cell(line, n, f) || parse_ipython(line, n, f);
}

long kg_tb_parse_arrow(const char *line, size_t n, const char **code, size_t *codelen)
{
	size_t i = skip_ws(line, 0, n);
	size_t d = i;
	while (i < n && line[i] == '-')
		i++;
	if (i == d || i >= n || line[i] != '>')
		return 0;
	i = skip_ws(line, i + 1, n);
	long v = 0;
	size_t st = i;
	while (i < n && isdigit((unsigned char)line[i]) && v < 100000000)
		v = v * 10 + (line[i++] - '0');
	if (i == st)
		return 0;
	i = skip_ws(line, i, n);
	*code = line + i;
	*codelen = n - i;
	return v;
}

/* Splits an identifier into '_'-separated lower-case tokens and tests
 * whether one of them is in the list. */
static bool has_token(const char *name, const char *const *tokens)
{
	if (!name)
		return false;
	char buf[128];
	size_t n = strlen(name);
	if (n >= sizeof buf)
		n = sizeof buf - 1;
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)tolower((unsigned char)name[i]);
	buf[n] = '\0';
	char *save = NULL;
	for (char *t = strtok_r(buf, "_.<> ", &save); t; t = strtok_r(NULL, "_.<> ", &save))
		for (size_t k = 0; tokens[k]; k++)
			if (strcmp(t, tokens[k]) == 0)
				return true;
	return false;
}

static bool contains(const char *s, const char *needle)
{
	return s && strstr(s, needle) != NULL;
}

/* Whether a frame's code line calls a function or method one of whose
 * '_'-separated tokens is in the list (`valid_stats = self.validate(it)`,
 * `preds = model.predict_step(x)`): the call the exception came out of, when
 * the frames below it are cut from the paste. Only names right before a '('
 * count, so a variable named `val_loss` does not; nor does a name that
 * also has a token of `except` (NULL: none). */
static bool calls_token(const char *code, const char *const *tokens, const char *const *except)
{
	if (!code)
		return false;
	for (const char *p = strchr(code, '('); p; p = strchr(p + 1, '(')) {
		const char *e = p;
		while (e > code && (e[-1] == ' '))
			e--;
		const char *b = e;
		while (b > code && (isalnum((unsigned char)b[-1]) || b[-1] == '_'))
			b--;
		if (b == e || (size_t)(e - b) >= 64 || isdigit((unsigned char)*b))
			continue;
		char name[64];
		memcpy(name, b, (size_t)(e - b));
		name[e - b] = '\0';
		if (has_token(name, tokens) && !(except && has_token(name, except)))
			return true;
	}
	return false;
}

enum { P_NONE, P_CTOR, P_FORWARD, P_MODEL_LOAD, P_DATA, P_BACKWARD, P_OPTIMIZER, P_EVAL, P_CHECKPOINT };

/* P_* (ordered by precedence: the highest over all frames wins) → kg_phases */
static const int phase_ids[] = {
	-1, KG_PHASE_MODEL_LOAD, KG_PHASE_FORWARD, KG_PHASE_MODEL_LOAD, KG_PHASE_DATA, KG_PHASE_BACKWARD,
	KG_PHASE_OPTIMIZER, KG_PHASE_EVAL, KG_PHASE_CHECKPOINT,
};

static int frame_phase(const kg_frame *f)
{
	static const char *const eval_tokens[] = {
		"eval", /* a word of function names, not vocabulary */
		"evaluate", "evaluation", "evaluator", "validate", "validation",
		"valid", "val", "test", "predict", "prediction", "predictions",
		"inference", "infer", "generate", "generation", "score", "scoring",
		"rank", "ranking", NULL};
	static const char *const train_tokens[] = {"train", "training", "fit", NULL}; /* not vocabulary */
	/* what a check of arguments or set-up validates or tests
	 * (transformers' quantizer validate_environment, validate_args,
	 * _validate_config, test_inputs): not an evaluation pass */
	static const char *const check_tokens[] = {
		"environment", "env", "args", "arguments", "kwargs", "config", "configs", "input", "inputs",
		"params", "parameters", "options", "settings", "schema", "dtype", "dtypes", "device",
		"devices", "version", "versions", "shape", "shapes", NULL}; /* not vocabulary */
	static const char *const ckpt_fns[] = {
		"save", "save_checkpoint", "_save_checkpoint", "save_model", "save_pretrained",
		"_save", "state_dict", "full_state_dict", "consolidate_state_dict",
		"load_checkpoint", "_load_checkpoint", "load_state_dict", "_save_to_state_dict",
		"save_state", "_save_optimizer_and_scheduler", NULL};
	const char *fn = f->function ? f->function : "";
	const char *file = f->file ? f->file : "";
	const char *code = f->code ? f->code : "";

	for (size_t k = 0; ckpt_fns[k]; k++)
		if (strcmp(fn, ckpt_fns[k]) == 0)
			return P_CHECKPOINT;
	if (contains(code, "torch.save(") || contains(code, "torch.load(") ||
	    contains(file, "torch/distributed/checkpoint/") || contains(file, "torch/serialization.py"))
		return P_CHECKPOINT;
	/* torch's own frames named "test"/"score" are not the user's eval loop */
	bool torch_internal = contains(file, "/torch/") || contains(file, "\\torch\\");
	/* the evaluation method a frame's code calls (the paste may stop at
	 * the caller); "val", "test", "rank" and "score" are too common in
	 * other names to be read from a call */
	static const char *const eval_calls[] = {
		"evaluate", "evaluation", "validate", "validation", "predict", "inference",
		"generate", NULL};
	/* a function named for saving and evaluating both dispatches to one of
	 * them (HF Trainer's _maybe_log_save_evaluate calls _save_checkpoint
	 * or _evaluate): the call on its code line says which; none, neither */
	static const char *const save_tokens[] = {"save", "checkpoint", "ckpt", NULL}; /* not vocabulary */
	if (has_token(fn, eval_tokens) && has_token(fn, save_tokens)) {
		if (calls_token(code, save_tokens, NULL))
			return P_CHECKPOINT;
		return calls_token(code, eval_calls, check_tokens) ? P_EVAL : P_NONE;
	}
	if (!torch_internal && has_token(fn, eval_tokens) && !has_token(fn, train_tokens) &&
	    !has_token(fn, check_tokens))
		return P_EVAL;
	if (!torch_internal && calls_token(code, eval_calls, check_tokens) && !calls_token(code, train_tokens, NULL))
		return P_EVAL;
	if ((strcmp(fn, "step") == 0 && (contains(file, "optim") || contains(code, "step("))) ||
	    contains(code, "optimizer.step(") || contains(code, "scaler.step(") ||
	    contains(code, "opt.step(") || contains(file, "torch/optim/") ||
	    contains(file, "torch\\optim\\"))
		return P_OPTIMIZER;
	if (strcmp(fn, "backward") == 0 || strcmp(fn, "_engine_run_backward") == 0 ||
	    strcmp(fn, "run_backward") == 0 || contains(code, ".backward(") ||
	    contains(code, "autograd.grad(") || contains(code, "manual_backward("))
		return P_BACKWARD;
	if (contains(file, "torch/utils/data/") || contains(file, "torch\\utils\\data\\") ||
	    strcmp(fn, "__getitem__") == 0 || strcmp(fn, "collate_fn") == 0 ||
	    strcmp(fn, "_next_data") == 0)
		return P_DATA;
	if (strcmp(fn, "from_pretrained") == 0 || strcmp(fn, "_load_pretrained_model") == 0 ||
	    strcmp(fn, "load_model") == 0 || strcmp(fn, "_load_state_dict_into_meta_model") == 0 ||
	    contains(code, "from_pretrained(") || contains(code, "load_model("))
		return P_MODEL_LOAD;
	/* engines whose model class loads the weights in its constructor:
	 * faster-whisper's WhisperModel.__init__ (transcribe.py) builds the
	 * CTranslate2 model on the device, sentence-transformers'
	 * SentenceTransformer.__init__ loads and moves the modules; "init" is
	 * __init__ as GitHub's Markdown shows it outside a code block (bold) */
	if ((strcmp(fn, "__init__") == 0 || strcmp(fn, "init") == 0) &&
	    (contains(file, "faster_whisper") || contains(file, "SentenceTransformer.py")))
		return P_MODEL_LOAD;
	if (contains(code, "WhisperModel(") || contains(code, "SentenceTransformer("))
		return P_MODEL_LOAD;
	/* any other constructor: the failure came while an object was built
	 * (a model, its layers, an index moved to the device) before a batch
	 * ran through it: set-up, read as model-load, below every other
	 * phase, so a layer built inside a step is that step's */
	if (strcmp(fn, "__init__") == 0)
		return P_CTOR;
	if (strcmp(fn, "forward") == 0 || strcmp(fn, "_call_impl") == 0 ||
	    strcmp(fn, "_wrapped_call_impl") == 0 || strcmp(fn, "training_step") == 0 ||
	    strcmp(fn, "train_step") == 0)
		return P_FORWARD;
	return P_NONE;
}

const char *kg_tb_phase(const kg_frame *frames, size_t n)
{
	int best = P_NONE, best_not_eval = P_NONE;
	bool grads = false;
	for (size_t i = 0; i < n; i++) {
		int p = frame_phase(&frames[i]);
		if (p > best)
			best = p;
		if (p != P_EVAL && p > best_not_eval)
			best_not_eval = p;
		grads |= p == P_BACKWARD || p == P_OPTIMIZER;
	}
	/* a backward pass or an optimizer step on the stack is training,
	 * whatever a caller is named: evaluation computes no gradients (a
	 * benchmark harness's score_submission → train_once → loss.backward,
	 * mlcommons/algorithmic-efficiency#497) */
	if (best == P_EVAL && grads)
		best = best_not_eval;
	return kg_vocab_word(&kg_phases, phase_ids[best]);
}

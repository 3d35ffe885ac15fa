/* differential.c — see include/diagnose/differential.h. */
#include "diagnose/differential.h"
#include "model/util.h"

#include <stdlib.h>
#include <string.h>

/* Per cause (the categories of vocab/category.def, most specific first,
 * which is also the tie order; `none` is no cause): whether it says why
 * this process filled the device (it refines capacity), and what would
 * tell. */
static const struct cause {
	bool refines_capacity;
	const char *to_confirm;
} causes[KG_NCATEGORIES] = {
	[KG_CATEGORY_HOST_OOM] = {false,
	 "the kernel log (dmesg: \"Out of memory: Killed process\"), the cgroup's memory.events oom_kill count, or host RAM at the time"},
	[KG_CATEGORY_PLATFORM] = {false,
	 "free device memory at the failure well above the request with no cap stated; the driver, runtime and platform versions (WSL, ROCm carve-out, Jetson unified memory)"},
	[KG_CATEGORY_OVERSIZE] = {true,
	 "the shape of the failed tensor: one allocation that is a large share of the device (or larger than it) is a bug or an input outlier"},
	[KG_CATEGORY_EVAL_BLOWUP] = {true,
	 "the traceback through evaluation code, the evaluation batch size and the closed form of its largest tensor (calc full-ranking, logits, attention)"},
	[KG_CATEGORY_CHECKPOINT] = {true,
	 "the traceback through torch.save/torch.load/state_dict, and map_location or offload settings"},
	[KG_CATEGORY_LEAK] = {true,
	 "memory readings (torch.cuda.memory_allocated) per step or epoch: live memory that grows at constant shapes"},
	[KG_CATEGORY_FRAGMENTATION] = {false,
	 "an allocator snapshot (torch.cuda.memory._dump_snapshot): the largest free block against the request, and the cached-unused share of the device"},
	[KG_CATEGORY_ACTIVATION_PEAK] = {true,
	 "the traceback through backward or the forward of training, the micro-batch and sequence length, and whether the first steps already fail"},
	[KG_CATEGORY_PARALLELISM] = {false,
	 "nvidia-smi at the time of the failure (other PIDs on the device), the job's parallel settings (n_jobs, pytest -n, processes per GPU)"},
	[KG_CATEGORY_CAPACITY] = {false,
	 "the memory this process holds against the device's capacity: model state, activations and batch (a smaller batch that runs confirms it)"},
	[KG_CATEGORY_ALLOC_CONF] = {false,
	 "the cap in force: \"X allowed\", set_per_process_memory_fraction, PYTORCH_MPS_HIGH_WATERMARK_RATIO, TF allow_growth / memory fraction, XLA_PYTHON_CLIENT_PREALLOCATE, vLLM gpu_memory_utilization"},
	[KG_CATEGORY_CASCADE] = {false,
	 "the first error in the log: an OOM that follows another failure is its consequence"},
};

/* The category index of a cause, or -1 (none and unknown words). */
static int cause_index(const char *name)
{
	int i = kg_vocab_index(&kg_categories, name);
	return i == KG_CATEGORY_NONE ? -1 : i;
}

const char *kg_cause_find(const char *name)
{
	return kg_vocab_word(&kg_categories, cause_index(name));
}

const char *kg_strength_name(enum kg_strength s)
{
	return s == KG_STRENGTH_NONE ? "" : kg_vocab_word(&kg_strengths, s);
}

enum kg_strength kg_strength_find(const char *s)
{
	int i = kg_vocab_index(&kg_strengths, s);
	return i <= 0 ? KG_STRENGTH_NONE : (enum kg_strength)i;
}

static int weight(enum kg_strength s)
{
	return s == KG_STRENGTH_DECISIVE ? 8 : s == KG_STRENGTH_STRONG ? 3 : s == KG_STRENGTH_WEAK ? 1 : 0;
}

#define STRONG 3

typedef struct hyp {
	kg_hypothesis h;
	int own;              /* score before refinement */
	bool decisive, against, refines;
	bool absorbed;        /* capacity, explained by a refining hypothesis */
	size_t order;         /* index in causes[] */
} hyp;

static void add_ev(kg_hypothesis *h, const char *text, const char *source, enum kg_strength s, bool against)
{
	h->evidence = kg_realloc(h->evidence, (h->nevidence + 1) * sizeof *h->evidence);
	kg_evidence *e = &h->evidence[h->nevidence++];
	e->text = kg_strdup(text ? text : "");
	e->source = kg_strdup(source ? source : "");
	e->strength = s;
	e->against = against;
}

static hyp *get_hyp(hyp **v, size_t *n, int c)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].order == (size_t)c)
			return &(*v)[i];
	*v = kg_realloc(*v, (*n + 1) * sizeof **v);
	hyp *x = &(*v)[(*n)++];
	memset(x, 0, sizeof *x);
	x->h.cause = kg_vocab_word(&kg_categories, c);
	x->h.to_confirm = causes[c].to_confirm;
	x->order = (size_t)c;
	return x;
}

static int cmp_hyp(const void *a, const void *b)
{
	const hyp *x = a, *y = b;
	if (x->h.ruled_out != y->h.ruled_out)
		return x->h.ruled_out ? 1 : -1;
	if (x->h.score != y->h.score)
		return x->h.score > y->h.score ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static const char *confidence(const hyp *x, int rival)
{
	if (x->h.ruled_out || x->h.score < STRONG)
		return NULL;
	enum kg_confidence c = KG_CONFIDENCE_LOW;
	if (x->decisive && !x->against && rival < STRONG)
		c = KG_CONFIDENCE_HIGH;
	else if (x->h.score - rival >= 2)
		c = KG_CONFIDENCE_MEDIUM;
	return kg_vocab_word(&kg_confidences, c);
}

void kg_differential_add_open(kg_incident *inc, const kg_finding *f)
{
	int c = cause_index(f->supports);
	if (inc->cause || c < 0 || f->refutes)
		return;
	for (size_t i = 0; i < inc->ndifferential; i++)
		if (!strcmp(inc->differential[i].cause, f->supports))
			return;
	inc->differential = kg_realloc(inc->differential,
				       (inc->ndifferential + 1) * sizeof *inc->differential);
	kg_hypothesis *h = &inc->differential[inc->ndifferential++];
	memset(h, 0, sizeof *h);
	h->cause = kg_vocab_word(&kg_categories, c);
	h->to_confirm = causes[c].to_confirm;
	h->open = true;
	add_ev(h, f->title, f->rule, KG_STRENGTH_NONE, false);
}

void kg_differential_build(kg_incident *inc)
{
	kg_differential_free(inc);
	inc->cause = NULL;
	inc->confidence = NULL;
	hyp *v = NULL;
	size_t n = 0;
	for (size_t i = 0; i < inc->nfindings; i++) {
		const kg_finding *f = &inc->findings[i];
		int c = cause_index(f->supports);
		if (c < 0 || f->strength == KG_STRENGTH_NONE)
			continue;
		hyp *x = get_hyp(&v, &n, c);
		int w = weight(f->strength);
		if (f->refutes) {
			x->h.score -= w;
			x->against = true;
			if (f->strength == KG_STRENGTH_DECISIVE)
				x->h.ruled_out = true;
		} else {
			x->h.score += w;
			x->decisive |= f->strength == KG_STRENGTH_DECISIVE;
			x->refines |= f->refines;
		}
		add_ev(&x->h, f->title, f->rule, f->strength, f->refutes);
	}
	for (size_t i = 0; i < n; i++)
		v[i].own = v[i].h.score;
	/* a specific reason why this process filled the device takes the
	 * evidence that it did */
	hyp *cap = NULL;
	for (size_t i = 0; i < n; i++)
		if (v[i].order == KG_CATEGORY_CAPACITY)
			cap = &v[i];
	if (cap && cap->own > 0 && !cap->h.ruled_out) {
		for (size_t i = 0; i < n; i++) {
			hyp *x = &v[i];
			if (!(causes[x->order].refines_capacity || x->refines) || x->own < STRONG ||
			    x->h.ruled_out)
				continue;
			x->h.score += cap->own;
			cap->absorbed = true;
			for (size_t k = 0; k < cap->h.nevidence; k++) {
				if (cap->h.evidence[k].against)
					continue;
				add_ev(&x->h, cap->h.evidence[k].text, cap->h.evidence[k].source,
				       cap->h.evidence[k].strength, false);
			}
		}
	}
	if (n)
		qsort(v, n, sizeof *v, cmp_hyp);
	inc->differential = kg_malloc((n ? n : 1) * sizeof *inc->differential);
	for (size_t i = 0; i < n; i++) {
		/* the top's rival: the next hypothesis that is neither ruled out
		 * nor capacity explained by the top */
		int rival = v[0].h.score;
		if (i == 0) {
			rival = 0;
			for (size_t k = 1; k < n; k++)
				if (!v[k].h.ruled_out && !v[k].absorbed) {
					rival = v[k].h.score;
					break;
				}
		}
		v[i].h.confidence = confidence(&v[i], rival);
		inc->differential[i] = v[i].h;
	}
	inc->ndifferential = n;
	if (n && !v[0].h.ruled_out && v[0].h.score >= STRONG) {
		inc->cause = v[0].h.cause;
		inc->confidence = v[0].h.confidence;
	}
	free(v);
}

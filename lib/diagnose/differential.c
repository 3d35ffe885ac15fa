/* differential.c — see include/diagnose/differential.h. */
#include "diagnose/differential.h"
#include "model/util.h"

#include <math.h>
#include <stdio.h>
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

double kg_strength_ratio(enum kg_strength s)
{
	return s == KG_STRENGTH_DECISIVE ? 100.0 : s == KG_STRENGTH_STRONG ? 20.0 :
	       s == KG_STRENGTH_WEAK ? 2.5 : 1.0;
}

char *kg_prob_format(double p, char *buf, size_t n)
{
	if (p <= 0)
		snprintf(buf, n, "0");
	else if (p >= 1)
		snprintf(buf, n, "1");
	else if (p < 0.005)
		snprintf(buf, n, "<0.01");
	else if (p >= 0.995)
		snprintf(buf, n, ">0.99");
	else
		snprintf(buf, n, "%.2f", p);
	return buf;
}

/* What the strongest item against a cause divides its odds by, whatever
 * that item's strength (kgmem-rules(5), README "against ÷10"). */
#define AGAINST_RATIO 10.0

/* The weight of a cause's prior once some item speaks for it: its square
 * root. The strength ratios were measured as how often an item's cause is
 * the settled one (DIAGNOSIS §9, `bench/causes/rules.py`), a rate that
 * already holds each cause's base rate; the full prior on top counted that
 * rate twice and kept a rare cause's strong item (checkpoint, platform)
 * below `medium` even where such items are right 19 times in 20. Measured
 * on the first 101 dev cases only (bench/README.md, issue 31). */
#define PRIOR_WEIGHT_EVIDENCED 0.5

/* What the engine knows of one cause while it weighs the evidence. */
typedef struct hyp {
	kg_hypothesis h;
	enum kg_strength best;     /* strongest item for it (its own) */
	enum kg_strength worst;    /* strongest item against it */
	int nstrong;               /* its own items at strong or above */
	double logit;              /* ln prior + ln likelihood ratio */
	bool listed;               /* some evidence names it */
	bool absorbed;             /* capacity, explained by a refining hypothesis */
	bool refines;              /* a finding for it says `refines: capacity` */
	int order;                 /* its index in causes[]: the tie order */
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

static int cmp_hyp(const void *a, const void *b)
{
	const hyp *x = a, *y = b;
	if (x->h.ruled_out != y->h.ruled_out)
		return x->h.ruled_out ? 1 : -1;
	if (x->h.p != y->h.p)
		return x->h.p > y->h.p ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The level of the top hypothesis x (DIAGNOSIS §9): high at p ≥ 0.95 with
 * a decisive item, a second item of its own at strong or above, and none
 * against (one decisive item alone is right about 9 times in 10 on the
 * dev cases: medium, not high); medium at p ≥ 0.8 with a strong item and
 * no rival with evidence as strong (rival_best: none where the rival has
 * an item against it at strong or above); low at p ≥ 0.5. */
static const char *level(const hyp *x, enum kg_strength rival_best)
{
	if (x->h.ruled_out || x->h.p < KG_P_LOW)
		return NULL;
	enum kg_confidence c = KG_CONFIDENCE_LOW;
	if (x->h.p >= KG_P_HIGH && x->best == KG_STRENGTH_DECISIVE && x->nstrong >= 2 &&
	    x->worst == KG_STRENGTH_NONE)
		c = KG_CONFIDENCE_HIGH;
	else if (x->h.p >= KG_P_MEDIUM && x->best >= KG_STRENGTH_STRONG &&
		 !(rival_best >= KG_STRENGTH_STRONG && rival_best >= x->best))
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
	h->p = inc->cause_p[c];
	add_ev(h, f->title, f->rule, KG_STRENGTH_NONE, false);
}

void kg_differential_build(kg_incident *inc, const double *prior)
{
	kg_differential_free(inc);
	inc->cause = NULL;
	inc->confidence = NULL;
	hyp v[KG_NCATEGORIES];
	memset(v, 0, sizeof v);
	for (int c = 0; c < KG_NCATEGORIES; c++) {
		v[c].h.cause = kg_vocab_word(&kg_categories, c);
		v[c].h.to_confirm = causes[c].to_confirm;
		v[c].order = c;
	}
	for (size_t i = 0; i < inc->nfindings; i++) {
		const kg_finding *f = &inc->findings[i];
		int c = cause_index(f->supports);
		if (c < 0 || f->strength == KG_STRENGTH_NONE)
			continue;
		hyp *x = &v[c];
		x->listed = true;
		if (f->refutes) {
			if (f->strength > x->worst)
				x->worst = f->strength;
			if (f->strength == KG_STRENGTH_DECISIVE)
				x->h.ruled_out = true;
		} else {
			if (f->strength > x->best)
				x->best = f->strength;
			if (f->strength >= KG_STRENGTH_STRONG)
				x->nstrong++;
			x->refines |= f->refines;
		}
		add_ev(&x->h, f->title, f->rule, f->strength, f->refutes);
	}
	/* log-odds: the prior, the strongest item for (items about one cause
	 * say the same thing and count once), the strongest against (÷10) */
	for (int c = 0; c < KG_NCATEGORIES; c++) {
		hyp *x = &v[c];
		double pr = prior ? prior[c] : 1.0 / (KG_NCATEGORIES - 1);
		if (c == KG_CATEGORY_NONE || pr <= 0)
			continue;
		x->logit = (x->best != KG_STRENGTH_NONE ? PRIOR_WEIGHT_EVIDENCED : 1.0) * log(pr) +
			   log(kg_strength_ratio(x->best));
		if (x->worst != KG_STRENGTH_NONE)
			x->logit -= log(AGAINST_RATIO);
	}
	/* a specific reason why this process filled the device (at least
	 * strong support of its own) takes the evidence that it did: that
	 * evidence is as likely under it as under capacity */
	hyp *cap = &v[KG_CATEGORY_CAPACITY];
	if (cap->best != KG_STRENGTH_NONE && !cap->h.ruled_out) {
		for (int c = 0; c < KG_NCATEGORIES; c++) {
			hyp *x = &v[c];
			if (!(causes[c].refines_capacity || x->refines) || x->best < KG_STRENGTH_STRONG ||
			    x->h.ruled_out)
				continue;
			x->logit += log(kg_strength_ratio(cap->best));
			cap->absorbed = true;
			for (size_t k = 0; k < cap->h.nevidence; k++) {
				if (cap->h.evidence[k].against)
					continue;
				add_ev(&x->h, cap->h.evidence[k].text, cap->h.evidence[k].source,
				       cap->h.evidence[k].strength, false);
			}
		}
	}
	/* evidence that this process's memory did not fill the device is
	 * evidence against every cause that says why it did, unless that
	 * cause has strong evidence of its own (a counterfactual of its own
	 * that also frees the deficit: DIAGNOSIS §2) */
	if (cap->worst != KG_STRENGTH_NONE) {
		for (int c = 0; c < KG_NCATEGORIES; c++) {
			hyp *x = &v[c];
			if (!(causes[c].refines_capacity || x->refines) || x->h.ruled_out ||
			    x->worst != KG_STRENGTH_NONE || x->best >= KG_STRENGTH_STRONG)
				continue;
			x->logit -= log(AGAINST_RATIO);
			x->worst = cap->worst;
			if (!x->listed)
				continue;
			for (size_t k = 0; k < cap->h.nevidence; k++)
				if (cap->h.evidence[k].against)
					add_ev(&x->h, cap->h.evidence[k].text, cap->h.evidence[k].source,
					       cap->h.evidence[k].strength, true);
		}
	}
	/* normalise over every cause not ruled out, with a prior (softmax) */
	bool in[KG_NCATEGORIES];
	double top = -INFINITY, sum = 0;
	for (int c = 0; c < KG_NCATEGORIES; c++) {
		in[c] = c != KG_CATEGORY_NONE && !v[c].h.ruled_out && (prior ? prior[c] > 0 : true);
		if (in[c] && v[c].logit > top)
			top = v[c].logit;
	}
	for (int c = 0; c < KG_NCATEGORIES; c++)
		if (in[c])
			sum += exp(v[c].logit - top);
	for (int c = 0; c < KG_NCATEGORIES; c++) {
		v[c].h.p = in[c] && sum > 0 ? exp(v[c].logit - top) / sum : 0.0;
		inc->cause_p[c] = v[c].h.p;
	}
	/* the differential lists the causes some evidence names */
	size_t n = 0;
	for (int c = 0; c < KG_NCATEGORIES; c++)
		if (v[c].listed)
			v[n++] = v[c];
	if (n)
		qsort(v, n, sizeof *v, cmp_hyp);
	/* the top's rival: the next hypothesis that is neither ruled out
	 * nor capacity explained by the top. A rival with an item against it
	 * at strong or above is contradicted as strongly as it is supported
	 * (an evaluation phase read from the log beside "the failure is in
	 * host memory, which eval-blowup does not explain"): it does not
	 * hold the top back from medium; its odds already lost the ÷10. */
	enum kg_strength rival = KG_STRENGTH_NONE;
	for (size_t k = 1; k < n; k++)
		if (!v[k].h.ruled_out && !v[k].absorbed) {
			rival = v[k].worst >= KG_STRENGTH_STRONG ? KG_STRENGTH_NONE : v[k].best;
			break;
		}
	inc->differential = kg_malloc((n ? n : 1) * sizeof *inc->differential);
	for (size_t i = 0; i < n; i++) {
		v[i].h.confidence = i == 0 ? level(&v[0], rival) : NULL;
		inc->differential[i] = v[i].h;
	}
	inc->ndifferential = n;
	if (n && v[0].h.confidence) {
		inc->cause = v[0].h.cause;
		inc->confidence = v[0].h.confidence;
	}
}

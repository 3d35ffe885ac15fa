/* test_facts.c — facts from an incident (with derivations and intervals),
 * --set parsing, value formatting, and the log readings / parallelism
 * parsers with their series facts. */
#include "model/facts.h"
#include "model/incident.h"
#include "read/logfacts.h"
#include "read/modelinfo.h"
#include "tap.h"
#include "model/units.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static kg_size sz(const char *s)
{
	kg_size v = kg_size_none();
	kg_size_parse_str(s, &v);
	return v;
}

static double num(const kg_facts *f, const char *name)
{
	const kg_fact *x = kg_facts_get(f, name);
	return x ? x->num : NAN;
}

static const char *str(const kg_facts *f, const char *name)
{
	const kg_fact *x = kg_facts_get(f, name);
	return x ? x->str : NULL;
}

static size_t readings(const char *line, kg_log_reading *out)
{
	return kg_parse_readings(line, strlen(line), out, 8);
}

static int64_t hint(const char *line)
{
	int64_t j = 0;
	const char *k = NULL;
	return kg_parse_parallel_hint(line, strlen(line), &j, &k) ? j : -1;
}


/* kg_parse_signs: nvidia-smi rows and the reporter's words, each line fed
 * as the scanner feeds it, then the facts they give. */
static int sign(kg_log_markers *m, const char *line, long lineno)
{
	return kg_parse_signs(line, strlen(line), lineno, m);
}

/* One nvidia-smi or gpustat device row alone: the used and utilization
 * facts it gives (NAN when not given). */
static void smi_row(const char *line, double *used, double *util)
{
	kg_log_facts lf;
	kg_log_facts_init(&lf);
	sign(&lf.markers, line, 1);
	kg_facts f = {0};
	kg_facts_from_log(&lf, "row.log", 0, &f);
	*used = num(&f, "log.smi.used");
	*util = num(&f, "log.smi.util");
	kg_facts_free(&f);
	kg_log_facts_free(&lf);
}

static void signs(void)
{
	kg_log_facts lf;
	kg_log_facts_init(&lf);
	kg_log_markers *m = &lf.markers;
	/* nvidia-smi before 470: GPU, PID, Type, name, usage */
	TAP_EQ_I64(sign(m, "|    0     32317      C   python                                      7773MiB |", 3), 1, "process row (old layout)");
	/* 470+: GPU, GI ID, CI ID, PID, … */
	TAP_EQ_I64(sign(m, "|    0   N/A  N/A     34873      C   python                             2217MiB |", 4), 1, "process row (GI/CI layout)");
	TAP_EQ_I64(sign(m, "|    0   N/A  N/A      1663      G   /usr/lib/xorg/Xorg                   25MiB |", 5), 1, "graphics row");
	TAP_EQ_I64(sign(m, "|    1     40000      C   python                                      9000MiB |", 6), 1, "a row of another GPU");
	TAP_EQ_I64(sign(m, "|    0     32317      C   python                                      7773MiB |", 7), 0, "the same pid again is not a second process");
	TAP_EQ_I64(sign(m, "| N/A   34C    P0    25W / 250W |  10021MiB / 16280MiB |      0%      Default |", 8), 1, "device row");
	TAP_EQ_I64(sign(m, "| 30%   34C    P0    25W / 250W |    100MiB / 16280MiB |      0%      Default |", 9), 0, "only the first device row");
	TAP_EQ_I64(sign(m, "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |", 10), 0, "header");
	kg_facts f = {0};
	kg_facts_from_log(&lf, "smi.log", 0, &f);
	TAP_EQ_I64(num(&f, "log.smi.processes"), 3, "three processes on GPU 0");
	TAP_EQ_I64(num(&f, "log.smi.compute"), 2, "two of them CUDA processes");
	TAP_EQ_I64(num(&f, "log.smi.gpu"), 0, "GPU 0");
	TAP_EQ_STR(str(&f, "log.smi.pids"), "32317, 34873, 1663", "their pids");
	TAP_EQ_I64(num(&f, "log.smi.listed"), (7773LL + 2217 + 25) << 20, "listed sum");
	TAP_EQ_I64(num(&f, "log.smi.others"), (2217LL + 25) << 20, "others: the sum less the largest");
	TAP_EQ_I64(num(&f, "log.smi.used"), 10021LL << 20, "used");
	TAP_EQ_I64(num(&f, "log.smi.total"), 16280LL << 20, "total");
	TAP_EQ_I64(num(&f, "log.smi.util") * 100, 0, "utilization: the GPU-Util cell after the memory");
	TAP_EQ_STR(kg_facts_get(&f, "log.smi.processes")->provenance, "smi.log:3", "provenance: the first row");
	kg_facts_free(&f);
	kg_log_facts_free(&lf);

	/* gpustat's rows (dcause-0057's paste: MiB printed as MB) */
	kg_log_facts_init(&lf);
	static const char *const gs[] = {
		"[0] Tesla V100-SXM2-16GB | 44'C,   0 % | 15836 / 16130 MB |",
		"[1] Tesla V100-SXM2-16GB | 43'C,   0 % | 15825 / 16130 MB |",
	};
	for (size_t i = 0; i < 2; i++)
		sign(&lf.markers, gs[i], (long)i + 1);
	memset(&f, 0, sizeof f);
	kg_facts_from_log(&lf, "gpustat.log", 0, &f);
	TAP_EQ_I64(num(&f, "log.smi.used"), 15836LL << 20, "gpustat: used of the first GPU");
	TAP_EQ_I64(num(&f, "log.smi.total"), 16130LL << 20, "gpustat: its total");
	TAP_EQ_I64(num(&f, "log.smi.util") * 100, 0, "gpustat: its utilization, after the temperature");
	kg_facts_free(&f);
	kg_log_facts_free(&lf);

	/* gpustat with the power column (--show-power), then a bare memory
	 * cell: a utilization read where printed, none where not */
	double used, util;
	smi_row("[0] GeForce GTX 1080 | 45'C,  37 %,  10 / 180 W |  1000 /  8119 MB | user(1000M)", &used, &util);
	TAP_EQ_I64(used, 1000LL << 20, "gpustat with power: used");
	TAP_EQ_I64(llround(util * 100), 37, "gpustat with power: the utilization, not the watts");
	smi_row("memory | 7785MiB / 16280MiB |", &used, &util);
	TAP_EQ_I64(used, 7785LL << 20, "a bare memory cell: used");
	TAP_OK(isnan(util), "a bare memory cell: no utilization");

	/* the platform: Jetson's modules by their GPU's name, counted in the
	 * lines pasted after the error (dcause-0074: ggml's device line under
	 * Ollama's refusal), not past PASTED_AFTER */
	static const struct { const char *line; const char *kind; } plats[] = {
		{"  Device 0: NVIDIA Thor, compute capability 11.0, VMM: yes", "jetson"},
		{"Model: NVIDIA Jetson AGX Orin Developer Kit - Jetpack 6.0", "jetson"},
		{"|   0  Orin (nvgpu)                  N/A  | N/A              N/A |", "jetson"},
		{"Linux version 5.15.90.1-microsoft-standard-WSL2", "wsl"},
		{"the author thought more memory would help", NULL},
		{"Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9", NULL},
	};
	for (size_t i = 0; i < sizeof plats / sizeof *plats; i++) {
		kg_log_markers pm;
		memset(&pm, 0, sizeof pm);
		kg_parse_marker(plats[i].line, strlen(plats[i].line), 1, &pm);
		TAP_OK(plats[i].kind ? pm.platform && !strcmp(pm.platform, plats[i].kind) : !pm.platform,
		       "\"%s\": %s", plats[i].line, plats[i].kind ? plats[i].kind : "no platform");
	}
	for (long at = 40; at <= 80; at += 40) {
		kg_log_facts_init(&lf);
		const char *dev = "  Device 0: NVIDIA Thor, compute capability 11.0, VMM: yes";
		kg_parse_marker(dev, strlen(dev), at, &lf.markers);
		memset(&f, 0, sizeof f);
		kg_facts_from_log(&lf, "jetson.log", 1, &f);
		const kg_fact *pf = kg_facts_get(&f, "log.platform");
		TAP_OK(at == 40 ? pf && !strcmp(pf->str, "jetson") : !pf,
		       "a platform line %ld lines after the OOM line %s", at - 1, at == 40 ? "counts" : "does not");
		kg_facts_free(&f);
		kg_log_facts_free(&lf);
	}

	static const struct { const char *line; const char *kind; } words[] = {
		{"It crashes after 30 epochs with the error below.", "late"},
		{"the OOM happens at the 12th epoch", "late"},
		{"after about 3 hours of training", "late"},
		{"It worked after running for a while then died", "late"},
		{"fails after several epochs", "late"},
		{"RuntimeError when training the model for too long.", "late"},
		{"it fails after 2.5 hours", "late"},
		{"even with batch size 1 it fails", "batch"},
		{"I changed the minibatch_size to 1.", "batch"},
		{"python train.py --batch_size 1 --lr 3e-4", "batch"},
		{"per_device_train_batch_size=1", "batch"},
		{"bs=1", "batch"},
		{"it failed during the evaluation loop", "eval"},
		{"Loading valid dataset from data.valid.0.pt", "eval"},
		{"when the validation is going to start I get", "eval"},
		{"an OOM during inference", "eval"},
		/* the evaluation in other words (public threads:
		 * jiny2001/dcscn-super-resolution#6 and their like) */
		{"it runs out of memory when evaluating the model", "eval"},
		{"OOM while running the validation", "eval"},
		{"the crash is at inference time", "eval"},
		{"I get an OOM in evaluation", "eval"},
		{"For example, in evaluate(), we run sess over self.x", "eval"},
		{"However, if validation set gets bigger, it quickly run out of memory.", "eval"},
		/* dcause-0047, 0058, 0029, 0054, 0055's words (their threads,
		 * testdata/cases/dev-causes.jsonl) */
		{"There appears to be a memory leak during the training routine", "leak"},
		{"After each batch the GPU memory allocation keeps on increasing.", "leak"},
		{"memory grows after every epoch", "leak"},
		/* memory growth and its mechanism in reporters' words (public
		 * threads: BatsResearch/labelmodels#4, microsoft/SpareNet#12,
		 * pytorch/pytorch#1840) */
		{"You're holding on to the graph for each batch per epoch", "leak"},
		{"since `running_loss` is the sum of non-detached tensors", "leak"},
		{"This prevents the GPU memory use from increasing per step.", "leak"},
		{"Tracking the GPU memory consumption a slow and steady increase is visible.", "leak"},
		{"the memory grows unlimitly until OOM", "leak"},
		{"memory usage keeps growing until it crashes", "leak"},
		{"when restarting, when it loads the existing checkpoint, I always get OOM", "checkpoint"},
		{"It only runs out of memory when saving the model after training.", "checkpoint"},
		{"OOM right after resuming training from step 4000", "checkpoint"},
		{"when I try to run both evaluation scripts simultaneously", "parallel"},
		{"I run two training processes on the same GPU", "parallel"},
		/* engines and workers (vllm-project/vllm#9198) */
		{"so i want to initialize multiple workers on one single GPU(T4, 16G mem)", "parallel"},
		{"when initializing multiple LLM classes simultaneously on the same GPU", "parallel"},
		/* every process on the first device (dcause-0048's words; the
		 * DDP tutorial's missing torch.cuda.set_device) */
		{"It seems GPU 0 always occupy a lot of memory for each script", "parallel"},
		{"all ranks allocate on cuda:0 instead of their own device", "parallel"},
		{"the valid going to start", "eval"},
		{"it fails as the evaluation is about to start", "eval"},
		/* the inputs named large (public threads: jsnln/
		 * ParametricGaussRecon#2, mahmoodlab/Patch-GCN#28,
		 * tensorflow/tensor2tensor#545's thread) */
		{"If I try to use large point cloud data, an error will occur.", "large"},
		{"RuntimeError: CUDA out of memory when not skipping large bags", "large"},
		{"Some of the lines I have in the source and target translation are long.", NULL},
		{"it only fails on very long sequences", "large"},
		{"with higher-resolution images it runs out of memory", "large"},
		{"Large input images (4000x3000) crash it", "large"},
		/* the failure tied to a software version (public threads:
		 * ollama/ollama#3460, Comfy-Org/ComfyUI#5000,
		 * ggml-org/llama.cpp#1230, ROCm/legacy-rocm-build#6661,
		 * JuliaGPU/CUDA.jl#943; then three written here; then
		 * kijai/ComfyUI-KJNodes#581, marin-community/levanter#477,
		 * invoke-ai/InvokeAI#358, open-compass/opencompass#249,
		 * pytorch/torchtitan#1855) */
		{"Update from 0.1.29 to 0.1.30", "version"},
		{"A recent update causes OOM", "version"},
		{"Trying to load model that worked before update", "version"},
		{"After updating from ROCm 7.1.1 to ROCm 7.14.0, it started failing with:", "version"},
		{"This does not occur in v2.6.3, so maybe it is a bug of the latest version.", "version"},
		{"with the previous version it works fine", "version"},
		{"downgrading to 2.1.703 fixes it", "version"},
		{"since upgrading to transformers 4.40 the same script runs out of memory", "version"},
		{"OOM Errors with latest update (LTXT2.3)", "version"},
		{"Training OOM introduced by Recent Commits", "version"},
		{"NOTE: the immediately previous commit (92d1ed7) does NOT OOM", "version"},
		{"[Bug] All models meet OOM in tag 0.1.2, but back to commit 3715be6 works", "version"},
		{"After applying commit 6a3a9da, the training job runs out of GPU memory (OOM).", "version"},
		/* not signs */
		{"Loading checkpoint shards: 52%", NULL},
		{"Saving model checkpoint to out/checkpoint-500", NULL},
		{"no leak so far: memory stays flat", NULL},
		{"Running evaluation on 500 samples", NULL},
		{"validation accuracy: 0.91", NULL},
		{"inference speed 12 it/s", NULL},
		{"the graph of the model is built once", NULL},
		{"memory grows with the batch size", NULL},
		{"a steady increase in throughput", NULL},
		{"DistributedDataParallel on 8 GPUs", NULL},
		{"after 1 epoch it fails", NULL},
		{"the 1st epoch is fine", NULL},
		{"after 10 steps", NULL},
		{"after 1000 iterations", NULL},
		{"batch size 16", NULL},
		{"batch_size=128", NULL},
		{"batch size 1.5x larger", NULL},
		{"bs=12", NULL},
		{"validation accuracy improved", NULL},
		{"after the model is loaded", NULL},
		{"GPU 0 has a total capacity of 23.69 GiB", NULL},
		{"each process loads its own copy of the model", NULL},
		{"training is going to start", NULL},
		{"I have a large number of images", NULL},
		{"a big dataset of long documents", "large"},
		{"there are no long sequences in my data", NULL},
		{"roberta-large model training", NULL},
		{"it takes a long time to load", NULL},
		{"a large batch of images", NULL},
		{"The bug has not been fixed in the latest version.", NULL},
		{"I have searched the existing issues and checked the recent builds/commits", NULL},
		{"the gradients are cleared after each update", NULL},
		{"loss after update 1000: 2.31", NULL},
		{"after updating the weights the memory is freed", NULL},
		{"pip install --upgrade transformers", NULL},
		{"learning rate updated to 0.0001", NULL},
		{"PyTorch version: 1.0.0.dev20181123", NULL},
		{"git commit: 3715be6 (dirty)", NULL},
		{"I'm using the latest version of the webui", NULL},
	};
	for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
		kg_log_markers w;
		memset(&w, 0, sizeof w);
		int got = sign(&w, words[i].line, 1);
		const char *kind = w.late_line ? "late" : w.batch1_line ? "batch" : w.eval_line ? "eval" :
				   w.leak_line ? "leak" : w.ckpt_line ? "checkpoint" : w.par_line ? "parallel" :
				   w.large_line ? "large" : w.ver_line ? "version" : NULL;
		TAP_OK(got == (words[i].kind != NULL) && (kind == words[i].kind ||
		       (kind && words[i].kind && !strcmp(kind, words[i].kind))),
		       "\"%s\": %s", words[i].line, words[i].kind ? words[i].kind : "no sign");
	}
}

/* ---- reference for kg_facts_from_log ------------------------------------
 * The direct pass over the readings before the line that lib/read/logfacts.c
 * used before it indexed them (main at 199f3ba); the indexed version must
 * give exactly the same facts. */
static const char *const kind_names[] = {"allocated", "reserved", "max_allocated", "max_reserved"};

typedef struct point { double x; kg_size v; long line; } point;

static void reference_from_log(const kg_log_facts *lf, const char *path, long before, kg_facts *f)
{
	if (!path)
		path = "<log>";
	size_t counts[4] = {0};
	size_t total = 0;
	for (size_t i = 0; i < lf->nreadings; i++) {
		const kg_log_reading *r = &lf->readings[i];
		if (before > 0 && r->line >= before)
			continue;
		counts[r->kind]++;
		total++;
	}
	if (lf->parallel_jobs != KG_NONE && (before <= 0 || lf->parallel_line < before)) {
		char *prov = kg_asprintf("%s:%ld", path, lf->parallel_line);
		kg_facts_set_num(f, "log.parallel_jobs", KG_FACT_COUNT, (double)lf->parallel_jobs, prov);
		if (lf->parallel_kind)
			kg_facts_set_str(f, "log.parallel_source", lf->parallel_kind, prov);
		free(prov);
	}
	/* the model, card and host facts, as kg_facts_from_log sets them */
	kg_facts_from_modelinfo(lf->models, path, before, f);
	if (!total) {
		kg_facts_derive(f);
		return;
	}
	kg_reading_kind kind = KG_READ_ALLOCATED;
	for (int k = 0; k < 4; k++) {
		if (counts[k]) {
			kind = (kg_reading_kind)k;
			break;
		}
	}
	/* group: last reading per epoch, else per step, else every reading */
	bool by_epoch = false, by_step = false;
	int64_t e0 = KG_NONE, s0 = KG_NONE;
	for (size_t i = 0; i < lf->nreadings; i++) {
		const kg_log_reading *r = &lf->readings[i];
		if (r->kind != kind || (before > 0 && r->line >= before))
			continue;
		if (r->epoch != KG_NONE) {
			if (e0 == KG_NONE) e0 = r->epoch;
			else if (r->epoch != e0) by_epoch = true;
		}
		if (r->step != KG_NONE) {
			if (s0 == KG_NONE) s0 = r->step;
			else if (r->step != s0) by_step = true;
		}
	}
	if (by_epoch)
		by_step = false;
	point *pts = kg_malloc(counts[kind] * sizeof *pts);
	size_t np = 0;
	kg_size first = kg_size_none(), last = kg_size_none(), mx = kg_size_none();
	long first_line = 0, last_line = 0, max_line = 0;
	for (size_t i = 0; i < lf->nreadings; i++) {
		const kg_log_reading *r = &lf->readings[i];
		if (r->kind != kind || (before > 0 && r->line >= before))
			continue;
		if (!kg_size_known(first)) {
			first = r->value;
			first_line = r->line;
		}
		last = r->value;
		last_line = r->line;
		if (!kg_size_known(mx) || r->value.bytes > mx.bytes) {
			mx = r->value;
			max_line = r->line;
		}
		double x;
		if (by_epoch) {
			if (r->epoch == KG_NONE) continue;
			x = (double)r->epoch;
		} else if (by_step) {
			if (r->step == KG_NONE) continue;
			x = (double)r->step;
		} else {
			x = (double)np;
		}
		if (np && (by_epoch || by_step) && pts[np - 1].x == x) {
			pts[np - 1].v = r->value; /* the last reading of the epoch/step */
			pts[np - 1].line = r->line;
			continue;
		}
		pts[np++] = (point){x, r->value, r->line};
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
		bool mono = true;
		for (size_t i = 1; i < np; i++)
			if (pts[i].v.hi < pts[i - 1].v.lo)
				mono = false;
		if (pts[np - 1].v.lo <= pts[0].v.hi)
			mono = false;
		kg_facts_set_num(f, "log.allocated.monotonic", KG_FACT_BOOL, mono, pl);
		double sx = 0, sy = 0, sxx = 0, sxy = 0;
		for (size_t i = 0; i < np; i++) {
			double y = (double)pts[i].v.bytes;
			sx += pts[i].x;
			sy += y;
			sxx += pts[i].x * pts[i].x;
			sxy += pts[i].x * y;
		}
		double den = (double)np * sxx - sx * sx;
		if (den != 0 && (by_epoch || by_step)) {
			double slope = ((double)np * sxy - sx * sy) / den;
			kg_facts_set_num(f, by_epoch ? "log.allocated.growth_per_epoch"
					 : "log.allocated.growth_per_step",
					 KG_FACT_BYTES, round(slope), pl);
		}
	}
	free(pts);
	free(pl);
	free(pf);
	free(pm);
	kg_facts_derive(f);
}



/* Same facts, same values, same provenance. */
static bool same_facts(const kg_facts *a, const kg_facts *b, char *why, size_t wn)
{
	if (a->n != b->n) {
		snprintf(why, wn, "%zu facts vs %zu", a->n, b->n);
		return false;
	}
	for (size_t i = 0; i < a->n; i++) {
		const kg_fact *x = &a->v[i], *y = kg_facts_get(b, a->v[i].name);
		if (!y || x->type != y->type || x->num != y->num || x->lo != y->lo || x->hi != y->hi ||
		    (x->str || y->str ? !x->str || !y->str || strcmp(x->str, y->str) : 0) ||
		    (x->provenance || y->provenance ? !x->provenance || !y->provenance ||
		     strcmp(x->provenance, y->provenance) : 0)) {
			snprintf(why, wn, "%s: %.17g vs %.17g", x->name, x->num, y ? y->num : NAN);
			return false;
		}
	}
	return true;
}

static void indexed_matches_reference(void)
{
	int bad = 0, checks = 0;
	char why[200] = "";
	tap_rng = 88172645463325252u;
	for (int round = 0; round < 300; round++) {
		kg_log_facts lf;
		kg_log_facts_init(&lf);
		int n = (int)tap_rnd(60);
		long line = 1;
		int64_t epoch = 0, step = 0;
		for (int i = 0; i < n; i++) {
			line += tap_rnd(3);
			if (tap_rnd(4) == 0)
				epoch++;
			step += tap_rnd(3);
			kg_log_reading r = {0};
			r.kind = (kg_reading_kind)(tap_rnd(5) == 0 ? tap_rnd(4) : 0);
			double gib = 1 + tap_rnd(40) / 4.0;
			int64_t b = (int64_t)(gib * 1073741824.0);
			r.value = (kg_size){b, b - (int64_t)tap_rnd(3) * 5368709, b + (int64_t)tap_rnd(3) * 5368709};
			r.step = tap_rnd(5) == 0 ? KG_NONE : step;
			r.epoch = tap_rnd(round % 3 + 1) == 0 ? KG_NONE : epoch;
			kg_log_facts_add_reading(&lf, &r, KG_NONE, KG_NONE, line);
			if (tap_rnd(6) == 0) {
				/* query in between: the index is rebuilt after more readings */
				kg_facts a = {0}, b = {0};
				kg_facts_from_log(&lf, "t.log", 0, &a);
				reference_from_log(&lf, "t.log", 0, &b);
				checks++;
				if (!same_facts(&a, &b, why, sizeof why) && bad++ < 3)
					printf("# round %d (mid): %s\n", round, why);
				kg_facts_free(&a);
				kg_facts_free(&b);
			}
		}
		for (long before = 0; before <= line + 1; before++) {
			kg_facts a = {0}, b = {0};
			kg_facts_from_log(&lf, "t.log", before, &a);
			reference_from_log(&lf, "t.log", before, &b);
			checks++;
			if (!same_facts(&a, &b, why, sizeof why) && bad++ < 3)
				printf("# round %d before %ld: %s\n", round, before, why);
			kg_facts_free(&a);
			kg_facts_free(&b);
		}
		kg_log_facts_free(&lf);
	}
	TAP_OK(bad == 0 && checks > 3000, "indexed log facts equal a direct pass over the readings (%d checks, %d differ)", checks, bad);
}

/* pt2-0049's message: six processes listed, none named as this one,
 * with `allocated` by PyTorch (no reserved figure printed) */
static void six_processes(kg_incident *inc, const char *allocated)
{
	static const struct { long pid; const char *size; } six[6] = {
		{899595, "14.52 GiB"}, {1039101, "3.11 GiB"}, {1603024, "6.96 GiB"},
		{2007660, "9.48 GiB"}, {785200, "8.47 GiB"}, {795316, "1.71 GiB"}};
	kg_incident_init(inc);
	inc->mem.requested = sz("282.00 MiB");
	inc->mem.total_capacity = sz("44.53 GiB");
	inc->mem.free = sz("260.62 MiB");
	inc->mem.allocated = sz(allocated);
	inc->mem.reserved_unallocated = sz("56.25 MiB");
	inc->mem.procs = kg_malloc(sizeof(kg_proc) * 6);
	for (int i = 0; i < 6; i++)
		inc->mem.procs[i] = (kg_proc){six[i].pid, sz(six[i].size)};
	inc->mem.nprocs = 6;
}

/* settings in a log line (rules/keys.yaml's roles with a `log:` kind):
 * key=value, key: value, HF's banner, an echoed argparse command line
 * (`--key value`, `--key=value`, words joined by _ or -), a call's keyword
 * and argument; a longer key is not a shorter one */
static void batch_hints(void)
{
	static const struct { const char *line; const char *role; double v; } bc[] = {
		{"per_device_train_batch_size=16, gradient_accumulation_steps=2", "train_batch_size", 16},
		{"  Instantaneous batch size per device = 4", "train_batch_size", 4},
		{"$ python finetune.py --model qwen2-7b --per_device_train_batch_size 8", "train_batch_size", 8},
		{"$ python train.py --batch-size 64 --lr 3e-4", "train_batch_size", 64},
		{"torchrun train.py --batch_size=32", "train_batch_size", 32},
		{"python run.py --eval-batch-size 256", "eval_batch_size", 256},
		{"accelerate launch sft.py --gradient-accumulation-steps 4", "grad_accum_steps", 4},
		{"eval-batch-size=16", "eval_batch_size", 16},
		/* dcause-0089's pasted call (vllm-project/vllm issue), 0036's, and
		 * the caps' other spellings */
		{"llm = LLM(model=\"hiuman/Vistral-7B-Chat-quantize\", quantization=\"AWQ\",enforce_eager=True, gpu_memory_utilization=0.1)",
		 "gpu_memory_utilization", 0.1},
		{"client.index(index_name).add_documents(documents, batch_size=50, device='cuda', processes=4)", "parallel_jobs", 4},
		{"torch.cuda.set_per_process_memory_fraction(0.5)", "memory_fraction", 0.5},
		{"XLA_PYTHON_CLIENT_MEM_FRACTION=.45 python train.py", "memory_fraction", 0.45},
		{"config.gpu_options.per_process_gpu_memory_fraction = 0.4", "memory_fraction", 0.4},
		{"vllm serve Qwen/Qwen2-72B --max-model-len 32768 --tensor-parallel-size 2", "max_model_len", 32768},
		{"build/bin/llama-server -m model.gguf -ngl 99 -c 8192", "n_gpu_layers", 99},
		{"docker run --gpus all --shm-size=8g pytorch/pytorch", "shm_size", 8589934592.0},
		{"TF_FORCE_GPU_ALLOW_GROWTH=true python train.py", "allow_growth", 1},
		{"usage: train.py [--batch-size BATCH_SIZE]", NULL, 0},
		{"Epoch 0 | Batch 30/200 | Loss 1.56", NULL, 0},
	};
	for (size_t i = 0; i < sizeof bc / sizeof *bc; i++) {
		kg_log_setting h[4];
		int n = kg_parse_settings(bc[i].line, strlen(bc[i].line), h, 4);
		if (!bc[i].role) {
			TAP_OK(n == 0, "no setting: %s", bc[i].line);
			continue;
		}
		bool found = false, wrong = false;
		for (int k = 0; k < n; k++) {
			if (!strcmp(h[k].role, bc[i].role))
				found = h[k].value == bc[i].v;
			else if (!strcmp(bc[i].role, "eval_batch_size") && !strcmp(h[k].role, "train_batch_size"))
				wrong = true; /* an eval key read as the training batch */
		}
		TAP_OK(found && !wrong, "setting %s = %g: %s", bc[i].role, bc[i].v, bc[i].line);
	}
}

/* job.mode (kg_facts_job_mode): each sign alone, in the order they
 * decide, on the facts a run would have (NAME=VALUE as --set takes them;
 * "phase.source" and the strings are what logscan.c and oom.c set). */
static void job_modes(void)
{
	static const struct { const char *facts[4]; const char *mode; const char *what; } cases[] = {
		{{"framework=vllm"}, "serve", "vLLM's KV-cache message: serving"},
		{{"framework=ggml", "phase=eval", "phase.source=frames"}, "serve", "a ggml buffer, whatever the phase"},
		{{"framework=ctranslate2"}, "serve", "CTranslate2"},
		{{"frames.files=/usr/lib/python3/site-packages/vllm/worker/worker.py", "phase=forward", "phase.source=frames"},
		 "serve", "vllm/ in the frames' files"},
		{{"family=oom_killer", "oom.message=Loading checkpoint shards: 0%| | 0/2 [00:00<?, ?it/s]Killed"},
		 "load", "killed while loading checkpoint shards"},
		{{"family=oom_killer", "oom.message=Killed"}, "unknown", "a bare Killed"},
		{{"phase=model-load", "phase.source=frames", "frames.functions=<module> from_pretrained"}, "load",
		 "from_pretrained in the frames"},
		{{"phase=eval", "phase.source=frames", "frames.functions=<module> main fit evaluate score_all"}, "eval",
		 "evaluate in the frames wins over fit"},
		{{"phase=backward", "phase.source=frames", "frames.functions=<module> train backward"}, "train",
		 "backward in the frames"},
		{{"phase=optimizer", "phase.source=frames"}, "train", "the optimizer step"},
		{{"phase=checkpoint", "phase.source=frames", "frames.functions=<module> main load_checkpoint load"}, "load",
		 "a checkpoint loaded outside training"},
		{{"phase=checkpoint", "phase.source=frames", "frames.functions=<module> train save_checkpoint"}, "train",
		 "a checkpoint saved in training"},
		{{"phase=forward", "phase.source=frames", "frames.functions=<module> training_step forward"}, "train",
		 "training_step in the frames"},
		{{"phase=eval", "phase.source=log"}, "eval", "the log's evaluation words"},
		{{"log.words.eval=it failed during the evaluation loop"}, "eval", "the reporter's evaluation words"},
		{{"phase.log_train=true"}, "train", "the log's training lines"},
		{{"epoch=3"}, "train", "an epoch"},
		{{"phase=forward", "phase.source=frames", "frames.functions=<module> forward"}, "unknown",
		 "a forward frame alone does not tell"},
		{{NULL}, "unknown", "nothing"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		kg_facts f = {0};
		kg_error e = {0};
		for (size_t k = 0; k < 4 && cases[i].facts[k]; k++)
			kg_facts_set_arg(&f, cases[i].facts[k], &e);
		kg_facts_derive(&f);
		TAP_EQ_STR(str(&f, "job.mode"), cases[i].mode, "job.mode: %s", cases[i].what);
		kg_facts_free(&f);
	}
	/* --set job.mode wins over the signs; a word not of the vocabulary is
	 * refused (exit 2 in the CLI) */
	kg_facts f = {0};
	kg_error e = {0};
	kg_facts_set_arg(&f, "phase=backward", &e);
	kg_facts_set_arg(&f, "phase.source=frames", &e);
	TAP_EQ_I64(kg_facts_set_arg(&f, "job.mode=eval", &e), 0, "--set job.mode=eval");
	kg_facts_derive(&f);
	TAP_EQ_STR(str(&f, "job.mode"), "eval", "--set job.mode wins over the frames' backward");
	TAP_OK(kg_facts_set_arg(&f, "job.mode=inference", &e) < 0 && strstr(e.msg, "train, eval, serve, load"),
	       "--set job.mode=inference is refused, naming the words (%s)", e.msg);
	kg_facts_free(&f);
}

/* job.engine (kg_facts_job_engine): the engine whichever printed the
 * message, so that a PyTorch OOM inside a server gets its engine's advice */
static void job_engines(void)
{
	static const struct { const char *facts[3]; const char *engine; const char *what; } cases[] = {
		{{"framework=vllm"}, "vllm", "vLLM's own message"},
		{{"framework=sglang", "model.engine=vllm"}, "sglang", "the engine that printed it wins over a name"},
		{{"framework=pytorch", "frames.files=/opt/venv/lib/python3.11/site-packages/vllm/worker/model_runner.py"},
		 "vllm", "a PyTorch OOM with vllm/ in the frames"},
		{{"framework=pytorch", "frames.files=/sglang/srt/managers/scheduler.py", "model.engine=vllm"}, "sglang",
		 "the frames win over the log's name"},
		{{"framework=pytorch", "frames.files=/usr/lib/python3/dist-packages/text_generation_server/server.py"},
		 "tgi", "TGI's package: a word of its own"},
		{{"framework=pytorch", "model.engine=sglang"}, "sglang", "sglang.launch_server in the log"},
		{{"framework=ggml", "model.engine=ollama"}, "ggml", "llama.cpp's buffer message under Ollama"},
		{{"model.engine=llama.cpp"}, "ggml", "llama.cpp named: ggml"},
		{{"model.engine=mlc"}, "tvm", "mlc_chat named: tvm"},
		{{"framework=pytorch"}, "unknown", "a PyTorch OOM, no engine anywhere"},
		{{NULL}, "unknown", "nothing"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		kg_facts f = {0};
		kg_error e = {0};
		for (size_t k = 0; k < 3 && cases[i].facts[k]; k++)
			kg_facts_set_arg(&f, cases[i].facts[k], &e);
		kg_facts_derive(&f);
		TAP_EQ_STR(str(&f, "job.engine"), cases[i].engine, "job.engine: %s", cases[i].what);
		kg_facts_free(&f);
	}
	kg_facts f = {0};
	kg_error e = {0};
	kg_facts_set_arg(&f, "framework=vllm", &e);
	kg_facts_set_arg(&f, "job.engine=sglang", &e);
	kg_facts_derive(&f);
	TAP_EQ_STR(str(&f, "job.engine"), "sglang", "--set job.engine wins");
	kg_facts_free(&f);
}

/* The store's index: 2,000 names (so many share a slot's probe run),
 * looked up by name and with the hash a compiled rule keeps
 * (kg_facts_get_hashed), before and after removals; a hash that is not the
 * name's finds nothing. */
static void store_index(void)
{
	kg_facts f = {0};
	char name[32];
	for (int i = 0; i < 2000; i++) {
		snprintf(name, sizeof name, "config.k%d", i);
		kg_facts_set_num(&f, name, KG_FACT_COUNT, i, NULL);
	}
	for (int i = 0; i < 2000; i += 3) {
		snprintf(name, sizeof name, "config.k%d", i);
		kg_facts_remove(&f, name);
	}
	int bad = 0;
	for (int i = 0; i < 2100; i++) {
		snprintf(name, sizeof name, "config.k%d", i);
		const kg_fact *a = kg_facts_get(&f, name);
		const kg_fact *b = kg_facts_get_hashed(&f, name, kg_fact_name_hash(name));
		bool want = i < 2000 && i % 3 != 0;
		if (a != b || (a != NULL) != want || (a && (a->num != i || strcmp(a->name, name))))
			bad++;
		if (a && kg_facts_get_hashed(&f, name, kg_fact_name_hash(name) ^ 1u))
			bad++;
	}
	TAP_OK(bad == 0 && f.n == 1333, "2,000 names, a third removed: every lookup, plain and hashed, finds its own fact (%d wrong)", bad);
	kg_facts_free(&f);
}

int main(void)
{
	store_index();
	job_modes();
	job_engines();
	batch_hints();
	/* seed 004: a 2.x message with "Process has" (no pid) */
	kg_incident inc;
	kg_incident_init(&inc);
	inc.family = "pytorch2";
	inc.line = 42;
	inc.mem.requested = sz("16.00 MiB");
	inc.mem.total_capacity = sz("23.56 GiB");
	inc.mem.free = sz("33.56 MiB");
	inc.mem.process_in_use = sz("22.88 GiB");
	inc.mem.allocated = sz("21.13 GiB");
	inc.mem.reserved_unallocated = sz("1.41 GiB");
	inc.alloc_conf = kg_strdup("expandable_segments:True,max_split_size_mb:128,garbage_colection_threshold:0.6");
	inc.alloc_conf_var = kg_strdup("PYTORCH_CUDA_ALLOC_CONF");
	inc.alloc_conf_line = 3;
	kg_facts f = {0};
	kg_facts_from_incident(&inc, "run.log", &f);

	const kg_fact *r = kg_facts_get(&f, "oom.reserved");
	TAP_OK(r && r->derived, "oom.reserved is derived for 2.x");
	TAP_EQ_I64(llround(r->lo), sz("21.13 GiB").lo + sz("1.41 GiB").lo, "its interval's low end adds the low ends");
	TAP_EQ_I64(llround(r->hi), sz("21.13 GiB").hi + sz("1.41 GiB").hi, "and the high ends");
	TAP_EQ_STR(kg_facts_get(&f, "oom.requested")->provenance, "run.log:42", "provenance path:line");
	double non_pt = num(&f, "oom.non_pytorch");
	TAP_OK(fabs(non_pt - (sz("23.56 GiB").bytes - sz("33.56 MiB").bytes - r->num)) < 1,
	       "non_pytorch = total - free - reserved");
	TAP_OK(fabs(num(&f, "oom.process_share") - 22.88 / 23.56) < 1e-9, "process_share");
	TAP_OK(fabs(num(&f, "oom.headroom") - (double)(sz("33.56 MiB").bytes + sz("1.41 GiB").bytes)) < 1,
	       "headroom = free + reserved_unallocated");
	TAP_EQ_I64(num(&f, "oom.other_processes.count"), 0, "no other process listed");
	TAP_EQ_I64(num(&f, "parallel.max_jobs"), 1, "one job of 22.9 GiB fits in 23.56 GiB");
	TAP_EQ_I64(num(&f, "alloc_conf.expandable_segments"), 1, "expandable_segments parsed");
	TAP_EQ_I64(num(&f, "alloc_conf.max_split_size"), 128 << 20, "max_split_size_mb in bytes");
	TAP_EQ_STR(str(&f, "alloc_conf.unknown_keys"), "garbage_colection_threshold", "misspelled option found");
	TAP_EQ_STR(kg_facts_get(&f, "alloc_conf")->provenance, "run.log:3", "alloc_conf provenance is its own line");
	TAP_EQ_I64(num(&f, "cascade.count"), 0, "no follow-ups");
	TAP_OK(!kg_facts_get(&f, "oom.allowed"), "unstated sizes are absent, not 0");

	/* --set overrides and re-derives; a stated fact is never overwritten by derivation */
	kg_error err = {0};
	TAP_EQ_I64(kg_facts_set_arg(&f, "oom.free=12GiB", &err), 0, "--set oom.free=12GiB");
	TAP_OK(fabs(num(&f, "oom.headroom") - (double)(sz("12 GiB").bytes + sz("1.41 GiB").bytes)) < 1,
	       "headroom re-derived from the override");
	TAP_EQ_STR(kg_facts_get(&f, "oom.free")->provenance, "--set", "override provenance");
	TAP_EQ_I64(kg_facts_set_arg(&f, "oom.reserved=30GiB", &err), 0, "--set a derived fact");
	TAP_EQ_I64(kg_facts_set_arg(&f, "oom.allocated=1GiB", &err), 0, "then change an input");
	TAP_EQ_I64(num(&f, "oom.reserved"), 30LL << 30, "the --set value survives derivation");
	TAP_EQ_I64(kg_facts_set_arg(&f, "dataset.entities=40,943", &err), 0, "count with separators");
	TAP_EQ_I64(num(&f, "dataset.entities"), 40943, "dataset.entities");
	TAP_EQ_I64(kg_facts_get(&f, "dataset.entities")->type, KG_FACT_COUNT, "a number under a prefix is a count");
	TAP_EQ_I64(kg_facts_set_arg(&f, "config.eval_batch_size=128", &err), 0, "config role");
	TAP_EQ_I64(kg_facts_set_arg(&f, "config.train_batch_size=1", &err), 0, "a batch of one");
	TAP_EQ_I64(kg_facts_get(&f, "config.train_batch_size")->type, KG_FACT_COUNT, "1 under config.* is a count, not true");
	TAP_EQ_I64(num(&f, "config.train_batch_size"), 1, "of 1");
	TAP_EQ_I64(kg_facts_set_arg(&f, "calc.full_ranking.bytes=19.99 GiB", &err), 0, "size under calc.*");
	TAP_EQ_I64(kg_facts_get(&f, "calc.full_ranking.bytes")->type, KG_FACT_BYTES, "is bytes");
	TAP_EQ_I64(kg_facts_set_arg(&f, "oom.process_share=97%", &err), 0, "ratio as a percentage");
	TAP_OK(fabs(num(&f, "oom.process_share") - 0.97) < 1e-12, "97%% is 0.97");
	TAP_EQ_I64(kg_facts_set_arg(&f, "oom.requsted=1GiB", &err), -1, "unknown name refused");
	TAP_OK(strstr(err.msg, "oom.requsted") != NULL, "error names it: %s", err.msg);
	TAP_EQ_I64(kg_facts_set_arg(&f, "oom.free=lots", &err), -1, "bad size refused");
	TAP_EQ_I64(kg_facts_set_arg(&f, "step=ten", &err), -1, "bad count refused");
	TAP_EQ_I64(kg_facts_set_arg(&f, "=3", &err), -1, "no name refused");
	TAP_EQ_I64(kg_facts_set_arg(&f, "torch.version=2.4.1", &err), 0, "torch.version");
	TAP_EQ_I64(num(&f, "torch.version_code"), 204, "version_code derived");
	kg_facts_free(&f);
	kg_incident_free(&inc);

	/* 2.2+ lists this process as "Process N has": told apart from others */
	kg_incident_init(&inc);
	inc.mem.requested = sz("4.39 GiB");
	inc.mem.total_capacity = sz("22.30 GiB");
	inc.mem.free = sz("2.94 GiB");
	inc.mem.allocated = sz("9.83 GiB");
	inc.mem.reserved_unallocated = sz("9.20 GiB");
	kg_proc procs[2] = {{48849, sz("19.36 GiB")}, {777, sz("3.00 GiB")}};
	inc.mem.procs = kg_malloc(sizeof procs);
	memcpy(inc.mem.procs, procs, sizeof procs);
	inc.mem.nprocs = 2;
	kg_facts_from_incident(&inc, "ci.log", &f);
	TAP_EQ_I64(num(&f, "oom.process_in_use"), sz("19.36 GiB").bytes, "this process found among the listed");
	TAP_EQ_I64(num(&f, "oom.other_processes.count"), 1, "one other process");
	TAP_EQ_I64(num(&f, "oom.other_processes.bytes"), sz("3.00 GiB").bytes, "its memory");
	kg_facts_free(&f);
	kg_incident_free(&inc);

	/* "this process has X" names this process: every "Process N" is
	 * another, even one with the same figure (two ranks of one job) */
	kg_incident_init(&inc);
	inc.mem.requested = sz("2.00 GiB");
	inc.mem.total_capacity = sz("31.74 GiB");
	inc.mem.free = sz("4.60 GiB");
	inc.mem.process_in_use = sz("13.57 GiB");
	inc.mem.allocated = sz("12.10 GiB");
	inc.mem.reserved_unallocated = sz("1.00 GiB");
	kg_proc twin[1] = {{123, sz("13.57 GiB")}};
	inc.mem.procs = kg_malloc(sizeof twin);
	memcpy(inc.mem.procs, twin, sizeof twin);
	inc.mem.nprocs = 1;
	kg_facts_from_incident(&inc, "ci.log", &f);
	TAP_EQ_I64(num(&f, "oom.other_processes.count"), 1, "a neighbour with this process's figure is another process");
	TAP_EQ_I64(num(&f, "oom.other_processes.bytes"), sz("13.57 GiB").bytes, "its 13.57 GiB is other processes'");
	TAP_EQ_I64(num(&f, "budget.unaccounted"), 0, "and not unaccounted");
	TAP_EQ_STR(str(&f, "oom.other_processes.pids"), "123 (13.57 GiB)", "its pid is named");
	TAP_OK(!kg_facts_get(&f, "oom.self_unknown"), "the split is known");
	kg_facts_free(&f);
	kg_incident_free(&inc);

	/* several listed, none named this one, several could be (pt2-0049):
	 * the split is unknown; the largest is not taken for this process
	 * silently, the others hold at least the sum less it */
	six_processes(&inc, "1.29 GiB");
	kg_facts_from_incident(&inc, "ci.log", &f);
	TAP_OK(!kg_facts_get(&f, "oom.process_in_use"), "no process taken for this one");
	TAP_EQ_I64(num(&f, "oom.self_unknown"), 6, "six could be this process");
	TAP_EQ_I64(num(&f, "oom.other_processes.count"), 5, "five are others");
	const kg_fact *ob = kg_facts_get(&f, "oom.other_processes.bytes");
	TAP_OK(ob && fabs(ob->num - (double)(sz("3.11 GiB").bytes + sz("6.96 GiB").bytes + sz("9.48 GiB").bytes +
					       sz("8.47 GiB").bytes + sz("1.71 GiB").bytes)) < 2,
	       "others hold at least the sum less the largest");
	TAP_OK(ob && fabs(ob->hi - (double)(sz("14.52 GiB").bytes + sz("3.11 GiB").bytes + sz("6.96 GiB").bytes +
					       sz("9.48 GiB").bytes + sz("8.47 GiB").bytes)) < 2,
	       "and at most the sum less the smallest");
	TAP_OK(strstr(str(&f, "oom.processes.listed"), "899595 (14.52 GiB)") != NULL, "the pids are named");
	kg_facts_free(&f);
	kg_incident_free(&inc);

	/* the same six with 5.00 GiB allocated: reserved (allocated + reserved
	 * but unallocated, no reserved figure printed) is over 5 GiB, so the
	 * 3.11 and 1.71 GiB processes cannot be this one, and the others hold
	 * at most the sum less the smallest that can (6.96 GiB) */
	six_processes(&inc, "5.00 GiB");
	kg_facts_from_incident(&inc, "ci.log", &f);
	ob = kg_facts_get(&f, "oom.other_processes.bytes");
	TAP_OK(ob && fabs(ob->hi - (double)(sz("14.52 GiB").bytes + sz("3.11 GiB").bytes + sz("9.48 GiB").bytes +
					       sz("8.47 GiB").bytes + sz("1.71 GiB").bytes)) < 2,
	       "reserved from allocated + unallocated: at most the sum less the smallest process that holds it");
	kg_facts_free(&f);
	kg_incident_free(&inc);

	/* formatting */
	char buf[64];
	TAP_EQ_STR(kg_fact_value_format(KG_FACT_BYTES, 21464350720.0, NULL, buf, sizeof buf), "19.99 GiB", "bytes");
	TAP_EQ_STR(kg_fact_value_format(KG_FACT_COUNT, 1024, NULL, buf, sizeof buf), "1,024", "count");
	TAP_EQ_STR(kg_fact_value_format(KG_FACT_COUNT, 999, NULL, buf, sizeof buf), "999", "small count");
	TAP_EQ_STR(kg_fact_value_format(KG_FACT_COUNT, 1234567, NULL, buf, sizeof buf), "1,234,567", "millions");
	TAP_EQ_STR(kg_fact_value_format(KG_FACT_RATIO, 0.9712, NULL, buf, sizeof buf), "97 %", "ratio");
	TAP_EQ_STR(kg_fact_value_format(KG_FACT_RATIO, 0.005, NULL, buf, sizeof buf), "0.5 %", "small ratio");

	/* readings parser */
	kg_log_reading rd[8];
	TAP_EQ_I64(readings("Epoch 3 | Memory: 3.20GB allocated, 4.10GB reserved", rd), 2, "seed 002 print");
	TAP_EQ_I64(rd[0].kind, KG_READ_ALLOCATED, "allocated");
	TAP_EQ_I64(rd[0].value.bytes, sz("3.20 GiB").bytes, "3.20GB read as binary");
	TAP_EQ_I64(rd[1].kind, KG_READ_RESERVED, "reserved");
	TAP_EQ_I64(rd[0].epoch, 3, "epoch on the same line");
	TAP_EQ_I64(readings("[2024-01-01] step 120 MemAllocated=0.93GB MaxMemAllocated=1.5GB", rd), 2, "DeepSpeed key=value");
	TAP_EQ_I64(rd[0].kind, KG_READ_ALLOCATED, "MemAllocated is allocated");
	TAP_EQ_I64(rd[1].kind, KG_READ_MAX_ALLOCATED, "MaxMemAllocated is a peak");
	TAP_EQ_I64(rd[0].step, 120, "step on the same line");
	TAP_EQ_I64(readings("MA 0.93 GB         Max_MA 1.2 GB         CA 1.5 GB         Max_CA 2 GB", rd), 4,
		   "DeepSpeed see_memory_usage");
	TAP_EQ_I64(rd[2].kind, KG_READ_RESERVED, "CA is reserved");
	TAP_EQ_I64(readings("torch.cuda.max_memory_allocated(): 3.2 GiB", rd), 1, "max_memory_allocated()");
	TAP_EQ_I64(rd[0].kind, KG_READ_MAX_ALLOCATED, "is a peak");
	TAP_EQ_I64(readings("memory_allocated: 123456789", rd), 1, "bare integer is bytes");
	TAP_EQ_I64(rd[0].value.bytes, 123456789, "exact");
	TAP_EQ_I64(readings("allocated: 2.5 GiB, reserved: 3.0 GiB", rd), 2, "word: value");
	TAP_EQ_I64(readings("Maximum allocated 2 tensors of 3 MB", rd), 0, "no reading in prose");
	TAP_EQ_I64(readings("the cache was reserved for 3 days", rd), 0, "reserved without a size");
	TAP_EQ_I64(readings("Loss 0.123 acc 0.9", rd), 0, "no keyword at all");

	/* parallelism hints */
	TAP_EQ_I64(hint("study.optimize(objective, n_trials=100, n_jobs=4)"), 4, "Optuna n_jobs");
	TAP_EQ_I64(hint("Trials: 6000 | Parallel: 4 (reduced) | Epochs: 100"), 4, "Parallel: 4 (seed 004)");
	TAP_EQ_I64(hint("PAR ?= 4"), 4, "Makefile PAR");
	TAP_EQ_I64(hint("torchrun --nproc_per_node=8 train.py"), 8, "torchrun");
	TAP_EQ_I64(hint("torchrun --nproc-per-node 2 train.py"), 2, "torchrun dashed");
	TAP_EQ_I64(hint("+ pytest -x -n 6 tests/"), 6, "pytest -n");
	TAP_EQ_I64(hint("pytest -n auto tests/"), -1, "-n auto is not a count");
	TAP_EQ_I64(hint("[gw3] PASSED tests/test_a.py::test_x"), 4, "xdist worker id gw3");
	TAP_EQ_I64(hint("created: 8/8 workers"), 8, "xdist created");
	TAP_EQ_I64(hint("n_jobs=-1"), -1, "n_jobs=-1 is not a count");
	TAP_EQ_I64(hint("running in parallel with the others"), -1, "prose");

	/* series: growth across epochs (seed 002) */
	kg_log_facts lf;
	kg_log_facts_init(&lf);
	const char *lines[] = {
		"Epoch 1 | Memory: 3.20GB allocated, 4.10GB reserved",
		"Epoch 2 | Memory: 5.05GB allocated, 6.00GB reserved",
		"Epoch 3 | Memory: 6.91GB allocated, 8.00GB reserved",
		"Epoch 4 | Memory: 8.74GB allocated, 9.90GB reserved",
	};
	for (int i = 0; i < 4; i++) {
		size_t n = readings(lines[i], rd);
		for (size_t k = 0; k < n; k++)
			kg_log_facts_add_reading(&lf, &rd[k], KG_NONE, KG_NONE, 10 * (i + 1));
	}
	kg_log_facts_add_parallel(&lf, 4, "parallel", 2);
	kg_facts_from_log(&lf, "train.log", 45, &f);
	TAP_EQ_I64(num(&f, "log.readings.count"), 8, "8 readings before line 45");
	TAP_EQ_STR(str(&f, "log.allocated.kind"), "allocated", "allocated preferred");
	TAP_EQ_STR(str(&f, "log.allocated.per"), "epoch", "grouped per epoch");
	TAP_EQ_I64(num(&f, "log.allocated.points"), 4, "4 epochs");
	TAP_EQ_I64(num(&f, "log.allocated.monotonic"), 1, "monotonic");
	double slope = num(&f, "log.allocated.growth_per_epoch");
	TAP_OK(fabs(slope - 1.847 * 1073741824.0) < 0.01 * 1073741824.0, "slope ~1.85 GiB/epoch (%.0f)", slope);
	TAP_EQ_I64(num(&f, "log.parallel_jobs"), 4, "parallel hint");
	TAP_EQ_STR(kg_facts_get(&f, "log.parallel_jobs")->provenance, "train.log:2", "hint provenance");
	kg_facts_free(&f);
	kg_facts_from_log(&lf, "train.log", 25, &f);
	TAP_EQ_I64(num(&f, "log.allocated.points"), 2, "only readings before the OOM line count");
	kg_facts_free(&f);
	/* a reading that falls breaks monotonic */
	size_t n = readings("Epoch 5 | Memory: 2.00GB allocated", rd);
	kg_log_facts_add_reading(&lf, &rd[0], KG_NONE, KG_NONE, 50);
	(void)n;
	kg_facts_from_log(&lf, "train.log", 0, &f);
	TAP_EQ_I64(num(&f, "log.allocated.monotonic"), 0, "a fall is not monotonic");
	kg_facts_free(&f);
	kg_log_facts_free(&lf);

	/* "GB" of a user's print: binary unless that exceeds the device
	 * (testdata/gpu/leak.log prints memory_allocated() / 1e9 as "GB") */
	const char *si[] = {"step 1 loss 0.05 memory_allocated 0.38GB",
			    "step 2 loss 0.05 memory_allocated 71.00GB",
			    "step 3 loss 0.05 memory_allocated 142.10GB"};
	const char *caps[] = {"139.80 GiB", "150.00 GiB"};
	for (int c = 0; c < 2; c++) {
		for (int unit = 0; unit < 2; unit++) {
			kg_log_facts_init(&lf);
			for (int i = 0; i < 3; i++) {
				char buf[80];
				snprintf(buf, sizeof buf, "%s", si[i]);
				if (unit) { /* the same numbers labelled GiB */
					char *g = strstr(buf, "GB");
					memmove(g + 3, g + 2, strlen(g + 2) + 1);
					g[1] = 'i';
					g[2] = 'B';
				}
				size_t k = readings(buf, rd);
				for (size_t j = 0; j < k; j++)
					kg_log_facts_add_reading(&lf, &rd[j], KG_NONE, KG_NONE, i + 1);
			}
			kg_facts_set_bytes(&f, "oom.total_capacity", sz(caps[c]), "t.log:9");
			kg_facts_from_log(&lf, "t.log", 9, &f);
			bool decimal = c == 0 && unit == 0;
			double mx = num(&f, "log.allocated.max"), first = num(&f, "log.allocated.first");
			double want = decimal ? 142.10e9 : 142.10 * 1073741824.0;
			TAP_OK(fabs(mx - want) < 0.006 * 1073741824.0,
			       "%s on %s: largest reading %s (%.0f)", unit ? "GiB" : "GB", caps[c],
			       decimal ? "read as 10^9 bytes: 2^30 would exceed the device" : "read as 2^30 bytes", mx);
			TAP_OK(fabs(first - (decimal ? 0.38e9 : 0.38 * 1073741824.0)) < 0.006 * 1073741824.0,
			       "and the first as well (%.0f)", first);
			double slope = num(&f, "log.allocated.growth_per_step");
			TAP_OK(fabs(slope - (decimal ? 70.86e9 : 70.86 * 1073741824.0)) < 0.01 * 1073741824.0,
			       "and the slope per step (%.0f)", slope);
			kg_facts_free(&f);
			kg_log_facts_free(&lf);
		}
	}
	indexed_matches_reference();
	signs();
	return tap_done();
}

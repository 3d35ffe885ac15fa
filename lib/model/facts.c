/* facts.c — see include/model/facts.h. */
#include "model/facts.h"
#include "model/incident.h"
#include "model/units.h"
#include "model/util.h"
#include "model/vocab.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define GiB (1024.0 * 1024.0 * 1024.0)

/* ---- store ------------------------------------------------------------ */

uint32_t kg_fact_name_hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The index slot holding name (whose kg_fact_name_hash is hash), or the
 * empty slot where it would go; ixcap must be non-zero. A slot whose
 * fact has another hash is passed without comparing the names. */
static size_t ix_find_hashed(const kg_facts *f, const char *name, uint32_t hash)
{
	size_t mask = f->ixcap - 1;
	size_t h = hash & mask;
	for (; f->ix[h]; h = (h + 1) & mask) {
		const kg_fact *x = &f->v[f->ix[h] - 1];
		if (x->hash == hash && strcmp(x->name, name) == 0)
			break;
	}
	return h;
}

static size_t ix_find(const kg_facts *f, const char *name)
{
	return ix_find_hashed(f, name, kg_fact_name_hash(name));
}

/* Rebuilds the index for the n facts in v, with room for at least `want`
 * (so that it stays at most half full). */
static void ix_rebuild(kg_facts *f, size_t want)
{
	size_t cap = 16;
	while (cap < 2 * want)
		cap *= 2;
	free(f->ix);
	f->ix = kg_calloc(cap, sizeof *f->ix);
	f->ixcap = cap;
	for (size_t i = 0; i < f->n; i++)
		f->ix[ix_find_hashed(f, f->v[i].name, f->v[i].hash)] = (uint32_t)(i + 1);
}

static kg_fact *slot(kg_facts *f, const char *name)
{
	if (2 * (f->n + 1) > f->ixcap)
		ix_rebuild(f, f->n + 1);
	uint32_t hash = kg_fact_name_hash(name);
	size_t h = ix_find_hashed(f, name, hash);
	if (f->ix[h]) {
		kg_fact *x = &f->v[f->ix[h] - 1];
		free(x->str);
		free(x->provenance);
		x->str = NULL;
		x->provenance = NULL;
		x->derived = false;
		return x;
	}
	/* room for 8, then doubled at each power of two: a set grows to
	 * hundreds of facts per incident, one realloc each was most of the
	 * diagnosis's page faults */
	if (f->n == 0 || (f->n >= 8 && !(f->n & (f->n - 1))))
		f->v = kg_realloc(f->v, (f->n ? 2 * f->n : 8) * sizeof *f->v);
	kg_fact *x = &f->v[f->n++];
	memset(x, 0, sizeof *x);
	x->name = kg_strdup(name);
	x->hash = hash;
	f->ix[h] = (uint32_t)f->n;
	return x;
}

void kg_facts_set_bytes(kg_facts *f, const char *name, kg_size s, const char *prov)
{
	if (!kg_size_known(s))
		return;
	kg_facts_set_interval(f, name, KG_FACT_BYTES, (double)s.bytes, (double)s.lo,
			      (double)s.hi, prov);
}

void kg_facts_set_interval(kg_facts *f, const char *name, kg_fact_type type,
			   double v, double lo, double hi, const char *prov)
{
	kg_fact *x = slot(f, name);
	x->type = type;
	x->num = v;
	x->lo = lo <= v ? lo : v;
	x->hi = hi >= v ? hi : v;
	x->provenance = prov ? kg_strdup(prov) : NULL;
}

void kg_facts_set_num(kg_facts *f, const char *name, kg_fact_type type, double v, const char *prov)
{
	kg_facts_set_interval(f, name, type, v, v, v, prov);
}

void kg_facts_set_str(kg_facts *f, const char *name, const char *s, const char *prov)
{
	kg_fact *x = slot(f, name);
	x->type = KG_FACT_STRING;
	x->str = kg_strdup(s);
	x->provenance = prov ? kg_strdup(prov) : NULL;
}

void kg_facts_merge(kg_facts *dst, const kg_facts *src)
{
	for (size_t i = 0; i < src->n; i++) {
		const kg_fact *x = &src->v[i];
		if (x->type == KG_FACT_STRING)
			kg_facts_set_str(dst, x->name, x->str, x->provenance);
		else
			kg_facts_set_interval(dst, x->name, x->type, x->num, x->lo, x->hi, x->provenance);
	}
}

const kg_fact *kg_facts_get(const kg_facts *f, const char *name)
{
	return kg_facts_get_hashed(f, name, kg_fact_name_hash(name));
}

const kg_fact *kg_facts_get_hashed(const kg_facts *f, const char *name, uint32_t hash)
{
	if (!f->ixcap)
		return NULL;
	size_t h = ix_find_hashed(f, name, hash);
	return f->ix[h] ? &f->v[f->ix[h] - 1] : NULL;
}

void kg_facts_remove(kg_facts *f, const char *name)
{
	if (!f->ixcap)
		return;
	size_t h = ix_find(f, name);
	if (!f->ix[h])
		return;
	size_t i = f->ix[h] - 1;
	free(f->v[i].name);
	free(f->v[i].str);
	free(f->v[i].provenance);
	memmove(&f->v[i], &f->v[i + 1], (f->n - i - 1) * sizeof *f->v);
	f->n--;
	ix_rebuild(f, f->n); /* the facts after i moved down one */
}

void kg_facts_free(kg_facts *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].name);
		free(f->v[i].str);
		free(f->v[i].provenance);
	}
	free(f->v);
	free(f->ix);
	f->v = NULL;
	f->ix = NULL;
	f->n = 0;
	f->ixcap = 0;
}

/* ---- registry --------------------------------------------------------- */

#define B KG_FACT_BYTES
#define C KG_FACT_COUNT
#define R KG_FACT_RATIO
#define S KG_FACT_STRING
#define T KG_FACT_BOOL
static const kg_fact_info registry[] = {
	{"kind", S, "incident kind: oom, oom-warning (retried, non-fatal), oom-suspected, or oom-unrecognized (a line that says out of memory and no grammar reads; a warning)"},
	{"family", S, "message layout"},
	{"framework", S, "the framework that printed the message, when known"},
	{"device.type", S, "the device's backend"},
	{"device.index", C, "device ordinal stated by the message"},
	{"status", S, "library status word (CUBLAS_STATUS_ALLOC_FAILED, …), or who reported an OOM kill (oom-kill:constraint=CONSTRAINT_MEMCG, Memory cgroup out of memory, Slurm: oom-kill event, Slurm: OUT_OF_MEMORY, OOMKilled)"},
	{"oom.message", S, "the OOM text as matched, noise-stripped"},
	{"oom.folded", S, "an out-of-memory line no grammar knows, read beside the message (within a few lines, same rank and step) and folded into its incident: its text (\"failed to allocate 512.00 MB of pinned memory: out of memory\" before ggml's CUDA error)"},
	{"oom.requested", B, "\"Tried to allocate\": the failed request"},
	{"oom.requested_overflow", T, "the request as printed is 2^63 bytes or more (a size wrapped from a negative number; oom.requested is then unset)"},
	{"oom.total_capacity", B, "device total capacity as the message states it"},
	{"oom.free", B, "free device memory when the request failed (driver view)"},
	{"oom.allocated", B, "memory allocated by PyTorch (live tensors)"},
	{"oom.reserved", B, "memory reserved by PyTorch's caching allocator (1.x stated; 2.x allocated + reserved_unallocated)"},
	{"oom.reserved_unallocated", B, "reserved by PyTorch but unallocated (2.x stated; 1.x reserved − allocated; 1.0–1.3 \"cached\")"},
	{"oom.process_in_use", B, "memory this process has in use, non-PyTorch included"},
	{"oom.allowed", B, "\"X allowed\": cap from set_per_process_memory_fraction, MPS max allowed, or the share vLLM's start-up check wanted free (gpu_memory_utilization × total)"},
	{"oom.private_pools", B, "memory allocated in private pools (CUDA graphs)"},
	{"oom.other_allocations", B, "MPS \"other allocations\""},
	{"oom.other_processes.count", C, "processes other than this one listed as using the device"},
	{"oom.other_processes.bytes", B, "memory those other processes hold (when oom.self_unknown: at least the listed sum less the largest process that could be this one)"},
	{"oom.other_processes.pids", S, "the other processes as the message lists them: \"PID (size)\" joined by \", \" (the first 8, then \"and N more\")"},
	{"oom.processes.listed", S, "every process the message lists (\"Process N has X\"), \"PID (size)\" joined by \", \" (the first 8, then \"and N more\")"},
	{"oom.self_unknown", C, "the message lists several processes that could each be this one and does not say which (no \"this process has\"): how many; the split between this process and the others is unknown"},
	{"oom.non_pytorch", B, "derived: total − free − reserved (CUDA context, NCCL, other processes)"},
	{"oom.outside_process", B, "derived: total − free − process_in_use (held by other processes)"},
	{"oom.self_non_pytorch", B, "derived: process_in_use − reserved (this process's CUDA context, workspaces)"},
	{"oom.process_share", R, "derived: process_in_use / total_capacity"},
	{"oom.used_share", R, "derived: (total_capacity − free) / total_capacity"},
	{"oom.headroom", B, "derived: free + reserved_unallocated (what could serve the request at best)"},
	{"oom.in_host", T, "derived: the failure is in host memory (family oom_killer or pytorch_cpu, or device.type cpu); unknown when neither the family nor a CPU device is known"},
	{"budget.other_processes", B, "derived: memory other processes hold (listed, or total − free − process_in_use); DIAGNOSIS §1"},
	{"budget.non_pytorch", B, "derived: this process's non-PyTorch memory (CUDA context, workspaces): process_in_use − reserved"},
	{"budget.unaccounted", B, "derived: total − free − the parts stated; for 1.x messages the CUDA context and other processes together"},
	{"budget.context_or_others", B, "derived: total − free − reserved when this process's in-use memory is not stated (1.x): context + others, split unknown"},
	{"budget.process", B, "derived: what this process holds: process_in_use, else reserved"},
	{"budget.deficit", B, "derived: requested − free (≤ 0: the device had room for the segment)"},
	{"budget.short", T, "derived: the device lacked the segment: requested > free − max(64 MiB, 1 % of total) (the driver's free figure includes pages a new segment cannot use)"},
	{"budget.consistent", T, "derived: the message's parts fit in the total capacity (false: e.g. allocated > total)"},
	{"tensor.bytes", B, "bytes of the tensor whose shape the message gives"},
	{"tensor.dtype", S, "its dtype in PyTorch's names"},
	{"tensor.ndim", C, "its number of dimensions"},
	{"phase", S, "phase of the step that failed"},
	{"phase.source", S, "where the phase came from: frames or log"},
	{"phase.log_train", T, "the log's nearest phase word before the OOM (within 200 lines) is training's (\"Epoch 3 … train\", \"step 120 | loss 0.31\"); it sets no phase"},
	{"job.mode", S, "derived: what the job was doing (kg_facts_job_mode): train; eval (evaluation, testing or inference in a script); serve (an inference engine); load (loading the model or a checkpoint); unknown. From the engine that printed the message or ran in the frames, a kill while loading, the phase (frames, then the log's words), the reporter's evaluation words, training signs (training frames, the log's training lines, an epoch); --set job.mode=WORD overrides"},
	{"job.engine", S, "derived: the inference engine that ran the job (kg_facts_job_engine): the framework that printed the message when it is an engine (vllm, sglang, ggml, ollama, ctranslate2, tvm, openvino, onnxruntime), else an engine's package in the frames' files (/llama_cpp/: ggml; /faster_whisper/: ctranslate2; TGI's: tgi, TensorRT-LLM's: tensorrt_llm, ExLlamaV2's: exllamav2), else the engine the log names (model.engine; llama.cpp: ggml, mlc: tvm); unknown when nothing tells (always defined); --set job.engine=WORD overrides"},
	{"step", C, "training step at the OOM"},
	{"epoch", C, "epoch at the OOM"},
	{"progress.done", C, "the last progress line before the OOM (within 50 lines): iterations done (tqdm 45/100, Epoch 30/100, Step 120/1000, [ 30/210])"},
	{"progress.total", C, "that line's total"},
	{"progress.kind", S, "what it counts: bar (tqdm), epoch, step (step, iter, batch, Keras' bar), item (a bracketed counter starting the line), trainer (Hugging Face Trainer's notebook bar, \"[ 501/1500 06:35 < 13:11, 1.26 it/s, Epoch 1/3]\": the optimizer step in progress, global_step + 1)"},
	{"progress.save_interval", C, "derived: the checkpoint interval in optimizer steps that the last progress line sits on (progress.done or one less is a multiple of it, at least once; kind bar, step or trainer): config.save_every (save_steps, checkpointing_steps, every_n_train_steps, …), else 500, Hugging Face TrainingArguments' default save_steps, when the Trainer ran (its notebook bar, or transformers/trainer.py in the frames); intervals under 50 are not compared"},
	{"progress.save_from", S, "derived: where progress.save_interval came from: the log's save setting, or Hugging Face Trainer's default save_steps"},
	{"progress.share", R, "done / total"},
	{"rank", C, "distributed rank"},
	{"frames.count", C, "number of traceback frames"},
	{"frames.functions", S, "function names of the traceback frames, outermost first, joined by ' '"},
	{"frames.files", S, "file names of the frames joined by ' '"},
	{"frames.code", S, "source lines shown under the frames joined by '\\n'"},
	{"frames.last_function", S, "innermost frame's function"},
	{"alloc_conf", S, "echoed PYTORCH_[CUDA_]ALLOC_CONF value"},
	{"alloc_conf.var", S, "the variable name that echoed it"},
	{"alloc_conf.expandable_segments", T, "expandable_segments as set in alloc_conf"},
	{"alloc_conf.max_split_size", B, "max_split_size_mb as set in alloc_conf"},
	{"alloc_conf.garbage_collection_threshold", R, "garbage_collection_threshold as set in alloc_conf"},
	{"alloc_conf.setting", S, "the PYTORCH_CUDA_ALLOC_CONF a snapshot records in allocator_settings"},
	{"alloc_conf.unknown_keys", S, "alloc_conf keys the caching allocator does not know, joined by ' '"},
	{"alloc_conf.unknown_count", C, "how many such keys"},
	{"alloc_conf.set_after_init", T, "the variable was set after CUDA was initialised (log evidence)"},
	{"torch.version", S, "PyTorch version string (e.g. 2.4.1)"},
	{"torch.version_code", C, "derived: major × 100 + minor (2.8 → 208)"},
	{"cascade.count", C, "follow-on errors after the OOM (device-side assert, NCCL timeout, …)"},
	{"cascade.kinds", S, "their kinds joined by ' '"},
	{"cascade.first_line", C, "line of the first follow-on error"},
	{"duplicates", C, "identical copies of this OOM folded in"},
	{"log.during_exception_line", C, "line of \"During handling of the above exception, another exception occurred\" before this OOM's traceback: the OOM was raised while an earlier exception was handled"},
	{"log.readings.count", C, "memory readings seen in the log before the OOM"},
	{"log.allocated.kind", S, "which readings the series uses: allocated, reserved, max_allocated, max_reserved"},
	{"log.allocated.first", B, "first reading of the series"},
	{"log.allocated.last", B, "last reading before the OOM"},
	{"log.allocated.max", B, "largest reading"},
	{"log.allocated.growth", B, "last − first"},
	{"log.allocated.points", C, "epochs (or steps, or readings) compared"},
	{"log.allocated.per", S, "epoch, step or reading"},
	{"log.allocated.growth_per_epoch", B, "least-squares slope per epoch"},
	{"log.allocated.growth_per_step", B, "least-squares slope per step"},
	{"log.allocated.monotonic", T, "readings never fall from one point to the next, and rise overall"},
	{"log.parallel_jobs", C, "largest parallelism hint in the log (n_jobs, Parallel: N, nproc_per_node, pytest -n)"},
	{"log.repeats_before", C, "earlier OOMs of this input with the very same message, raised again (another step or epoch, or far apart; not a copy of this one printed twice)"},
	{"log.ooms_before", C, "earlier OOMs of this input (any message)"},
	{"log.notebook", T, "an IPython/Jupyter traceback line (<ipython-input-, Cell In[) at or before the OOM"},
	{"log.platform", S, "the platform a log line names before the OOM or in the lines pasted after it: wsl (microsoft-standard-WSL2, /usr/lib/wsl/, WSL2) or jetson (NvMap, Tegra, Jetson, NVIDIA Thor or Orin)"},
	{"log.platform.text", S, "that line (at most 159 bytes)"},
	{"log.tf.total", B, "TensorFlow's device at start-up: totalMemory (1.x) or deviceMemorySize (2.x)"},
	{"log.tf.free", B, "TensorFlow 1.x's freeMemory at start-up: what was free before this job allocated"},
	{"log.driver.vram", B, "the VRAM the Linux amdgpu driver set up (dmesg \"amdgpu: NM of VRAM memory ready\"), before or after the error"},
	{"log.tf.device", B, "the memory TensorFlow created its GPU device with (\"Created device … with N MB memory\")"},
	{"log.smi.processes", C, "nvidia-smi process rows pasted in the input: how many processes the GPU with the most rows lists"},
	{"log.smi.compute", C, "how many of those are compute processes (type C or C+G: a CUDA context each)"},
	{"log.smi.gpu", C, "that GPU's index"},
	{"log.smi.pids", S, "their pids"},
	{"log.smi.listed", B, "the memory those rows list, summed"},
	{"log.smi.others", B, "that sum less the largest row: what other processes hold whichever row is this one"},
	{"log.smi.used", B, "nvidia-smi's first device row: memory used (MiB / MiB)"},
	{"log.smi.total", B, "that row's total"},
	{"log.smi.util", R, "that row's GPU utilization (nvidia-smi's GPU-Util, gpustat's %), as a share"},
	{"log.words.late", S, "a line saying the run failed late (after N ≥ 2 epochs, after N hours, the Nth epoch, after running for a while, training for too long), anywhere in the input"},
	{"log.words.batch_one", S, "a line naming a batch size of 1 (\"even with batch size 1\", batch_size=1), anywhere in the input"},
	{"log.words.eval", S, "a line saying the OOM came in evaluation (\"during the evaluation loop\", \"Loading valid dataset\"), anywhere in the input"},
	{"log.words.leak", S, "a line saying memory grows (\"memory leak\", \"keeps on increasing\", \"grows after each batch\"), anywhere in the input"},
	{"log.words.checkpoint", S, "a line saying a checkpoint was loaded, resumed from or saved (\"when it loads the existing checkpoint\", \"when saving the model\"), anywhere in the input"},
	{"log.words.parallel", S, "a line saying several jobs share one device (\"two processes on the same GPU\", \"run both scripts simultaneously\"), anywhere in the input"},
	{"log.words.large_input", S, "a line naming the inputs large (\"large point cloud data\", \"long sequences\", \"high-resolution images\"; not a large number of them, nor a negation), anywhere in the input"},
	{"log.words.version_change", S, "a line tying the failure to a software version (\"a recent update causes OOM\", \"worked before update\", \"after upgrading from ROCm 7.1.1 to 7.14.0\", \"does not occur in v2.6.3\"; not an optimizer's update), anywhere in the input"},
	{"log.parallel_source", S, "kind of that hint"},
	{"parallel.per_job", B, "derived: what one job needed: process_in_use + requested, divided by log.parallel_jobs when the jobs run inside this process"},
	{"parallel.in_process", T, "derived: the log's parallel jobs run inside this process (no other process holds a job's worth)"},
	{"parallel.max_jobs", C, "derived: floor(total_capacity / per_job), at least 1, and fewer than the jobs that failed when they run in this process"},
	{"snapshot.reserved", B, "Σ segment total_size (DESIGN §5)"},
	{"snapshot.allocated", B, "Σ active_allocated block sizes"},
	{"snapshot.inactive", B, "Σ inactive block sizes (cached, free)"},
	{"snapshot.largest_free_block", B, "largest inactive block"},
	{"snapshot.fragmentation", R, "1 − largest_free_block / inactive"},
	{"snapshot.segments", C, "number of segments"},
	{"snapshot.expandable", T, "the snapshot has expandable segments"},
	{"snapshot.active", B, "Σ active block sizes (allocated and pending free)"},
	{"snapshot.requested", B, "Σ requested sizes of the allocated blocks (before rounding)"},
	{"snapshot.peak_requested", B, "peak of requested bytes over the trace replay"},
	{"snapshot.peak_reserved", B, "peak of reserved bytes over the trace replay"},
	{"snapshot.peak_phase", S, "innermost annotation (record_function) at the requested peak"},
	{"snapshot.oom_requested", B, "size of the last oom entry of the trace"},
	{"snapshot.inactive_split", B, "memory_stats inactive_split_bytes.all.current"},
	{"snapshot.peak_allocated", B, "memory_stats allocated_bytes.all.peak"},
	{"snapshot.num_ooms", C, "memory_stats num_ooms: OOMs the allocator raised"},
	{"snapshot.num_alloc_retries", C, "memory_stats num_alloc_retries: cudaMalloc retries after freeing the cache"},
	{"model.name", S, "the model the log names for this incident (the last named at or before the OOM, else the first after; a printed count wins): as written (llama-2-7b, models/7B), a rules/models.yaml name (roberta-large), or \"printed count\""},
	{"model.params", C, "its parameters: from the name (7b: 6.44–9.1 B, names round), rules/models.yaml, or a printed count (has 859.52 M params, Total params: N, model params = 6.74 B)"},
	{"model.sizes", C, "how many distinct model sizes the input names (more than 1.3 × apart): above 1 the model is ambiguous"},
	{"model.trainable", C, "a printed trainable-parameter count (PEFT's trainable params: N, torchinfo's Trainable params: N)"},
	{"model.precision", S, "the narrowest weights' precision the input names (fp16, bf16, 8-bit, 4-bit, AWQ, GGUF Q4_K_M, MLC q4f16_1)"},
	{"model.precision.bytes", C, "its bytes per parameter (fp16 2, 8-bit 1, 4-bit 0.5, Q4_K 0.5625: 4.5 bits)"},
	{"model.optimizer", S, "an optimizer that changes the state per parameter: \"8-bit Adam\" (adamw_8bit, Adam8bit) or \"SGD\""},
	{"model.mode", S, "train (--do_train, Trainer, train.py, .backward(), fine-tuning, Adam named …) or infer (generate, pipeline(, vLLM LLM(, Ollama, llama.cpp, inference, transcribe, the whisper CLI on an audio file …); train wins"},
	{"model.engine", S, "the inference engine named: vllm, ollama, llama.cpp, ctranslate2, mlc"},
	{"model.adapters", S, "adapters named (LoRA, QLoRA, PEFT, adapter): only they train"},
	{"model.split", S, "what spreads the model over devices or the host, as named: device_map=auto, tensor_parallel_size ≥ 2, DeepSpeed, ZeRO, FSDP, model parallel with size ≥ 2, offload"},
	{"model.layers", C, "layers the log prints (n_layer, num_hidden_layers)"},
	{"model.kv_heads", C, "KV heads (n_head_kv, num_key_value_heads; else the attention heads)"},
	{"model.head_dim", C, "head dim (n_embd_head_k, head_dim; else hidden size / heads)"},
	{"model.context", C, "the context the run allocates (n_ctx, max_model_len, max_seq_len, --ctx-size)"},
	{"gpu.name", S, "a GPU the log names (nvidia-smi, get_device_name, \"Tesla V100-SXM2-16GB\", \"RTX 4090\") or sizes in prose (\"my humble 2GB GPU\"): the one with the most memory"},
	{"gpu.memory", B, "its memory: as its name states (16GB) or the report sizes it, else the most any card of that name has (rules/gpus.yaml)"},
	{"gpu.largest", B, "the most memory of any card in rules/gpus.yaml: no one allocation on one device can be larger"},
	{"run.gpu.total", B, "`run`: the OOM device's memory, NVML at the OOM line"},
	{"run.gpu.used", B, "`run`: memory used on it then, every process together"},
	{"run.gpu.others", B, "`run`: memory on it held by processes that are not the wrapped command's (nor its descendants')"},
	{"run.gpu.others.count", C, "`run`: how many such processes NVML listed on it"},
	{"run.gpu.others.pids", S, "`run`: those processes, \"PID name (size)\" joined by \", \""},
	{"run.gpu.ours.count", C, "`run`: the wrapped command's own processes (it and its descendants) NVML listed on it"},
	{"run.gpu.unknown.count", C, "`run`: processes on it whose parent chain could not be read (another pid namespace)"},
	{"run.cgroup.oom_kills", C, "`run`: processes the kernel's OOM killer ended in the job's memory cgroup during the run"},
	{"host.ram", B, "host RAM the log states (MemTotal, free's Mem: row, Slurm --mem, \"32 GB RAM\"): the smallest"},
	{"estimate.card", B, "the card the estimates are weighed against: oom.total_capacity, else log.smi.total, else gpu.memory"},
	{"estimate.card.source", S, "which, in words"},
	{"estimate.weights", B, "model.params × bytes per parameter (model.precision, else config.precision, else 0.5625 B, 4-bit GGUF, assumed, when job.engine runs GGUF files (ggml, ollama), else 2 B: 16-bit, assumed)"},
	{"estimate.weights.formula", S, "that arithmetic as text"},
	{"estimate.weights.least", B, "the least the weights can be: the count at its lower end (a name's size rounds: 7b from 6.44 B)"},
	{"estimate.training", B, "in training without adapters: model.params × 16 B, weights, gradients and Adam's state (ZeRO paper §3.1; 10 B with an 8-bit optimizer); from 8 B (all 16-bit), the least any Adam keeps. With adapters: the weights + model.trainable × 16 B"},
	{"estimate.training.formula", S, "that arithmetic as text"},
	{"estimate.training.least", B, "the least the training state can be: the count at its lower end × 8 B (weights, gradients and both moments all 16-bit; 6 B with 8-bit moments)"},
	{"estimate.kv_cache", B, "one sequence's KV cache: 2 × model.layers × model.kv_heads × model.head_dim × model.context × 2 B"},
	{"estimate.kv_cache.formula", S, "that arithmetic as text"},
	{"estimate.model", B, "what the model holds in its mode: estimate.training, else estimate.weights (+ estimate.kv_cache in inference)"},
	{"estimate.model.formula", S, "that arithmetic as text"},
	{"config.*", C, "a training-config value by role (config.eval_batch_size, config.train_batch_size, config.grad_accum_steps, config.embedding_dim, …)"},
	{"dataset.*", C, "dataset sizes (dataset.entities, dataset.relations)"},
	{"calc.*", B, "calculator outputs (calc.full_ranking.bytes, calc.full_ranking.max_batch, …)"},
};
#undef B
#undef C
#undef R
#undef S
#undef T

const kg_fact_info *kg_fact_registry(size_t *n)
{
	*n = sizeof registry / sizeof registry[0];
	return registry;
}

const kg_fact_info *kg_fact_info_find(const char *name)
{
	const kg_fact_info *best = NULL;
	size_t bestlen = 0;
	for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++) {
		const char *r = registry[i].name;
		if (r[0] != name[0])
			continue; /* neither equal nor a prefix (most entries) */
		size_t L = strlen(r);
		if (L >= 2 && r[L - 1] == '*' && r[L - 2] == '.') {
			if (strncmp(name, r, L - 1) == 0 && name[L - 1] && L > bestlen) {
				best = &registry[i];
				bestlen = L;
			}
		} else if (strcmp(name, r) == 0) {
			return &registry[i];
		}
	}
	return best;
}

const char *kg_fact_type_name(kg_fact_type t)
{
	switch (t) {
	case KG_FACT_BYTES: return "bytes";
	case KG_FACT_COUNT: return "count";
	case KG_FACT_RATIO: return "ratio";
	case KG_FACT_STRING: return "string";
	case KG_FACT_BOOL: return "bool";
	}
	return "?";
}

/* ---- formatting ------------------------------------------------------- */

static void thousands(double v, char *buf, size_t n)
{
	char tmp[64];
	snprintf(tmp, sizeof tmp, "%.0f", fabs(v));
	size_t len = strlen(tmp), o = 0;
	if (v < 0 && o + 1 < n)
		buf[o++] = '-';
	for (size_t i = 0; i < len && o + 1 < n; i++) {
		buf[o++] = tmp[i];
		size_t left = len - i - 1;
		if (left && left % 3 == 0 && o + 1 < n)
			buf[o++] = ',';
	}
	buf[o] = 0;
}

char *kg_fact_value_format(kg_fact_type type, double num, const char *str, char *buf, size_t n)
{
	switch (type) {
	case KG_FACT_BYTES:
		kg_size_format(kg_clamp_i64(round(num)), buf, n);
		break;
	case KG_FACT_COUNT:
		if (fabs(num) < 1e15 && num == floor(num))
			thousands(num, buf, n);
		else
			snprintf(buf, n, "%.2f", num);
		break;
	case KG_FACT_RATIO: {
		double p = num * 100.0;
		if (fabs(p) < 10.0 && p != floor(p))
			snprintf(buf, n, "%.1f %%", p);
		else
			snprintf(buf, n, "%.0f %%", p);
		break;
	}
	case KG_FACT_BOOL:
		snprintf(buf, n, "%s", num != 0 ? "true" : "false");
		break;
	case KG_FACT_STRING:
		snprintf(buf, n, "%s", str ? str : "");
		break;
	}
	return buf;
}

/* ---- facts from an incident ------------------------------------------ */

static char *prov_at(const char *path, long line)
{
	if (line > 0)
		return kg_asprintf("%s:%ld", path, line);
	return kg_strdup(path);
}

static void join_frames(const kg_incident *inc, kg_facts *f, const char *prov)
{
	kg_buf fn = {0}, files = {0}, code = {0};
	const char *last = NULL;
	for (size_t i = 0; i < inc->nframes; i++) {
		const kg_frame *fr = &inc->frames[i];
		if (fr->function) {
			if (fn.len)
				kg_buf_putc(&fn, ' ');
			kg_buf_puts(&fn, fr->function);
			last = fr->function;
		}
		if (fr->file) {
			if (files.len)
				kg_buf_putc(&files, ' ');
			kg_buf_puts(&files, fr->file);
		}
		if (fr->code) {
			if (code.len)
				kg_buf_putc(&code, '\n');
			kg_buf_puts(&code, fr->code);
		}
	}
	kg_facts_set_num(f, "frames.count", KG_FACT_COUNT, (double)inc->nframes, prov);
	if (fn.len)
		kg_facts_set_str(f, "frames.functions", fn.data, prov);
	if (files.len)
		kg_facts_set_str(f, "frames.files", files.data, prov);
	if (code.len)
		kg_facts_set_str(f, "frames.code", code.data, prov);
	if (last)
		kg_facts_set_str(f, "frames.last_function", last, prov);
	kg_buf_free(&fn);
	kg_buf_free(&files);
	kg_buf_free(&code);
}

/* Keys PYTORCH_CUDA_ALLOC_CONF accepts (c10/cuda/CUDAAllocatorConfig.cpp
 * and c10/core/AllocatorConfig.cpp, PyTorch 2.0–2.9). */
static const char *const alloc_conf_keys[] = {
	"backend", "max_split_size_mb", "max_non_split_rounding_mb",
	"garbage_collection_threshold", "roundup_power2_divisions",
	"expandable_segments", "release_lock_on_cudamalloc",
	"pinned_use_cuda_host_register", "pinned_use_host_register",
	"pinned_num_register_threads", "pinned_use_background_threads",
	"pinned_reserve_segment_size_mb", "graph_capture_record_stream_reuse",
	"per_process_memory_fraction",
};

static bool truthy(const char *v, size_t n, bool *out)
{
	static const char *const yes[] = {"true", "True", "TRUE", "1", "yes"};
	static const char *const no[] = {"false", "False", "FALSE", "0", "no"};
	for (size_t i = 0; i < 5; i++) {
		if (strlen(yes[i]) == n && !memcmp(v, yes[i], n)) { *out = true; return true; }
		if (strlen(no[i]) == n && !memcmp(v, no[i], n)) { *out = false; return true; }
	}
	return false;
}

/* Parses "key:value,key:value" as the caching allocator does (keys and
 * values separated by ':', options by ','; spaces ignored). */
static void alloc_conf_facts(const char *conf, kg_facts *f, const char *prov)
{
	kg_buf unknown = {0};
	int nunknown = 0;
	const char *p = conf;
	while (*p) {
		while (*p == ' ' || *p == ',' || *p == '"' || *p == '\'')
			p++;
		if (!*p)
			break;
		const char *k = p;
		while (*p && *p != ':' && *p != ',' && *p != ' ')
			p++;
		size_t klen = (size_t)(p - k);
		const char *v = NULL;
		size_t vlen = 0;
		while (*p == ' ')
			p++;
		if (*p == ':') {
			p++;
			while (*p == ' ')
				p++;
			v = p;
			while (*p && *p != ',' && *p != ' ' && *p != '"' && *p != '\'')
				p++;
			vlen = (size_t)(p - v);
		}
		bool known = false;
		for (size_t i = 0; i < sizeof alloc_conf_keys / sizeof *alloc_conf_keys; i++)
			if (strlen(alloc_conf_keys[i]) == klen && !memcmp(k, alloc_conf_keys[i], klen))
				known = true;
		if (!known) {
			if (unknown.len)
				kg_buf_putc(&unknown, ' ');
			kg_buf_append(&unknown, k, klen);
			nunknown++;
			continue;
		}
		if (!v)
			continue;
		char *val = kg_strndup(v, vlen);
		if (klen == 19 && !memcmp(k, "expandable_segments", 19)) {
			bool b;
			if (truthy(v, vlen, &b))
				kg_facts_set_num(f, "alloc_conf.expandable_segments", KG_FACT_BOOL, b, prov);
		} else if (klen == 17 && !memcmp(k, "max_split_size_mb", 17)) {
			char *end;
			double mb = strtod(val, &end);
			if (end != val && mb > 0)
				kg_facts_set_num(f, "alloc_conf.max_split_size", KG_FACT_BYTES,
						 mb * 1048576.0, prov);
		} else if (klen == 28 && !memcmp(k, "garbage_collection_threshold", 28)) {
			char *end;
			double t = strtod(val, &end);
			if (end != val)
				kg_facts_set_num(f, "alloc_conf.garbage_collection_threshold",
						 KG_FACT_RATIO, t, prov);
		}
		free(val);
	}
	kg_facts_set_num(f, "alloc_conf.unknown_count", KG_FACT_COUNT, nunknown, prov);
	if (nunknown)
		kg_facts_set_str(f, "alloc_conf.unknown_keys", unknown.data, prov);
	kg_buf_free(&unknown);
}

/* Which listed process is this one (PyTorch 2.x proc_info,
 * CUDACachingAllocator.cpp reportProcessMemoryInfo; formats.md §1.2): NVML
 * lists every compute process on the device, and the one whose pid equals
 * getpid() is printed "Including non-PyTorch memory, this process has X";
 * every other is "Process N has X". So when that sentence is there, every
 * "Process N" is another process, whatever its figure (two ranks of one
 * job often hold the same amount). Without it (in a container NVML's pid
 * is the host's) this process is one of the listed: the only one listed,
 * or the only one holding at least what PyTorch reserved (its in-use
 * memory includes its reserve). Returns the index, SELF_NONE when no
 * listed process is this one, or SELF_UNKNOWN when several could be (the
 * largest is never taken for it: the split is unknown). */
#define SELF_NONE (-1)
#define SELF_UNKNOWN (-2)
static long self_process(const kg_memory *m, size_t *ncand)
{
	*ncand = 0;
	if (kg_size_known(m->process_in_use) || !m->nprocs)
		return SELF_NONE;
	kg_size reserved = m->reserved;
	if (!kg_size_known(reserved) && kg_size_known(m->allocated) &&
	    kg_size_known(m->reserved_unallocated))
		reserved.bytes = reserved.lo = m->allocated.lo + m->reserved_unallocated.lo;
	long found = SELF_NONE;
	for (size_t i = 0; i < m->nprocs; i++) {
		if (kg_size_known(reserved) && m->procs[i].in_use.hi < reserved.lo)
			continue;
		++*ncand;
		found = (long)i;
	}
	if (*ncand > 1)
		return SELF_UNKNOWN;
	return found;
}

/* "PID (size)" for each listed process but skip, joined by ", "; after
 * PID_LIST_MAX of them, "and N more". */
#define PID_LIST_MAX 8
static char *pid_list(const kg_memory *m, long skip)
{
	kg_buf b = {0};
	size_t shown = 0, total = m->nprocs - (skip >= 0 && (size_t)skip < m->nprocs);
	for (size_t i = 0; i < m->nprocs; i++) {
		if ((long)i == skip)
			continue;
		char t[32];
		if (shown == PID_LIST_MAX) {
			kg_buf_printf(&b, " and %zu more", total - shown);
			break;
		}
		shown++;
		if (b.len)
			kg_buf_puts(&b, ", ");
		if (m->procs[i].pid != KG_NONE)
			kg_buf_printf(&b, "%lld (%s)", (long long)m->procs[i].pid,
				      kg_size_format(m->procs[i].in_use.bytes, t, sizeof t));
		else
			kg_buf_printf(&b, "? (%s)", kg_size_format(m->procs[i].in_use.bytes, t, sizeof t));
	}
	return b.data ? kg_buf_steal(&b) : NULL;
}

void kg_facts_from_incident(const kg_incident *inc, const char *path, kg_facts *f)
{
	if (!path)
		path = inc->path ? inc->path : "<input>";
	char *prov = prov_at(path, inc->line);
	const kg_memory *m = &inc->mem;

	if (inc->kind)
		kg_facts_set_str(f, "kind", inc->kind, prov);
	if (inc->family)
		kg_facts_set_str(f, "family", inc->family, prov);
	if (inc->framework)
		kg_facts_set_str(f, "framework", inc->framework, prov);
	if (inc->device_type)
		kg_facts_set_str(f, "device.type", inc->device_type, prov);
	if (inc->device_index != KG_NONE)
		kg_facts_set_num(f, "device.index", KG_FACT_COUNT, (double)inc->device_index, prov);
	if (inc->status)
		kg_facts_set_str(f, "status", inc->status, prov);
	if (inc->message)
		kg_facts_set_str(f, "oom.message", inc->message, prov);
	if (inc->folded)
		kg_facts_set_str(f, "oom.folded", inc->folded, prov);

	kg_facts_set_bytes(f, "oom.requested", m->requested, prov);
	if (m->requested_overflow)
		kg_facts_set_num(f, "oom.requested_overflow", KG_FACT_BOOL, 1, prov);
	kg_facts_set_bytes(f, "oom.total_capacity", m->total_capacity, prov);
	kg_facts_set_bytes(f, "oom.free", m->free, prov);
	kg_facts_set_bytes(f, "oom.allocated", m->allocated, prov);
	kg_facts_set_bytes(f, "oom.reserved", m->reserved, prov);
	kg_facts_set_bytes(f, "oom.reserved_unallocated", m->reserved_unallocated, prov);
	kg_facts_set_bytes(f, "oom.allowed", m->allowed, prov);
	kg_facts_set_bytes(f, "oom.private_pools", m->private_pools, prov);
	kg_facts_set_bytes(f, "oom.other_allocations", m->other_allocations, prov);

	size_t ncand = 0;
	long self = self_process(m, &ncand);
	if (kg_size_known(m->process_in_use))
		kg_facts_set_bytes(f, "oom.process_in_use", m->process_in_use, prov);
	else if (self >= 0)
		kg_facts_set_bytes(f, "oom.process_in_use", m->procs[self].in_use, prov);
	if (self == SELF_UNKNOWN) {
		/* one of the candidates is this process: the others hold the
		 * sum less that one, at least the sum less the largest
		 * candidate, at most the sum less the smallest */
		double sum = 0, big = 0, small = -1;
		size_t n = 0;
		kg_size reserved = m->reserved;
		if (!kg_size_known(reserved) && kg_size_known(m->allocated) &&
		    kg_size_known(m->reserved_unallocated))
			/* reserved = allocated + reserved but unallocated,
			 * as an interval (only .lo used to be set, so the
			 * filter below never ran) */
			reserved = (kg_size){m->allocated.bytes + m->reserved_unallocated.bytes,
					     m->allocated.lo + m->reserved_unallocated.lo,
					     m->allocated.hi + m->reserved_unallocated.hi};
		bool all_known = true;
		for (size_t i = 0; i < m->nprocs; i++) {
			if (!kg_size_known(m->procs[i].in_use)) {
				/* a size that did not parse: unknown, not
				 * INT64_MIN bytes (issue 26) */
				all_known = false;
				n++;
				continue;
			}
			double b = (double)m->procs[i].in_use.bytes;
			sum += b;
			n++;
			if (kg_size_known(reserved) && m->procs[i].in_use.hi < reserved.lo)
				continue;
			if (b > big)
				big = b;
			if (small < 0 || b < small)
				small = b;
		}
		kg_facts_set_num(f, "oom.self_unknown", KG_FACT_COUNT, (double)ncand, prov);
		kg_facts_set_num(f, "oom.other_processes.count", KG_FACT_COUNT, (double)(n - 1), prov);
		if (all_known)
			kg_facts_set_interval(f, "oom.other_processes.bytes", KG_FACT_BYTES, sum - big,
					      sum - big, sum - small, prov);
		char *pids = pid_list(m, -1);
		kg_facts_set_str(f, "oom.processes.listed", pids, prov);
		free(pids);
	} else if (m->nprocs || kg_size_known(m->process_in_use)) {
		double n = 0, b = 0, lo = 0, hi = 0;
		bool all_known = true;
		for (size_t i = 0; i < m->nprocs; i++) {
			if ((long)i == self)
				continue;
			n++;
			/* a size that did not parse (out of range: "10^20
			 * GiB") is unknown, not INT64_MIN bytes */
			if (!kg_size_known(m->procs[i].in_use)) {
				all_known = false;
				continue;
			}
			b += (double)m->procs[i].in_use.bytes;
			lo += (double)m->procs[i].in_use.lo;
			hi += (double)m->procs[i].in_use.hi;
		}
		kg_facts_set_num(f, "oom.other_processes.count", KG_FACT_COUNT, n, prov);
		if (all_known)
			kg_facts_set_interval(f, "oom.other_processes.bytes", KG_FACT_BYTES, b, lo, hi, prov);
		if (m->nprocs) {
			char *pids = pid_list(m, -1);
			kg_facts_set_str(f, "oom.processes.listed", pids, prov);
			free(pids);
		}
		if (n) {
			char *pids = pid_list(m, self);
			kg_facts_set_str(f, "oom.other_processes.pids", pids, prov);
			free(pids);
		}
	}

	if (inc->tensor) {
		if (inc->tensor->bytes != KG_NONE)
			kg_facts_set_num(f, "tensor.bytes", KG_FACT_BYTES, (double)inc->tensor->bytes, prov);
		if (inc->tensor->dtype[0])
			kg_facts_set_str(f, "tensor.dtype", inc->tensor->dtype, prov);
		kg_facts_set_num(f, "tensor.ndim", KG_FACT_COUNT, (double)inc->tensor->ndim, prov);
	}
	if (inc->phase) {
		kg_facts_set_str(f, "phase", inc->phase, prov);
		if (inc->phase_source)
			kg_facts_set_str(f, "phase.source", inc->phase_source, prov);
	}
	if (inc->log_train)
		kg_facts_set_num(f, "phase.log_train", KG_FACT_BOOL, 1, prov);
	if (inc->step != KG_NONE)
		kg_facts_set_num(f, "step", KG_FACT_COUNT, (double)inc->step, prov);
	if (inc->epoch != KG_NONE)
		kg_facts_set_num(f, "epoch", KG_FACT_COUNT, (double)inc->epoch, prov);
	if (inc->rank != KG_NONE)
		kg_facts_set_num(f, "rank", KG_FACT_COUNT, (double)inc->rank, prov);
	if (inc->progress_kind && inc->progress_total > 0) {
		char *pp = prov_at(path, inc->progress_line);
		kg_facts_set_num(f, "progress.done", KG_FACT_COUNT, (double)inc->progress_done, pp);
		kg_facts_set_num(f, "progress.total", KG_FACT_COUNT, (double)inc->progress_total, pp);
		kg_facts_set_str(f, "progress.kind", inc->progress_kind, pp);
		kg_facts_set_num(f, "progress.share", KG_FACT_RATIO,
				 (double)inc->progress_done / (double)inc->progress_total, pp);
		free(pp);
	}
	if (inc->duplicates)
		kg_facts_set_num(f, "duplicates", KG_FACT_COUNT, inc->duplicates, prov);
	kg_facts_set_num(f, "log.repeats_before", KG_FACT_COUNT, inc->repeats_before, prov);
	kg_facts_set_num(f, "log.ooms_before", KG_FACT_COUNT, inc->ooms_before, prov);
	if (inc->during_handling_line) {
		char *hp = prov_at(path, inc->during_handling_line);
		kg_facts_set_num(f, "log.during_exception_line", KG_FACT_COUNT,
				 (double)inc->during_handling_line, hp);
		free(hp);
	}
	join_frames(inc, f, prov);

	if (inc->alloc_conf) {
		char *ap = prov_at(path, inc->alloc_conf_line);
		kg_facts_set_str(f, "alloc_conf", inc->alloc_conf, ap);
		if (inc->alloc_conf_var)
			kg_facts_set_str(f, "alloc_conf.var", inc->alloc_conf_var, ap);
		alloc_conf_facts(inc->alloc_conf, f, ap);
		free(ap);
	}

	kg_facts_set_num(f, "cascade.count", KG_FACT_COUNT, (double)inc->nfollowups, prov);
	if (inc->nfollowups) {
		kg_buf kinds = {0};
		for (size_t i = 0; i < inc->nfollowups; i++) {
			const char *k = inc->followups[i].kind ? inc->followups[i].kind : "cuda-error";
			if (kinds.data && strstr(kinds.data, k))
				continue;
			if (kinds.len)
				kg_buf_putc(&kinds, ' ');
			kg_buf_puts(&kinds, k);
		}
		char *fp = prov_at(path, inc->followups[0].line);
		kg_facts_set_str(f, "cascade.kinds", kinds.data, fp);
		kg_facts_set_num(f, "cascade.first_line", KG_FACT_COUNT,
				 (double)inc->followups[0].line, fp);
		free(fp);
		kg_buf_free(&kinds);
	}
	free(prov);
	kg_facts_derive(f);
}

/* ---- derivations ------------------------------------------------------ */

/* A numeric operand: value with interval, or absent. */
typedef struct num { bool ok; double v, lo, hi; const char *prov; } num;

static num get(const kg_facts *f, const char *name)
{
	const kg_fact *x = kg_facts_get(f, name);
	if (!x || x->type == KG_FACT_STRING)
		return (num){0};
	return (num){true, x->num, x->lo, x->hi, x->provenance};
}

static num add(num a, num b)
{
	if (!a.ok || !b.ok) return (num){0};
	return (num){true, a.v + b.v, a.lo + b.lo, a.hi + b.hi, a.prov};
}

static num sub(num a, num b)
{
	if (!a.ok || !b.ok) return (num){0};
	return (num){true, a.v - b.v, a.lo - b.hi, a.hi - b.lo, a.prov};
}

static num divide(num a, num b)
{
	if (!a.ok || !b.ok || b.v == 0 || b.lo <= 0) return (num){0};
	return (num){true, a.v / b.v, a.lo / b.hi, a.hi / b.lo, a.prov};
}

/* max(0, a): a part of the budget cannot be negative; a small negative
 * remainder is the rounding of the printed sizes. */
static num clamp0(num a)
{
	if (!a.ok) return a;
	if (a.v < 0) a.v = 0;
	if (a.lo < 0) a.lo = 0;
	if (a.hi < 0) a.hi = 0;
	return a;
}

/* Sets a derived fact, unless one was stated or --set (not derived);
 * removes a stale derived value when the inputs are gone. */
static void put(kg_facts *f, const char *name, kg_fact_type type, num x)
{
	const kg_fact *old = kg_facts_get(f, name);
	if (old && !old->derived)
		return;
	if (!x.ok) {
		if (old)
			kg_facts_remove(f, name);
		return;
	}
	kg_facts_set_interval(f, name, type, x.v, x.lo, x.hi, x.prov ? x.prov : "derived");
	f->v[f->ix[ix_find(f, name)] - 1].derived = true;   /* the fact just set */
}

static num save_interval(const kg_facts *f, const char **from);
static const char *fact_str(const kg_facts *f, const char *name);
static bool str_is(const char *s, const char *word);

void kg_facts_derive_settings(kg_facts *f)
{
	/* the checkpoint interval the OOM's progress line sits on */
	const char *save_from = NULL;
	put(f, "progress.save_interval", KG_FACT_COUNT, save_interval(f, &save_from));
	const kg_fact *sf = kg_facts_get(f, "progress.save_interval");
	const kg_fact *sfrom = kg_facts_get(f, "progress.save_from");
	if (sf && sf->derived && save_from && (!sfrom || sfrom->derived)) {
		kg_facts_set_str(f, "progress.save_from", save_from, "derived");
		f->v[f->ix[ix_find(f, "progress.save_from")] - 1].derived = true;
	} else if (!sf && sfrom && sfrom->derived) {
		kg_facts_remove(f, "progress.save_from");
	}
}

void kg_facts_derive(kg_facts *f)
{
	/* 2.x states allocated + reserved-unallocated; 1.x states reserved +
	 * allocated. Each era's missing one is derived from the other two. */
	put(f, "oom.reserved", KG_FACT_BYTES,
	    add(get(f, "oom.allocated"), get(f, "oom.reserved_unallocated")));
	put(f, "oom.reserved_unallocated", KG_FACT_BYTES,
	    sub(get(f, "oom.reserved"), get(f, "oom.allocated")));

	num total = get(f, "oom.total_capacity"), fr = get(f, "oom.free");
	num used = sub(total, fr);
	put(f, "oom.non_pytorch", KG_FACT_BYTES, sub(used, get(f, "oom.reserved")));
	put(f, "oom.outside_process", KG_FACT_BYTES, sub(used, get(f, "oom.process_in_use")));
	put(f, "oom.self_non_pytorch", KG_FACT_BYTES,
	    sub(get(f, "oom.process_in_use"), get(f, "oom.reserved")));
	put(f, "oom.process_share", KG_FACT_RATIO, divide(get(f, "oom.process_in_use"), total));
	put(f, "oom.used_share", KG_FACT_RATIO, divide(used, total));
	put(f, "oom.headroom", KG_FACT_BYTES, add(fr, get(f, "oom.reserved_unallocated")));

	/* the failure is in host memory, not on a device: the OOM killer,
	 * PyTorch's CPU allocator, a CPU device; false once the family is
	 * known to be neither (a device the message names, or none) */
	const char *fam = fact_str(f, "family");
	bool in_host = str_is(fam, KG_FAMILY_WORD(OOM_KILLER)) || str_is(fam, KG_FAMILY_WORD(PYTORCH_CPU)) ||
		       str_is(fact_str(f, "device.type"), KG_DEVICE_WORD(CPU));
	const kg_fact *host_from = kg_facts_get(f, fam ? "family" : "device.type");
	put(f, "oom.in_host", KG_FACT_BOOL,
	    in_host || fam ? (num){true, in_host, in_host, in_host, host_from ? host_from->provenance : NULL} : (num){0});

	/* the memory budget (DIAGNOSIS §1) */
	num pin = get(f, "oom.process_in_use"), res = get(f, "oom.reserved");
	num ocount = get(f, "oom.other_processes.count");
	num listed = ocount.ok && ocount.v >= 1 ? get(f, "oom.other_processes.bytes") : (num){0};
	num others = listed.ok ? listed : pin.ok ? clamp0(sub(used, pin)) : (num){0};
	/* derived as total − free − this process, the remainder of three
	 * rounded sizes: when zero lies within its interval it is that
	 * rounding, not another process (10.24 MiB "other processes" beside a
	 * lone process on a 139.80 GiB device) */
	if (!listed.ok && others.ok && others.lo <= 0)
		others.v = 0;
	put(f, "budget.other_processes", KG_FACT_BYTES, others);
	put(f, "budget.non_pytorch", KG_FACT_BYTES, clamp0(sub(pin, res)));
	put(f, "budget.context_or_others", KG_FACT_BYTES, pin.ok ? (num){0} : clamp0(sub(used, res)));
	/* without process_in_use (1.x; or 2.x listing several processes with
	 * none named this one) the rest is this process's CUDA context plus
	 * other processes not counted in listed */
	put(f, "budget.unaccounted", KG_FACT_BYTES,
	    pin.ok ? (listed.ok ? clamp0(sub(sub(used, pin), listed)) : (num){0})
		   : listed.ok ? clamp0(sub(sub(used, res), listed)) : clamp0(sub(used, res)));
	put(f, "budget.process", KG_FACT_BYTES, pin.ok ? pin : res);
	num rq = get(f, "oom.requested");
	put(f, "budget.deficit", KG_FACT_BYTES, sub(rq, fr));
	if (rq.ok && fr.ok) {
		double slack = 64.0 * 1024 * 1024;
		if (total.ok && 0.01 * total.v > slack)
			slack = 0.01 * total.v;
		bool sh = rq.v > fr.v - slack;
		put(f, "budget.short", KG_FACT_BOOL, (num){true, sh, sh, sh, rq.prov});
	} else {
		put(f, "budget.short", KG_FACT_BOOL, (num){0});
	}
	if (total.ok) {
		/* each part at its lower bound must fit in the upper bound of
		 * the total (printed sizes are rounded) */
		num al = get(f, "oom.allocated"), fp = fr;
		bool ok = (!al.ok || al.lo <= total.hi) && (!res.ok || res.lo <= total.hi) &&
			  (!pin.ok || pin.lo <= total.hi) && (!fp.ok || fp.lo <= total.hi);
		put(f, "budget.consistent", KG_FACT_BOOL, (num){true, ok, ok, ok, total.prov});
	} else {
		put(f, "budget.consistent", KG_FACT_BOOL, (num){0});
	}

	/* Jobs per device. With N parallel jobs in the log and no other
	 * process holding one job's worth, the jobs run inside this process
	 * (Optuna n_jobs threads, "Parallel: N"): one job is (process_in_use +
	 * requested) / N, and N did not fit, so at most N − 1 do. Otherwise
	 * this process is one job. */
	num per_job = add(pin, get(f, "oom.requested"));
	num njobs = get(f, "log.parallel_jobs");
	bool in_process = per_job.ok && njobs.ok && njobs.v >= 2 &&
			  (!others.ok || others.v < per_job.v / njobs.v);
	if (in_process) {
		per_job.v /= njobs.v;
		per_job.lo /= njobs.v;
		per_job.hi /= njobs.v;
	}
	put(f, "parallel.per_job", KG_FACT_BYTES, per_job);
	put(f, "parallel.in_process", KG_FACT_BOOL,
	    njobs.ok && per_job.ok ? (num){true, in_process, in_process, in_process, njobs.prov} : (num){0});
	num jobs = divide(total, per_job);
	if (jobs.ok) {
		/* the conservative end of the interval: jobs that surely fit */
		double k = floor(jobs.lo);
		if (in_process && k > njobs.v - 1)
			k = njobs.v - 1;
		jobs.v = jobs.lo = jobs.hi = k < 1 ? 1 : k;
	}
	put(f, "parallel.max_jobs", KG_FACT_COUNT, jobs);

	const kg_fact *ver = kg_facts_get(f, "torch.version");
	num code = {0};
	if (ver && ver->str) {
		int maj, min;
		if (sscanf(ver->str, "%d.%d", &maj, &min) == 2 && maj >= 0 && min >= 0 && min < 100)
			code = (num){true, maj * 100.0 + min, maj * 100.0 + min, maj * 100.0 + min,
				     ver->provenance};
	}
	put(f, "torch.version_code", KG_FACT_COUNT, code);

	kg_facts_derive_settings(f);

	/* the job's mode, from everything above: a word always (unknown when
	 * nothing tells), never over a --set one */
	const char *why = NULL;
	const char *mode = kg_facts_job_mode(f, &why);
	const kg_fact *old = kg_facts_get(f, "job.mode");
	if (!old || old->derived) {
		kg_facts_set_str(f, "job.mode", mode, why);
		f->v[f->ix[ix_find(f, "job.mode")] - 1].derived = true;
	}
	const char *engine = kg_facts_job_engine(f, &why);
	old = kg_facts_get(f, "job.engine");
	if (!old || old->derived) {
		kg_facts_set_str(f, "job.engine", engine, why);
		f->v[f->ix[ix_find(f, "job.engine")] - 1].derived = true;
	}
}

/* ---- the job's mode ---------------------------------------------------- */

static const char *fact_str(const kg_facts *f, const char *name)
{
	const kg_fact *x = kg_facts_get(f, name);
	return x && x->type == KG_FACT_STRING ? x->str : NULL;
}

static bool fact_true(const kg_facts *f, const char *name)
{
	const kg_fact *x = kg_facts_get(f, name);
	return x && x->type != KG_FACT_STRING && x->num != 0;
}

static bool str_is(const char *s, const char *word)
{
	return s && word && strcmp(s, word) == 0;
}

/* The interval, in optimizer steps, at which the job saves a checkpoint,
 * when the last progress line before the OOM (progress.done) sits on a
 * multiple of it: done or done − 1 (HF's notebook bar shows global_step +
 * 1, transformers utils/notebook.py) is k × interval, k ≥ 1. The interval
 * is config.save_every (rules/keys.yaml: save_steps, checkpointing_steps,
 * …), else 500, HF TrainingArguments' default save_steps, when HF's
 * Trainer ran (its notebook bar is the progress line, or
 * transformers/trainer.py is in the frames). Intervals under 50 steps are
 * ignored: a step lands next to a multiple of a short one by chance (one
 * in interval / 2). Progress counted in epochs or items is not compared.
 * Returns the interval (ok false when none) and sets *from to where it
 * came from (static text). */
static num save_interval(const kg_facts *f, const char **from)
{
	const char *kind = fact_str(f, "progress.kind");
	num done = get(f, "progress.done"), every = get(f, "config.save_every");
	bool hf = str_is(kind, "trainer"); /* not vocabulary: progress.kind's word */
	if (!hf && !str_is(kind, "bar") && !str_is(kind, "step")) /* not vocabulary: progress.kind's words */
		return (num){0};
	if (!every.ok && !hf) {
		const char *files = fact_str(f, "frames.files");
		hf = files && strstr(files, "transformers/trainer.py");
	}
	if (every.ok)
		*from = "the log's save setting";
	else if (hf)
		every = (num){true, 500, 500, 500, "Hugging Face TrainingArguments' default save_steps"},
		*from = "Hugging Face Trainer's default save_steps";
	if (!done.ok || !every.ok || every.v < 50 || every.v != floor(every.v) || done.v < every.v)
		return (num){0};
	double r = fmod(done.v, every.v);
	if (r > 1)
		return (num){0};
	every.lo = every.hi = every.v;
	return every;
}

static bool str_has(const char *s, const char *needle)
{
	return s && kg_memcasemem(s, strlen(s), needle, strlen(needle)) != NULL;
}

/* Whether a function name of fns (names joined by ' ') has one of tokens
 * (lower-case words) as a word of its own: "training_step" has "training"
 * and "step"; case is ignored. */
static bool fn_token(const char *fns, const char *const *tokens)
{
	for (const char *p = fns; p && *p;) {
		size_t n = strcspn(p, " _.<>");
		for (size_t k = 0; n && tokens[k]; k++)
			if (strlen(tokens[k]) == n && strncasecmp(p, tokens[k], n) == 0)
				return true;
		p += n + (p[n] != 0);
	}
	return false;
}

/* The engine that printed the message or ran in the frames (the
 * engines' OOM wordings, oom.c; their packages in the frames' paths):
 * its framework word, or a word of its own; NULL when neither. Both
 * job.engine and job.mode (serve) start from it. */
static const char *engine_ran(const kg_facts *f, const char **why)
{
	static const int printed[] = {KG_FRAMEWORK_VLLM, KG_FRAMEWORK_SGLANG, KG_FRAMEWORK_GGML,
				      KG_FRAMEWORK_OLLAMA, KG_FRAMEWORK_CTRANSLATE2, KG_FRAMEWORK_TVM,
				      KG_FRAMEWORK_OPENVINO, KG_FRAMEWORK_ONNXRUNTIME};
	const char *fw = fact_str(f, "framework");
	for (size_t k = 0; k < sizeof printed / sizeof *printed; k++)
		if (str_is(fw, kg_frameworks.words[printed[k]])) {
			*why = "the inference engine that printed the message";
			return fw;
		}
	/* an engine's package in the frames' files: its framework word, or a
	 * word of its own (fw -1) */
	static const struct { const char *path; int fw; const char *word; } paths[] = {
		{"/vllm/", KG_FRAMEWORK_VLLM, NULL}, {"\\vllm\\", KG_FRAMEWORK_VLLM, NULL},
		{"/sglang/", KG_FRAMEWORK_SGLANG, NULL}, {"/llama_cpp/", KG_FRAMEWORK_GGML, NULL},
		{"/ctranslate2/", KG_FRAMEWORK_CTRANSLATE2, NULL},
		{"/faster_whisper/", KG_FRAMEWORK_CTRANSLATE2, NULL},
		{"/text_generation_server/", -1, "tgi"}, {"/tensorrt_llm/", -1, "tensorrt_llm"},
		{"/exllamav2/", -1, "exllamav2"}};
	const char *files = fact_str(f, "frames.files");
	for (size_t k = 0; k < sizeof paths / sizeof *paths; k++)
		if (str_has(files, paths[k].path)) {
			*why = "an inference engine's package in the frames";
			return paths[k].fw < 0 ? paths[k].word : kg_frameworks.words[paths[k].fw];
		}
	return NULL;
}

const char *kg_facts_job_engine(const kg_facts *f, const char **why)
{
	const char *ran = engine_ran(f, why);
	if (ran)
		return ran;
	/* the engine the log names (read/modelinfo.c: its own words for the
	 * two that have no framework word) */
	const char *named = fact_str(f, "model.engine");
	if (named) {
		*why = "the log names an inference engine";
		if (!strcmp(named, "llama.cpp")) /* not vocabulary: modelinfo's word */
			return KG_FRAMEWORK_WORD(GGML);
		if (!strcmp(named, "mlc")) /* not vocabulary: modelinfo's word */
			return KG_FRAMEWORK_WORD(TVM);
		for (size_t k = 0; k < kg_frameworks.n; k++)
			if (!strcmp(named, kg_frameworks.words[k]))
				return kg_frameworks.words[k];
	}
	*why = "no engine printed the message, ran in the frames or is named";
	return KG_MODE_WORD(UNKNOWN); /* job.mode's word for what nothing told */
}

const char *kg_facts_job_mode(const kg_facts *f, const char **why)
{
	/* words of function names, not vocabulary */
	static const char *const train_fns[] = {"train", "training", "fit", "backward", NULL}; /* not vocabulary */
	static const char *const load_fns[] = {"load", "from", "pretrained", NULL}; /* not vocabulary */
	const char *fns = fact_str(f, "frames.functions"), *msg = fact_str(f, "oom.message");
	const char *phase = fact_str(f, "phase"), *src = fact_str(f, "phase.source");
	bool frames = str_is(src, "frames");

	/* an engine that only runs models printed the message or ran */
	if (engine_ran(f, why))
		return KG_MODE_WORD(SERVE);
	/* killed while loading (a loading bar, "Loading checkpoint shards …
	 * Killed"), or the phase says loading */
	if (str_is(fact_str(f, "family"), KG_FAMILY_WORD(OOM_KILLER)) && str_has(msg, "load")) { /* not vocabulary */
		*why = "killed while loading";
		return KG_MODE_WORD(LOAD);
	}
	if (str_is(phase, KG_PHASE_WORD(MODEL_LOAD))) {
		*why = frames ? "the frames: model loading" : "the log: model loading";
		return KG_MODE_WORD(LOAD);
	}
	if (frames) {
		if (str_is(phase, KG_PHASE_WORD(EVAL))) {
			*why = "the frames: evaluation or inference";
			return KG_MODE_WORD(EVAL);
		}
		if (str_is(phase, KG_PHASE_WORD(BACKWARD)) || str_is(phase, KG_PHASE_WORD(OPTIMIZER))) {
			*why = "the frames: backward or the optimizer step";
			return KG_MODE_WORD(TRAIN);
		}
		/* a checkpoint loaded before any step, or saved in training */
		if (str_is(phase, KG_PHASE_WORD(CHECKPOINT)) && !fn_token(fns, train_fns) &&
		    fn_token(fns, load_fns)) {
			*why = "the frames: loading a checkpoint";
			return KG_MODE_WORD(LOAD);
		}
	}
	if (fn_token(fns, train_fns)) {
		*why = "the frames: a training function";
		return KG_MODE_WORD(TRAIN);
	}
	/* what the log says of the model's use (read/modelinfo.c): an engine
	 * named (vLLM's LLM(...), Ollama, llama.cpp), training signs
	 * (--do_train, Trainer, .backward()), inference signs (generate,
	 * pipeline(, transcribe) */
	if (fact_str(f, "model.engine")) {
		*why = "the log names an inference engine";
		return KG_MODE_WORD(SERVE);
	}
	if (str_is(fact_str(f, "model.mode"), KG_MODE_WORD(TRAIN))) {
		*why = "the log's training signs (--do_train, Trainer, .backward())";
		return KG_MODE_WORD(TRAIN);
	}
	if (str_is(fact_str(f, "model.mode"), "infer")) { /* not vocabulary: modelinfo's word */
		*why = "the log's inference signs (generate, pipeline, transcribe)";
		return KG_MODE_WORD(EVAL);
	}
	if (str_is(phase, KG_PHASE_WORD(EVAL)) || fact_str(f, "log.words.eval")) {
		*why = "the log's evaluation words";
		return KG_MODE_WORD(EVAL);
	}
	if (fact_true(f, "phase.log_train") || str_is(fact_str(f, "progress.kind"), "epoch") ||
	    str_is(fact_str(f, "progress.kind"), "trainer") ||
	    kg_facts_get(f, "epoch")) {
		*why = "the log's training lines";
		return KG_MODE_WORD(TRAIN);
	}
	*why = "nothing in the input tells";
	return KG_MODE_WORD(UNKNOWN);
}

/* ---- --set ------------------------------------------------------------ */

static bool parse_count(const char *s, double *out)
{
	char buf[64];
	size_t o = 0;
	for (const char *p = s; *p; p++) {
		if (*p == ',' || *p == '_')
			continue;
		if (o + 1 >= sizeof buf)
			return false;
		buf[o++] = *p;
	}
	buf[o] = 0;
	if (!o)
		return false;
	char *end;
	errno = 0;
	double v = strtod(buf, &end);
	if (*end || errno || !isfinite(v))
		return false;
	*out = v;
	return true;
}

static bool parse_ratio(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s)
		return false;
	while (*end == ' ')
		end++;
	if (*end == '%') {
		v /= 100.0;
		end++;
	}
	if (*end || !isfinite(v))
		return false;
	*out = v;
	return true;
}

static bool has_unit(const char *s)
{
	size_t n = strlen(s);
	while (n && s[n - 1] == ' ')
		n--;
	return n && isalpha((unsigned char)s[n - 1]);
}

int kg_facts_set_arg(kg_facts *f, const char *arg, kg_error *err)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg)
		return kg_fail(err, "--set needs NAME=VALUE, got '%s'", arg);
	char *name = kg_strndup(arg, (size_t)(eq - arg));
	const char *val = eq + 1;
	int rc = 0;
	const kg_fact_info *info = kg_fact_info_find(name);
	if (!info) {
		rc = kg_fail(err, "--set %s: unknown fact name (see 'kgmem-diagnose rules facts')", name);
		goto out;
	}
	size_t L = strlen(info->name);
	bool prefix = info->name[L - 1] == '*';
	kg_fact_type type = info->type;
	bool b;
	if (prefix) {
		kg_size sz;
		double d;
		/* digits are a number: a batch size of 1 is a count, not true */
		if (*val && strspn(val, "0123456789") == strlen(val) && parse_count(val, &d))
			type = KG_FACT_COUNT;
		else if (truthy(val, strlen(val), &b))
			type = KG_FACT_BOOL;
		else if (has_unit(val) && kg_size_parse_str(val, &sz) == 0)
			type = KG_FACT_BYTES;
		else if (parse_count(val, &d))
			type = KG_FACT_COUNT;
		else
			type = KG_FACT_STRING;
	}
	switch (type) {
	case KG_FACT_BYTES: {
		kg_size sz;
		if (kg_size_parse_str(val, &sz) < 0) {
			rc = kg_fail(err, "--set %s: '%s' is not a size (e.g. 12GiB, 512 MiB)", name, val);
			goto out;
		}
		kg_facts_set_bytes(f, name, sz, "--set");
		break;
	}
	case KG_FACT_COUNT: {
		double d;
		if (!parse_count(val, &d)) {
			rc = kg_fail(err, "--set %s: '%s' is not a number", name, val);
			goto out;
		}
		kg_facts_set_num(f, name, KG_FACT_COUNT, d, "--set");
		break;
	}
	case KG_FACT_RATIO: {
		double d;
		if (!parse_ratio(val, &d)) {
			rc = kg_fail(err, "--set %s: '%s' is not a ratio (e.g. 0.9 or 90%%)", name, val);
			goto out;
		}
		kg_facts_set_num(f, name, KG_FACT_RATIO, d, "--set");
		break;
	}
	case KG_FACT_BOOL:
		if (!truthy(val, strlen(val), &b)) {
			rc = kg_fail(err, "--set %s: '%s' is not true or false", name, val);
			goto out;
		}
		kg_facts_set_num(f, name, KG_FACT_BOOL, b, "--set");
		break;
	case KG_FACT_STRING: {
		/* a fact that carries a vocabulary (job.mode, family, …) takes
		 * only its words */
		const kg_vocab *v = kg_vocab_named(name);
		if (v && kg_vocab_index(v, val) < 0) {
			char *all = kg_vocab_join(v, 0, ", ");
			rc = kg_fail(err, "--set %s: '%s' is not one of %s", name, val, all);
			free(all);
			goto out;
		}
		kg_facts_set_str(f, name, val, "--set");
		break;
	}
	}
	kg_facts_derive(f);
out:
	free(name);
	return rc;
}

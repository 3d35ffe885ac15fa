/* atomtab.h — the literal atoms of the log scanner, in one place for the
 * scanner (logscan.c), the OOM grammars' triggers (oom.c) and the build's
 * placement of them (atoms.c compiled with KG_ATOMS_GEN: the atoms'
 * fingerprints and buckets are chosen at build time, not at every start;
 * placing 190 atoms cost 10-19 million instructions, more than a short
 * log's whole scan). Each list is an X-macro: X(literal) for the
 * triggers, X(literal, classes) for the others. The order matters: each
 * atom is placed in the bucket its fingerprint costs least given the ones
 * before it (atoms.c), so moving one moves every later one. */
#ifndef KG_ATOMTAB_H
#define KG_ATOMTAB_H

/* What an atom's hit asks the scanner to read on its line. */
enum {
	A_OOM = 1,        /* an OOM grammar may start or continue on this line */
	A_TB = 2,         /* traceback header or frame */
	A_CTX = 4,        /* allocator config echo, follow-up, root cause,
	                     parallelism hint */
	A_READ = 16,      /* a memory reading (logfacts.h): sampled */
	A_BATCH = 32,     /* a batch setting (kg_parse_batch_hint) */
	A_SIGN = 64,      /* nvidia-smi rows, the reporter's words (kg_parse_signs) */
	A_MODEL = 128,    /* the model, its precision, the mode, the card, host RAM
	                     (kg_parse_modelinfo) */
	A_ALL = A_OOM | A_TB | A_CTX | A_READ | A_BATCH | A_SIGN | A_MODEL,
};

/* Every grammar's head contains one of these, verbatim and case-sensitive
 * (oom.c: kg_oom_candidate, the prefilter's A_OOM atoms). */
#define KG_OOM_TRIGGERS(X) \
	X("out of memory") X("Tried to allocate") X("OUT_OF_MEMORY") X("Out of memory") \
	X("OOM when allocating") X("_STATUS_") X("DefaultCPUAllocator") \
	X("failed to allocate") X("Failed to allocate") X("cudaMalloc failed") \
	X("Allocation on device") X("exceeds the memory limit") X("Attempting to allocate") \
	X("ncclUnhandledCudaError") X("failed to create cublas handle") \
	X("Buy new RAM") X("Killed") X("SIGKILL") X("Failed to get convolution algorithm") \
	X("esource allocation failed") X("valid cuDNN algorithm") X("Ran out of memory in") \
	X("No executable batch size") X("bad_alloc") X("best cudnn convolution") X("killed") \
	X("OutOfMemory") X("MemoryAllocation") \
	X("OUT_OF_DEVICE_MEMORY") X("No available memory") X("stored in KV cache") X("KV cache is") \
	X("Device memory allocation") X("ErrorOutOfDeviceMemory") \
	/* issue 31: each specific to its message, rare in a training log */ \
	X("Unexpected bus error") X("algo for convolution") X("storage allocation failure") \
	X("Exceeded max size of memory") X("out of GPU resources") X("requires more system memory") \
	X("rror 1455") X("paging file is too small") X("Auslagerungsdatei ist zu klein") X("页面文件太小") \
	X("oom-kill") X("oom_kill event") X("Out Of Memory") X("OOMKilled") X("code 137") X("status 137") \
	X("Out of host memory") X("</torch_") X("Free memory on device") X("mem-fraction-static") \
	X("dispatched on the CPU") \
	/* the safety net's own (kg_oom_unrecognized): OOM as an error's word; a \
	 * bare "OOM" would stop on every line that mentions it */ \
	X("Out of Memory") X("OUT OF MEMORY") X("OOM error") X("OOM Error") \
	/* last: the atoms are placed in this order, each in the bucket its \
	 * fingerprint costs least (atoms.c), so the order moves every later \
	 * atom; with this one last neither bench/log generator's log without \
	 * an OOM scans slower than before issue 31 (with it before the net's \
	 * literals, genmixed's did by 6-10 %); DeepSpeed's kill and TGI's \
	 * warm-up after it, measured at parity (bench/README.md, issue 30's \
	 * eighth session); Python's MemoryError after them as "yError" (its \
	 * least costly form: no log scans slower without an OOM, and one with \
	 * OOMs 1 % instead of 3 %; bench/README.md, issue 30's tenth session) */ \
	X("exitcode: -9") X("return code = -9") X("prefill tokens") X("yError") X("OOM")

/* The context the scanner reads where it reads in full (tier 2: the log's
 * head, near an OOM; logscan.c): every context parser's literal. A line
 * with none of them is never looked at again. */
#define KG_CONTEXT_ATOMS(X) \
	X("Traceback (most recent call last)", A_TB) X("File \"", A_TB) \
	X("During handling of the above", A_TB) \
	X("File /", A_TB) X(".py in ", A_TB) X("<ipython-input", A_TB) \
	X("PYTORCH_", A_CTX) X("device-side assert", A_CTX) X("Watchdog", A_CTX) \
	X("illegal memory", A_CTX) X("memory summary", A_CTX) \
	X(".yaml", A_CTX) X(".yml", A_CTX) \
	X("ProcessGroupNCCL", A_CTX) X("exitcode", A_CTX) X("Root Cause", A_CTX) \
	/* memory readings and parallelism hints (logfacts.h); step and \
	 * epoch counters are found lazily, searching back from the line \
	 * that needs them (resolve_counters) */ \
	X("memory", A_READ) \
	X("Mem", A_READ) /* and "Memory" */ X("Max_MA", A_READ) X("gpu_mem", A_READ) X("n_jobs", A_CTX | A_BATCH) X("Parallel", A_CTX) X("PAR=", A_CTX) \
	X("nproc", A_CTX) X("pytest", A_CTX) X("xdist", A_CTX) X("[gw", A_CTX) \
	X("num_parallel", A_CTX | A_BATCH) \
	/* platform markers (logfacts.h; TensorFlow's start-up lines have \
	 * "memory"/"Memory" and are read with the readings). The table holds \
	 * KG_ATOMS_MAX atoms with the triggers: atoms_init aborts past it. */ \
	X("WSL", A_CTX) X("wsl", A_CTX) X("NvMap", A_CTX) X("etson", A_CTX) /* Jetson, jetson */ X(" Thor", A_CTX) X(" Orin", A_CTX) X("Cell In[", A_CTX) \
	/* the batch that ran (kg_parse_batch_hint) */ \
	X("batch", A_BATCH | A_SIGN) X("Batch", A_BATCH | A_SIGN) X("_bs", A_BATCH | A_SIGN) \
	X("accum", A_BATCH) X("Accum", A_BATCH) \
	/* the other settings of rules/keys.yaml's roles read from a log \
	 * (kg_parse_settings; unit-atoms checks each key holds one) */ \
	X("gpu_memory", A_BATCH) X("gpu-memory", A_BATCH) X("fraction", A_BATCH) X("FRACTION", A_BATCH) \
	X("WATERMARK", A_BATCH) X("growth", A_BATCH) X("GROWTH", A_BATCH) X("model_len", A_BATCH) \
	X("model-len", A_BATCH) X("seq_len", A_BATCH) X("ngl", A_BATCH) X("gpu_layers", A_BATCH) \
	X("gpu-layers", A_BATCH) X("num_gpu", A_BATCH) X("shm", A_BATCH) X("processes", A_BATCH) \
	X("jobs", A_BATCH) X("trials", A_BATCH) X("submodels", A_BATCH) X("update_freq", A_BATCH) \
	X("-bs", A_BATCH) X("save_", A_BATCH) X("save-", A_BATCH) X("every_n", A_BATCH) \
	/* nvidia-smi rows and the reporter's words (kg_parse_signs): phrases \
	 * of prose, not words a training log prints on every line ("eval", \
	 * "Validation", "after" would send each tqdm redraw and metrics line \
	 * down the context path: 2-4 µs a line) */ \
	X("MiB |", A_SIGN) X("MiB|", A_SIGN) X(" MB |", A_SIGN) X("epochs", A_SIGN) X("th epoch", A_SIGN) \
	X("nd epoch", A_SIGN) X("rd epoch", A_SIGN) X("hour", A_SIGN) X("for a while", A_SIGN) \
	X("too long", A_SIGN) X("bs=", A_SIGN | A_BATCH) X("during", A_SIGN) X("During", A_SIGN) \
	X("valid ", A_SIGN) X("ation loop", A_SIGN) X("ation step", A_SIGN) X("ation phase", A_SIGN) \
	X("ation routine", A_SIGN) X("eval loop", A_SIGN) X("eval step", A_SIGN) X("test loop", A_SIGN) \
	X("test step", A_SIGN) X("hen the", A_SIGN) /* when, When */ X("ation start", A_SIGN) \
	X("going to start", A_SIGN) X("evaluati", A_SIGN) X("validati", A_SIGN) X("inferenc", A_SIGN) \
	X("evaluate(", A_SIGN) X("in eval", A_SIGN) \
	/* memory that grows, a checkpoint, several jobs on one device, in the \
	 * reporter's words (kg_parse_signs: p_leakw, p_ckptw, p_parw) */ \
	X("leak", A_SIGN) X("keep", A_SIGN) X("kept", A_SIGN) X("grow", A_SIGN) /* not vocabulary: log text */ \
	X("increas", A_SIGN) X("graph", A_SIGN) X("detach", A_SIGN) X("checkpoint", A_SIGN | A_BATCH) X("resum", A_SIGN) /* not vocabulary: log text */ \
	X("saving", A_SIGN) X("same", A_SIGN) \
	X("single", A_SIGN) X("shared", A_SIGN) X("simultaneous", A_SIGN) X("concurrent", A_SIGN | A_BATCH) \
	X("parallel", A_SIGN | A_BATCH) X("GPU 0", A_SIGN) X("cuda:0", A_SIGN) \
	/* the inputs named large (kg_parse_signs: p_largew) */ \
	X("large", A_SIGN) X("Large", A_SIGN) X("long", A_SIGN) X("Long", A_SIGN) X("big", A_SIGN) \
	X("huge", A_SIGN) X("igh-res", A_SIGN) X("igh res", A_SIGN) X("igher-res", A_SIGN) X("igher res", A_SIGN) \
	/* the model and the machine (kg_parse_modelinfo): names and counts, \
	 * precision, the card, host RAM, the mode, adapters, what spreads the \
	 * model, a KV cache's shape ("GPU" is in every CUDA OOM message; \
	 * MemTotal and free's Mem: row come with the reading-class lines \
	 * that hold no reading) */ \
	X("odel", A_MODEL) /* model, Model */ X("aram", A_MODEL) /* param, Param */ \
	X("lama", A_MODEL) X("gguf", A_MODEL) X("istral", A_MODEL) X("ixtral", A_MODEL) \
	X("Qwen", A_MODEL) X("gpt", A_MODEL) X("GPT", A_MODEL) X("bert", A_MODEL) \
	X("hisper", A_MODEL) X("sdxl", A_MODEL) X("lux", A_MODEL) X("glm", A_MODEL) \
	X("GLM", A_MODEL) X("icuna", A_MODEL) X("eepseek", A_MODEL) X("eepSeek", A_MODEL) \
	X("ephyr", A_MODEL) X("phi-", A_MODEL) X("Phi-", A_MODEL) X("opt-", A_MODEL) \
	X("f16", A_MODEL) X("bit", A_MODEL) X("int8", A_MODEL) X("int4", A_MODEL) \
	X("AWQ", A_MODEL) /* GPTQ: "GPT" */ X("dtype", A_MODEL) \
	X("NVIDIA", A_MODEL) X("Tesla", A_MODEL) X("RTX", A_MODEL) X("GTX", A_MODEL) \
	X("A100", A_MODEL) X("H100", A_MODEL) X("V100", A_MODEL) X("GPU", A_MODEL) \
	X("Instinct", A_MODEL) X("--mem", A_MODEL) X("RAM", A_MODEL) \
	X("do_train", A_MODEL) X("train.py", A_MODEL) X("LLM(", A_MODEL) \
	X("vllm", A_MODEL) /* not vocabulary: log text */ \
	X("infer", A_MODEL) X("pipeline(", A_MODEL) X("lora", A_MODEL) X("LoRA", A_MODEL) \
	X("peft", A_MODEL) X("PEFT", A_MODEL) X("device_map", A_MODEL) X("deepspeed", A_MODEL) \
	X("DeepSpeed", A_MODEL) X("fsdp", A_MODEL) X("FSDP", A_MODEL) X("offload", A_MODEL) \
	X("parallel_size", A_MODEL) X("SGD", A_MODEL) X("_layer", A_MODEL) X("_head", A_MODEL) \
	X("hidden_size", A_MODEL) X("n_ctx", A_MODEL) X("llm_load", A_MODEL) X(" ram", A_MODEL) \
	/* the failure tied to a software version (kg_parse_signs: p_verw) */ \
	X("pdat", A_SIGN) X("pgrad", A_SIGN) X("owngrad", A_SIGN) X("ersion", A_SIGN) X("ommit", A_SIGN)

/* What tier 1 reads besides the triggers: torchelastic's root-cause block
 * (the rank that failed first, printed at the end of a multi-rank log) and
 * memory_summary() tables (the report's snapshots[], OOM or not). */
#define KG_TIER1_ATOMS(X) X("Root Cause", A_CTX) X("memory summary", A_CTX)

#endif

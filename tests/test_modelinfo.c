/* test_modelinfo.c — the readers of read/modelinfo.h (the model named with
 * its size or by a catalogue name, printed parameter counts, precision,
 * mode, adapters, what spreads the model, GPU names, host RAM, a KV cache's
 * shape) and the estimator of diagnose/estimate.h.
 *
 * The lines are real where a source is given: dev-causes records (their
 * threads' URLs, testdata/SOURCES.md "modelinfo lines"), or the format the
 * named program prints (its source file). The catalogues are the shipped
 * rules/ ($KG_RULES). */
#include "diagnose/estimate.h"
#include "model/facts.h"
#include "read/modelinfo.h"
#include "tap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static kg_catalogue cat;

static double num(const kg_facts *f, const char *name)
{
	const kg_fact *x = kg_facts_get(f, name);
	return x && x->type != KG_FACT_STRING ? x->num : NAN;
}

static double lo(const kg_facts *f, const char *name)
{
	const kg_fact *x = kg_facts_get(f, name);
	return x ? x->lo : NAN;
}

static const char *str(const kg_facts *f, const char *name)
{
	const kg_fact *x = kg_facts_get(f, name);
	return x && x->type == KG_FACT_STRING ? x->str : NULL;
}

/* Reads the lines of text (separated by \n) as the scanner would, then the
 * facts for an OOM at line `before` (0: the whole text). */
static void read_text(const char *text, long before, kg_facts *f)
{
	kg_model_signs m;
	kg_model_signs_init(&m);
	long ln = 0;
	for (const char *p = text; *p;) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		kg_parse_modelinfo_cat(p, n, ++ln, &m, &cat);
		p += n + (e != NULL);
	}
	memset(f, 0, sizeof *f);
	kg_facts_from_modelinfo_cat(&m, "t.log", before, f, &cat);
}

#define GiB (1024.0 * 1024 * 1024)

static void catalogues(void)
{
	TAP_OK(cat.nmodels >= 40, "rules/models.yaml read (%zu models)", cat.nmodels);
	TAP_OK(cat.ngpus >= 50, "rules/gpus.yaml read (%zu cards)", cat.ngpus);
	TAP_OK(cat.largest_gpu == 288 * GiB, "the largest card holds 288 GiB (%g)", cat.largest_gpu / GiB);
	for (size_t i = 0; i < cat.nmodels; i++)
		TAP_OK(cat.models[i].source && *cat.models[i].source, "model %s has a source", cat.models[i].name);
	for (size_t i = 0; i < cat.ngpus; i++)
		TAP_OK(cat.gpus[i].source && *cat.gpus[i].source, "GPU %s has a source", cat.gpus[i].name);
	kg_catalogue none;
	kg_error err = {0};
	TAP_OK(kg_catalogue_load(&none, "/nonexistent", &err) < 0 && none.nmodels == 0 && strstr(err.msg, "models.yaml"),
	       "a missing catalogue is an error naming the file (%s)", err.msg);
}

/* A size written in the name. */
static void names(void)
{
	kg_facts f;
	/* dcause-0016, tloen/alpaca-lora#546 */
	read_text("python3 generate.py --load_8bit --base_model 'decapoda-research/llama-7b-hf' "
		  "--lora_weights 'tloen/alpaca-lora-7b'", 0, &f);
	TAP_OK(num(&f, "model.params") == 7e9, "llama-7b-hf: 7 B (%g)", num(&f, "model.params"));
	TAP_OK(lo(&f, "model.params") == 0.92 * 7e9, "a name's size rounds: from 6.44 B (%g)", lo(&f, "model.params"));
	TAP_EQ_STR(str(&f, "model.precision"), "8-bit", "--load_8bit: 8-bit weights");
	TAP_OK(num(&f, "model.precision.bytes") == 1, "8-bit: 1 B per parameter");
	TAP_EQ_STR(str(&f, "model.mode"), "infer", "generate.py: inference");
	TAP_EQ_STR(str(&f, "model.adapters"), "lora", "alpaca-lora: adapters");
	TAP_OK(num(&f, "model.sizes") == 1, "one size named");
	kg_facts_free(&f);

	/* dcause-0073, ggml-org/llama.cpp#9352 */
	read_text("llama_init_from_gpt_params: error: failed to create context with model "
		  "'../../../Downloads/Meta-Llama-3.1-70B-Instruct-Q4_K_L.gguf'", 0, &f);
	TAP_EQ_STR(str(&f, "model.name"), "Meta-Llama-3.1-70B-Instruct-Q4_K_L.gguf", "the path part with the size");
	TAP_OK(num(&f, "model.params") == 70e9, "70B");
	TAP_EQ_STR(str(&f, "model.precision"), "Q4_K_L", "GGUF Q4_K_L");
	TAP_OK(num(&f, "model.precision.bytes") == 4.5 / 8, "Q4_K: 144 bytes per 256 weights, 4.5 bits");
	TAP_EQ_STR(str(&f, "model.engine"), "llama.cpp", "llama.cpp");
	kg_facts_free(&f);

	/* dcause-0071, ggml-org/llama.cpp#138: the size alone in its path part */
	read_text("python3 convert-pth-to-ggml.py models/7B/ 1\n"
		  "{'dim': 4096, 'multiple_of': 256, 'n_heads': 32, 'n_layers': 32, 'norm_eps': 1e-06, 'vocab_size': 32000}",
		  0, &f);
	TAP_EQ_STR(str(&f, "model.name"), "models/7B", "models/7B");
	TAP_OK(num(&f, "model.layers") == 32 && num(&f, "model.kv_heads") == 32, "n_layers, n_heads (no GQA: every head)");
	kg_facts_free(&f);

	/* dcause-0123, ollama/ollama#3765 */
	read_text("❯ ollama run llama3:70b-instruct-q2_K  --verbose \"write a constexpr GCD\"\n"
		  "Apr 19 22:43:30 box ollama[641298]: llama_new_context_with_model: n_ctx      = 2048", 0, &f);
	TAP_EQ_STR(str(&f, "model.name"), "llama3:70b-instruct-q2_K", "an Ollama tag");
	TAP_OK(num(&f, "model.precision.bytes") == 2.625 / 8, "q2_K: 2.625 bits");
	TAP_EQ_STR(str(&f, "model.engine"), "ollama", "Ollama wins over the llama.cpp lines it prints");
	TAP_OK(num(&f, "model.context") == 2048, "n_ctx");
	kg_facts_free(&f);

	/* ollama/ollama#8571: Ollama's server log names neither Ollama nor a
	 * precision; its runner and llama.cpp's loader lines say the engine */
	read_text("llm_load_tensors:          CPU model buffer size = 322657.21 MiB\n"
		  "time=2025-01-24T15:54:16.769-08:00 level=ERROR source=sched.go:455 msg=\"error loading llama server\" "
		  "error=\"llama runner process has terminated: signal: killed\"", 0, &f);
	TAP_EQ_STR(str(&f, "model.engine"), "ollama", "Ollama's llama runner");
	kg_facts_free(&f);
	read_text("llm_load_tensors: offloaded 33/33 layers to GPU", 0, &f);
	TAP_EQ_STR(str(&f, "model.engine"), "llama.cpp", "llama.cpp's loader line");
	kg_facts_free(&f);

	/* dcause-0089, vllm-project/vllm#7028 */
	read_text("llm = LLM(model=\"hiuman/Vistral-7B-Chat-quantize\", quantization=\"AWQ\",enforce_eager=True, "
		  "gpu_memory_utilization=0.1)", 0, &f);
	TAP_OK(num(&f, "model.params") == 7e9, "Vistral-7B");
	TAP_OK(num(&f, "model.precision.bytes") == 0.5, "AWQ: 4-bit");
	TAP_EQ_STR(str(&f, "model.engine"), "vllm", "LLM(: vLLM");
	kg_facts_free(&f);

	/* vllm-project/vllm#2140: vLLM's server named by its module alone, in
	 * fp32 by --dtype=float (vLLM's shorthand for FP32) */
	read_text("python -m vllm.entrypoints.openai.api_server --model /home/jovyan/qwen/Qwen2-7B-Instruct  "
		  "--served-model-name Qwen2-7B-Instruct --max-model-len=512 --dtype=float --enforce-eager", 0, &f);
	TAP_EQ_STR(str(&f, "model.engine"), "vllm", "vllm.entrypoints: vLLM, without LLM(");
	TAP_OK(num(&f, "model.precision.bytes") == 4, "--dtype=float: 4 B a parameter (%g)", num(&f, "model.precision.bytes"));
	TAP_OK(num(&f, "model.params") == 7e9, "Qwen2-7B");
	kg_facts_free(&f);
	read_text("model = AutoModel.from_pretrained(name, torch_dtype=torch.half)", 0, &f);
	TAP_OK(num(&f, "model.precision.bytes") == 2, "torch.half: 2 B");
	kg_facts_free(&f);
	read_text("vllm serve Qwen/Qwen2-7B --dtype half", 0, &f);
	TAP_OK(num(&f, "model.precision.bytes") == 2, "--dtype half: 2 B");
	kg_facts_free(&f);
	read_text("vllm serve Qwen/Qwen2-7B --dtype float16", 0, &f);
	TAP_OK(num(&f, "model.precision.bytes") == 2, "--dtype float16 is not --dtype float (%g)",
	       num(&f, "model.precision.bytes"));
	kg_facts_free(&f);

	/* sgl-project/sglang#4330: SGLang's server named on its command line */
	read_text("python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct "
		  "--speculative-algorithm EAGLE --mem-fraction-static 0.84", 0, &f);
	TAP_EQ_STR(str(&f, "model.engine"), "sglang", "sglang.launch_server: SGLang");
	TAP_EQ_STR(str(&f, "model.mode"), "infer", "SGLang's server runs a model, it does not train one");
	kg_facts_free(&f);

	/* "the 70B model" in prose; and sizes that are not models */
	read_text("I try to run the 70B model on a single card", 0, &f);
	TAP_OK(num(&f, "model.params") == 70e9, "the 70B model");
	kg_facts_free(&f);
	read_text("OLLAMA_LOAD_TIMEOUT=30m\nsha256:7b1a2c9f\nefficientnet-b7 resnet-50 load_in_8bit 3.5m", 0, &f);
	TAP_OK(!kg_facts_get(&f, "model.params"), "a timeout, a hash, efficientnet-b7, 8bit: no model");
	kg_facts_free(&f);
	/* models of two sizes */
	read_text("llama-2-7b works\nbut llama-2-70b fails", 0, &f);
	TAP_OK(num(&f, "model.sizes") == 2, "7b and 70b: two sizes");
	kg_facts_free(&f);
	/* the last named at or before the OOM, else the first after */
	read_text("--model llama-2-13b\nOOM here\nwith llama-2-70b later", 2, &f);
	TAP_OK(num(&f, "model.params") == 13e9, "the model named before the OOM (%g)", num(&f, "model.params"));
	kg_facts_free(&f);
	read_text("OOM here\nwith llama-2-70b later", 1, &f);
	TAP_OK(num(&f, "model.params") == 70e9, "else the first named after it");
	kg_facts_free(&f);
	/* a traceback's file header names code, not the model */
	read_text("  File \"/usr/lib/python3/site-packages/transformers/models/gpt2/modeling_gpt2.py\", line 9, in forward",
		  0, &f);
	TAP_OK(!kg_facts_get(&f, "model.params"), "modeling_gpt2.py is no model");
	kg_facts_free(&f);
}

/* Names the catalogue knows, and printed counts. */
static void catalogue_names(void)
{
	kg_facts f;
	/* dcause-0103, huggingface/transformers#7177 */
	read_text("python run_language_modeling.py \\\n    --output_dir=output \\\n    --model_type=gpt2 \\\n"
		  "    --model_name_or_path=gpt2 \\\n    --do_train \\\n    --do_eval", 0, &f);
	TAP_EQ_STR(str(&f, "model.name"), "gpt2", "gpt2 (rules/models.yaml)");
	TAP_OK(num(&f, "model.params") == 124e6, "gpt2: 124 M");
	TAP_EQ_STR(str(&f, "model.mode"), "train", "--do_train: training (with --do_eval)");
	kg_facts_free(&f);
	read_text("model = AutoModelForCausalLM.from_pretrained('gpt2-xl')", 0, &f);
	TAP_OK(num(&f, "model.params") == 1.5e9, "gpt2-xl: the longest name wins");
	kg_facts_free(&f);
	/* dcause-0116, YoumiMa/dreeam#9 */
	read_text("scripts/infer_distant_roberta.sh: line 17:  3218 Killed                  python run.py "
		  "--data_dir dataset/docred --transformer_type roberta --model_name_or_path roberta-large "
		  "--display_name ${NAME}", 0, &f);
	TAP_OK(num(&f, "model.params") == 355e6, "roberta-large: 355 M");
	TAP_EQ_STR(str(&f, "model.mode"), "infer", "infer_distant_roberta.sh: inference");
	kg_facts_free(&f);
	/* dcause-0107, Purfview/whisper-standalone-win#50: "large-v2" is
	 * Whisper's only where Whisper is named */
	read_text("w.exe \"D:\\\\1.ts\" --model=large-v2\n\nStandalone Faster-Whisper r141.3 running on: CUDA", 0, &f);
	TAP_EQ_STR(str(&f, "model.name"), "whisper large", "large-v2 with Whisper named");
	TAP_OK(num(&f, "model.params") == 1550e6, "whisper large: 1550 M");
	kg_facts_free(&f);
	read_text("w.exe --model=large-v2", 0, &f);
	TAP_OK(!kg_facts_get(&f, "model.params"), "large-v2 alone is no model");
	kg_facts_free(&f);
	/* vllm-project/vllm#4408: a Mixtral fine-tune keeps the base's count
	 * and its 8x22B tag, which is not its count (8 × 22 = 176) */
	read_text("python3 -m vllm.entrypoints.openai.api_server --model alpindale/WizardLM-2-8x22B --dtype auto", 0, &f);
	TAP_EQ_STR(str(&f, "model.name"), "mixtral-8x22b", "WizardLM-2-8x22B: mixtral-8x22b by its tag");
	TAP_OK(num(&f, "model.params") == 141e9, "mixtral-8x22b: 141 B, not 176 B");
	kg_facts_free(&f);
	/* dcause-0053, ZiYang-xie/WorldGen#25 */
	read_text("I have download Flux.dev-1 locally because I cannot connect to hugging face.", 0, &f);
	TAP_OK(num(&f, "model.params") == 12e9, "Flux.dev: FLUX.1, 12 B");
	kg_facts_free(&f);

	/* dcause-0117, CompVis/stable-diffusion#352 (ldm's count_params) */
	read_text("DiffusionWrapper has 859.52 M params.", 0, &f);
	TAP_OK(fabs(num(&f, "model.params") - 859.52e6) < 1, "has 859.52 M params");
	TAP_EQ_STR(str(&f, "model.name"), "printed count", "a printed count");
	kg_facts_free(&f);
	/* PEFT's print_trainable_parameters (huggingface/peft
	 * src/peft/peft_model.py): trainable and all */
	read_text("trainable params: 4,194,304 || all params: 6,742,609,920 || trainable%: 0.0622", 0, &f);
	TAP_OK(num(&f, "model.params") == 6742609920.0, "all params: 6,742,609,920");
	TAP_OK(num(&f, "model.trainable") == 4194304, "trainable params: 4,194,304");
	kg_facts_free(&f);
	/* torchinfo's summary (TylerYep/torchinfo README) and the HF Trainer
	 * banner (transformers trainer.py) */
	read_text("Total params: 124,439,808\nTrainable params: 124,439,808\nNon-trainable params: 0", 0, &f);
	TAP_OK(num(&f, "model.params") == 124439808, "Total params: 124,439,808");
	kg_facts_free(&f);
	read_text("  Number of trainable parameters = 124,439,808", 0, &f);
	TAP_OK(num(&f, "model.trainable") == 124439808, "Number of trainable parameters = …");
	kg_facts_free(&f);
	/* llama.cpp's llm_load_print_meta; a printed count wins over a name */
	read_text("--model llama-2-7b.Q4_0.gguf\nllm_load_print_meta: model params     = 6.74 B", 0, &f);
	TAP_OK(fabs(num(&f, "model.params") - 6.74e9) < 1, "model params = 6.74 B wins over the name's 7b");
	TAP_OK(num(&f, "model.sizes") == 1, "6.74 B and 7b: one size");
	TAP_OK(num(&f, "model.precision.bytes") == 4.5 / 8, "Q4_0: 18 bytes per 32 weights");
	kg_facts_free(&f);
}

static void precision_mode_split(void)
{
	kg_facts f;
	read_text("model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.bfloat16)", 0, &f);
	TAP_EQ_STR(str(&f, "model.precision"), "bfloat16", "torch_dtype=torch.bfloat16");
	TAP_OK(num(&f, "model.precision.bytes") == 2, "bf16: 2 B");
	kg_facts_free(&f);
	read_text("bnb_config = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.float16)", 0, &f);
	TAP_OK(num(&f, "model.precision.bytes") == 0.5, "4-bit weights, the narrowest named");
	kg_facts_free(&f);
	read_text("training_args = TrainingArguments(optim=\"paged_adamw_8bit\", fp16=True)", 0, &f);
	TAP_EQ_STR(str(&f, "model.optimizer"), "8-bit Adam", "paged_adamw_8bit is the optimizer's");
	TAP_OK(num(&f, "model.precision.bytes") == 2, "not 8-bit weights (fp16: %g)", num(&f, "model.precision.bytes"));
	kg_facts_free(&f);
	/* dcause-0104, mlc-ai/mlc-llm#860 */
	read_text("build/mlc_chat_cli --model meta-llama_Llama-2-7b-hf-q4f16_1 --evaluate", 0, &f);
	TAP_OK(num(&f, "model.precision.bytes") == 0.5, "q4f16_1: 4-bit");
	TAP_EQ_STR(str(&f, "model.engine"), "mlc", "mlc_chat");
	kg_facts_free(&f);
	read_text("model = AutoModelForCausalLM.from_pretrained(name, device_map=\"auto\")", 0, &f);
	TAP_EQ_STR(str(&f, "model.split"), "device_map=auto", "device_map=auto spreads it");
	kg_facts_free(&f);
	read_text("model = AutoModelForCausalLM.from_pretrained(name, device_map={\"\": 0})\n"
		  "vllm serve m --tensor-parallel-size 1", 0, &f);
	TAP_OK(!kg_facts_get(&f, "model.split"), "one device or one rank spreads nothing");
	kg_facts_free(&f);
	read_text("deepspeed --num_gpus 8 train.py --deepspeed ds_config.json", 0, &f);
	TAP_EQ_STR(str(&f, "model.split"), "deepspeed", "DeepSpeed");
	TAP_EQ_STR(str(&f, "model.mode"), "train", "train.py: training");
	kg_facts_free(&f);
	read_text("optimizer = torch.optim.SGD(model.parameters(), lr=0.1)", 0, &f);
	TAP_EQ_STR(str(&f, "model.optimizer"), "SGD", "SGD named");
	kg_facts_free(&f);
	/* the reporter's words and the optimizer name training */
	read_text("I'm doing full fine-tuning of meta-llama/Llama-2-7b-hf in bf16 on one RTX 3090", 0, &f);
	TAP_EQ_STR(str(&f, "model.mode"), "train", "\"full fine-tuning\": training");
	kg_facts_free(&f);
	read_text("optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)", 0, &f);
	TAP_EQ_STR(str(&f, "model.mode"), "train", "torch.optim.AdamW: training");
	kg_facts_free(&f);
	read_text("$ whisper interview.mp3 --model large-v2 --language en", 0, &f);
	TAP_EQ_STR(str(&f, "model.mode"), "infer", "the whisper CLI on an audio file: transcription");
	kg_facts_free(&f);
	read_text("I fine-tuned llama-2-7b last week; now model.generate(ids) runs out of memory", 0, &f);
	TAP_EQ_STR(str(&f, "model.mode"), "infer", "\"fine-tuned\" is a model tuned before: generate( is inference");
	kg_facts_free(&f);
}

static void gpus_and_host(void)
{
	kg_facts f;
	/* dcause-0057, phil-bergmann/tracking_wo_bnw#57 (gpustat) */
	read_text("[0] Tesla V100-SXM2-16GB | 44'C,   0 % | 15836 / 16130 MB |", 0, &f);
	TAP_EQ_STR(str(&f, "gpu.name"), "Tesla V100-SXM2-16GB", "a V100 by name");
	TAP_OK(num(&f, "gpu.memory") == 16 * GiB, "its name states 16GB");
	kg_facts_free(&f);
	/* nvidia-smi's name column (535 driver) */
	read_text("|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |                    0 |", 0, &f);
	TAP_OK(num(&f, "gpu.memory") == 80 * GiB, "A100-SXM4-80GB");
	kg_facts_free(&f);
	/* dcause-0053 (ZiYang-xie/WorldGen#25), dcause-0049 (joeddav/devol#18),
	 * dcause-0047 (behavioral-data/Homekit2020#13) */
	read_text("This is the result for just 1 RTX4090.", 0, &f);
	TAP_OK(num(&f, "gpu.memory") == 24 * GiB, "RTX4090: 24 GiB (rules/gpus.yaml)");
	kg_facts_free(&f);
	read_text("I am running on a Titan X with 12gb VRAM.", 0, &f);
	TAP_OK(num(&f, "gpu.memory") == 12 * GiB, "Titan X: 12 GiB");
	kg_facts_free(&f);
	read_text("the GPU I'm using (A40, 48 GB VRAM) runs out of memory", 0, &f);
	TAP_OK(num(&f, "gpu.memory") == 48 * GiB, "A40");
	kg_facts_free(&f);
	read_text("GPU 0: a2 = torch.zeros(4); RTX 3090 Ti and an A1000", 0, &f);
	TAP_EQ_STR(str(&f, "gpu.name"), "RTX 3090 Ti", "a2 is no A2, A1000 no A100; RTX 3090 Ti");
	kg_facts_free(&f);

	/* a card sized in prose, and older small cards (public threads:
	 * matterport/Mask_RCNN#44 and #1791, AlexeyAB/darknet#392,
	 * ollama/ollama#1236, AlexeyAB/darknet#935; the last two lines are
	 * written here) */
	read_text("I guess my humble 2GB GPU is not enough... how could I solve this?", 0, &f);
	TAP_OK(num(&f, "gpu.memory") == 2 * GiB, "a 2GB GPU: 2 GiB");
	TAP_EQ_STR(str(&f, "gpu.name"), "2GB GPU", "named by the phrase");
	kg_facts_free(&f);
	read_text("And, having 3 GB of video memory, it sometimes manages", 0, &f);
	TAP_OK(num(&f, "gpu.memory") == 3 * GiB, "3 GB of video memory");
	kg_facts_free(&f);
	read_text("I have a NVIDIA GeForce GTX 950M with 2GB dedicated memory and CC = 5.0.", 0, &f);
	TAP_OK(num(&f, "gpu.memory") == 4 * GiB, "GTX 950M: the most of its variants (4 GiB) beside the 2GB stated");
	kg_facts_free(&f);
	read_text("-- Any other model runs just fine with cuda with nvida 1660 ti .", 0, &f);
	TAP_OK(num(&f, "gpu.memory") == 6 * GiB, "a bare 1660 ti: 6 GiB");
	kg_facts_free(&f);
	read_text("when training YOLO V3 on the window with GPU Nvidia GeForce GTX 750 Ti gives the message out of memory", 0, &f);
	TAP_OK(num(&f, "gpu.memory") == 4 * GiB, "GTX 750 Ti: at most 4 GiB");
	kg_facts_free(&f);
	read_text("my machine has 32 GB RAM and a GTX 1080", 0, &f);
	TAP_OK(num(&f, "gpu.memory") == 8 * GiB, "host RAM is no card's size");
	kg_facts_free(&f);
	read_text("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 7.79 GiB total capacity)", 0, &f);
	TAP_OK(!kg_facts_get(&f, "gpu.memory"), "a message's figures size no card");
	kg_facts_free(&f);
	read_text("the process uses 3 GB GPU memory and the model needs 12GB VRAM; the GPU has 2GB free", 0, &f);
	TAP_OK(!kg_facts_get(&f, "gpu.memory"), "what something uses, needs or leaves sizes no card");
	kg_facts_free(&f);
	read_text("I am having an Nvidia Quadro 2 GB GPU.", 0, &f);
	TAP_OK(num(&f, "gpu.memory") == 2 * GiB, "an Nvidia Quadro 2 GB GPU");
	kg_facts_free(&f);

	read_text("MemTotal:       16318412 kB", 0, &f);
	TAP_OK(num(&f, "host.ram") == 16318412.0 * 1024, "/proc/meminfo MemTotal");
	kg_facts_free(&f);
	read_text("               total        used        free      shared  buff/cache   available\n"
		  "Mem:            15Gi       1.2Gi        13Gi       2.0Mi       1.1Gi        13Gi", 0, &f);
	TAP_OK(num(&f, "host.ram") == 15 * GiB, "free -h: Mem: 15Gi");
	kg_facts_free(&f);
	read_text("#SBATCH --mem=64G\n#SBATCH --mem-per-cpu=4G", 0, &f);
	TAP_OK(num(&f, "host.ram") == 64 * GiB, "Slurm --mem=64G (not --mem-per-cpu)");
	kg_facts_free(&f);
	read_text("srun --mem 32000 python x.py", 0, &f);
	TAP_OK(num(&f, "host.ram") == 32000.0 * 1024 * 1024, "Slurm --mem without a unit: MB");
	kg_facts_free(&f);
	read_text("my machine has 32 GB RAM and a 4090", 0, &f);
	TAP_OK(num(&f, "host.ram") == 32 * GiB, "32 GB RAM");
	kg_facts_free(&f);
	read_text("VRAM: 24GB, 24 GB VRAM, 24 GB of GPU RAM", 0, &f);
	TAP_OK(!kg_facts_get(&f, "host.ram"), "VRAM and GPU RAM are no host RAM");
	kg_facts_free(&f);
	/* ollama/ollama#8571: RAM in lower case, as people write it */
	read_text("running deepseek r1 671b on 64GB / 128GB ram mac", 0, &f);
	TAP_OK(num(&f, "host.ram") == 128 * GiB, "128GB ram (%g)", num(&f, "host.ram"));
	kg_facts_free(&f);
	read_text("16gb vram and 8 GB Ram", 0, &f);
	TAP_OK(num(&f, "host.ram") == 8 * GiB, "8 GB Ram, not 16gb vram (%g)", num(&f, "host.ram"));
	kg_facts_free(&f);
	read_text("a 16gb vram card", 0, &f);
	TAP_OK(!kg_facts_get(&f, "host.ram"), "16gb vram is no host RAM");
	kg_facts_free(&f);
}

static void estimates(void)
{
	kg_facts f;
	char buf[32];
	TAP_EQ_STR(kg_params_format(7e9, false, buf, sizeof buf), "7.0 B", "7.0 B");
	TAP_EQ_STR(kg_params_format(124e6, false, buf, sizeof buf), "124 M", "124 M");
	TAP_EQ_STR(kg_params_format(859.52e6, true, buf, sizeof buf), "859.5 M", "859.5 M (printed)");
	TAP_EQ_STR(kg_params_format(6.74e9, false, buf, sizeof buf), "6.74 B", "6.74 B");

	/* training: 16 B a parameter (ZeRO §3.1), against the message's card */
	read_text("python train.py --model_name_or_path meta-llama/Llama-2-7b-hf --do_train", 0, &f);
	kg_facts_set_num(&f, "oom.total_capacity", KG_FACT_BYTES, 15.8 * GiB, "msg");
	kg_estimate_facts(&f);
	TAP_OK(num(&f, "estimate.training") == 112e9, "7 B × 16 B = 112e9 bytes");
	TAP_OK(lo(&f, "estimate.training") == 0.92 * 7e9 * 8, "from 6.44 B × 8 B, the least any Adam keeps");
	TAP_EQ_STR(str(&f, "estimate.training.formula"),
		   "7.0 B params (Llama-2-7b-hf) × 16 B (weights, gradients, Adam state) = 104.31 GiB",
		   "the training formula");
	TAP_EQ_STR(str(&f, "estimate.model.formula"), str(&f, "estimate.training.formula"), "training is the model's state");
	TAP_OK(num(&f, "estimate.card") == 15.8 * GiB, "the card: the message's");
	TAP_EQ_STR(str(&f, "estimate.card.source"), "the device's total capacity in the message", "said so");
	TAP_EQ_STR(str(&f, "estimate.weights.formula"),
		   "7.0 B params (Llama-2-7b-hf) × 2 B (16-bit, assumed) = 13.04 GiB", "weights, 16-bit assumed");
	kg_facts_free(&f);

	/* an engine that runs GGUF files, no precision named: the least
	 * usual quantisation, Q4_0's 4.5 bits (ollama/ollama#8571) */
	read_text("running deepseek r1 671b on 64GB / 128GB ram mac", 0, &f);
	kg_facts_set_str(&f, "job.engine", "ollama", "derived");
	kg_estimate_facts(&f);
	TAP_OK(num(&f, "estimate.weights") == 671e9 * 0.5625, "671 B × 4.5 bits (%g)", num(&f, "estimate.weights"));
	TAP_OK(strstr(str(&f, "estimate.weights.formula") ? str(&f, "estimate.weights.formula") : "",
		      "(4-bit GGUF, assumed)") != NULL, "said to be assumed: %s", str(&f, "estimate.weights.formula"));
	kg_facts_free(&f);
	read_text("running deepseek r1 671b on 64GB / 128GB ram mac", 0, &f);
	kg_facts_set_str(&f, "job.engine", "vllm", "derived");
	kg_estimate_facts(&f);
	TAP_OK(num(&f, "estimate.weights") == 671e9 * 2, "vLLM: 16-bit assumed");
	kg_facts_free(&f);

	/* 8-bit Adam; SGD: no Adam state */
	read_text("python train.py --model llama-2-7b --optim adamw_8bit", 0, &f);
	kg_estimate_facts(&f);
	TAP_OK(num(&f, "estimate.training") == 70e9, "8-bit Adam: 10 B a parameter");
	kg_facts_free(&f);
	read_text("python train.py --model llama-2-7b\noptimizer = torch.optim.SGD(params)", 0, &f);
	kg_estimate_facts(&f);
	TAP_OK(!kg_facts_get(&f, "estimate.training"), "SGD: no Adam state assumed");
	kg_facts_free(&f);

	/* adapters: the frozen weights + the trainable ones × 16 B */
	read_text("python finetune.py --base_model llama-7b --load_in_8bit\n"
		  "trainable params: 4,194,304 || all params: 6,742,609,920 || trainable%: 0.06", 0, &f);
	kg_estimate_facts(&f);
	TAP_OK(num(&f, "estimate.training") == 6742609920.0 + 4194304.0 * 16, "8-bit base + LoRA × 16 B");
	kg_facts_free(&f);
	read_text("python finetune.py --base_model llama-7b --use_lora", 0, &f);
	kg_estimate_facts(&f);
	TAP_OK(!kg_facts_get(&f, "estimate.training"), "LoRA without a trainable count: no training estimate");
	kg_facts_free(&f);

	/* the card by name; serving with the KV cache (llama.cpp's meta lines) */
	read_text("vllm serve meta-llama/Llama-3.1-8B --dtype bfloat16 --max-model-len 131072\n"
		  "llm_load_print_meta: n_layer          = 32\nllm_load_print_meta: n_head_kv        = 8\n"
		  "llm_load_print_meta: n_embd_head_k    = 128\nmax_model_len=131072\nGPU: NVIDIA GeForce RTX 4090", 0, &f);
	kg_estimate_facts(&f);
	TAP_OK(num(&f, "estimate.card") == 24 * GiB, "the card: the GPU named");
	TAP_OK(strstr(str(&f, "estimate.card.source") ? str(&f, "estimate.card.source") : "", "rules/gpus.yaml") != NULL,
	       "from rules/gpus.yaml (%s)", str(&f, "estimate.card.source"));
	TAP_OK(num(&f, "estimate.kv_cache") == 2.0 * 32 * 8 * 128 * 131072 * 2, "KV: 2 × 32 × 8 × 128 × 131072 × 2 B");
	TAP_EQ_STR(str(&f, "estimate.kv_cache.formula"),
		   "2 (K, V) × 32 layers × 8 KV heads × 128 head dim × 131072 tokens × 2 B = 16.00 GiB", "the KV formula");
	TAP_OK(num(&f, "estimate.model") == 8e9 * 2 + 2.0 * 32 * 8 * 128 * 131072 * 2, "serving: weights + KV");
	kg_facts_free(&f);
}

int main(void)
{
	const char *rd = getenv("KG_RULES");
	kg_error err = {0};
	if (kg_catalogue_load(&cat, rd ? rd : "rules", &err) < 0) {
		printf("Bail out! %s\n", err.msg);
		return 1;
	}
	catalogues();
	names();
	catalogue_names();
	precision_mode_split();
	gpus_and_host();
	estimates();
	kg_catalogue_free(&cat);
	return tap_done();
}

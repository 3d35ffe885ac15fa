/* Unit tests for the scanner's line-level parts: noise stripping
 * (logscan.c), traceback frames and phases (traceback.c), and context
 * markers (context.c). Inputs are lines as real logs print them. */
#include "read/atoms.h"
#include "read/context.h"
#include "read/envelope.h"
#include "read/oom.h"
#include "read/logscan.h"
#include "tap.h"
#include "read/traceback.h"
#include "model/util.h"

#include <stdlib.h>
#include <string.h>

static void strip_case(const char *in, const char *want, long long want_rank)
{
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", in);
	int64_t rank = KG_NONE;
	size_t n = kg_strip_noise(buf, strlen(buf), &rank);
	buf[n] = '\0';
	TAP_EQ_STR(buf, want, "strip: %s", in);
	TAP_EQ_I64(rank == KG_NONE ? -1 : rank, want_rank, "rank of: %s", in);
}

/* A line of an srun --label log read as it is strips to what the envelope
 * decoder's rewrite of it strips to (kg_envelope_decode_line, the oracle). */
static void label_case(const char *in)
{
	char a[1024], b[1100];
	size_t n = strlen(in);
	memcpy(a, in, n + 1);
	int64_t ra = KG_NONE, rb = KG_NONE;
	size_t na = kg_strip_noise_labeled(a, n, &ra);
	kg_buf dec = {0};
	/* a line without a label passes the decoder as it is */
	if (!kg_envelope_decode_line(KG_ENV_SLURM, in, n, &dec))
		kg_buf_append(&dec, in, n);
	size_t nb = dec.len && dec.data[dec.len - 1] == '\n' ? dec.len - 1 : dec.len;
	memcpy(b, dec.data ? dec.data : "", nb);
	b[nb] = '\0';
	kg_buf_free(&dec);
	nb = kg_strip_noise(b, nb, &rb);
	TAP_OK(na == nb && !memcmp(a, b, na), "labeled strip as decoded: [%s] -> [%s], want [%s]", in, a, b);
	TAP_EQ_I64(ra == KG_NONE ? -1 : ra, rb == KG_NONE ? -1 : rb, "labeled rank as decoded: %s", in);
}

static void frame_case(const char *line, const char *file, long lineno, const char *fn)
{
	kg_frame f;
	int ok = kg_tb_parse_frame(line, strlen(line), &f);
	TAP_OK(ok == 1, "frame parses: %s", line);
	if (ok) {
		TAP_EQ_STR(f.file, file, "frame file");
		TAP_EQ_I64(f.line, lineno, "frame line");
		TAP_EQ_STR(f.function, fn, "frame function");
		kg_frame_free(&f);
	}
}

static const char *phase_of(const char *fn, const char *file, const char *code)
{
	kg_frame f = {(char *)file, 1, (char *)fn, (char *)code};
	return kg_tb_phase(&f, 1);
}

int main(int argc, char **argv)
{
	kg_error err = {0};
	TAP_OK(kg_context_init(&err) == 0, "context patterns compile: %s", err.msg);

	/* srun --label lines (the scanner strips the label itself) */
	label_case("3: torch.OutOfMemoryError: x");
	label_case("12:   File \"train.py\", line 5, in <module>");
	label_case("12: \t  x = model(batch)");
	label_case("  7: RuntimeError: CUDA out of memory.\r");
	label_case("0: 2024-11-20 14:37:16 [rank3]: torch.OutOfMemoryError: x");
	label_case("4: \x1b[31mERROR\x1b[0m: out of memory");
	label_case("\x1b[0m4: not a label after an escape");
	label_case("5: \x01\x02 \x00text after a NUL");
	label_case("6:");
	label_case("6: ");
	label_case("1234567: seven digits is no label");
	label_case("plain line: no label");

	/* noise prefixes seen in real logs */
	strip_case("2026-07-30T03:36:29.7354318Z torch.OutOfMemoryError: CUDA", "torch.OutOfMemoryError: CUDA", -1);
	strip_case("[rank3]: torch.OutOfMemoryError: x", "torch.OutOfMemoryError: x", 3);
	strip_case("2024-11-20 14:37:16 [rank3]: torch.OutOfMemoryError: x", "torch.OutOfMemoryError: x", 3);
	strip_case("[default1]:RuntimeError: x", "RuntimeError: x", 1);
	strip_case("rank 5: RuntimeError: x", "RuntimeError: x", 5);
	strip_case("\x1b[31mERROR\x1b[0m: boom", "boom", -1);
	strip_case("2024-11-20 14:37:16 DEBUG:filelock:Attempting", "Attempting", -1);
	strip_case("ERROR:__main__:CUDA out of memory", "CUDA out of memory", -1);
	strip_case("deep-seek-1  | ggml_backend_cuda_buffer_type_alloc_buffer: x", "ggml_backend_cuda_buffer_type_alloc_buffer: x", -1);
	strip_case("SUBPROCESS: [rank0]: RuntimeError: y", "RuntimeError: y", 0);
	/* a Markdown quote: the marker only, the traceback keeps its indentation */
	strip_case(">   File \"train.py\", line 190, in train", "  File \"train.py\", line 190, in train", -1);
	strip_case("> RuntimeError: CUDA error: out of memory", "RuntimeError: CUDA error: out of memory", -1);
	strip_case("[2022-07-13 21:09:08,702] [INFO] [timer.py:193:stop] 0/50", "[timer.py:193:stop] 0/50", -1);
	strip_case("2019-06-08 03:44:36.084180: E external/org_tensorflow/tensorflow/stream_executor/cuda/cuda_driver.cc:828] failed to allocate",
		   "failed to allocate", -1);
	strip_case("1.06.520.077 E ggml_backend_cuda_buffer_type_alloc_buffer: a", "ggml_backend_cuda_buffer_type_alloc_buffer: a", -1);
	strip_case("(VllmWorkerProcess pid=440) ERROR 03-25 21:01:39 multiproc_worker_utils.py:240] Exception in worker",
		   "Exception in worker", -1);
	strip_case("2025-11-02 14:03:11,482 - kgmed - INFO - Config: x.yaml", "Config: x.yaml", -1);
	strip_case("    return forward_call(*input, **kwargs)", "    return forward_call(*input, **kwargs)", -1);
	strip_case("Epoch 3/10: loss 0.1", "Epoch 3/10: loss 0.1", -1);
	strip_case("RuntimeError: CUDA out of memory.", "RuntimeError: CUDA out of memory.", -1);
	strip_case("[W 2025-10-28 03:13:19,402] Trial 268 failed", "[W 2025-10-28 03:13:19,402] Trial 268 failed", -1);

	/* traceback frames: CPython, IPython 7/8 */
	frame_case("  File \"/app/runner/trainer.py\", line 212, in _eval_one_dim", "/app/runner/trainer.py", 212, "_eval_one_dim");
	frame_case("File \"D:\\fast-reid-master\\.\\fastreid\\layers\\non_local.py\", line 45, in forward",
		   "D:\\fast-reid-master\\.\\fastreid\\layers\\non_local.py", 45, "forward");
	frame_case("~/anaconda/envs/python3/lib/python3.5/site-packages/torch/cuda/__init__.py in _lazy_new(cls, *args, **kwargs)",
		   "~/anaconda/envs/python3/lib/python3.5/site-packages/torch/cuda/__init__.py", 0, "_lazy_new");
	frame_case("<ipython-input-4-8352503114b9> in <module>()", "<ipython-input-4-8352503114b9>", 0, "<module>");
	frame_case("File /tmp/ipykernel_11/1981337352.py:109, in train(model)", "/tmp/ipykernel_11/1981337352.py", 109, "train");
	/* IPython >= 8, a notebook cell, at module level and in a function it defines */
	frame_case("Cell In[12], line 3", "Cell In[12]", 3, "<module>");
	frame_case("Cell In[7], line 21, in train(model, loader, epochs)", "Cell In[7]", 21, "train");
	kg_frame f;
	TAP_OK(!kg_tb_parse_frame("Cell In[3], line 2 was slow", 27, &f), "prose after a cell reference is not a frame");
	TAP_OK(!kg_tb_parse_frame("Loading file in 3 seconds", 25, &f), "prose with ' in ' is not a frame");
	TAP_OK(!kg_tb_parse_frame("  File system full", 18, &f), "'File' prose is not a frame");
	const char *code;
	size_t codelen;
	TAP_EQ_I64(kg_tb_parse_arrow("----> 269     return super(_CudaBase, cls).__new__(cls)", 55, &code, &codelen), 269, "IPython arrow line");

	/* phases from frames */
	TAP_EQ_STR(phase_of("_eval_one_dim", "runner/trainer.py", NULL), "eval", "_eval_one_dim is eval");
	TAP_EQ_STR(phase_of("train_and_evaluate", "main.py", NULL), NULL, "train_and_evaluate is not eval");
	/* MNeMoNiCuZ/joy-caption-batch#26: transformers' quantizer checks its
	 * set-up in from_pretrained; a check is not an evaluation pass */
	TAP_EQ_STR(phase_of("validate_environment", "site-packages/transformers/quantizers/quantizer_bnb_4bit.py",
			    "raise ValueError("), NULL, "validate_environment is not eval");
	TAP_EQ_STR(phase_of("from_pretrained", "site-packages/transformers/modeling_utils.py",
			    "hf_quantizer.validate_environment(device_map=device_map)"), "model-load",
		   "a call of validate_environment in from_pretrained: model loading, not eval");
	TAP_EQ_STR(phase_of("_validate_args", "cli.py", NULL), NULL, "_validate_args is not eval");
	TAP_EQ_STR(phase_of("main", "train.py", "valid_stats = self.validate(valid_iter)"), "eval",
		   "a call of validate( is still eval");
	TAP_EQ_STR(phase_of("train_loop", "meta_template.py", "loss.backward()"), "backward", "loss.backward() is backward");
	TAP_EQ_STR(phase_of("_engine_run_backward", "torch/autograd/graph.py", NULL), "backward", "_engine_run_backward");
	TAP_EQ_STR(phase_of("step", "/x/torch/optim/adam.py", NULL), "optimizer", "optimizer step");
	TAP_EQ_STR(phase_of("save_checkpoint", "trainer.py", NULL), "checkpoint", "save_checkpoint");
	TAP_EQ_STR(phase_of("main", "x.py", "torch.save(model.state_dict(), p)"), "checkpoint", "torch.save in code");
	TAP_EQ_STR(phase_of("forward", "model.py", NULL), "forward", "forward");
	TAP_EQ_STR(phase_of("retrieval_head", "model.py", NULL), NULL, "retrieval is not eval");
	TAP_EQ_STR(phase_of("test_step", "lightning_module.py", NULL), "eval", "test_step is eval");
	TAP_EQ_STR(phase_of("from_pretrained", "transformers/modeling_utils.py", NULL), "model-load", "from_pretrained");
	/* an engine's model constructor loads the weights (dcause-0107: "in
	 * init", __init__ as GitHub's Markdown shows it); another class's is not */
	TAP_EQ_STR(phase_of("init", "faster_whisper\\transcribe.py", NULL), "model-load",
		   "faster-whisper's WhisperModel constructor is model loading");
	TAP_EQ_STR(phase_of("__init__", "faster_whisper/transcribe.py", NULL), "model-load",
		   "the same, __init__ as Python prints it");
	TAP_EQ_STR(phase_of("__init__", "neural_point.py", NULL), "model-load",
		   "any constructor on the stack is set-up (eriksandstroem/Point-SLAM#9: an index moved to the GPU)");
	TAP_EQ_STR(phase_of("init", "my_module.py", NULL), NULL, "a function named init elsewhere is no phase");
	kg_frame ctor_in_step[2] = {{"train.py", 10, "training_step", NULL}, {"torch/nn/modules/linear.py", 20, "__init__", NULL}};
	TAP_EQ_STR(kg_tb_phase(ctor_in_step, 2), "forward", "a layer built inside a step is the step's");
	TAP_EQ_STR(phase_of("main", "app.py", "model = WhisperModel(size, device=\"cuda\")"), "model-load",
		   "a frame that constructs WhisperModel is model loading");
	TAP_EQ_STR(phase_of("main", "run.py", "model = whisper.load_model(\"large-v2\")"), "model-load",
		   "a frame that calls load_model(...) is model loading");
	/* the call on a frame's code line, when the paste stops at the caller
	 * (OpenNMT-py's trainer.py, dcause-0100: github.com/OpenNMT/OpenNMT-py
	 * issue 1093) */
	TAP_EQ_STR(phase_of("train", "onmt/trainer.py", "valid_stats = self.validate(valid_iter)"), "eval",
		   "a frame that calls self.validate(...) is eval");
	TAP_EQ_STR(phase_of("main", "run.py", "out = model.generate(**inputs, max_new_tokens=64)"), "eval",
		   "a frame that calls model.generate(...) is eval");
	TAP_EQ_STR(phase_of("main", "run.py", "val_loss = compute(model, val_loader)"), NULL,
		   "a variable named val_loss is no call");
	TAP_EQ_STR(phase_of("main", "run.py", "trainer.train_and_evaluate(cfg)"), NULL,
		   "a call naming train and evaluate is not eval");
	/* HF Trainer's dispatcher, named for both: the call on its line decides
	 * (transformers trainer.py _maybe_log_save_evaluate) */
	TAP_EQ_STR(phase_of("_maybe_log_save_evaluate", "transformers/trainer.py",
			    "self._save_checkpoint(model, trial, metrics=metrics)"), "checkpoint",
		   "_maybe_log_save_evaluate calling _save_checkpoint is a checkpoint");
	TAP_EQ_STR(phase_of("_maybe_log_save_evaluate", "transformers/trainer.py",
			    "metrics = self._evaluate(trial, ignore_keys_for_eval)"), "eval",
		   "_maybe_log_save_evaluate calling _evaluate is eval");
	TAP_EQ_STR(phase_of("_maybe_log_save_evaluate", "transformers/trainer.py",
			    "self.log(logs)"), NULL, "_maybe_log_save_evaluate logging is neither");
	TAP_EQ_STR(phase_of("_maybe_log_save_evaluate", "transformers/trainer.py", NULL), NULL,
		   "_maybe_log_save_evaluate without its line is neither");
	kg_frame two[2] = {{"trainer.py", 1, "evaluate", NULL}, {"model.py", 2, "forward", NULL}};
	TAP_EQ_STR(kg_tb_phase(two, 2), "eval", "forward inside evaluate is eval");
	/* a backward pass under a caller named for scoring is training
	 * (mlcommons/algorithmic-efficiency#497's harness) */
	kg_frame harness[4] = {{"submission_runner.py", 520, "score_submission_on_workload", NULL},
			       {"submission_runner.py", 299, "train_once", NULL},
			       {"submission.py", 99, "update_params", "loss.backward()"},
			       {"torch/_tensor.py", 491, "backward", NULL}};
	TAP_EQ_STR(kg_tb_phase(harness, 4), "backward", "backward under score_submission_on_workload is backward");
	kg_frame eval_opt[2] = {{"run.py", 10, "run_validation", NULL},
				{"run.py", 20, "step", "optimizer.step()"}};
	TAP_EQ_STR(kg_tb_phase(eval_opt, 2), "optimizer", "an optimizer step is never evaluation");

	/* step / epoch counters */
	int64_t step = KG_NONE, epoch = KG_NONE;
	TAP_OK(kg_ctx_counters("[eval] step 5000 | MRR 0.3882", 28, &step, &epoch), "step found");
	TAP_EQ_I64(step, 5000, "[eval] step 5000");
	step = KG_NONE;
	kg_ctx_counters("global_step=12000 loss=0.3", 26, &step, &epoch);
	TAP_EQ_I64(step, 12000, "global_step=");
	kg_ctx_counters("Epoch 3/10", 10, &step, &epoch);
	TAP_EQ_I64(epoch, 3, "Epoch 3/10");
	kg_ctx_counters("Epoch [7/50] loss", 17, &step, &epoch);
	TAP_EQ_I64(epoch, 7, "Epoch [7/50]");
	epoch = step = KG_NONE;
	TAP_OK(!kg_ctx_counters("warmup_steps: 1000 max_steps=20000 num_epochs: 3", 48, &step, &epoch),
	       "config keys are not counters");
	TAP_OK(!kg_ctx_counters("steps_per_epoch = 100", 21, &step, &epoch), "steps_per_epoch is not a counter");

	/* progress lines */
	{
		static const struct { const char *line; int64_t done, total; const char *kind; } pc[] = {
			{"  0%|          | 0/553 [02:07<?, ?it/s]", 0, 553, "bar"},
			{"Epoch 3:  45%|████▌     | 45/100 [00:10<00:12,  4.51it/s, loss=0.3]", 45, 100, "bar"},
			{"Epoch 30/100", 30, 100, "epoch"},
			{"Epoch [7/50] loss 0.31", 7, 50, "epoch"},
			{"epoch 3 of 10", 3, 10, "epoch"},
			{"Epoch 0 | Batch 30/200 | Loss 1.560337", 30, 200, "step"},
			{"Step 120/1000 loss=0.2", 120, 1000, "step"},
			{"[ 30/210] processing image img_0030.png", 30, 210, "item"},
			/* HF Trainer's notebook bar (transformers utils/notebook.py), dcause-0110 */
			{" [ 501/1500 06:35 < 13:11, 1.26 it/s, Epoch 1/3]", 501, 1500, "trainer"},
			{"[1200/1200 1:02:03, 0.32 it/s, Epoch 3/3]", 1200, 1200, "trainer"},
			/* its evaluation bar has no epoch: a plain counter */
			{"[12/50 00:03 < 00:10]", -1, -1, NULL},
			/* Keras' Progbar (tf.keras, Keras 3) */
			{" 45/469 [==>...........................] - ETA: 1:02 - loss: 0.4026", 45, 469, "step"},
			{"  1/938 \xe2\x94\x81\xe2\x94\x81\xe2\x94\x81\xe2\x94\x81\xe2\x94\x81\xe2\x94\x81"
			 " 2:30 160ms/step - loss: 2.3", 1, 938, "step"},
			{"938/938 [==============================] - 2s 1ms/step - loss: 0.0942", 938, 938, "step"},
			{"10/20 [a] - b", -1, -1, NULL},
			{"see https://example.org/a/b", -1, -1, NULL},
			{"date 2024/11/20", -1, -1, NULL},
			{"Epoch 300/100", -1, -1, NULL},
			{"loaded [3/4] shards and more [ 1/2]", -1, -1, NULL},
		};
		for (size_t i = 0; i < sizeof pc / sizeof pc[0]; i++) {
			int64_t d = -1, t = -1;
			const char *k = NULL;
			bool got = kg_ctx_progress(pc[i].line, strlen(pc[i].line), &d, &t, &k);
			TAP_OK(got == (pc[i].kind != NULL) && d == pc[i].done && t == pc[i].total &&
			       (k == pc[i].kind || (k && pc[i].kind && !strcmp(k, pc[i].kind))),
			       "progress \"%s\": %lld/%lld %s", pc[i].line, (long long)d, (long long)t, k ? k : "none");
		}
	}

	/* phase markers in the log */
	TAP_EQ_STR(kg_ctx_phase_marker("[eval] step 10000 | evaluating", 30), "eval", "[eval] marker");
	TAP_EQ_STR(kg_ctx_phase_marker("Running validation...", 21), "eval", "validation marker");
	/* a line naming both phases: the one named last is the phase now */
	{
		const char *a = "Training goes well, but it fails when the validation is going to start:";
		const char *b = "The test and evaluation sets are fixed. I can't use all the train data because of out of memory error.";
		const char *c = "Epoch 3 training done, running validation";
		TAP_EQ_STR(kg_ctx_phase_marker(a, strlen(a)), "eval", "training, then validation: eval");
		TAP_EQ_STR(kg_ctx_phase_marker(b, strlen(b)), "train", "evaluation sets, then the train data: training (NVIDIA-NeMo/Speech#2531)");
		TAP_EQ_STR(kg_ctx_phase_marker(c, strlen(c)), "eval", "training done, running validation: eval");
	}
	TAP_EQ_STR(kg_ctx_phase_marker("Saving checkpoint to ckpt/3.pt", 30), "checkpoint", "saving checkpoint");
	TAP_EQ_STR(kg_ctx_phase_marker("Loading checkpoint shards: 100%", 31), "model-load", "HF shards are model load");
	TAP_EQ_STR(kg_ctx_phase_marker("INFO 05-09 10:11:12 model_runner.py:146] Loading model weights took 13.4967 GB", 78),
		   NULL, "vLLM's report that loading took N GB ends the loading");
	TAP_EQ_STR(kg_ctx_phase_marker("[train] step 100 | loss 1.2", 27), "train", "train marker");
	TAP_EQ_STR(kg_ctx_phase_marker("pin_memory=True num_workers=8", 29), NULL, "no marker");
	/* a variable of pasted code named after its work is no phase (the
	 * notebook code of isayev/ReLeaSE#4's first post); a call is */
	{
		const char *const vars[] = {
			"    _, prediction = estimate_and_update(n_to_generate)",
			"    prediction_log.append(prediction)",
			"    if len(np.where(prediction >= threshold)[0])/len(prediction) > 0.15:",
			"validation=True",
		};
		for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
			TAP_EQ_STR(kg_ctx_phase_marker(vars[i], strlen(vars[i])), NULL, "code variable: %s", vars[i]);
		const char *call = "    results = evaluate(model, loader)";
		TAP_EQ_STR(kg_ctx_phase_marker(call, strlen(call)), "eval", "a call of evaluate() is eval");
		const char *both = "    prediction = model(x)  # runs the prediction step";
		TAP_EQ_STR(kg_ctx_phase_marker(both, strlen(both)), "eval", "a variable, then the word in prose: eval");
	}

	/* echoed allocator configuration */
	char *var = NULL, *val = NULL;
	const char *l1 = "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,max_split_size_mb:128";
	TAP_OK(kg_ctx_alloc_conf(l1, strlen(l1), &var, &val), "export echo");
	TAP_EQ_STR(var, "PYTORCH_CUDA_ALLOC_CONF", "variable");
	TAP_EQ_STR(val, "expandable_segments:True,max_split_size_mb:128", "value");
	free(var);
	free(val);
	const char *l2 = "os.environ[\"PYTORCH_ALLOC_CONF\"] = \"expandable_segments:True\"";
	TAP_OK(kg_ctx_alloc_conf(l2, strlen(l2), &var, &val), "os.environ echo");
	TAP_EQ_STR(var, "PYTORCH_ALLOC_CONF", "environ variable");
	free(var);
	free(val);
	const char *l3 = "If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid";
	TAP_OK(!kg_ctx_alloc_conf(l3, strlen(l3), &var, &val), "the OOM hint is not an echo");
	const char *l4 = "PYTORCH_CUDA_ALLOC_CONFIG=expandable_segments:True";
	TAP_OK(kg_ctx_alloc_conf(l4, strlen(l4), &var, &val), "misspelled variable still captured");
	TAP_EQ_STR(var, "PYTORCH_CUDA_ALLOC_CONFIG", "misspelled name kept");
	free(var);
	free(val);

	/* follow-ups and torchelastic root cause */
	TAP_EQ_STR(kg_ctx_followup("torch.AcceleratorError: CUDA error: device-side assert triggered", 64), "device-side-assert", "assert");
	TAP_EQ_STR(kg_ctx_followup("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", 67), NULL, "DSA help text is not an assert");
	const char *wd = "[rank1]:[E ProcessGroupNCCL.cpp:607] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1)";
	TAP_EQ_STR(kg_ctx_followup(wd, strlen(wd)), "nccl-timeout", "NCCL watchdog");
	const char *el = "torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 123) of binary";
	TAP_EQ_STR(kg_ctx_followup(el, strlen(el)), "elastic-child-failed", "elastic child failed");
	int64_t rk = KG_NONE;
	TAP_EQ_I64(kg_ctx_root_cause("Root Cause (first observed failure):", 36, &rk), 1, "root cause header");
	TAP_EQ_I64(kg_ctx_root_cause("  rank      : 3 (local_rank: 3)", 31, &rk), 2, "root cause rank line");
	TAP_EQ_I64(rk, 3, "root cause rank");
	/* every line the grammars would look at contains one of the scanner's
	 * atoms (else the scanner would never show it to them) */
	if (argc > 1) {
		FILE *fp = fopen(argv[1], "r");
		TAP_OK(fp != NULL, "open %s", argv[1]);
		char *line = NULL;
		size_t cap = 0;
		ssize_t len;
		int lines = 0, covered = 0;
		const kg_atoms *at = kg_scan_atoms();
		while (fp && (len = getline(&line, &cap, fp)) > 0) {
			/* one JSON record per line; look at the "text" with \n as line breaks */
			char *t = strstr(line, "\"text\": \"");
			if (!t)
				continue;
			t += 9;
			char *end = strstr(t, "\", \"expect\"");
			if (end)
				*end = '\0';
			for (char *p = t; p && *p;) {
				char *q = strstr(p, "\\n");
				size_t n = q ? (size_t)(q - p) : strlen(p);
				if (kg_oom_candidate(p, n)) {
					uint32_t cls;
					lines++;
					covered += kg_atoms_find(at, p, n, 0, &cls) < n;
				}
				p = q ? q + 2 : NULL;
			}
		}
		free(line);
		if (fp)
			fclose(fp);
		TAP_OK(lines > 70 && covered == lines, "atoms cover every candidate line of the corpus (%d of %d)", covered, lines);
	}
	kg_context_fini();
	return tap_done();
}

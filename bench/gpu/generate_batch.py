"""Evaluation blow-up at generation (issue 31 item 2, the stack names the
phase): a small causal LM (GPT-2's shape, two layers, random weights from
the config: nothing is downloaded) trains a few steps at batch 8, then
`model.generate` runs the whole evaluation set as one batch. The prefill
of that batch does not fit; the traceback runs through transformers'
generation/utils.py `generate`."""
from common import cuda_or_skip

torch, free, total = cuda_or_skip()
import transformers  # noqa: E402

cfg = transformers.GPT2Config(n_layer=2, n_positions=2048)
model = transformers.GPT2LMHeadModel(cfg).cuda()
print("transformers %s; model: GPT-2 shape, %d layers, %.1f M params"
      % (transformers.__version__, cfg.n_layer, model.num_parameters() / 1e6), flush=True)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(1, 4):
    ids = torch.randint(0, cfg.vocab_size, (8, 512), device="cuda")
    loss = model(ids, labels=ids).loss
    loss.backward()
    opt.step()
    opt.zero_grad()
    print("step %d | train loss %.4f" % (step, loss.item()), flush=True)
model.eval()
seq = 1024
# the attention's q, k, v projection of the prefill: batch x seq x 2304 x 4 B,
# sized to 1.5 x the free memory
batch = int(free * 1.5 / (seq * 3 * cfg.n_embd * 4))
print("Running evaluation: generate, eval_batch_size=%d, prompt length %d" % (batch, seq), flush=True)
prompts = torch.randint(0, cfg.vocab_size, (batch, seq), device="cuda")
with torch.no_grad():
    out = model.generate(prompts, max_new_tokens=16, do_sample=False,
                         attention_mask=torch.ones_like(prompts), pad_token_id=0)
print(out.shape)

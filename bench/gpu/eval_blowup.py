"""Evaluation blow-up: a knowledge-graph model scores every entity for a
batch of queries at evaluation time (batch x entities x dim x 2 for RotatE)
while training steps fit. The OOM happens in eval, in torch.stack."""
from common import cuda_or_skip

torch, free, total = cuda_or_skip()
dim = 512
entities = int(free * 0.25 / (dim * 2 * 4))        # the embedding table: 25 % of free
emb = torch.randn(entities, 2, dim, device="cuda")
print("dataset.entities=%d model.dim=%d" % (entities, dim), flush=True)
for step in range(1, 11):
    q = emb[torch.randint(0, entities, (64,), device="cuda")]
    loss = (q[:, 0] * q[:, 1]).sum()
    print("step %d loss %.4f" % (step, loss.item()), flush=True)
print("Evaluating (full ranking), eval_batch_size=128", flush=True)
with torch.no_grad():
    q = emb[:128]
    re_s = q[:, None, 0, :] * emb[None, :, 0, :]      # 128 x entities x dim
    im_s = q[:, None, 1, :] * emb[None, :, 1, :]
    score = torch.stack([re_s, im_s], dim=0)          # OOM here
    print(score.shape)

#!/usr/bin/env python3
"""A second, independent log generator for the scan benchmark (issue 15):
the output of a multi-node torchrun job rather than one process's prints.

  genmixed.py OUT SIZE_MB N_OOMS [--seed S] [--ranks R]

What it writes, in proportions that change as the file grows:
  - rank-prefixed lines in the three styles launchers use: torchrun's
    `[rank3]:`, accelerate/deepspeed's `[default3]:` and srun --label's
    `3: `;
  - tqdm bars redrawn with carriage returns: one physical line holds
    hundreds of `\\r` updates (so some lines are tens of KiB long);
  - JSON Lines metrics (`{"step": …, "loss": …, "tokens_per_s": …}`);
  - NCCL INFO start-up and channel spam (`node1:2345:2399 [3] NCCL INFO
    Channel 07/32 : 3[3] -> 4[4] via P2P/IPC/read`);
  - very long lines: printed tensors and a flattened config dump of
    several KiB;
  - N_OOMS OOMs, spread evenly, each written by one rank after a fresh
    step line of its own: a traceback and a PyTorch 2.x
    `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate …`
    message with the rank's prefix on every line, with sizes that differ
    from one OOM to the next.

The text is made up here (no corpus record, no line of genlog.py), so the
scanner is measured on a shape it was not tuned on. Deterministic for a
given seed. Prints `bytes lines ooms` actually written.
"""
import argparse
import json
import random

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("size_mb", type=float)
ap.add_argument("n_ooms", type=int)
ap.add_argument("--seed", type=int, default=11)
ap.add_argument("--ranks", type=int, default=16)
a = ap.parse_args()

rng = random.Random(a.seed)
target = int(a.size_mb * 1024 * 1024)
STYLES = ("[rank%d]:", "[default%d]:", "%d: ")
style = STYLES[a.seed % 3]


def pfx(rank):
    return style % rank + ("" if style.endswith(" ") else " ")


def tqdm_line(rank, step, total):
    """One physical line of tqdm redraws: `\\r` between updates."""
    parts = []
    n = rng.randrange(40, 400)
    base = max(0, step - n)
    for i in range(n):
        done = base + i
        pct = 100 * done // total
        bar = "#" * (pct // 10) + " " * (10 - pct // 10)
        parts.append("Training: %3d%%|%s| %d/%d [%02d:%02d<%02d:%02d, %.2fit/s, loss=%.4f]"
                     % (pct, bar, done, total, done // 60 % 60, done % 60,
                        (total - done) // 60 % 60, (total - done) % 60,
                        rng.uniform(1.5, 9.5), rng.uniform(0.5, 3.0)))
    return pfx(rank) + "\r".join(parts) + "\n"


def jsonl(rank, step):
    return pfx(rank) + json.dumps({
        "step": step, "loss": round(rng.uniform(0.8, 4.0), 4), "grad_norm": round(rng.uniform(0.1, 3), 3),
        "lr": 3e-4 * (1 - step / 1e6), "tokens_per_s": rng.randrange(90000, 140000),
        "mfu": round(rng.uniform(0.3, 0.55), 3), "rank": rank}) + "\n"


def nccl(rank):
    host = "node%d" % (rank // 8 + 1)
    pid = 2000 + rank
    c = rng.randrange(32)
    kind = rng.randrange(4)
    if kind == 0:
        return "%s%s:%d:%d [%d] NCCL INFO Channel %02d/32 : %d[%d] -> %d[%d] via P2P/IPC/read\n" % (
            pfx(rank), host, pid, pid + 50, rank % 8, c, rank, rank % 8, (rank + 1) % a.ranks, (rank + 1) % 8)
    if kind == 1:
        return "%s%s:%d:%d [%d] NCCL INFO Connected all rings, comm 0x%x nRanks %d nNodes %d localRanks 8\n" % (
            pfx(rank), host, pid, pid + 50, rank % 8, rng.getrandbits(40), a.ranks, a.ranks // 8 or 1)
    if kind == 2:
        return "%s%s:%d:%d [%d] NCCL INFO NET/IB : Using [0]mlx5_%d:1/IB ; OOB ib0:10.0.%d.%d<0>\n" % (
            pfx(rank), host, pid, pid + 50, rank % 8, rank % 8, rank // 8, rank + 10)
    return "%s%s:%d:%d [%d] NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d busId %x0 commId 0x%x - Init COMPLETE\n" % (
        pfx(rank), host, pid, pid + 50, rank % 8, rng.getrandbits(40), rank, a.ranks, rank % 8,
        rng.randrange(16, 255), rng.getrandbits(60))


def tensor_dump(rank):
    vals = ", ".join("%.4f" % rng.uniform(-2, 2) for _ in range(rng.randrange(300, 1500)))
    return pfx(rank) + "logits sample: tensor([[" + vals + "]], device='cuda:%d', dtype=torch.bfloat16)\n" % (rank % 8)


def config_dump(rank):
    keys = ["model.n_layer", "model.n_head", "model.d_model", "optim.lr", "optim.betas", "data.seq_len",
            "data.micro_batch", "trainer.grad_accum", "trainer.precision", "trainer.seed"]
    d = {"%s_%d" % (k, i): rng.choice([1, 8, 64, 4096, "bf16", 3e-4, [0.9, 0.95]]) for i in range(40) for k in keys}
    return pfx(rank) + "resolved config: " + json.dumps(d, separators=(",", ":")) + "\n"


def oom(rank, step, k):
    gib = 0.5 + (k * 37 % 400) / 16
    free = 0.01 + (k * 13 % 90) / 100
    alloc = 70 + (k % 9)
    lines = [
        "Traceback (most recent call last):",
        '  File "/workspace/pretrain.py", line %d, in <module>' % (400 + k % 50),
        "    main()",
        '  File "/workspace/pretrain.py", line 371, in main',
        "    loss = model(batch).loss",
        '  File "/usr/local/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1736, in _wrapped_call_impl',
        "    return self._call_impl(*args, **kwargs)",
        '  File "/workspace/model.py", line 212, in forward',
        "    att = (q @ k.transpose(-2, -1)) * self.scale",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity "
        "of 79.19 GiB of which %.2f GiB is free. Including non-PyTorch memory, this process has 79.17 GiB "
        "memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved "
        "by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for "
        "Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
        % (gib, rank % 8, free, alloc + 0.25, 1.5 + (k % 7) / 4),
    ]
    return "".join(pfx(rank) + l + "\n" for l in lines)


written = lines = ooms = 0
step = 0
total_steps = 500000
next_oom = target // (a.n_ooms + 1) if a.n_ooms else None
with open(a.out, "w", encoding="utf-8", newline="") as f:
    def emit(s):
        global written, lines
        f.write(s)
        written += len(s.encode("utf-8"))
        lines += s.count("\n")

    for r in range(a.ranks):
        for _ in range(6):
            emit(nccl(r))
    while written < target:
        step += 1
        rank = rng.randrange(a.ranks)
        x = rng.random()
        if x < 0.25:
            emit(tqdm_line(rank, step, total_steps))
        elif x < 0.55:
            for _ in range(rng.randrange(1, 6)):
                emit(jsonl(rng.randrange(a.ranks), step))
        elif x < 0.85:
            for _ in range(rng.randrange(2, 12)):
                emit(nccl(rng.randrange(a.ranks)))
        elif x < 0.97:
            emit(tensor_dump(rank))
        else:
            emit(config_dump(rank))
        if next_oom is not None and ooms < a.n_ooms and written >= next_oom:
            emit(pfx(rank) + "step %d | loss %.4f\n" % (step, rng.uniform(1, 3)))
            emit(oom(rank, step, ooms))
            ooms += 1
            next_oom = target * (ooms + 1) // (a.n_ooms + 1)
print(written, lines, ooms)

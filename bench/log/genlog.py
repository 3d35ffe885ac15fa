#!/usr/bin/env python3
"""Writes a realistic synthetic training log for the scanner benchmark.

  genlog.py OUT SIZE_MB N_OOMS CORPUS_JSONL [--records ID,ID,...] [--seed S]

Filler (what a long PyTorch run prints, none of it an OOM): tqdm progress
bars (with their `\\r` redraws), `step N | loss … | lr …` lines, Python
logging prefixes, GitHub Actions timestamps on part of the file, memory
readings (`Memory: 3.21GB allocated`, `MemAllocated=0.93GB`, `torch.cuda.
memory_allocated`), eval summaries, checkpoint saves, and now and then a
traceback of a non-OOM warning or a caught error. N_OOMS real OOM messages
(with their tracebacks) from the dev corpus are spread evenly through it,
each one after a fresh `step` line so no two fold into one incident.

Prints one line: `bytes lines ooms` actually written.
"""
import argparse
import json
import random

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("size_mb", type=float)
ap.add_argument("n_ooms", type=int)
ap.add_argument("corpus")
ap.add_argument("--records", default="")
ap.add_argument("--seed", type=int, default=7)
a = ap.parse_args()

rng = random.Random(a.seed)
records = {}
for line in open(a.corpus, encoding="utf-8"):
    if line.strip():
        r = json.loads(line)
        records[r["id"]] = r["text"]
ids = [i for i in a.records.split(",") if i] or sorted(records)
oom_texts = [records[i] for i in ids]

target = int(a.size_mb * 1024 * 1024)

WARN_TB = [
    "/opt/conda/lib/python3.10/site-packages/torch/utils/data/dataloader.py:558: UserWarning: This DataLoader will create 16 worker processes in total. Our suggested max number of worker in current system is 8, which is smaller than what this DataLoader is going to create.\n  warnings.warn(_create_warning_msg(\n",
    "/opt/conda/lib/python3.10/site-packages/torch/optim/lr_scheduler.py:139: UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`.\n  warnings.warn(\"Detected call of `lr_scheduler.step()` before `optimizer.step()`. \"\n",
    "Traceback (most recent call last):\n  File \"/workspace/train.py\", line 211, in log_metrics\n    wandb.log(metrics, step=step)\n  File \"/opt/conda/lib/python3.10/site-packages/wandb/sdk/wandb_run.py\", line 1820, in log\n    self._log(data=data, step=step, commit=commit)\nConnectionResetError: [Errno 104] Connection reset by peer\nwandb: Network error (ConnectionError), entering retry loop.\n",
    "Traceback (most recent call last):\n  File \"/workspace/data.py\", line 88, in __getitem__\n    img = Image.open(path).convert(\"RGB\")\n  File \"/opt/conda/lib/python3.10/site-packages/PIL/Image.py\", line 3243, in open\n    fp = builtins.open(filename, \"rb\")\nFileNotFoundError: [Errno 2] No such file or directory: '/data/train/000123.jpg'\nWARNING:root:skipping a bad sample, retrying with index 124\n",
    "[W reducer.cpp:1300] Warning: find_unused_parameters=True was specified in DDP constructor, but did not find any unused parameters in the forward pass. This flag results in an extra traversal of the autograd graph every iteration, which can adversely affect performance. (function operator())\n",
    "/opt/conda/lib/python3.10/site-packages/torch/cuda/memory.py:303: FutureWarning: torch.cuda.reset_max_memory_allocated now calls torch.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.\n  warnings.warn(\n",
]


def gha(ts):
    return "2024-11-20T%02d:%02d:%02d.%07dZ " % (ts // 3600 % 24, ts // 60 % 60, ts % 60, (ts * 7919) % 10000000)


def pylog(ts, level, name):
    return "2024-11-20 %02d:%02d:%02d,%03d - %s - %s - " % (ts // 3600 % 24, ts // 60 % 60, ts % 60, ts % 1000, level, name)


def block(step, epoch, ts, style, out):
    """One optimizer step's worth of output (a few lines), appended to out."""
    pre = gha(ts) if style & 1 else ""
    loss = 2.5 / (1 + step * 1e-4) + (step * 2654435761 % 1000) / 1e4
    lr = 3e-4 * min(1.0, step / 2000.0)
    k = step % 50
    if style & 2:
        out.append("%s%sstep %d | loss %.4f | lr %.3e | grad_norm %.3f | tokens/s %d\n"
                   % (pre, pylog(ts, "INFO", "trainer"), step, loss, lr, 0.5 + k / 40, 41000 + k * 17))
    else:
        out.append("%sstep %d | loss %.4f | lr %.3e | grad_norm %.3f | %.1f ms/it\n"
                   % (pre, step, loss, lr, 0.5 + k / 40, 180 + k * 0.7))
    if step % 4 == 0:
        pct = (step % 1000) // 10
        bar = "█" * (pct // 10) + " " * (10 - pct // 10)
        out.append("%sEpoch %d:  %d%%|%s| %d/1000 [%02d:%02d<%02d:%02d,  5.%02dit/s, loss=%.3f, v_num=3]\r"
                   "Epoch %d:  %d%%|%s| %d/1000 [%02d:%02d<%02d:%02d,  5.%02dit/s, loss=%.3f, v_num=3]\n"
                   % (pre, epoch, pct, bar, step % 1000, k, k, 59 - k, 9, k, loss,
                      epoch, pct, bar, step % 1000 + 1, k, k + 1, 59 - k, 8, k, loss))
    if step % 10 == 0:
        alloc = 3.0 + (step % 97) / 100
        if style & 4:
            out.append("%s[Rank 0] MemAllocated=%.2fGB MaxMemAllocated=%.2fGB ReservedMem=%.2fGB\n"
                       % (pre, alloc, alloc + 0.4, alloc + 0.8))
        else:
            out.append("%sMemory: %.2fGB allocated, %.2fGB reserved, %.2fGB max allocated\n"
                       % (pre, alloc, alloc + 0.8, alloc + 0.4))
    if step % 100 == 0:
        out.append("%s%s{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.3e, 'epoch': %.2f}\n"
                   % (pre, pylog(ts, "INFO", "transformers.trainer"), loss, 1.1, lr, epoch + (step % 1000) / 1000))
    if step % 1000 == 0:
        out.append("%s%sEpoch %d finished: val_loss=%.4f val_acc=%.4f, saving checkpoint to /ckpt/epoch_%d.pt\n"
                   % (pre, pylog(ts, "INFO", "lightning"), epoch, loss * 1.1, 0.5 + epoch / 1000, epoch))
        out.append("%storch.cuda.memory_allocated: %d bytes, torch.cuda.memory_reserved: %d bytes\n"
                   % (pre, 3221225472 + step, 4294967296))
    if step % 2500 == 1250:
        out.append("".join(pre + l + "\n" for l in WARN_TB[(step // 2500) % len(WARN_TB)].splitlines()))


written = 0
nlines = 0
placed = 0
step = 0
ts = 36000
with open(a.out, "w", encoding="utf-8", newline="") as f:
    # OOM positions: evenly spread byte offsets
    marks = [target * (i + 1) // (a.n_ooms + 1) for i in range(a.n_ooms)]
    buf = []
    buflen = 0
    style = 0
    while written + buflen < target:
        step += 1
        if step % 1000 == 0:
            ts += 1
        if step % 20000 == 0:
            style = rng.randrange(8)
        epoch = step // 1000
        n0 = len(buf)
        block(step, epoch, ts, style, buf)
        buflen += sum(len(s) for s in buf[n0:])  # ASCII filler except the bar: close enough to bytes
        while placed < a.n_ooms and written + buflen >= marks[placed]:
            text = oom_texts[placed % len(oom_texts)]
            buf.append("step %d | loss %.4f | lr 3.000e-04\n" % (step, 1.0))
            buf.append(text if text.endswith("\n") else text + "\n")
            buflen += len(text) + 40
            placed += 1
            step += 1
        if buflen > (1 << 22):
            chunk = "".join(buf)
            f.write(chunk)
            written += len(chunk.encode("utf-8"))
            nlines += chunk.count("\n")
            buf = []
            buflen = 0
    chunk = "".join(buf)
    f.write(chunk)
    written += len(chunk.encode("utf-8"))
    nlines += chunk.count("\n")
print(written, nlines, placed)

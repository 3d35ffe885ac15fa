"""A training job's output for bench/run/run.sh: MB megabytes of
progress and metric lines on stdout with a warning line on stderr every
1,000 lines, printed with print() as a training script does.
usage: child.py MB"""
import sys

mb = int(sys.argv[1])
target = mb * 1024 * 1024
n = 0
step = 0
out = sys.stdout
while n < target:
    step += 1
    line = ("2026-01-31 12:00:%02d INFO train.py:412 epoch 3 step %d/100000 loss %.4f "
            "lr 3.0e-04 grad_norm 1.2345 tokens/s 181234 mem_allocated 41.22GiB\n"
            % (step % 60, step, 1.0 / (1 + step % 977)))
    out.write(line)
    n += len(line)
    if step % 1000 == 0:
        sys.stderr.write("UserWarning: step %d: gradient overflow, skipping\n" % step)

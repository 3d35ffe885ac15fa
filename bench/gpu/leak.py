"""A growing leak: each step keeps its loss tensor with its graph (a
running `total_loss += loss` without .item()), so memory grows per step
until the OOM; the step lines carry memory readings."""
from common import cuda_or_skip

torch, free, total = cuda_or_skip()
model = torch.nn.Sequential(torch.nn.Linear(4096, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 4096)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
total_loss = 0
history = []
for step in range(1, 100000):
    x = torch.randn(512, 4096, device="cuda")
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward(retain_graph=True)
    opt.step()
    total_loss = total_loss + loss                    # the leak: keeps every graph
    history.append(model(x))                          # and every activation
    print("step %d loss %.4f memory_allocated %.2fGB" % (
        step, loss.item(), torch.cuda.memory_allocated() / 1e9), flush=True)

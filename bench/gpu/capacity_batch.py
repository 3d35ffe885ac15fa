"""Capacity: a model whose activations at the configured batch size do not
fit; the OOM comes in the first training step, in the forward pass."""
from common import cuda_or_skip

torch, free, total = cuda_or_skip()
hidden, layers = 8192, 8
# activations kept for backward: about batch x hidden x 4 B per layer (x2 with
# ReLU outputs); choose the batch so they need about 1.5 x the free memory
batch = int(free * 1.5 / (layers * 2 * hidden * 4))
print("config: per_device_train_batch_size=%d hidden_size=%d num_layers=%d" % (batch, hidden, layers), flush=True)
model = torch.nn.Sequential(*[m for _ in range(layers)
                              for m in (torch.nn.Linear(hidden, hidden), torch.nn.ReLU())]).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
print("Epoch 1/3", flush=True)
for step in range(1, 4):
    x = torch.randn(batch, hidden, device="cuda")
    loss = model(x).float().pow(2).mean()             # OOM in forward, step 1
    loss.backward()
    opt.step()
    opt.zero_grad()
    print("step %d loss %.4f" % (step, loss.item()), flush=True)

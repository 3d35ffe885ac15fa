#!/bin/bash
# The Python ways in on a real GPU (issue 25): real CUDA OOMs through
# kgmem_diagnose.torch (install, catch), run --snapshot-on-oom, and the real
# Lightning and HF Trainer callbacks. Needs torch, lightning, transformers.
# env: KGMEM (the binary), EVIDENCE (where the evidence files go)
set -u
export PYTHONUNBUFFERED=1
R=$(cd "$(dirname "$0")/../.." && pwd)
export KGMEM_DIAGNOSE_BIN=${KGMEM:-$R/build/kgmem-diagnose}
export KGMEM_RULES_PATH=$R/rules PYTHONPATH=$R/python
E=${EVIDENCE:-/tmp/kgmem-python-hooks}; mkdir -p $E
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
python3 -c "import sys, torch, lightning, transformers; print(sys.version.split()[0], torch.__version__, lightning.__version__, transformers.__version__)"
$KGMEM_DIAGNOSE_BIN --version | head -2
H='import sys, torch
def big(frac):
    free, total = torch.cuda.mem_get_info()
    return torch.empty(int(free * frac) // 4, dtype=torch.float32, device="cuda")
'
echo "=== 1. catch() + install(record_history=True), real CUDA OOM"
cat > /tmp/t1.py <<EOF
$H
import kgmem_diagnose.torch as kgt
kgt.install(record_history=True, directory="$E/1")
x = torch.ones(1, device="cuda")
hold = big(0.6)
@kgt.catch(step=1234, directory="$E/1")
def step():
    return big(1.5)
try:
    step()
except torch.OutOfMemoryError as e:
    print("re-raised:", type(e).__name__)
EOF
timeout 120 python3 /tmp/t1.py; echo "rc=$?"; ls -la $E/1
grep -c "PyTorch CUDA memory summary" $E/1/*.log
for f in $E/1/*.log; do $KGMEM_DIAGNOSE_BIN --color never "$f" $E/1/*.pickle | head -12; done
echo "=== 2. install(), uncaught"
cat > /tmp/t2.py <<EOF
$H
import kgmem_diagnose.torch as kgt
kgt.install(directory="$E/2")
kgt.set_step(77)
hold = big(0.5)
def forward():
    return big(1.2)
forward()
EOF
timeout 120 python3 /tmp/t2.py 2>&1 | tail -8; echo "rc=${PIPESTATUS[0]}"
echo "=== 3. run --snapshot-on-oom (the shared hook), no kgmem import"
cat > /tmp/t3.py <<EOF
$H
hold = big(0.5)
x = big(1.3)
EOF
timeout 120 $KGMEM_DIAGNOSE_BIN run --snapshot-on-oom $E/3 --report $E/3.json -- python3 /tmp/t3.py 2>&1 | tail -6
ls -la $E/3; python3 -c "
import json; d=json.load(open('$E/3.json')); print([i['kind'] for i in d['inputs']], [(i['cause'], i['confidence']) for i in d['incidents']])"
echo "=== 4. Lightning on_exception (real Lightning)"
cat > /tmp/t4.py <<EOF
$H
import lightning as L
from kgmem_diagnose.lightning import KgmemDiagnoseCallback
print("is a lightning Callback:", isinstance(KgmemDiagnoseCallback(), L.Callback))
class M(L.LightningModule):
    def __init__(self):
        super().__init__(); self.l = torch.nn.Linear(4, 4)
    def training_step(self, b, i):
        if self.global_step == 3:
            self.hold = big(0.5); big(1.3)
        return self.l(b).sum()
    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)
    def train_dataloader(self):
        return torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=4)
t = L.Trainer(max_steps=10, accelerator="gpu", devices=1, logger=False, enable_checkpointing=False,
              enable_progress_bar=False, enable_model_summary=False,
              callbacks=[KgmemDiagnoseCallback(directory="$E/4")])
try:
    t.fit(M())
except torch.OutOfMemoryError:
    print("re-raised by Lightning")
EOF
timeout 180 python3 /tmp/t4.py 2>&1 | grep -v Warning | tail -8; echo "rc=${PIPESTATUS[0]}"
echo "=== 5. HF Trainer callback (real transformers)"
cat > /tmp/t5.py <<EOF
$H
from transformers import Trainer, TrainingArguments, TrainerCallback
from kgmem_diagnose.hf import KgmemDiagnoseCallback
print("is a TrainerCallback:", isinstance(KgmemDiagnoseCallback(), TrainerCallback))
class M(torch.nn.Module):
    def __init__(self):
        super().__init__(); self.l = torch.nn.Linear(4, 1); self.n = 0
    def forward(self, x, labels=None):
        self.n += 1
        if self.n == 4:
            self.hold = big(0.5); big(1.3)
        return {"loss": ((self.l(x).squeeze(-1) - labels) ** 2).mean()}
ds = [{"x": torch.randn(4), "labels": torch.tensor(0.0)} for _ in range(64)]
args = TrainingArguments(output_dir="/tmp/hf", per_device_train_batch_size=4, max_steps=10,
                         report_to="none", save_strategy="no", logging_strategy="no")
Trainer(model=M(), args=args, train_dataset=ds, callbacks=[KgmemDiagnoseCallback(directory="$E/5")]).train()
EOF
timeout 180 python3 /tmp/t5.py 2>&1 | grep -v Warning | tail -8; echo "rc=${PIPESTATUS[0]}"
echo "evidence in $E"

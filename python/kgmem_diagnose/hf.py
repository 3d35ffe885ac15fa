"""A Hugging Face Trainer callback: `Trainer(..., callbacks=[KgmemDiagnoseCallback()])`.

transformers' TrainerCallback has no exception event (its events are
on_train_begin, on_step_begin, on_step_end, ...), so this callback keeps
kgmem_diagnose.torch's step current from TrainerState.global_step and, at
on_train_begin, installs kgmem_diagnose.torch.install(): an OOM that ends
the run is reported after its traceback. The diagnosis gets what the
Trainer knows (kgmem_diagnose.torch's facts, as --set): the batch per
device and the gradient accumulation of TrainingArguments
(per_device_train_batch_size, gradient_accumulation_steps,
per_device_eval_batch_size), so the action reads "from 8 to 4", and the
mode: training between on_step_begin and on_step_end, evaluation after an
on_prediction_step (between two steps the frames tell). An OOM the
Trainer handles itself (auto_find_batch_size retries through accelerate's
find_executable_batch_size) is not reported. The class derives from
transformers.TrainerCallback when it is importable, else from object (the
Trainer only calls the event methods). Tested in CI against a stand-in
with the Trainer's call signature (transformers is not installed in this
project's test environment); bench/gpu/python_hooks.sh ran it once with the
real transformers 5.17.0 on an NVIDIA H200 (PyTorch 2.11.0, 2026-11-26).
"""
from typing import Dict, Optional

from . import torch as _kgt


def _count(v) -> Optional[int]:
    """v when it is a whole number of at least 1, else None."""
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 1 else None


class KgmemDiagnoseCallback(_kgt._base_class("transformers:TrainerCallback")):
    """Installs the OOM report for the run and keeps its step, batch and
    mode current. directory: where the evidence goes
    (kgmem_diagnose.torch.capture)."""

    def __init__(self, directory: Optional[str] = None):
        super().__init__()
        self.directory = directory
        self.step = None
        self.args = None
        self.mode = None

    def facts(self) -> Dict[str, object]:
        """What the Trainer's arguments say, as the diagnosis' facts."""
        a = self.args
        f = {
            "config.train_batch_size": _count(getattr(a, "per_device_train_batch_size", None)),
            "config.grad_accum_steps": _count(getattr(a, "gradient_accumulation_steps", None)),
            "config.eval_batch_size": _count(getattr(a, "per_device_eval_batch_size", None)),
            "job.mode": self.mode,
        }
        return {k: v for k, v in f.items() if v is not None}

    def on_train_begin(self, args, state, control, **kwargs):
        self.args = args
        _kgt.install(step=lambda: self.step, directory=self.directory, facts=self.facts)

    def on_step_begin(self, args, state, control, **kwargs):
        self.args = args
        self.step = getattr(state, "global_step", None)
        self.mode = "train"

    def on_step_end(self, args, state, control, **kwargs):
        self.mode = None  # evaluation, saving or logging may follow

    def on_prediction_step(self, args, state, control, **kwargs):
        self.mode = "eval"

    def on_evaluate(self, args, state, control, **kwargs):
        self.mode = None

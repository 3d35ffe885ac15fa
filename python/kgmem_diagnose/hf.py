"""A Hugging Face Trainer callback: `Trainer(..., callbacks=[KgmemDiagnoseCallback()])`.

transformers' TrainerCallback has no exception event (its events are
on_train_begin, on_step_begin, on_step_end, ...), so this callback keeps
kgmem_diagnose.torch's step current from TrainerState.global_step and, at
on_train_begin, installs kgmem_diagnose.torch.install(): an OOM that ends
the run is reported after its traceback. An OOM the Trainer handles itself
(auto_find_batch_size retries through accelerate's
find_executable_batch_size) is not reported. The class derives from
transformers.TrainerCallback when it is importable, else from object (the
Trainer only calls the event methods). Tested in CI against a stand-in
with the Trainer's call signature (transformers is not installed in this
project's test environment); bench/gpu/python_hooks.sh ran it once with the
real transformers 5.17.0 on an NVIDIA H200 (PyTorch 2.11.0, 2026-11-26).
"""
from typing import Optional

from . import torch as _kgt


class KgmemDiagnoseCallback(_kgt._base_class("transformers:TrainerCallback")):
    """Installs the OOM report for the run and keeps its step current.
    directory: where the evidence goes (kgmem_diagnose.torch.capture)."""

    def __init__(self, directory: Optional[str] = None):
        super().__init__()
        self.directory = directory
        self.step = None

    def on_train_begin(self, args, state, control, **kwargs):
        _kgt.install(step=lambda: self.step, directory=self.directory)

    def on_step_begin(self, args, state, control, **kwargs):
        self.step = getattr(state, "global_step", None)

"""A Lightning callback: `Trainer(callbacks=[KgmemDiagnoseCallback()])`.

Lightning calls Callback.on_exception(trainer, pl_module, exception) when
fit/validate/test/predict fails (lightning.pytorch.callbacks.Callback,
Lightning 1.6+); for a device out-of-memory error this reports it with
kgmem_diagnose.torch.report() (step: trainer.global_step) and lets
Lightning re-raise it. The class derives from lightning.pytorch's (or
pytorch_lightning's) Callback when one is importable, else from object.
Tested in CI against a stand-in with Lightning's call signature
(Lightning is not installed in this project's test environment);
bench/gpu/python_hooks.sh ran it once with the real Lightning 2.6.6 on an
NVIDIA H200 (PyTorch 2.11.0, 2026-11-26).
"""
from typing import Optional

from . import torch as _kgt


class KgmemDiagnoseCallback(_kgt._base_class("lightning.pytorch:Callback",
                                             "pytorch_lightning:Callback")):
    """Reports a device OOM from Lightning's on_exception hook.
    directory: where the evidence goes (kgmem_diagnose.torch.capture)."""

    def __init__(self, directory: Optional[str] = None):
        super().__init__()
        self.directory = directory

    def on_exception(self, trainer, pl_module, exception):
        if _kgt.is_oom(exception):
            _kgt.report(exception, step=lambda: getattr(trainer, "global_step", None),
                        directory=self.directory)

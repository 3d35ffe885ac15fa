"""A Lightning callback: `Trainer(callbacks=[KgmemDiagnoseCallback()])`.

Lightning calls Callback.on_exception(trainer, pl_module, exception) when
fit/validate/test/predict fails (lightning.pytorch.callbacks.Callback,
Lightning 1.6+); for a device out-of-memory error this reports it with
kgmem_diagnose.torch.report() (step: trainer.global_step) and lets
Lightning re-raise it. The diagnosis gets what the Trainer knows
(kgmem_diagnose.torch's facts, as --set): the stage that failed
(trainer.state.stage: train, or sanity_check, validate, test and predict,
which are evaluation), the batch size (the datamodule's or the module's
hyperparameter `batch_size`, else the DataLoader's) and
trainer.accumulate_grad_batches, so the action reads "from 8 to 4". The
class derives from lightning.pytorch's (or pytorch_lightning's) Callback
when one is importable, else from object. Tested in CI against a
stand-in with Lightning's call signature (Lightning is not installed in
this project's test environment); bench/gpu/python_hooks.sh ran it once
with the real Lightning 2.6.6 on an NVIDIA H200 (PyTorch 2.11.0,
2026-11-26).
"""
from typing import Dict, Optional

from . import torch as _kgt

_EVAL_STAGES = ("sanity_check", "validate", "validating", "test", "testing", "predict", "predicting")


def _count(v) -> Optional[int]:
    """v when it is a whole number of at least 1, else None."""
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 1 else None


def _batch_size(trainer, pl_module, loader_attr: str) -> Optional[int]:
    """The batch size the run uses: `batch_size` of the datamodule (an
    attribute or a hyperparameter), of the module's hyperparameters, else
    of the trainer's DataLoader (the first one of a list)."""
    dm = getattr(trainer, "datamodule", None)
    hp = getattr(pl_module, "hparams", None)
    for v in (getattr(dm, "batch_size", None), getattr(getattr(dm, "hparams", None), "batch_size", None),
              getattr(hp, "batch_size", None),
              hp.get("batch_size") if isinstance(hp, dict) else None):
        if _count(v):
            return v
    try:
        dl = getattr(trainer, loader_attr, None)
    except Exception:  # a property that builds the loader may fail
        dl = None
    if isinstance(dl, (list, tuple)):
        dl = dl[0] if dl else None
    return _count(getattr(dl, "batch_size", None))


def trainer_facts(trainer, pl_module) -> Dict[str, object]:
    """What a Lightning Trainer says, as the diagnosis' facts: job.mode
    from trainer.state.stage, the batch size of that stage
    (config.train_batch_size or config.eval_batch_size) and
    config.grad_accum_steps (trainer.accumulate_grad_batches)."""
    stage = getattr(getattr(trainer, "state", None), "stage", None)
    stage = str(getattr(stage, "value", stage) or "").lower()
    mode = "train" if stage in ("train", "training") else "eval" if stage in _EVAL_STAGES else None
    f = {"job.mode": mode}
    if mode == "eval":
        f["config.eval_batch_size"] = _batch_size(trainer, pl_module, "val_dataloaders")
    else:
        f["config.train_batch_size"] = _batch_size(trainer, pl_module, "train_dataloader")
        f["config.grad_accum_steps"] = _count(getattr(trainer, "accumulate_grad_batches", None))
    return {k: v for k, v in f.items() if v is not None}


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
                        directory=self.directory, facts=lambda: trainer_facts(trainer, pl_module))

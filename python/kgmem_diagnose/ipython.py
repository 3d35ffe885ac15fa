"""`%load_ext kgmem_diagnose`: diagnose a device out-of-memory error in a
notebook or IPython cell.

It registers an IPython custom exception handler
(InteractiveShell.set_custom_exc) for RuntimeError, which
torch.OutOfMemoryError, torch.cuda.OutOfMemoryError and the other
out-of-memory errors (kgmem_diagnose._oomhook.is_oom) are: the traceback prints as usual, then, for an OOM,
the diagnosis (kgmem_diagnose.torch.report: verdict, action, evidence file)
and what keeps the failed cell's memory on the device. Other errors print
as without it. `%unload_ext kgmem_diagnose` restores the previous handler.
"""
import sys

from . import torch as _kgt

# Why the memory stays used after the OOM, and how to give it back: IPython
# keeps the last exception in sys.last_type/last_value/last_traceback
# (Python 3.12+: also sys.last_exc) and its traceback printer keeps the
# traceback for %debug (InteractiveTB.tb); the traceback holds every frame
# of the failed cell with its local tensors. Values cells returned stay in
# Out[...] and _, __, ___. torch.cuda.empty_cache() returns cached, unused
# blocks to the driver once nothing references them (PyTorch, "CUDA
# semantics: memory management").
RELEASE_NOTE = (
    "kgmem-diagnose: the failed cell's frames are still alive: sys.last_traceback "
    "(and IPython's copy for %debug) holds them and every tensor they reference, "
    "and Out[...] holds what cells returned, so that memory stays on the device. "
    "To release it: del the variables you no longer need, then run %kgmem_release "
    "(clears sys.last_traceback, sys.last_value, IPython's traceback and Out, "
    "runs gc.collect() and torch.cuda.empty_cache()).\n")


def release(shell=None):
    """Drops what keeps the failed cell's tensors alive (see RELEASE_NOTE),
    collects, and returns cached CUDA memory to the driver when CUDA is
    initialised. The `%kgmem_release` magic."""
    import gc
    for name in ("last_type", "last_value", "last_traceback", "last_exc"):
        if hasattr(sys, name):
            setattr(sys, name, None)
    if shell is not None:
        itb = getattr(shell, "InteractiveTB", None)
        if itb is not None and hasattr(itb, "tb"):
            itb.tb = None
        try:
            shell.run_line_magic("reset", "-f out")
        except Exception:
            pass
    gc.collect()
    torch = sys.modules.get("torch")
    if torch is not None:
        from . import _oomhook
        if _oomhook.cuda_ready(torch):
            torch.cuda.empty_cache()


_saved = {}


def _handler(shell, etype, value, tb, tb_offset=None):
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
    if value is not None and _kgt.is_oom(value):
        _kgt.report(value, file=sys.stderr)
        sys.stderr.write(RELEASE_NOTE)
        sys.stderr.flush()
    return None


def load_ipython_extension(ipython):
    """Registers the handler (keeping any previous one to restore)."""
    if "shell" not in _saved:
        _saved["shell"] = (ipython.custom_exceptions, getattr(ipython, "CustomTB", None))
    ipython.set_custom_exc((RuntimeError,), _handler)
    ipython.register_magic_function(lambda line="": release(ipython), "line", "kgmem_release")


def unload_ipython_extension(ipython):
    """Restores the custom exception handler there was before."""
    saved = _saved.pop("shell", None)
    if saved is None:
        return
    exc, tb = saved
    if exc and tb is not None:
        ipython.custom_exceptions, ipython.CustomTB = exc, tb
    else:
        ipython.custom_exceptions = ()

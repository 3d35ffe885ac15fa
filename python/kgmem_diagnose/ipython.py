"""`%load_ext kgmem_diagnose`: diagnose a device out-of-memory error in a
notebook or IPython cell.

It registers an IPython custom exception handler
(InteractiveShell.set_custom_exc) for RuntimeError, which
torch.OutOfMemoryError, torch.cuda.OutOfMemoryError and the other
out-of-memory errors (kgmem_diagnose._oomhook.is_oom) are: the traceback prints as usual, then, for an OOM,
the diagnosis (kgmem_diagnose.torch.report: verdict, action, evidence file)
and what keeps the failed cell's memory on the device. Other errors print
as without it. A custom handler set before (by another extension or your
own code) keeps handling its exception types: the shell's handler covers
both, and hands each exception to the previous handler when it is one of
that handler's types. `%unload_ext kgmem_diagnose` restores the previous
handler. `%kgmem_release` frees what the failed cell holds and says what it
released.
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


def _cuda_bytes(torch):
    """(allocated, reserved) bytes of the current CUDA device, or None when
    CUDA is not initialised (asking would initialise it)."""
    from . import _oomhook
    if torch is None or not _oomhook.cuda_ready(torch):
        return None
    try:
        return int(torch.cuda.memory_allocated()), int(torch.cuda.memory_reserved())
    except Exception:
        return None


def _size(n):
    """Bytes as PyTorch prints them (c10 format_size: binary units)."""
    for unit, k in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(n) >= k:
            return "%.2f %s" % (n / k, unit)
    return "%d bytes" % n


def release(shell=None):
    """Drops what keeps the failed cell's tensors alive (see RELEASE_NOTE),
    collects, and returns cached CUDA memory to the driver when CUDA is
    initialised. The `%kgmem_release` magic. Returns one line saying what
    it released: the references it cleared, the objects the collector
    freed and, with CUDA initialised, the device's allocated and reserved
    bytes before and after (as PyTorch prints sizes)."""
    import gc
    torch = sys.modules.get("torch")
    before = _cuda_bytes(torch)
    cleared = [("sys." + name) for name in ("last_type", "last_value", "last_traceback", "last_exc")
               if getattr(sys, name, None) is not None]
    for name in ("last_type", "last_value", "last_traceback", "last_exc"):
        if hasattr(sys, name):
            setattr(sys, name, None)
    if shell is not None:
        itb = getattr(shell, "InteractiveTB", None)
        if itb is not None and getattr(itb, "tb", None) is not None:
            itb.tb = None
            cleared.append("IPython's traceback for %debug")
        out = getattr(shell, "user_ns", {}).get("Out")
        n_out = len(out) if isinstance(out, dict) else 0
        try:
            shell.run_line_magic("reset", "-f out")
            if n_out:
                cleared.append("Out (%d value%s)" % (n_out, "" if n_out == 1 else "s"))
        except Exception:
            pass
    freed = gc.collect()
    emptied = False
    if before is not None:
        try:
            torch.cuda.empty_cache()
            emptied = True
        except Exception:
            pass
    after = _cuda_bytes(torch)
    msg = "kgmem_release: cleared %s; gc.collect() freed %d object%s" % (
        ", ".join(cleared) if cleared else "nothing (no failed cell held)", freed,
        "" if freed == 1 else "s")
    if before is not None and after is not None:
        msg += ("; CUDA allocated %s -> %s, reserved %s -> %s (%s returned to the driver%s)"
                % (_size(before[0]), _size(after[0]), _size(before[1]), _size(after[1]),
                   _size(max(before[1] - after[1], 0)),
                   " by torch.cuda.empty_cache()" if emptied else ""))
    elif torch is None:
        msg += "; torch is not imported: no device memory to return"
    else:
        msg += "; CUDA is not initialised: no device memory to return"
    return msg


_saved = {}


def _handler(shell, etype, value, tb, tb_offset=None):
    prev_types, prev_tb = _saved.get("shell", ((), None))
    if prev_tb is not None and prev_types and isinstance(value, prev_types):
        prev_tb(etype, value, tb, tb_offset=tb_offset)  # it prints as it did
    else:
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
    if value is not None and _kgt.is_oom(value):
        _kgt.report(value, file=sys.stderr)
        sys.stderr.write(RELEASE_NOTE)
        sys.stderr.flush()
    return None


def load_ipython_extension(ipython):
    """Registers the handler for RuntimeError and every exception type a
    handler set before covers (which keeps handling its own; restored on
    unload), and the %kgmem_release magic."""
    if "shell" not in _saved:
        prev = tuple(ipython.custom_exceptions or ())
        _saved["shell"] = (prev, getattr(ipython, "CustomTB", None) if prev else None)
    prev_types = _saved["shell"][0]
    types = prev_types + tuple(t for t in (RuntimeError,) if t not in prev_types)
    ipython.set_custom_exc(types, _handler)

    def kgmem_release(line=""):
        print(release(ipython))

    ipython.register_magic_function(kgmem_release, "line", "kgmem_release")


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

# kgmem-diagnose run --snapshot-on-oom DIR: the Python side.
# (_KGMEM_SITECUSTOMIZE: the marker by which one copy of this hook knows
# another)
#
# `kgmem-diagnose run` puts this directory first on the child's PYTHONPATH
# and DIR in KGMEM_SNAPSHOT_DIR. Python imports `sitecustomize` at start-up;
# this one
#   1. runs the sitecustomize it shadows (the next one on sys.path that is
#      not a copy of this hook: two installs' hook directories, or one under
#      two names, never load each other), so an existing site or
#      distribution hook still runs;
#   2. does nothing else until the program itself imports torch (it never
#      imports torch or initialises CUDA on its own: start-up time, memory
#      and fork-safety stay the program's);
#   3. once torch is imported, queues with torch.cuda._lazy_call, to run
#      when the program first initialises CUDA:
#      torch.cuda.memory._record_memory_history(...) and an out-of-memory
#      observer (torch._C._cuda_attach_out_of_memory_observer, PyTorch 2.0+)
#      that writes the allocator snapshot (torch.cuda.memory._snapshot())
#      to DIR/kgmem-oom-TAG-PID-N.pickle (TAG: KGMEM_SNAPSHOT_TAG, the
#      wrapper's host and pid, so ranks sharing DIR stay apart). On PyTorch without the observer, an
#      uncaught torch.cuda.OutOfMemoryError writes the snapshot from
#      sys.excepthook instead, before the default hook prints the traceback.
# Without torch, without CUDA, or on any error inside the hook, nothing
# happens: every hook step is wrapped so the program behaves as without it.
#
# Steps 2 and 3 are kgmem_diagnose's own OOM handling (one code path with
# kgmem_diagnose.torch): python/kgmem_diagnose/_oomhook.py, installed here
# as _kgmem_oomhook.py, loaded by file name (not imported as a package).
import os
import sys

_DIR = os.environ.get("KGMEM_SNAPSHOT_DIR", "")
_TAG = os.environ.get("KGMEM_SNAPSHOT_TAG", "run")
_HERE = os.path.dirname(os.path.abspath(__file__))
_KGMEM_SITECUSTOMIZE = True


def _is_hook_dir(p):
    """True when sys.path entry `p` is this directory (under any name) or
    holds another copy of this hook (its marker in the file's head)."""
    try:
        d = os.path.realpath(p or os.curdir)
        if d == os.path.realpath(_HERE):
            return True
        with open(os.path.join(d, "sitecustomize.py"), "rb") as f:
            return b"_KGMEM_SITECUSTOMIZE" in f.read(4096)
    except (OSError, ValueError):
        return False


def _chain():
    """Runs the sitecustomize this module shadows, if any."""
    try:
        import importlib.machinery
        import importlib.util

        path = [p for p in sys.path if isinstance(p, str) and not _is_hook_dir(p)]
        spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
        if spec is None or spec.loader is None:
            return
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    except Exception as e:  # the shadowed hook's own failure, as site.py reports it
        sys.stderr.write("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n"
                         "%s: %s\n" % (type(e).__name__, e))


def _load_oomhook():
    """The shared OOM module: installed beside this file, or in the source
    tree at python/kgmem_diagnose/_oomhook.py."""
    import importlib.util
    for path in (os.path.join(_HERE, "_kgmem_oomhook.py"),
                 os.path.join(_HERE, os.pardir, "python", "kgmem_diagnose", "_oomhook.py")):
        if os.path.exists(path):
            spec = importlib.util.spec_from_file_location("_kgmem_oomhook", path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            return mod
    return None


_chain()
if _DIR:
    try:
        _hook = _load_oomhook()
        if _hook is not None:
            _hook.snapshot_on_oom(_DIR, _TAG)
    except Exception:
        pass

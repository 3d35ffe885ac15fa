# kgmem-diagnose run --snapshot-on-oom DIR: the Python side.
#
# `kgmem-diagnose run` puts this directory first on the child's PYTHONPATH
# and DIR in KGMEM_SNAPSHOT_DIR. Python imports `sitecustomize` at start-up;
# this one
#   1. runs the sitecustomize it shadows (the next one on sys.path), so an
#      existing site or distribution hook still runs;
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
import os
import sys

_DIR = os.environ.get("KGMEM_SNAPSHOT_DIR", "")
_TAG = os.environ.get("KGMEM_SNAPSHOT_TAG", "run")
_HERE = os.path.dirname(os.path.abspath(__file__))
_MAX_DUMPS = 3


def _chain():
    """Runs the sitecustomize this module shadows, if any."""
    try:
        import importlib.machinery
        import importlib.util

        path = [p for p in sys.path
                if os.path.abspath(p or os.curdir) != _HERE]
        spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
        if spec is None or spec.loader is None:
            return
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    except Exception as e:  # the shadowed hook's own failure, as site.py reports it
        sys.stderr.write("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n"
                         "%s: %s\n" % (type(e).__name__, e))


_dumps = [0]


def _dump(torch, why):
    if not _DIR or _dumps[0] >= _MAX_DUMPS:
        return
    try:
        import pickle
        _dumps[0] += 1
        snap = torch.cuda.memory._snapshot()
        path = os.path.join(_DIR, "kgmem-oom-%s-%d-%d.pickle" % (_TAG, os.getpid(), _dumps[0]))
        tmp = path + ".tmp"
        with open(tmp, "wb") as f:
            pickle.dump(snap, f)
        os.replace(tmp, path)
    except Exception:
        pass


def _on_cuda_init(torch):
    try:
        try:
            torch.cuda.memory._record_memory_history(max_entries=100000)
        except TypeError:  # PyTorch 1.13/2.0 signature
            torch.cuda.memory._record_memory_history(True)
    except Exception:
        pass
    attach = getattr(torch._C, "_cuda_attach_out_of_memory_observer", None)
    if attach is not None:
        try:
            attach(lambda device, alloc, device_alloc, device_free: _dump(torch, "observer"))
            return
        except Exception:
            pass
    # older PyTorch: the uncaught OutOfMemoryError
    oom_type = getattr(torch.cuda, "OutOfMemoryError", None)
    prev = sys.excepthook

    def hook(t, v, tb):
        try:
            if (oom_type is not None and issubclass(t, oom_type)) or \
               (issubclass(t, RuntimeError) and "CUDA out of memory" in str(v)):
                _dump(torch, "excepthook")
        except Exception:
            pass
        prev(t, v, tb)

    sys.excepthook = hook


def _torch_imported(torch):
    try:
        cuda = getattr(torch, "cuda", None)
        lazy = getattr(cuda, "_lazy_call", None) if cuda is not None else None
        if lazy is None or not hasattr(getattr(cuda, "memory", None), "_record_memory_history"):
            return
        lazy(lambda: _on_cuda_init(torch))
    except Exception:
        pass


class _TorchWatcher:
    """A meta-path finder that only notices the import of `torch`."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        spec = None
        try:
            sys.meta_path.remove(self)
            for finder in sys.meta_path:
                fs = getattr(finder, "find_spec", None)
                if fs is not None:
                    spec = fs(name, path, target)
                    if spec is not None:
                        break
        except Exception:
            return None
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader
        orig = loader.exec_module

        def exec_module(module):
            orig(module)
            _torch_imported(module)

        try:
            loader.exec_module = exec_module
        except Exception:
            pass
        return spec


_chain()
if _DIR:
    if "torch" in sys.modules:
        _torch_imported(sys.modules["torch"])
    else:
        sys.meta_path.insert(0, _TorchWatcher())

"""What a PyTorch process can do about its own out-of-memory error: tell an
OOM from other errors, record the allocator's history, write its snapshot,
and call back when the allocator fails.

One code path for both ways in: `kgmem-diagnose run --snapshot-on-oom`
(hooks/sitecustomize.py loads this file, installed beside it as
_kgmem_oomhook.py) and kgmem_diagnose.torch (install(), catch()). It imports
nothing but the standard library, never imports torch itself (it is handed
the module the program imported) and never initialises CUDA.

Sources: torch.cuda.OutOfMemoryError (PyTorch 1.13+, a RuntimeError;
torch.OutOfMemoryError from 2.5, raised by every caching allocator) and the
messages of c10/cuda/CUDACachingAllocator.cpp ("CUDA out of memory. Tried to
allocate"; "HIP out of memory" on ROCm), aten/src/ATen/mps/MPSAllocator.mm
("MPS backend out of memory"), c10/xpu/XPUCachingAllocator.cpp ("XPU out of
memory"), and CUDA's own cudaErrorMemoryAllocation ("CUDA error: out of
memory"). The snapshot and history calls are torch.cuda.memory's
_snapshot() and _record_memory_history() (PyTorch's "Understanding CUDA
Memory Usage" page); the observer is
torch._C._cuda_attach_out_of_memory_observer (PyTorch 2.0+).
"""
import os
import sys

# RuntimeError messages of an out-of-memory failure, for errors that are
# not (or, in older PyTorch, were not yet) torch.OutOfMemoryError: the
# allocators named above, NPU (torch_npu), THC's CUDA and cuBLAS errors
# (PyTorch 0.x), cuBLAS/cuDNN allocation and status errors, the host
# allocator (DefaultCPUAllocator), Intel's Unified Runtime under XPU
# (UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY), cuDNN's "no valid algorithm" (every
# algorithm's workspace failed to allocate) and accelerate's
# find_executable_batch_size giving up. The list is the set of PyTorch
# exception messages the kgmem-diagnose binary reads as an OOM incident:
# tests/test_python.py checks it against the binary on every exception line
# of tests/oom/*.test, so the two cannot drift apart.
OOM_MESSAGES = (
    "CUDA out of memory",
    "HIP out of memory",
    "MPS backend out of memory",
    "XPU out of memory",
    "NPU out of memory",
    "CUDA error: out of memory",
    "cuda runtime error (2) : out of memory",
    "resource allocation failed",
    "CUBLAS_STATUS_ALLOC_FAILED",
    "cuDNN error: ",
    "Unable to find a valid cuDNN algorithm",
    "DefaultCPUAllocator: ",
    "ERROR_OUT_OF_DEVICE_MEMORY",
    "No executable batch size found",
    # host memory: C++ operator new, and a DataLoader worker's SIGBUS (out
    # of shared memory), which the binary reads as host-oom incidents
    "std::bad_alloc",
    "is killed by signal: Bus error",
    # /dev/shm with no room for a worker's batch (ATen's MapAllocator:
    # fallocate, or before PyTorch 1.10 the write or ftruncate)
    "unable to allocate shared memory(shm) for file </torch_",
    "unable to write to file </torch_",
    "unable to stretch file </torch_",
    # the runtime's words in other spellings (issue 31): c10's driver API
    # check, ROCm, vLLM's cuMem allocator, a blank before the colon,
    # CTranslate2's CUDA_CHECK, TVM's CUDA_CALL (TVMError is a
    # RuntimeError) and its compiled memory plan, OpenVINO's GPU plugin
    "CUDA driver error: out of memory",
    "HIP error: out of memory",
    "CUDA Error: out of memory",
    "CUDA error : out of memory",
    "failed with error out of memory",
    "CUDA: out of memory",
    "storage allocation failure",
    "[GPU] out of GPU resources",
    "[GPU] Exceeded max size of memory",
    # SGLang's KV cache pool found no room after the weights (a RuntimeError
    # when its Engine runs in the program's own process)
    "Please try to increase --mem-fraction-static",
)


def is_oom(exc, torch=None):
    """True when `exc` (an exception instance) is an out-of-memory error:
    torch.OutOfMemoryError or torch.cuda.OutOfMemoryError (when `torch`, or
    the torch the program imported, has them), or a RuntimeError carrying
    one of OOM_MESSAGES."""
    if torch is None:
        torch = sys.modules.get("torch")
    types = []
    if torch is not None:
        for owner in (torch, getattr(torch, "cuda", None)):
            t = getattr(owner, "OutOfMemoryError", None) if owner is not None else None
            if isinstance(t, type):
                types.append(t)
    if types and isinstance(exc, tuple(types)):
        return True
    if isinstance(exc, RuntimeError):
        try:
            text = str(exc)
        except Exception:  # an exception whose str() fails is not ours to judge
            return False
        return isinstance(text, str) and any(m in text for m in OOM_MESSAGES)
    return False


def record_history(torch, max_entries=100000):
    """Starts the CUDA caching allocator's history recording (the stack of
    every allocation, for the snapshot). Returns True when it is on."""
    mem = getattr(getattr(torch, "cuda", None), "memory", None)
    rec = getattr(mem, "_record_memory_history", None)
    if rec is None:
        return False
    try:
        try:
            rec(max_entries=max_entries)
        except TypeError:  # PyTorch 1.13/2.0 signature
            rec(True)
        return True
    except Exception:
        return False


def cuda_ready(torch):
    """True when CUDA is available and already initialised in this process
    (asking more would initialise it)."""
    try:
        cuda = torch.cuda
        return bool(cuda.is_available() and cuda.is_initialized())
    except Exception:
        return False


def snapshot(torch):
    """The allocator snapshot (a dict of segments and device_traces), or
    None when there is none to take."""
    try:
        return torch.cuda.memory._snapshot()
    except Exception:
        return None


def has_history(snap):
    """True when a snapshot carries recorded allocation history."""
    try:
        return any(len(t) for t in snap.get("device_traces", []))
    except Exception:
        return False


def write_pickle(obj, path):
    """Writes `obj` pickled to `path` atomically: into a new temporary file
    beside it (tempfile.mkstemp: a random name, O_EXCL, mode 0600, so no
    file or symlink already there is ever opened), then renamed over
    `path` (a rename replaces a link at `path`, never follows it)."""
    import pickle
    import tempfile
    d, name = os.path.split(path)
    fd, tmp = tempfile.mkstemp(prefix=name + ".", suffix=".tmp", dir=d or os.curdir)
    try:
        with os.fdopen(fd, "wb") as f:
            pickle.dump(obj, f)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


class SnapshotDumper:
    """Writes at most `limit` snapshots to DIR/kgmem-oom-TAG-PID-N.pickle
    (TAG names the wrapper's host and pid, so ranks sharing DIR stay
    apart). Errors are swallowed: the program behaves as without it."""

    def __init__(self, directory, tag, limit=3):
        self.directory, self.tag, self.limit, self.count = directory, tag, limit, 0

    def __call__(self, torch):
        if not self.directory or self.count >= self.limit:
            return None
        try:
            self.count += 1
            path = os.path.join(self.directory, "kgmem-oom-%s-%d-%d.pickle"
                                % (self.tag, os.getpid(), self.count))
            write_pickle(torch.cuda.memory._snapshot(), path)
            return path
        except Exception:
            return None


def on_oom(torch, callback):
    """Calls callback() when the allocator runs out of memory: from the OOM
    observer (PyTorch 2.0+, before the exception is raised), else from
    sys.excepthook for an uncaught OOM (before the previous hook prints the
    traceback). Returns "observer", "excepthook" or None."""
    attach = getattr(getattr(torch, "_C", None), "_cuda_attach_out_of_memory_observer", None)
    if attach is not None:
        try:
            attach(lambda device, alloc, device_alloc, device_free: callback())
            return "observer"
        except Exception:
            pass
    prev = sys.excepthook

    def hook(t, v, tb):
        try:
            if is_oom(v, torch):
                callback()
        except Exception:
            pass
        prev(t, v, tb)

    sys.excepthook = hook
    return "excepthook"


def when_cuda_starts(torch, fn):
    """Queues fn() to run when the program first initialises CUDA
    (torch.cuda._lazy_call; at once if it already has). Does nothing on a
    torch without CUDA memory history."""
    try:
        cuda = getattr(torch, "cuda", None)
        lazy = getattr(cuda, "_lazy_call", None) if cuda is not None else None
        if lazy is None or not hasattr(getattr(cuda, "memory", None), "_record_memory_history"):
            return
        lazy(fn)
    except Exception:
        pass


class _TorchWatcher:
    """A meta-path finder that only notices the import of `torch`, and
    calls back with the module once it has executed."""

    def __init__(self, callback):
        self.callback = callback

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
        callback = self.callback

        def exec_module(module):
            orig(module)
            try:
                callback(module)
            except Exception:
                pass

        try:
            loader.exec_module = exec_module
        except Exception:
            pass
        return spec


def when_torch_imported(callback):
    """Calls callback(torch) once the program has imported torch (at once
    if it already has), without importing it."""
    if "torch" in sys.modules:
        try:
            callback(sys.modules["torch"])
        except Exception:
            pass
    else:
        sys.meta_path.insert(0, _TorchWatcher(callback))


def when_torch_uses_cuda(fn):
    """Calls fn(torch) when the program, once it has imported torch, first
    initialises CUDA (when_torch_imported, then when_cuda_starts); never
    imports torch or initialises CUDA itself."""
    when_torch_imported(lambda torch: when_cuda_starts(torch, lambda: fn(torch)))


def snapshot_on_oom(directory, tag):
    """`kgmem-diagnose run --snapshot-on-oom DIR`: once the program imports
    torch and initialises CUDA, record the allocator's history and write its
    snapshot to DIR when it runs out of memory."""
    dump = SnapshotDumper(directory, tag)

    def cuda_started(torch):
        record_history(torch)
        on_oom(torch, lambda: dump(torch))

    when_torch_uses_cuda(cuda_started)

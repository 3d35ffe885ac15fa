"""Inside a PyTorch run: diagnose a device out-of-memory error where it
happens.

    import kgmem_diagnose.torch as kgt
    kgt.install()                     # every uncaught OOM of this process
    with kgt.catch(step=lambda: step):  # or one block
        train_step(batch)
    @kgt.catch()                      # or one function
    def evaluate(): ...

On torch.OutOfMemoryError / torch.cuda.OutOfMemoryError (and the MPS, XPU,
cuBLAS/cuDNN allocation and host-allocator RuntimeErrors the binary reads
as an OOM; kgmem_diagnose._oomhook.is_oom)
it records what the process knows at that moment: the message and
traceback, the step when known, torch.cuda.memory_summary() when CUDA is
initialised, and the allocator snapshot when history recording is on
(install(record_history=True), or the program's own
torch.cuda.memory._record_memory_history). It writes them to
kgmem-oom-PID-N.log (and .pickle) in `directory` (default: evidence_dir():
$KGMEM_EVIDENCE_DIR, else $XDG_STATE_HOME/kgmem-diagnose, else
~/.local/state/kgmem-diagnose; never the working directory unless asked),
prints the binary's verdict and the one action on stderr, names the file,
and re-raises: the program fails as it would have. The files are created
new (never through a file or link already at that name) and readable only
by you. The OOM handling is _oomhook's, shared with
`kgmem-diagnose run --snapshot-on-oom`. This module imports torch only
from the program's own sys.modules and never initialises CUDA.
"""
import contextlib
import datetime
import itertools
import os
import re
import subprocess
import sys
import threading
import traceback
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Union

from . import _binary, _oomhook

Step = Union[int, Callable[[], Optional[int]], None]
# Facts the program knows for the diagnosis, as the binary's --set takes
# them (`kgmem-diagnose rules facts`): {"config.train_batch_size": 8,
# "config.grad_accum_steps": 2, "job.mode": "train"}, or a callable
# returning such a dict at the moment of the error.
Facts = Union[Dict[str, object], Callable[[], Optional[Dict[str, object]]], None]

_step: Step = None
_counter = itertools.count(1)
_REPORTED = "_kgmem_diagnose_reported"


def set_step(step: Step) -> None:
    """The training step for later evidence: an int, or a callable
    returning one (None: unknown)."""
    global _step
    _step = step


def is_oom(exc: BaseException) -> bool:
    """True when `exc` is a device allocator's out-of-memory error."""
    return _oomhook.is_oom(exc)


@dataclass
class Evidence:
    """The files capture() wrote: `log` (text: step, the facts given,
    traceback with the message, memory_summary) and `snapshot` (the
    allocator snapshot pickle, or None); `facts`, the facts given (NAME ->
    VALUE), which the diagnosis gets as --set."""
    log: str
    snapshot: Optional[str]
    facts: Optional[Dict[str, str]] = None


def evidence_dir() -> str:
    """Where evidence goes by default: $KGMEM_EVIDENCE_DIR, else
    $XDG_STATE_HOME/kgmem-diagnose (an absolute XDG_STATE_HOME), else
    ~/.local/state/kgmem-diagnose (the XDG Base Directory default)."""
    env = os.environ.get("KGMEM_EVIDENCE_DIR")
    if env:
        return env
    state = os.environ.get("XDG_STATE_HOME", "")
    if not os.path.isabs(state):
        state = os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(state, "kgmem-diagnose")


def _create(base: str, suffix: str):
    """A new file BASE-N+SUFFIX opened for writing, mode 0600: O_EXCL and
    O_NOFOLLOW, so a file or symlink already at a name is never opened
    (the next N is tried instead). Returns (path, file object)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | \
        getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        path = "%s-%d%s" % (base, next(_counter), suffix)
        try:
            fd = os.open(path, flags, 0o600)
        except FileExistsError:
            continue
        return path, os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace")
    raise FileExistsError("no free name %s-N%s" % (base, suffix))


_FACT_NAME = re.compile(r"^[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*$")
_FACT_VALUE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def _facts_value(facts: Facts) -> Dict[str, str]:
    """The facts as NAME -> VALUE strings: a callable is called, a value
    that is None, empty or not a plain word is left out (a bad --set would
    cost the whole verdict)."""
    try:
        d = facts() if callable(facts) else facts
    except Exception:
        d = None
    out = {}
    for k, v in (d or {}).items():
        if v is None or isinstance(v, bool):
            continue
        k, v = str(k), str(v)
        if _FACT_NAME.match(k) and _FACT_VALUE.match(v):
            out[k] = v
    return out


def _set_args(facts: Dict[str, str]) -> List[str]:
    return [a for k, v in sorted(facts.items()) for a in ("--set", "%s=%s" % (k, v))]


def _step_value(step: Step) -> Optional[int]:
    for s in (step, _step):
        try:
            v = s() if callable(s) else s
        except Exception:
            v = None
        if v is not None:
            return int(v)
    return None


def capture(exc: BaseException, *, step: Step = None,
            directory: Optional[str] = None, facts: Facts = None) -> Evidence:
    """Writes the evidence of `exc` (see the module's text) into
    `directory` (default: evidence_dir(), created mode 0700) and returns
    the paths. facts: what the program knows (Facts: the batch, the
    accumulation, the mode), written on a line of the log and kept for
    verdict(). Raises OSError when the directory is not writable."""
    given = _facts_value(facts)
    torch = sys.modules.get("torch")
    directory = directory or evidence_dir()
    os.makedirs(directory, mode=0o700, exist_ok=True)
    log, out = _create(os.path.join(directory, "kgmem-oom-%d" % os.getpid()), ".log")
    base = log[:-len(".log")]
    snap_path = None
    with out as f:
        parts = ["kgmem_diagnose.torch evidence: pid %d, %s UTC, torch %s\n"
                 % (os.getpid(), datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S"),
                    getattr(torch, "__version__", "not imported"))]
        s = _step_value(step)
        if s is not None:
            parts.append("step %d\n" % s)
        if given:
            parts.append("kgmem_diagnose facts: %s\n" % " ".join("%s=%s" % kv for kv in sorted(given.items())))
        parts.append("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
        if torch is not None and _oomhook.cuda_ready(torch):
            try:
                parts.append(torch.cuda.memory_summary())
            except Exception:
                pass
            snap = _oomhook.snapshot(torch)
            if snap is not None and (_history[0] or _oomhook.has_history(snap)):
                snap_path = base + ".pickle"
                try:
                    _oomhook.write_pickle(snap, snap_path)
                except Exception:
                    snap_path = None
        f.write("".join(p if p.endswith("\n") else p + "\n" for p in parts))
    return Evidence(log=log, snapshot=snap_path, facts=given)


def verdict(evidence: Evidence) -> str:
    """The binary's text report on the evidence (its facts as --set), cut
    to each incident's verdict line and its `help:` action (the tool's own
    words)."""
    cmd = [_binary.find(), "--color", "never", "--no-progress"] + _set_args(evidence.facts or {}) + [evidence.log]
    if evidence.snapshot:
        cmd.append(evidence.snapshot)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    out = r.stdout.decode("utf-8", "replace").splitlines()
    keep = [ln for ln in out if ln and (not ln[0].isspace() or ln.lstrip().startswith("help:"))]
    if r.returncode not in (0, 1) or not keep:
        keep.append(r.stderr.decode("utf-8", "replace").strip())
    return "\n".join(keep)


def report(exc: BaseException, *, step: Step = None, directory: Optional[str] = None,
           file=None, facts: Facts = None) -> Optional[Evidence]:
    """capture() and print the verdict, the action and the evidence file to
    `file` (default stderr), with the command that gives the full report.
    facts: what the program knows (Facts), passed to the diagnosis as
    --set, so the action has the program's own numbers ("from 8 to 4").
    Never raises: a failure is one line instead. An exception is reported
    once (later handlers see it marked)."""
    file = file or sys.stderr
    try:
        if getattr(exc, _REPORTED, False):
            return None
    except Exception:
        pass
    try:
        setattr(exc, _REPORTED, True)
    except Exception:
        pass
    try:
        ev = capture(exc, step=step, directory=directory, facts=facts)
        try:
            text = verdict(ev)
        except Exception as e:  # no binary: the evidence is still named
            text = "kgmem-diagnose: no verdict: %s" % e
        files = ev.log + (" " + ev.snapshot if ev.snapshot else "")
        full = " ".join(_set_args(ev.facts or {}) + [files])
        file.write("%s\nkgmem-diagnose: evidence in %s (kgmem-diagnose %s: the full report)\n"
                   % (text, files, full))
        file.flush()
        return ev
    except Exception as e:  # the program's own error stays the one that matters
        try:
            file.write("kgmem-diagnose: no diagnosis of this out-of-memory error: %s\n" % e)
        except Exception:
            pass
        return None


_history = [False]


def _record_when_cuda_starts():
    def cuda_started(torch):
        _history[0] = _oomhook.record_history(torch) or _history[0]
    _oomhook.when_torch_uses_cuda(cuda_started)


_installed = [None]


def install(*, step: Step = None, directory: Optional[str] = None,
            record_history: bool = False, facts: Facts = None) -> None:
    """Reports every uncaught out-of-memory error of this process: of the
    main thread (sys.excepthook) and of any other thread
    (threading.excepthook), after its traceback is printed; the process or
    thread then ends as it would have. record_history: start the
    allocator's history recording when the program initialises CUDA, so
    the evidence carries the snapshot with every allocation's stack (costs
    time per allocation). directory: where the evidence goes (default
    evidence_dir()). facts: what the program knows (Facts), passed to the
    diagnosis. Calling it again replaces the settings."""
    if step is not None:
        set_step(step)
    if record_history:
        _record_when_cuda_starts()
    if _installed[0] is not None:
        _installed[0]["directory"] = directory
        _installed[0]["facts"] = facts
        return
    prev, prev_thread = sys.excepthook, threading.excepthook
    state = {"directory": directory, "facts": facts, "prev": prev, "prev_thread": prev_thread}

    def hook(t, v, tb):
        prev(t, v, tb)
        if v is not None and is_oom(v):
            report(v, directory=state["directory"], facts=state["facts"])

    def thread_hook(args):
        prev_thread(args)
        v = args.exc_value
        if v is not None and is_oom(v):
            report(v, directory=state["directory"], facts=state["facts"])

    state["hook"], state["thread_hook"] = hook, thread_hook
    sys.excepthook = hook
    threading.excepthook = thread_hook
    _installed[0] = state


def uninstall() -> None:
    """Undoes install() (for each hook no other was installed after)."""
    st = _installed[0]
    if st is not None and sys.excepthook is st["hook"]:
        sys.excepthook = st["prev"]
    if st is not None and threading.excepthook is st["thread_hook"]:
        threading.excepthook = st["prev_thread"]
    _installed[0] = None


def _base_class(*candidates: str) -> type:
    """The first importable of "module:Class" candidates, else object: the
    base of the trainer callbacks (lightning.py, hf.py), so they derive
    from the library's own class when it is installed."""
    import importlib
    for c in candidates:
        mod, _, name = c.partition(":")
        try:
            return getattr(importlib.import_module(mod), name)
        except Exception:
            continue
    return object


class catch(contextlib.ContextDecorator):
    """A context manager and a decorator: an out-of-memory error inside is
    reported (report(): evidence into `directory`, default evidence_dir();
    the verdict on stderr) and re-raised; other exceptions pass untouched.
    step: the training step, an int or a callable returning one."""

    def __init__(self, *, step: Step = None, directory: Optional[str] = None):
        self.step, self.directory = step, directory

    def __enter__(self):
        return self

    def __exit__(self, t, v, tb):
        try:
            if v is not None and is_oom(v):
                report(v, step=self.step, directory=self.directory)
        except Exception:  # the program's own exception stays the one raised
            pass
        return False

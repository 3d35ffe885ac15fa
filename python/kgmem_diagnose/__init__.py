"""kgmem-diagnose from Python: the diagnosis of a GPU out-of-memory crash.

    import kgmem_diagnose
    report = kgmem_diagnose.diagnose("train.log")      # a path
    report = kgmem_diagnose.diagnose(str(e))           # an OOM message
    report = kgmem_diagnose.diagnose(e)                # the exception itself
    print(report.text())                               # the text report
    for inc in report.incidents:
        print(inc)                                     # its verdict and action
        print(inc.cause, inc.confidence, inc.budget.free, inc.action.title)

diagnose() runs the compiled kgmem-diagnose binary installed with this
package (`--format json`) and maps its `kgmem-diagnose/1` report onto the
dataclasses of kgmem_diagnose.report; the diagnosis is the binary's, never
re-done in Python. Sizes are integers in bytes; where the binary prints
them (Report.text(), str(incident)) they read as PyTorch prints them
(c10's format_size: "20.00 GiB", binary units). `python -m kgmem_diagnose`
is the command line itself. Also: kgmem_diagnose.torch (an OOM hook inside
a PyTorch run), `%load_ext kgmem_diagnose` (IPython),
kgmem_diagnose.lightning and kgmem_diagnose.hf (trainer callbacks).
"""
import json
import os
import re
import subprocess
import traceback
from typing import IO, Iterable, Optional, Union

from . import _binary
from ._binary import BinaryNotFound
from .report import (Budget, Device, Finding, Hypothesis, Incident, Input, Location,
                     Patch, Remedy, Report, Summary, from_json)

__all__ = ["diagnose", "DiagnoseError", "BinaryNotFound", "binary", "Report", "Incident",
           "Budget", "Remedy", "Finding", "Hypothesis", "Input", "Location", "Device", "Patch",
           "Summary", "__version__"]


def _checkout_version() -> str:
    """The project version of the source checkout this package sits in
    (meson.build's `version`), for a package imported from python/."""
    try:
        with open(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir,
                               "meson.build"), encoding="utf-8") as f:
            m = re.search(r"^\s*version\s*:\s*'([^']+)'", f.read(4096), re.M)
        return m.group(1) if m else "0+unknown"
    except OSError:
        return "0+unknown"


try:  # written by meson at install (python/kgmem_diagnose/_version.py.in)
    from ._version import __version__
except ImportError:
    __version__ = _checkout_version()

# The binary's exit statuses (kgmem-diagnose(1), EXIT STATUS).
EXIT_USAGE = 2
EXIT_INPUT = 3


class DiagnoseError(Exception):
    """The binary refused the input: exit status 3 (unreadable or invalid
    input: `message` is its one stderr line naming the file and the line or
    byte) or 2 (usage error, e.g. an option the binary does not know).
    `returncode` is the exit status (an int)."""

    def __init__(self, message: str, returncode: int):
        super().__init__(message)
        self.message = message
        self.returncode = returncode


def binary() -> str:
    """The path of the kgmem-diagnose binary this package runs (see
    kgmem_diagnose._binary). Raises BinaryNotFound."""
    return _binary.find()


PathLike = Union[str, "os.PathLike[str]"]


def _paths(x) -> list:
    if x is None:
        return []
    if isinstance(x, (str, os.PathLike)):
        return [_arg(os.fspath(x))]
    return [_arg(os.fspath(p)) for p in x]


def _arg(path: str) -> str:
    """A path as an operand: "-" is the file named "-" (./-), not stdin."""
    return os.path.join(os.curdir, path) if path == "-" else path


def exception_text(exc: BaseException) -> str:
    """The text Python prints for an uncaught `exc`: its traceback (when it
    has one), chained exceptions, and the `Type: message` line the binary
    reads. A `str()` that fails does not fail this."""
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


def _run(cmd, data: Optional[bytes], timeout: Optional[float]) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, input=data if data is not None else b"",
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except OSError as e:  # the binary vanished or cannot run (e.g. a noexec mount)
        raise BinaryNotFound("%s: cannot run: %s" % (cmd[0], e.strerror or e)) from None


def diagnose(log: Union[PathLike, str, bytes, IO, BaseException], *,
             config: Union[PathLike, Iterable[PathLike], None] = None,
             snapshot: Union[PathLike, Iterable[PathLike], None] = None,
             args: Iterable[str] = (),
             timeout: Optional[float] = None) -> Report:
    """Diagnoses a crashed run's log; returns the Report (sizes in bytes).

    log is one of:
      - an exception (e.g. the torch.OutOfMemoryError you caught): its
        traceback and message, as Python prints them;
      - a path (os.PathLike, or a str naming an existing file or
        directory; a directory is every file under it; gzip is read as
        such; "-" is the file named "-", not standard input);
      - the log's text: a str that is not an existing path, such as
        str(e) of an OOM error or a pasted log. A one-line str that is no
        existing path and holds no OOM message is taken as a missing path
        (DiagnoseError naming it), so a mistyped file name is an error,
        not an empty report;
      - bytes, or a binary or text file object (read to its end, e.g.
        sys.stdin; its `name`, when it has one, names it in the report).
        Text that is not valid UTF-8 (surrogate-escaped bytes) is passed
        on byte for byte.
    config: the training config(s) (YAML), as --config. snapshot: allocator
    snapshot(s) (pickle, memory_stats JSON or memory_summary text), read
    with the log. args: further command-line options (e.g. ["--set",
    "dataset.entities=40943"]). timeout: seconds (None: no limit).

    Raises DiagnoseError on unreadable or invalid input (exit 3) or a usage
    error (exit 2); BinaryNotFound when the binary is missing.
    """
    cmd = [binary(), "--format", "json", "--no-progress", "--color", "never"]
    for c in _paths(config):
        cmd += ["--config", c]
    cmd += list(args)
    data, name, maybe_path = None, None, None
    if isinstance(log, BaseException):
        data = exception_text(log)
    elif hasattr(log, "read"):
        data = log.read()
        n = getattr(log, "name", None)
        if isinstance(n, str) and n:
            name = n
    elif isinstance(log, (bytes, bytearray)):
        data = bytes(log)
    elif isinstance(log, str) and ("\n" in log or "\0" in log or not os.path.exists(log)):
        data = log
        if "\n" not in log:
            maybe_path = log
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    if name is not None:
        cmd += ["--stdin-filename", name]
    if data is not None:
        operands = ["-"] + _paths(snapshot)
    else:
        operands = _paths(log) + _paths(snapshot)
    r = _run(cmd + ["--"] + operands, data, timeout)
    rep = _parse(r)
    if maybe_path is not None and not rep.incidents:
        # one line, no such file and no OOM in it: the binary's own error
        # for the path (exit 3), or its report should the file now exist
        operands = _paths(maybe_path) + _paths(snapshot)
        data = None
        r = _run(cmd + ["--"] + operands, None, timeout)
        try:
            rep = _parse(r)
        except DiagnoseError as e:
            raise DiagnoseError(e.message + " (and, read as log text, it holds no out-of-memory "
                                "message)", e.returncode) from None
    rep._source = (cmd, operands, data, timeout)
    return rep


def _parse(r: subprocess.CompletedProcess) -> Report:
    if r.returncode not in (0, 1):  # EXIT_USAGE, EXIT_INPUT, or a crash
        msg = r.stderr.decode("utf-8", "replace").strip() or \
            "kgmem-diagnose exited with status %d" % r.returncode
        raise DiagnoseError(msg, r.returncode)
    try:
        return from_json(json.loads(r.stdout))
    except ValueError as e:
        raise DiagnoseError("kgmem-diagnose printed no kgmem-diagnose/1 report: %s" % e,
                            r.returncode)


def load_ipython_extension(ipython):
    """`%load_ext kgmem_diagnose`: see kgmem_diagnose.ipython."""
    from . import ipython as _ip
    _ip.load_ipython_extension(ipython)


def unload_ipython_extension(ipython):
    """`%unload_ext kgmem_diagnose`: see kgmem_diagnose.ipython."""
    from . import ipython as _ip
    _ip.unload_ipython_extension(ipython)

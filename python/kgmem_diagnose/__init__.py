"""kgmem-diagnose from Python: the diagnosis of a GPU out-of-memory crash.

    import kgmem_diagnose
    report = kgmem_diagnose.diagnose("train.log")
    for inc in report.incidents:
        print(inc.cause, inc.confidence, inc.budget.free, inc.action.title)

diagnose() runs the compiled kgmem-diagnose binary installed with this
package (`--format json`) and maps its `kgmem-diagnose/1` report onto the
dataclasses of kgmem_diagnose.report; the diagnosis is the binary's, never
re-done in Python. `python -m kgmem_diagnose` is the command line itself.
Also: kgmem_diagnose.torch (an OOM hook inside a PyTorch run),
`%load_ext kgmem_diagnose` (IPython), kgmem_diagnose.lightning and
kgmem_diagnose.hf (trainer callbacks).
"""
import json
import os
import subprocess
from typing import IO, Iterable, Optional, Union

from . import _binary
from .report import (Budget, Device, Finding, Hypothesis, Incident, Input, Location,
                     Patch, Remedy, Report, Summary, from_json)

__all__ = ["diagnose", "DiagnoseError", "binary", "Report", "Incident", "Budget", "Remedy",
           "Finding", "Hypothesis", "Input", "Location", "Device", "Patch", "Summary"]

# The binary's exit statuses (kgmem-diagnose(1), EXIT STATUS).
EXIT_USAGE = 2
EXIT_INPUT = 3


class DiagnoseError(Exception):
    """The binary refused the input: exit status 3 (unreadable or invalid
    input: `message` is its one stderr line naming the file and the line or
    byte) or 2 (usage error, e.g. an option the binary does not know).
    `returncode` is the exit status."""

    def __init__(self, message: str, returncode: int):
        super().__init__(message)
        self.message = message
        self.returncode = returncode


def binary() -> str:
    """The path of the kgmem-diagnose binary this package runs (see
    kgmem_diagnose._binary). Raises _binary.BinaryNotFound."""
    return _binary.find()


PathLike = Union[str, "os.PathLike[str]"]


def _paths(x) -> list:
    if x is None:
        return []
    if isinstance(x, (str, os.PathLike)):
        return [os.fspath(x)]
    return [os.fspath(p) for p in x]


def diagnose(log: Union[PathLike, str, bytes, IO], *,
             config: Union[PathLike, Iterable[PathLike], None] = None,
             snapshot: Union[PathLike, Iterable[PathLike], None] = None,
             args: Iterable[str] = (),
             timeout: Optional[float] = None) -> Report:
    """Diagnoses a crashed run's log; returns the Report.

    log: a path (str without a newline, or os.PathLike; a directory is every
    file under it; gzip is read as such), the log's text (a str with a
    newline, or bytes) or a binary or text file object (read to its end; its
    `name`, when it has one, names it in the report). config: the training
    config(s) (YAML), as --config. snapshot: allocator snapshot(s) (pickle,
    memory_stats JSON or memory_summary text), read with the log. args:
    further command-line options (e.g. ["--set", "dataset.entities=40943"]).

    Raises DiagnoseError on unreadable or invalid input (exit 3) or a usage
    error (exit 2); _binary.BinaryNotFound when the binary is missing.
    """
    cmd = [binary(), "--format", "json", "--no-progress", "--color", "never"]
    for c in _paths(config):
        cmd += ["--config", c]
    cmd += list(args)
    data = None
    if hasattr(log, "read"):
        data = log.read()
        name = getattr(log, "name", None)
        if isinstance(name, str) and name:
            cmd += ["--stdin-filename", name]
    elif isinstance(log, bytes):
        data = log
    elif isinstance(log, str) and "\n" in log:
        data = log
    if isinstance(data, str):
        data = data.encode("utf-8")
    if data is not None:
        cmd += ["--"] + ["-"] + _paths(snapshot)
    else:
        cmd += ["--"] + _paths(log) + _paths(snapshot)
    r = subprocess.run(cmd, input=data if data is not None else b"",
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
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
    from . import ipython as _ip
    _ip.unload_ipython_extension(ipython)

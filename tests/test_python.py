#!/usr/bin/env python3
"""The Python package (python/kgmem_diagnose): diagnose() against the CLI's
JSON on every testdata/logs input, python -m kgmem_diagnose, the torch hook
with a real torch.cuda.OutOfMemoryError carrying a real message, the
Lightning and HF callbacks against stand-ins with their call signatures,
and the IPython extension in a real IPython process. Prints TAP.

usage: test_python.py EXE SOURCE_ROOT            the package from SOURCE_ROOT/python,
                                                  running EXE (KGMEM_DIAGNOSE_BIN)
       test_python.py --installed EXE SOURCE_ROOT the package pip installed into
                                                  sys.executable's environment, EXE its binary

torch and IPython parts run under the first of $KGMEM_TEST_PYTHON,
sys.executable and /usr/bin/python3 that imports them (SKIP, saying so,
when none does).
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

installed = sys.argv[1] == "--installed"
if installed:
    del sys.argv[1]
EXE, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
LOGS = os.path.join(ROOT, "testdata", "logs")
REAL = os.path.join(LOGS, "real-mr-0010-rank1-linear.log")
TMP = tempfile.mkdtemp(prefix="kg-test-python.")

ENV = dict(os.environ)
for k in ("KGMEM_DIAGNOSE_BIN", "KGMEM_EVIDENCE_DIR", "PYTHONPATH", "KGMEM_RULES_PATH",
          "XDG_STATE_HOME"):
    ENV.pop(k, None)
if not installed:
    ENV["KGMEM_DIAGNOSE_BIN"] = EXE
    ENV["PYTHONPATH"] = os.path.join(ROOT, "python")
    os.environ["KGMEM_DIAGNOSE_BIN"] = EXE
    sys.path.insert(0, os.path.join(ROOT, "python"))
else:
    os.environ.pop("KGMEM_DIAGNOSE_BIN", None)
os.chdir(ROOT)  # .args files name paths relative to the source root

import kgmem_diagnose  # noqa: E402

import tap  # noqa: E402  (tests/tap.py, beside this file)


def check(cond, what, detail=""):
    tap.check(bool(cond), what, detail if isinstance(detail, str) else repr(detail)[:3000])


skip = tap.skip


def cli(args, **kw):
    return subprocess.run([EXE, "--no-progress", "--color", "never"] + args,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, **kw)


# --- which package and binary
where = os.path.dirname(os.path.abspath(kgmem_diagnose.__file__))
check((where.startswith(ROOT)) != installed,
      "the package under test is the %s one" % ("installed" if installed else "source tree's"), where)
check(os.path.realpath(kgmem_diagnose.binary()) == os.path.realpath(EXE),
      "kgmem_diagnose.binary() is the binary under test", (kgmem_diagnose.binary(), EXE))

# --- diagnose() gives the CLI's cause and confidence on every bundled log
inputs = sorted(f for f in os.listdir(LOGS)
                if not f.endswith((".json", ".txt", ".args")) and not f.startswith("."))
mismatch, helps, texts, count = [], [], [], 0
for f in inputs:
    path = os.path.join(LOGS, f)
    extra = []
    if os.path.exists(path + ".args"):
        extra = shlex.split(open(path + ".args").read())
    r = cli(["--format", "json"] + extra + [path])
    try:
        want = json.loads(r.stdout)
    except ValueError:
        mismatch.append((f, "CLI printed no JSON", r.returncode, r.stderr[-200:]))
        continue
    try:
        rep = kgmem_diagnose.diagnose(path, args=extra)
    except kgmem_diagnose.DiagnoseError as e:
        mismatch.append((f, "DiagnoseError", str(e)))
        continue
    got = [(i.cause, i.confidence, i.severity, i.location.line, i.requested_bytes,
            None if i.budget is None else i.budget.free) for i in rep.incidents]
    exp = [(i["cause"], i["confidence"], i["severity"], i["location"]["line"],
            (i.get("memory") or {}).get("requested_bytes"),
            None if i.get("budget") is None else i["budget"]["free"]) for i in want["incidents"]]
    count += len(got)
    if got != exp or rep.summary.incidents != want["summary"]["incidents"]:
        mismatch.append((f, got, exp))
    # the one action: the text report's help line names Incident.action
    text = cli(extra + ["--width", "0", path]).stdout.decode("utf-8", "replace")
    lines = text.splitlines()
    # Report.text() is that report; str(incident) its verdict and help: lines
    heads = [k for k, ln in enumerate(lines)
             if re.match(r"^\S.*?: (?:error|warning|info)\[", ln)]
    try:
        rtext, rstr = rep.text(), str(rep)
    except Exception as e:
        rtext = rstr = repr(e)
    if rtext != text or rstr != text:
        texts.append((f, "Report.text()", rtext[:300], text[:300]))
    elif len(heads) != len(rep.incidents):
        texts.append((f, "verdict lines", len(heads), len(rep.incidents)))
    else:
        for k, inc in zip(heads, rep.incidents):
            want2 = "\n".join(ln for ln in lines[k:k + 2] if ln == lines[k] or ln.startswith(" "))
            if str(inc) != want2 or not str(inc).startswith("%s:%s: " % (path, inc.location.line)):
                texts.append((f, inc.location.line, str(inc), want2))
    for inc in rep.incidents:
        head = [k for k, ln in enumerate(lines) if ln.startswith("%s:%s: " % (path, inc.location.line))]
        nxt = lines[head[0] + 1] if head and head[0] + 1 < len(lines) else ""
        got_help = "  help: " + inc.action.instruction if inc.action else None
        if (nxt if nxt.startswith("  help: ") else None) != got_help:
            helps.append((f, inc.location.line, nxt, got_help))
check(not mismatch and count >= 20,
      "diagnose() returns the CLI JSON's cause, confidence, severity, line, request and "
      "free bytes on all %d testdata/logs inputs (%d incidents)" % (len(inputs), count),
      "\n".join(map(repr, mismatch)))
check(not helps, "Incident.action is the text report's help: line on every incident (None where it has none)",
      "\n".join(map(repr, helps)))
check(not texts, "Report.text() and str(report) are the CLI's text report, str(incident) its "
      "verdict and help: lines, on every testdata/logs input", "\n".join(map(repr, texts)))

# --- log as text, bytes and file objects; config; patch
a = kgmem_diagnose.diagnose(REAL)
b = kgmem_diagnose.diagnose(open(REAL, encoding="utf-8").read())
with open(REAL, "rb") as fo:
    c = kgmem_diagnose.diagnose(fo)
d = kgmem_diagnose.diagnose(open(REAL, "rb").read())
check(a.incidents[0].cause == "capacity" and a.incidents[0].confidence == "low"
      and [(i.cause, i.confidence, i.budget) for i in a.incidents]
      == [(i.cause, i.confidence, i.budget) for i in b.incidents]
      == [(i.cause, i.confidence, i.budget) for i in c.incidents]
      == [(i.cause, i.confidence, i.budget) for i in d.incidents],
      "a path, the text, bytes and a file object give the same incidents",
      (a.incidents, b.incidents))
check(c.inputs[0].path == REAL and b.inputs[0].path == "<stdin>"
      and c.incidents[0].location.path == REAL,
      "a file object is named by its name in the report", (c.inputs, b.inputs))
seed = os.path.join(LOGS, "seed-001-rotate-eval-with-config.log")
cfg = os.path.join(ROOT, "testdata/configs/seed001-rotate-wn18rr.yaml")
s = kgmem_diagnose.diagnose(seed, config=cfg, args=["--diff"])
inc = s.incidents[0]
check(inc.cause == "eval-blowup" and inc.confidence == "high" and inc.mode == "eval"
      and inc.patch == {"data.test_bs": 64} and inc.action.keys == {"eval_batch_size": "data.test_bs"}
      and s.patches and "+  test_bs: 64" in s.patches[0].diff
      and inc.budget.capacity == s.raw["incidents"][0]["budget"]["capacity"]
      and isinstance(inc.budget.capacity, int),
      "config: the cause, the job's mode, the patch in the config's own key, the diff, budget in bytes",
      (inc.cause, inc.patch, s.patches))

# --- unreadable input: DiagnoseError with the binary's one line, exit 3
missing = os.path.join(TMP, "no-such.log")
try:
    kgmem_diagnose.diagnose(missing)
    check(False, "a missing log raises DiagnoseError")
except kgmem_diagnose.DiagnoseError as e:
    check(e.returncode == 3 and missing in e.message and "\n" not in e.message,
          "a missing log raises DiagnoseError (exit 3, one line naming the file)", (e.returncode, e.message))
badgz = os.path.join(TMP, "bad.log.gz")
open(badgz, "wb").write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage, not deflate")
try:
    kgmem_diagnose.diagnose(badgz)
    check(False, "a corrupt gzip log raises DiagnoseError")
except kgmem_diagnose.DiagnoseError as e:
    check(e.returncode == 3 and badgz in e.message, "a corrupt gzip log raises DiagnoseError (exit 3)",
          (e.returncode, e.message))
try:
    kgmem_diagnose.diagnose(REAL, args=["--no-such-option"])
    check(False, "an unknown option raises DiagnoseError")
except kgmem_diagnose.DiagnoseError as e:
    check(e.returncode == 2, "an unknown option raises DiagnoseError (exit 2)", (e.returncode, e.message))

# --- what diagnose() takes (issue 33): str(e) of a real message, the
# exception itself, "-" as a file name, non-UTF-8 text, a mistyped path
msgs, wrong, nmsg = [], [], 0
for case in sorted(os.listdir(os.path.join(ROOT, "tests", "oom"))):
    if not case.endswith(".test"):
        continue
    for ln in open(os.path.join(ROOT, "tests", "oom", case), encoding="utf-8"):
        m = re.match(r"^(?:\[rank\d+\]: )?((?:RuntimeError|torch\.(?:cuda\.)?OutOfMemoryError)): (.*)",
                     ln.rstrip("\n"))
        if m and m.group(2) not in msgs:
            msgs.append(m.group(2))
bare = []  # messages with no OOM wording of their own (std::bad_alloc)
for msg in msgs:
    r = cli(["--format", "jsonl", "-"], input=("RuntimeError: %s\n" % msg).encode())
    want = [(d["kind"], d["cause"], (d.get("memory") or {}).get("requested_bytes"))
            for d in map(json.loads, r.stdout.decode().splitlines())]
    if not want:
        continue
    nmsg += 1
    try:
        got = [(i.kind, i.cause, i.requested_bytes) for i in kgmem_diagnose.diagnose(msg).incidents]
    except kgmem_diagnose.DiagnoseError as e:
        got = repr(e)
        if not cli(["--format", "jsonl", "-"], input=(msg + "\n").encode()).stdout \
                and "holds no out-of-memory message" in e.message:
            bare.append(msg)
            got = want
    try:
        raise RuntimeError(msg)
    except RuntimeError as e:
        try:
            got_exc = [(i.kind, i.cause, i.requested_bytes) for i in kgmem_diagnose.diagnose(e).incidents]
        except Exception as e2:
            got_exc = repr(e2)
    if got != want or got_exc != want:
        wrong.append((msg[:80], got, got_exc, want))
check(nmsg > 20 and not wrong and len(bare) <= 1,
      "diagnose(str(e)) and diagnose(e) on all %d real OOM messages of tests/oom/*.test: the "
      "CLI's incidents for that exception line (str(e) of %s: a DiagnoseError saying it holds "
      "no OOM message)" % (nmsg, bare), "\n".join(map(repr, wrong)))
MSG_REAL = open(REAL, encoding="utf-8").read().splitlines()[2].split("OutOfMemoryError: ", 1)[1]
try:
    one = kgmem_diagnose.diagnose(MSG_REAL)
except Exception as e:
    one = e
check(not isinstance(one, Exception) and [(i.cause, i.confidence, i.budget) for i in one.incidents]
      == [(i.cause, i.confidence, i.budget) for i in b.incidents]
      and one.inputs[0].path == "<stdin>",
      "diagnose(message) of a real log's one-line message: that log's cause, confidence and budget",
      repr(one))
for typo in ("crash.lgo", os.path.join(TMP, "logs", "train.log")):
    try:
        kgmem_diagnose.diagnose(typo)
        check(False, "a mistyped path %s raises DiagnoseError" % typo)
    except kgmem_diagnose.DiagnoseError as e:
        check(e.returncode == 3 and typo in e.message and "No such file" in e.message,
              "a mistyped path (%s) is a missing file (DiagnoseError, exit 3), not an empty report"
              % os.path.basename(typo), e.message)
dash = os.path.join(TMP, "dash")
os.makedirs(dash)
here = os.getcwd()
os.chdir(dash)
try:
    try:
        got = kgmem_diagnose.diagnose("-")
    except kgmem_diagnose.DiagnoseError as e:
        got = (e.returncode, e.message)
    check(got[0] == 3 and "./-" in got[1] if isinstance(got, tuple) else False,
          "diagnose(\"-\") with no file named - is a missing file (not standard input)", got)
    with open("-", "w") as f:
        f.write(open(REAL, encoding="utf-8").read())
    d = kgmem_diagnose.diagnose("-")
    check([i.cause for i in d.incidents] == [i.cause for i in a.incidents] and d.inputs[0].path == "./-",
          "diagnose(\"-\") reads the file named - (./-)", (d.inputs, d.incidents))
finally:
    os.chdir(here)
latin1 = os.path.join(TMP, "latin1.log")
with open(latin1, "wb") as f:
    f.write(b"caf\xe9 step 1\n" + open(os.path.join(LOGS, "seed-001-rotate-eval.log"), "rb").read())
r = subprocess.run([sys.executable, "-c", "import sys, kgmem_diagnose as k; "
                    "r = k.diagnose(sys.stdin); print(len(r.incidents), r.incidents[0].cause)"],
                   stdin=open(latin1, "rb"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
want = cli(["--format", "jsonl", latin1]).stdout.decode().splitlines()
check(r.returncode == 0 and r.stdout.decode().split() == [str(len(want)), json.loads(want[0])["cause"]],
      "diagnose(sys.stdin) with a non-UTF-8 byte (surrogate-escaped) gives the CLI's incidents",
      (r.stdout, r.stderr[-500:]))
old_bin = os.environ.get("KGMEM_DIAGNOSE_BIN")
os.environ["KGMEM_DIAGNOSE_BIN"] = TMP
try:
    kgmem_diagnose.diagnose(REAL)
    got = "no error"
except Exception as e:
    got = e
finally:
    if old_bin is None:
        os.environ.pop("KGMEM_DIAGNOSE_BIN")
    else:
        os.environ["KGMEM_DIAGNOSE_BIN"] = old_bin
check(isinstance(got, getattr(kgmem_diagnose, "BinaryNotFound", ())) and "directory" in str(got),
      "KGMEM_DIAGNOSE_BIN set to a directory: BinaryNotFound saying so", repr(got))
r = subprocess.run([sys.executable, "-m", "kgmem_diagnose", REAL], stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE, env=dict(ENV, KGMEM_DIAGNOSE_BIN=TMP))
check(r.returncode == 127 and r.stderr.count(b"\n") == 1 and b"is a directory" in r.stderr,
      "python -m kgmem_diagnose with KGMEM_DIAGNOSE_BIN a directory: one line, exit 127", r.stderr)

# --- the API reads well: __version__, py.typed, help() of every public name
import inspect  # noqa: E402
import pydoc  # noqa: E402
import importlib  # noqa: E402
ver = cli(["--version"]).stdout.decode().split("\n")[0].split()[-1]
check(getattr(kgmem_diagnose, "__version__", None) == ver, "kgmem_diagnose.__version__ is the binary's version",
      (getattr(kgmem_diagnose, "__version__", None), ver))
check(os.path.isfile(os.path.join(os.path.dirname(kgmem_diagnose.__file__), "py.typed")),
      "the package carries py.typed (PEP 561)")
undoc, unitless = [], []
for modname in ("kgmem_diagnose", "kgmem_diagnose.report", "kgmem_diagnose.torch",
                "kgmem_diagnose.ipython", "kgmem_diagnose.lightning", "kgmem_diagnose.hf",
                "kgmem_diagnose._binary"):
    mod = importlib.import_module(modname)
    if not (mod.__doc__ or "").strip():
        undoc.append(modname)
    for name, obj in vars(mod).items():
        if name.startswith("_") or not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        if getattr(obj, "__module__", "").split(".")[0] != "kgmem_diagnose":
            continue
        doc = obj.__dict__.get("__doc__") if inspect.isclass(obj) else obj.__doc__
        if not doc or not doc.strip() or doc.startswith(name + "("):  # a dataclass's own signature
            undoc.append("%s.%s" % (modname, name))
            continue
        pydoc.render_doc(obj)
        fields = getattr(obj, "__dataclass_fields__", {})
        sized = [f for f in fields if f in ("capacity", "free", "allocated", "bytes", "memory", "budget")]
        if sized and "bytes" not in doc:
            unitless.append("%s.%s (%s)" % (modname, name, ", ".join(sized)))
check(not undoc, "help(): every public module, class and function has its own docstring", undoc)
check(not unitless, "every public class with sizes says their unit (bytes) in its docstring", unitless)
h = a.incidents[0].differential[0]
check(getattr(h, "p", None) is not None and 0 < h.p <= 1 and h.score == h.p,
      "Hypothesis.p is the differential's probability (JSON \"p\")", h)


# --- python -m kgmem_diagnose is the CLI
for args in (["-q", REAL], ["--fail-on", "error", "--format", "github", REAL], ["--version"]):
    want = cli(args)
    got = subprocess.run([sys.executable, "-m", "kgmem_diagnose", "--no-progress", "--color", "never"] + args,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    check(got.returncode == want.returncode and got.stdout == want.stdout and got.stdout,
          "python -m kgmem_diagnose %s: the CLI's output and exit status %d" % (" ".join(args[:-1] or args), want.returncode),
          (got.returncode, got.stdout[:300], got.stderr[:300]))
if not installed:
    e = dict(ENV, KGMEM_DIAGNOSE_BIN=os.path.join(TMP, "none"))
    r = subprocess.run([sys.executable, "-m", "kgmem_diagnose", REAL], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=e)
    check(r.returncode == 127 and b"KGMEM_DIAGNOSE_BIN" in r.stderr,
          "python -m kgmem_diagnose without a binary: exit 127, says which", r.stderr)


# --- which exceptions the hooks treat as an OOM: exactly those the binary
# reads as an OOM incident, on every exception line of tests/oom/*.test
from kgmem_diagnose import _oomhook  # noqa: E402


class _TorchOOM(RuntimeError):
    pass


_fake_torch = type("torch", (), {"OutOfMemoryError": _TorchOOM, "cuda": None})
disagree, nlines = [], 0
for case in sorted(os.listdir(os.path.join(ROOT, "tests", "oom"))):
    if not case.endswith(".test"):
        continue
    for ln in open(os.path.join(ROOT, "tests", "oom", case), encoding="utf-8"):
        m = re.match(r"^(?:\[rank\d+\]: )?(RuntimeError|torch\.(?:cuda\.)?OutOfMemoryError): (.*)", ln.rstrip("\n"))
        if not m:
            continue
        nlines += 1
        exc = (RuntimeError if m.group(1) == "RuntimeError" else _TorchOOM)(m.group(2))
        r = cli(["--format", "jsonl", "-"], input=(m.group(0) + "\n").encode())
        kinds = {json.loads(x)["kind"] for x in r.stdout.decode().splitlines() if x.strip()}
        want = bool(kinds & {"oom", "oom-suspected"})
        if _oomhook.is_oom(exc, _fake_torch) != want:
            disagree.append((case, want, m.group(0)[:100]))
for msg in ("CUDA error: device-side assert triggered", "CUDA error: an illegal memory access was encountered",
            "Expected all tensors to be on the same device"):
    nlines += 1
    if _oomhook.is_oom(RuntimeError(msg), _fake_torch):
        disagree.append(("not an OOM", False, msg))
check(not disagree and nlines > 30,
      "is_oom() agrees with the binary on all %d exception lines of tests/oom/*.test "
      "and three non-OOM errors" % nlines, "\n".join(map(repr, disagree)))


# --- the torch hook, with real torch
def interpreter(module):
    for py in (os.environ.get("KGMEM_TEST_PYTHON"), sys.executable, "/usr/bin/python3"):
        if py and os.path.exists(py) and subprocess.run(
                [py, "-c", "import " + module], stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, env=ENV).returncode == 0:
            return py
    return None


# the real message of a real report (testdata/logs, line 3)
OOM_LINE = open(REAL, encoding="utf-8").read().splitlines()[2]
MSG = OOM_LINE.split("OutOfMemoryError: ", 1)[1]
# the CLI's verdict on that log ("error[capacity, medium]")
VERDICT = re.search(r"\b(?:error|warning)\[[^]]+\]", cli(["-q", REAL]).stdout.decode()).group(0)
# a real MPS message: the dev corpus record mps-0001 (tests/oom/mps.test)
MPS_MSG = next(ln.split("RuntimeError: ", 1)[1].rstrip("\n")
               for ln in open(os.path.join(ROOT, "tests/oom/mps.test"), encoding="utf-8")
               if ln.startswith("RuntimeError: MPS backend out of memory"))


def pyrun(py, code, cwd, env=None, state=True):
    """Runs `code` as cwd/prog.py in `env` (default ENV); with `state`,
    evidence goes to cwd/state/kgmem-diagnose (XDG_STATE_HOME=cwd/state)."""
    p = os.path.join(cwd, "prog.py")
    with open(p, "w") as f:
        f.write(code)
    env = dict(env or ENV)
    if state:
        env["XDG_STATE_HOME"] = os.path.join(cwd, "state")
    return subprocess.run([py, p], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd,
                          env=env, timeout=300)


def evidence(wd):
    """The evidence files of a pyrun() in wd: (names in the state dir,
    kgmem files left in wd itself)."""
    sd = os.path.join(wd, "state", "kgmem-diagnose")
    return (sorted(os.listdir(sd)) if os.path.isdir(sd) else [],
            [f for f in os.listdir(wd) if f.startswith("kgmem")])


# --- the hook's robustness (issue 34), with a RuntimeError carrying the real
# message (is_oom reads it; no torch needed): OOMs in threads (N10), an
# exception whose str() fails (N11), files never opened through planted
# links (N9), two hook directories on sys.path (N6)
MSG1 = open(REAL, encoding="utf-8").read().splitlines()[2].split("OutOfMemoryError: ", 1)[1]
VERDICT1 = re.search(r"\b(?:error|warning)\[[^]]+\]", cli(["-q", REAL]).stdout.decode()).group(0)
hd = "import os, sys, threading\nimport kgmem_diagnose.torch as kgt\nMSG = %r\n" % MSG1
wd = tempfile.mkdtemp(dir=TMP)
r = pyrun(sys.executable, hd + r"""
kgt.install(directory="ev")
t = threading.Thread(target=lambda: (_ for _ in ()).throw(RuntimeError(MSG)), name="worker")
t.start()
t.join()
print("main goes on")
""", wd)
err = r.stderr.decode()
evs = os.listdir(os.path.join(wd, "ev")) if os.path.isdir(os.path.join(wd, "ev")) else []
check(r.returncode == 0 and r.stdout == b"main goes on\n" and "Exception in thread worker" in err
      and err.find("Exception in thread") < err.find(VERDICT1) and len(evs) == 1,
      "install(): an OOM raised in a thread (threading.excepthook) prints its traceback, then the "
      "verdict, and writes the evidence", (r.stdout, err[-1500:]))
wd = tempfile.mkdtemp(dir=TMP)
r = pyrun(sys.executable, hd + r"""
class Weird(RuntimeError):
    def __str__(self):
        raise ValueError("str() fails")
try:
    with kgt.catch():
        raise Weird()
except Exception as e:
    print("caller sees", type(e).__name__)
kgt.install()
raise Weird()
""", wd)
err = r.stderr.decode()
check(r.stdout == b"caller sees Weird\n" and r.returncode == 1 and "Error in sys.excepthook" not in err
      and "Weird" in err and evidence(wd) == ([], []),
      "catch() and install() keep an exception whose str() fails as it is (no report, no "
      "'Error in sys.excepthook')", (r.stdout, err[-1500:]))
wd = tempfile.mkdtemp(dir=TMP)
r = pyrun(sys.executable, hd + r"""
from kgmem_diagnose import _oomhook
os.mkdir("ev")
open("victim.txt", "w").write("precious\n")
for n in range(1, 4):  # the names the next evidence files would take
    os.symlink(os.path.abspath("victim.txt"), "ev/kgmem-oom-%d-%d.log" % (os.getpid(), n))
open("ev/kgmem-oom-%d-4.log" % os.getpid(), "w").write("someone else's file\n")
try:
    with kgt.catch(directory="ev"):
        raise RuntimeError(MSG)
except RuntimeError:
    pass
os.symlink(os.path.abspath("victim.txt"), "ev/snap.pickle.tmp")
_oomhook.write_pickle({"segments": []}, "ev/snap.pickle")
d = _oomhook.SnapshotDumper("ev", "host-1")
os.symlink(os.path.abspath("victim.txt"), "ev/kgmem-oom-host-1-%d-1.pickle.tmp" % os.getpid())
print(sorted(os.listdir("ev")))
""", wd)
victim = open(os.path.join(wd, "victim.txt"), "rb").read().decode("utf-8", "replace")
pid_files = r.stdout.decode()
import pickle  # noqa: E402
snap_ok = False
try:
    snap_ok = pickle.load(open(os.path.join(wd, "ev", "snap.pickle"), "rb")) == {"segments": []}
except Exception:
    pass
ev5 = [f for f in os.listdir(os.path.join(wd, "ev")) if f.endswith("-5.log")] if os.path.isdir(
    os.path.join(wd, "ev")) else []
ev4 = [f for f in os.listdir(os.path.join(wd, "ev")) if f.endswith("-4.log")] if os.path.isdir(
    os.path.join(wd, "ev")) else []
check(victim == "precious\n" and snap_ok and len(ev5) == 1 and VERDICT1 in r.stderr.decode()
      and open(os.path.join(wd, "ev", ev5[0])).read().count(MSG1) >= 1
      and len(ev4) == 1 and "someone else's file" in open(os.path.join(wd, "ev", ev4[0])).read(),
      "evidence .log and snapshot .pickle.tmp files are never opened through symlinks or files "
      "planted at their names (O_EXCL|O_NOFOLLOW, mkstemp): the victim file is unchanged",
      (victim, snap_ok, pid_files, r.stderr[-800:]))
# N6: hooks/ twice on sys.path (under two names, and a second install's
# copy), ahead of a sitecustomize of the user's own
wd = tempfile.mkdtemp(dir=TMP)
os.symlink(os.path.join(ROOT, "hooks"), os.path.join(wd, "hooks-link"))
os.makedirs(os.path.join(wd, "other-install"))
for f in ("sitecustomize.py",):
    with open(os.path.join(ROOT, "hooks", f), "rb") as src, \
            open(os.path.join(wd, "other-install", f), "wb") as dst:
        dst.write(src.read())
os.makedirs(os.path.join(wd, "user"))
open(os.path.join(wd, "user", "sitecustomize.py"), "w").write("print('user sitecustomize')\n")
hooks_env = dict(ENV, KGMEM_SNAPSHOT_DIR=os.path.join(wd, "snaps"),
                 PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "hooks"), os.path.join(wd, "hooks-link"),
                                             os.path.join(wd, "other-install"), os.path.join(wd, "user")]
                                            + ([ENV["PYTHONPATH"]] if ENV.get("PYTHONPATH") else [])))
r = subprocess.run([sys.executable, "-c", "import sys; print(len(sys.meta_path))"],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=wd, env=hooks_env)
plain = subprocess.run([sys.executable, "-c", "import sys; print(len(sys.meta_path))"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=wd, env=ENV)
n_plain = int(plain.stdout.split()[-1])
check(r.returncode == 0 and r.stderr == b"" and r.stdout.decode().split() == ["user", "sitecustomize",
                                                                            str(n_plain + 1)],
      "sitecustomize: hooks/ on sys.path three times (itself, a symlink, another install's copy) "
      "loads once, no RecursionError; the user's own sitecustomize still runs once",
      (r.stdout, r.stderr[-600:], n_plain))


TPY = interpreter("torch")
if TPY is None:
    for what in ("catch()", "install()", "non-OOM", "MPS", "Lightning", "Lightning batch",
                 "Lightning eval batch", "HF", "HF batch", "HF eval batch"):
        skip("torch hook: " + what, "no Python here imports torch")
else:
    head = "import sys, torch\nimport kgmem_diagnose.torch as kgt\nMSG = %r\n" % MSG
    wd = tempfile.mkdtemp(dir=TMP)
    r = pyrun(TPY, head + r'''
@kgt.catch(step=41)
def train_step():
    x = torch.ones(8)
    raise torch.cuda.OutOfMemoryError(MSG)
try:
    train_step()
except torch.cuda.OutOfMemoryError as e:
    print("re-raised:", type(e).__name__, str(e) == MSG)
''', wd)
    err = r.stderr.decode()
    ev, in_wd = evidence(wd)
    evd = os.path.join(wd, "state", "kgmem-diagnose")
    evtext = open(os.path.join(evd, ev[0])).read() if ev else ""
    check(r.stdout == b"re-raised: OutOfMemoryError True\n" and VERDICT in err
          and re.search(r"[(, ]step 41\)", err) and "\n  help: " in err,
          "catch() as a decorator: a real torch.cuda.OutOfMemoryError prints the verdict "
          "(the CLI's cause and confidence, the step) and the action, and is re-raised",
          (r.stdout, err))
    check(len(ev) == 1 and ev[0].endswith(".log") and MSG in evtext and "step 41" in evtext
          and "Traceback (most recent call last)" in evtext and os.path.join(evd, ev[0]) in err
          and not in_wd and os.stat(os.path.join(evd, ev[0])).st_mode & 0o777 == 0o600
          and os.stat(evd).st_mode & 0o777 == 0o700,
          "catch(): the evidence file (message, traceback, step; mode 0600) is written to "
          "$XDG_STATE_HOME/kgmem-diagnose (0700), named, and nothing to the working directory",
          (ev, in_wd, err))
    catch_one = head + r'''
try:
    with kgt.catch():
        raise torch.cuda.OutOfMemoryError(MSG)
except torch.cuda.OutOfMemoryError:
    print("re-raised")
'''
    wd = tempfile.mkdtemp(dir=TMP)
    home = os.path.join(wd, "home")
    r = pyrun(TPY, catch_one, wd, env=dict(ENV, HOME=home), state=False)  # ~/.local/state
    sd = os.path.join(home, ".local", "state", "kgmem-diagnose")
    got = sorted(os.listdir(sd)) if os.path.isdir(sd) else []
    check(r.stdout == b"re-raised\n" and len(got) == 1 and os.path.join(sd, got[0]) in r.stderr.decode()
          and not [f for f in os.listdir(wd) if f.startswith("kgmem")],
          "without XDG_STATE_HOME the evidence goes to ~/.local/state/kgmem-diagnose, named in the "
          "report", (got, r.stderr[-600:]))

    if not installed:  # without a binary the evidence is still written and named
        wd = tempfile.mkdtemp(dir=TMP)
        e = dict(ENV, KGMEM_DIAGNOSE_BIN=os.path.join(TMP, "none"), KGMEM_EVIDENCE_DIR=os.path.join(wd, "ev"))
        r = pyrun(TPY, catch_one, wd, env=e, state=False)
        err = r.stderr.decode()
        ev = os.listdir(e["KGMEM_EVIDENCE_DIR"]) if os.path.isdir(e["KGMEM_EVIDENCE_DIR"]) else []
        check(r.stdout == b"re-raised\n" and "no verdict" in err and len(ev) == 1 and ev[0] in err,
              "catch() without a binary: no verdict, but the evidence file is written and named; "
              "re-raised", (r.stdout, err))

    wd = tempfile.mkdtemp(dir=TMP)
    r = pyrun(TPY, head + r'''
kgt.install(directory=sys.argv[0] + ".d")
kgt.set_step(7)
def forward():
    raise torch.cuda.OutOfMemoryError(MSG)
forward()
''', wd)
    err = r.stderr.decode()
    tb_at, verdict_at = err.find("Traceback (most recent call last)"), err.find(VERDICT)
    evd = os.path.join(wd, "prog.py.d")
    check(r.returncode == 1 and 0 <= tb_at < verdict_at and re.search(r"[(, ]step 7\)", err)
          and os.path.isdir(evd) and len(os.listdir(evd)) == 1 and evd in err,
          "install(): an uncaught OOM prints the traceback, then the verdict; exit 1; "
          "evidence in the named directory", (r.returncode, err))

    wd = tempfile.mkdtemp(dir=TMP)
    r = pyrun(TPY, head + r'''
kgt.install()
with kgt.catch():
    try:
        raise RuntimeError("CUDA error: an illegal memory access was encountered")
    except RuntimeError:
        pass
raise ValueError("not memory")
''', wd)
    check(r.returncode == 1 and b"kgmem-diagnose" not in r.stderr and b"ValueError" in r.stderr
          and evidence(wd) == ([], []),
          "other errors pass untouched: no report, no file", r.stderr)

    wd = tempfile.mkdtemp(dir=TMP)
    r = pyrun(TPY, head + "MPS = %r\n" % MPS_MSG + r'''
try:
    with kgt.catch():
        raise RuntimeError(MPS)
except RuntimeError:
    print("re-raised")
''', wd)
    err = r.stderr.decode()
    # the CLI's own verdict on the same message in a log
    mlog = os.path.join(wd, "mps.log")
    open(mlog, "w").write("RuntimeError: %s\n" % MPS_MSG)
    mv = re.search(r"\b(?:error|warning)\[[^]]+\]", cli(["-q", mlog]).stdout.decode())
    check(r.stdout == b"re-raised\n" and "MPS backend out of memory" in err and mv
          and mv.group(0) in err,
          "catch(): an MPS out-of-memory RuntimeError is diagnosed and re-raised", (r.stdout, err))

    # Lightning's Callback.on_exception(trainer, pl_module, exception) and the
    # HF Trainer's events (args, state, control, **kwargs): stand-ins with
    # those signatures (neither library is installed here)
    wd = tempfile.mkdtemp(dir=TMP)
    r = pyrun(TPY, head + r'''
from types import SimpleNamespace
from kgmem_diagnose.lightning import KgmemDiagnoseCallback
class Trainer:
    global_step = 1200
    accumulate_grad_batches = 2
    state = SimpleNamespace(stage="train")
    datamodule = SimpleNamespace(batch_size=8)
cb = KgmemDiagnoseCallback()
try:
    raise torch.cuda.OutOfMemoryError(MSG)
except torch.cuda.OutOfMemoryError as e:
    cb.on_exception(Trainer(), object(), e)
cb.on_exception(Trainer(), object(), ValueError("no"))
''', wd)
    err = r.stderr.decode()
    check(r.returncode == 0 and VERDICT in err and re.search(r"[(, ]step 1200\)", err)
          and err.count(VERDICT) == 1,
          "lightning.KgmemDiagnoseCallback.on_exception reports an OOM with trainer.global_step "
          "(stand-in trainer)", err)
    # the Trainer's own batch and accumulation reach the action, and the
    # full-report command carries them (issue 32 item 6)
    check("from 8 to 4" in err and "accumulation to 4" in err
          and "--set config.grad_accum_steps=2 --set config.train_batch_size=8 --set job.mode=train" in err,
          "lightning: the datamodule's batch_size 8 and accumulate_grad_batches 2 give the action "
          "'from 8 to 4', accumulation to 4; the full-report command passes them", err)
    wd = tempfile.mkdtemp(dir=TMP)
    r = pyrun(TPY, head + r'''
from types import SimpleNamespace
from kgmem_diagnose.lightning import KgmemDiagnoseCallback
class Trainer:
    global_step = 1200
    accumulate_grad_batches = 2
    state = SimpleNamespace(stage="validate")
    val_dataloaders = [SimpleNamespace(batch_size=16)]
try:
    raise torch.cuda.OutOfMemoryError(MSG)
except torch.cuda.OutOfMemoryError as e:
    KgmemDiagnoseCallback().on_exception(Trainer(), SimpleNamespace(hparams={}), e)
''', wd)
    err = r.stderr.decode()
    check("evaluation batch from 16 to 8" in err and "accumulation" not in err.split("kgmem-diagnose: evidence")[0],
          "lightning: in the validate stage the action is the evaluation batch of the val "
          "DataLoader, from 16 to 8, with no gradient accumulation", err)
    # a Trainer's arguments (TrainingArguments) and its events, stand-ins
    hf_head = head + r'''
from types import SimpleNamespace
from kgmem_diagnose.hf import KgmemDiagnoseCallback
cb = KgmemDiagnoseCallback()
args = SimpleNamespace(per_device_train_batch_size=8, gradient_accumulation_steps=2,
                       per_device_eval_batch_size=16)
control, state = SimpleNamespace(), SimpleNamespace(global_step=300)
'''
    wd = tempfile.mkdtemp(dir=TMP)
    r = pyrun(TPY, hf_head + r'''
cb.on_train_begin(args, SimpleNamespace(global_step=0), control)
cb.on_step_begin(args, state, control, model=None)
raise torch.cuda.OutOfMemoryError(MSG)
''', wd)
    err = r.stderr.decode()
    check(r.returncode == 1 and VERDICT in err and re.search(r"[(, ]step 300\)", err),
          "hf.KgmemDiagnoseCallback: on_train_begin installs the hook, the step is "
          "TrainerState.global_step (stand-in trainer)", err)
    check("from 8 to 4" in err and "accumulation to 4" in err,
          "hf: per_device_train_batch_size 8 and gradient_accumulation_steps 2 give the action "
          "'from 8 to 4', accumulation to 4", err)
    wd = tempfile.mkdtemp(dir=TMP)
    r = pyrun(TPY, hf_head + r'''
cb.on_train_begin(args, state, control)
cb.on_step_begin(args, state, control)
cb.on_step_end(args, state, control)
cb.on_prediction_step(args, state, control)
raise torch.cuda.OutOfMemoryError(MSG)
''', wd)
    err = r.stderr.decode()
    check("evaluation batch from 16 to 8" in err and "accumulation" not in err.split("kgmem-diagnose: evidence")[0],
          "hf: after on_prediction_step the action is the evaluation batch, from 16 to 8, with no "
          "gradient accumulation", err)

# --- the IPython extension, in a real IPython process
IPY = interpreter("IPython, torch")
if IPY is None:
    skip("IPython extension", "no Python here imports IPython and torch")
else:
    cells = "\n".join([
        # a custom exception handler of the user's own, set before
        "def my_handler(self, etype, value, tb, tb_offset=None):",
        "    print('MY HANDLER', etype.__name__)",
        "",
        "get_ipython().set_custom_exc((ValueError,), my_handler)",
        "raise ValueError('mine, before')",
        "%load_ext kgmem_diagnose",
        "raise ValueError('mine, loaded')",
        "import sys, weakref, torch",
        "MSG = %r" % MSG,
        "REF = []",
        "def train_step():",
        "    activations = torch.ones(1000)",
        "    REF.append(weakref.ref(activations))",
        "    raise torch.cuda.OutOfMemoryError(MSG)",
        "",
        "train_step()",
        "print('alive after OOM:', REF[0]() is not None)",
        "%kgmem_release",
        "print('alive after release:', REF[0]() is not None)",
        "raise RuntimeError('CUDA error: device-side assert triggered')",
        "%unload_ext kgmem_diagnose",
        "raise torch.cuda.OutOfMemoryError(MSG)",
        "raise ValueError('mine, unloaded')",
        "print('done')",
        ""])
    wd = tempfile.mkdtemp(dir=TMP)
    r = subprocess.run([IPY, "-m", "IPython", "--no-banner", "--colors=NoColor", "--simple-prompt",
                        "--TerminalInteractiveShell.term_title=False",
                        "--HistoryManager.enabled=False"],
                       input=cells.encode(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       cwd=wd, env=ENV, timeout=300)
    out = r.stdout.decode("utf-8", "replace")
    tb = out.find("OutOfMemoryError                          Traceback")
    v = out.find(VERDICT)
    note = out.find("sys.last_traceback")
    check(0 <= tb < v < note and "\n  help: " in out and "%kgmem_release" in out,
          "IPython: an OOM in a cell prints the traceback, then the verdict, the action and "
          "what keeps the cell's tensors alive", out[-3000:])
    check("alive after OOM: True" in out and "alive after release: False" in out,
          "IPython: the failed cell's tensor stays alive after the OOM; %kgmem_release frees it",
          out[-1500:])
    rel = re.search(r"^kgmem_release: cleared (.*)$", out, re.M)
    check(rel is not None and "sys.last_traceback" in rel.group(1) and "gc.collect() freed" in rel.group(1)
          and ("CUDA is not initialised" in rel.group(1) or "reserved" in rel.group(1)),
          "IPython: %kgmem_release says what it released (the references, the objects collected, "
          "the device memory)", rel.group(0) if rel else out[-1500:])
    check(out.count("MY HANDLER ValueError") == 3 and "Custom TB Handler failed" not in out,
          "IPython: a custom exception handler set before %load_ext keeps handling its exceptions "
          "while the extension is loaded, and after %unload_ext", out[-2500:])
    check(out.count(VERDICT) == 1 and "device-side assert" in out and "done" in out,
          "IPython: another error prints as usual; after %unload_ext an OOM is not diagnosed",
          out[-1500:])

subprocess.run(["rm", "-rf", TMP])
tap.done()

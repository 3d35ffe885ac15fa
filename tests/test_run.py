#!/usr/bin/env python3
"""`kgmem-diagnose run`: pass-through, exit statuses, signals, the OOM
report, NVML evidence (fake libnvidia-ml.so.1), JSON Lines, and the
--snapshot-on-oom hook (chaining, no-op without torch, a simulated CUDA
torch that dumps a snapshot). Prints TAP.

usage: test_run.py EXE FAKE_NVML_DIR SOURCE_ROOT [FAULTINJ_SO]
"""
import json
import re
import os
import pty
import select
import signal
import subprocess
import sys
import tempfile
import time
import tty

EXE, NVML_DIR, ROOT = sys.argv[1], sys.argv[2], sys.argv[3]
FAULTINJ = sys.argv[4] if len(sys.argv) > 4 else ""  # tests/faultinj.c (LD_PRELOAD)
PY = sys.executable
TMP = tempfile.mkdtemp(prefix="kg-test-run.")
OOM_LOG = os.path.join(os.path.abspath(ROOT), "testdata/logs/real-mr-0010-rank1-linear.log")
n = 0
failed = 0


def check(cond, what, detail=""):
    global n, failed
    n += 1
    print("%sok %d - %s" % ("" if cond else "not ", n, what))
    if not cond:
        failed += 1
        for line in str(detail).splitlines()[:20]:
            print("#   " + line)
    sys.stdout.flush()


def env(**kw):
    e = dict(os.environ)
    e.pop("LD_LIBRARY_PATH", None)
    e.update(kw)
    return e


def run(args, **kw):
    kw.setdefault("env", env())
    return subprocess.run([EXE, "run"] + args, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=120, **kw)


def script(name, text):
    p = os.path.join(TMP, name)
    with open(p, "w") as f:
        f.write(text)
    return p


# --- byte-exact pass-through: 100,000 lines to each stream, interleaved,
# with invalid UTF-8, CRLF, ANSI, a long line and no final newline
chatty = script("chatty.py", r'''
import os, sys
o, e = sys.stdout.buffer, sys.stderr.buffer
for i in range(100000):
    o.write(b"out %d \xff\xfe caf\xc3\xa9 \x1b[32mgreen\x1b[0m\r\n" % i)
    e.write(b"err %d progress %d%%\r" % (i, i % 100) + (b"\n" if i % 3 else b""))
    if i % 1000 == 0:
        o.flush(); e.flush()
o.write(b"x" * 300000 + b"\n")
o.write(b"no newline at the end"); o.flush()
e.write(b"err tail"); e.flush()
''')
direct = subprocess.run([PY, chatty], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
wrapped = run(["--", PY, chatty])
check(wrapped.returncode == 0, "pass-through child exits 0", wrapped.returncode)
check(wrapped.stdout == direct.stdout and len(direct.stdout) > 3000000,
      "100,000 stdout lines byte-identical (%d bytes)" % len(direct.stdout))
check(wrapped.stderr == direct.stderr and len(direct.stderr) > 2000000,
      "100,000 stderr lines interleaved with stdout byte-identical (%d bytes)" % len(direct.stderr),
      wrapped.stderr[-300:])

# --- to regular files (a Slurm --output file): CMD writes into them
# directly, the wrapper reads them on the side
def to_files(args, same):
    o = open(os.path.join(TMP, "f.out"), "wb")
    e = o if same else open(os.path.join(TMP, "f.err"), "wb")
    r = subprocess.run(args, stdout=o, stderr=e, env=env(), timeout=120)
    o.close()
    e.close()
    eb = b"" if same else open(os.path.join(TMP, "f.err"), "rb").read()
    return r.returncode, open(os.path.join(TMP, "f.out"), "rb").read(), eb


d_rc, d_out, _ = to_files([PY, chatty], True)
w_rc, w_out, _ = to_files([EXE, "run", "--", PY, chatty], True)
check(w_rc == 0 and w_out == d_out and len(d_out) > 5000000,
      "stdout and stderr on one file (2>&1): the file is byte-identical (%d bytes)" % len(d_out))
d_rc, d_out, d_err = to_files([PY, chatty], False)
w_rc, w_out, w_err = to_files([EXE, "run", "--", PY, chatty], False)
check(w_out == d_out and w_err == d_err, "stdout and stderr on two files: both byte-identical")
appended = os.path.join(TMP, "appended.log")
with open(appended, "wb") as f:
    f.write(open(OOM_LOG, "rb").read())
with open(appended, "ab") as f:
    r = subprocess.run([EXE, "run", "--", "sh", "-c", "echo clean run"], stdout=f, stderr=f, env=env())
check(r.returncode == 0 and open(appended, "rb").read() == open(OOM_LOG, "rb").read() + b"clean run\n",
      "appending to a log that already holds an OOM: only this run's output is diagnosed")

# --- exit statuses
for code in (0, 1, 3, 137, 255):
    r = run(["--", "sh", "-c", "exit %d" % code])
    check(r.returncode == code and r.stderr == b"", "exit status %d passed on" % code,
          (r.returncode, r.stderr))
r = run(["--", "sh", "-c", "kill -TERM $$"])
check(r.returncode == 128 + signal.SIGTERM, "killed by SIGTERM: 143", r.returncode)
r = run(["--", "sh", "-c", "kill -KILL $$"])
check(r.returncode == 137, "killed by SIGKILL: 137", r.returncode)
r = run(["--", os.path.join(TMP, "no-such-command")])
check(r.returncode == 127 and b"No such file" in r.stderr and r.stderr.count(b"\n") == 1,
      "command not found: 127, one line", r.stderr)
r = run(["--", TMP])
check(r.returncode == 126, "command not executable: 126", (r.returncode, r.stderr))
r = run([])
check(r.returncode == 2 and b"no command" in r.stderr, "no command: usage error 2", r.stderr)
r = run(["--bogus", "--", "true"])
check(r.returncode == 2 and b"unknown option '--bogus'" in r.stderr, "unknown option: 2", r.stderr)
r = run(["--label", "novalue", "--", "true"])
check(r.returncode == 2, "--label without = : 2", r.stderr)
r = run(["--format", "yaml", "--", "true"])
check(r.returncode == 2, "bad --format: 2", r.stderr)
r = run(["--", "sh", "-c", "echo a; echo b >&2", "--report", "x"])
check(r.returncode == 0 and r.stdout == b"a\n" and r.stderr == b"b\n"
      and not os.path.exists("x"), "options after CMD are CMD's", (r.stdout, r.stderr))
r = run(["--help"])
check(r.returncode == 0 and b"--snapshot-on-oom" in r.stdout, "run --help", r.stdout[:200])

# --- signals: SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 to the wrapper reach
# the child's group
trap = script("trap.py", r'''
import os, signal, sys, time, subprocess
got = []
def h(s, f):
    sys.stdout.write("child got %s\n" % signal.Signals(s).name); sys.stdout.flush()
    sys.exit(7)
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2):
    signal.signal(s, h)
sys.stdout.write("ready\n"); sys.stdout.flush()
time.sleep(60)
''')
for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2):
    p = subprocess.Popen([EXE, "run", "--", PY, trap], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env())
    first = p.stdout.readline()
    p.send_signal(sig)
    try:
        out, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    name = signal.Signals(sig).name
    check(first == b"ready\n" and out == ("child got %s\n" % name).encode() and p.returncode == 7,
          "%s to the wrapper reaches the child; its exit status 7 comes back" % name,
          (first, out, err, p.returncode))
# the whole group: a grandchild gets it too
grand = script("grand.sh", 'sleep 60 & echo "$!"; wait\n')
p = subprocess.Popen([EXE, "run", "--", "sh", grand], stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, env=env())
gpid = int(p.stdout.readline())
p.send_signal(signal.SIGTERM)
out, err = p.communicate(timeout=30)
time.sleep(0.2)
try:
    # a zombie waiting for a reaper counts as gone
    alive = open("/proc/%d/stat" % gpid).read().rsplit(")", 1)[1].split()[0] != "Z"
except OSError:
    alive = False
check(not alive and p.returncode == 143, "SIGTERM reaches the child's process group (grandchild gone)",
      (alive, p.returncode))
# a background grandchild holding the pipes open does not keep us waiting
t0 = time.time()
r = run(["--", "sh", "-c", "sleep 30 & echo done"])
check(r.returncode == 0 and r.stdout == b"done\n" and time.time() - t0 < 20,
      "a background grandchild holding stdout does not delay the exit",
      (r.returncode, time.time() - t0))

# issue 26: output of a process that outlives CMD is passed on (within the
# 2 s the wrapper waits after CMD exits) and the process is not killed by
# SIGPIPE
t0 = time.time()
r = subprocess.run("'%s' run -- sh -c '(sleep 1; echo late) & echo early; exit 0' | cat" % EXE,
                   shell=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60, env=env())
check(r.returncode == 0 and r.stdout == b"early\nlate\n" and time.time() - t0 < 10,
      "a background process's output after CMD exits is passed on (| cat)", (r.stdout, r.stderr, time.time() - t0))
late = script("late.sh", '(sleep 1; echo late-err >&2; echo late-out) &\necho early\n')
r = run(["--", "sh", late])
check(r.returncode == 0 and r.stdout == b"early\nlate-out\n" and r.stderr == b"late-err\n",
      "… on both streams, in order", (r.stdout, r.stderr))

# issue 26: a closed stderr (2>&-) does not become the capture file: --log
# holds each line once
logc = os.path.join(TMP, "closed-stderr.log")
for closing, seen, what in (("2>&-", "stdout", "stderr closed (2>&-)"),
                            ("<&- >&-", "stderr", "stdin and stdout closed")):
    r = subprocess.run(["sh", "-c", 'exec "$@" ' + closing, "sh", EXE, "run", "--log", logc, "--",
                        "sh", "-c", "echo to-err >&2; echo to-out"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60, env=env())
    kept = open(logc).read() if os.path.exists(logc) else ""
    passed = getattr(r, seen) == (b"to-out\n" if seen == "stdout" else b"to-err\n")
    check(r.returncode == 0 and sorted(kept.splitlines()) == ["to-err", "to-out"] and passed,
          "run with %s: --log has each line once" % what, (r.returncode, kept, r.stdout, r.stderr))

# --- a terminal: the child gets a pseudo-terminal, bytes unchanged
ttyprog = script("tty.py", r'''
import os, sys
sys.stdout.write("isatty=%d\n" % os.isatty(1)); sys.stdout.flush()
os.write(1, b"a\nb\r\n\x1b[1mbold\x1b[0m\n")
os.write(2, b"stderr isatty=%d\n" % os.isatty(2))
''')
m, s = pty.openpty()
tty.setraw(s)
p = subprocess.Popen([EXE, "run", "--", PY, ttyprog], stdin=subprocess.DEVNULL, stdout=s,
                     stderr=subprocess.PIPE, env=env())
os.close(s)
buf = b""
while True:
    try:
        d = os.read(m, 65536)
    except OSError:
        break
    if not d:
        break
    buf += d
p.wait(timeout=30)
err = p.stderr.read()
os.close(m)
check(buf == b"isatty=1\na\nb\r\n\x1b[1mbold\x1b[0m\n",
      "stdout on a terminal: the child sees a terminal, bytes pass unchanged", buf)
check(err == b"stderr isatty=0\n", "stderr to a pipe stays a pipe", err)

# --- at an interactive shell: the child is the terminal's foreground job,
# Ctrl-Z stops the job, fg resumes it, Ctrl-C reaches the child directly
def job_control():
    import select
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp("bash", ["bash", "--norc", "--noprofile", "-i"])
    buf = [b""]

    def expect(pat, timeout=30):
        end = time.time() + timeout
        while time.time() < end:
            r, _, _ = select.select([fd], [], [], 0.2)
            if r:
                try:
                    d = os.read(fd, 4096)
                except OSError:
                    return False
                buf[0] += d
                if pat in buf[0]:
                    buf[0] = buf[0][buf[0].index(pat) + len(pat):]
                    return True
        return False
    try:
        os.write(fd, b"PS1='$ '\n")
        steps = [expect(b"$ ")]
        os.write(fd, b"%s run -- %s -c 'import time,sys; print(\"started\", sys.stdin.isatty()); "
                 b"sys.stdout.flush(); time.sleep(60)'\n" % (EXE.encode(), PY.encode()))
        steps.append(expect(b"started True"))
        time.sleep(0.3)
        os.write(fd, b"\x1a")
        steps.append(expect(b"Stopped"))
        os.write(fd, b"fg\n")
        time.sleep(1)
        os.write(fd, b"\x03")
        steps.append(expect(b"KeyboardInterrupt"))
        os.write(fd, b"echo rc=$?\n")
        steps.append(expect(b"rc=130"))
        os.write(fd, b"exit\n")
        return steps, buf[0]
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        os.waitpid(pid, 0)
        os.close(fd)


if os.path.exists("/bin/bash"):
    steps, rest = job_control()
    check(all(steps), "interactive shell: the child reads a terminal, Ctrl-Z stops the job, fg resumes it, "
          "Ctrl-C reaches the child, exit 130", (steps, rest[-300:]))
else:
    print("ok %d - # SKIP bash not installed" % (n + 1))
    n += 1

# --- an OOM: diagnosis on stderr, JSON report, NVML absent → a note
oomprog = script("oom.sh", 'echo "step 10 loss 1.0"\ncat "%s" >&2\nexit 1\n' % OOM_LOG)
rep = os.path.join(TMP, "r.json")
r = run(["--report", rep, "--", "sh", oomprog])
check(r.returncode == 1, "OOM child's status 1 passed on", r.returncode)
check(r.stderr.startswith(open(OOM_LOG, "rb").read()), "the child's stderr comes first, unchanged")
check(b"== kgmem-diagnose: out of memory ==" in r.stderr and re.search(rb"<output>:4: error\[[a-z-]+, [a-z]+\]: CUDA out of memory", r.stderr),
      "the diagnosis follows on stderr", r.stderr[-1500:])
check(b"NVML not available" in r.stderr, "without NVML the text report says so")
try:
    d = json.load(open(rep))
except Exception as e:
    d = {}
    check(False, "--report is JSON", e)
run_o = d.get("run", {})
check(d.get("schema") == "kgmem-diagnose/1" and len(d.get("incidents", [])) == 1,
      "--report: schema kgmem-diagnose/1, one incident", str(d)[:300])
check(run_o.get("command") == ["sh", oomprog] and run_o.get("exit_code") == 1
      and run_o.get("signal") is None, "run.command, run.exit_code", run_o)
ev = run_o.get("readings", [{}])
check(len(ev) == 1 and ev[0].get("trigger") == "oom-message"
      and ev[0].get("line") == d["incidents"][0]["location"]["line"] == 4,
      "run.readings: one reading, at the incident's line", ev)
check(ev[0]["gpu"]["available"] is False and "NVML not available" in (ev[0]["gpu"]["note"] or ""),
      "run.readings[0].gpu: not available, with the note", ev[0].get("gpu"))
check(any("NVML not available" in x for x in d.get("notes", [])), "notes say NVML was not available")
check(d["incidents"][0]["location"]["path"] == "<output>" and d["inputs"][0]["path"] == "<output>",
      "the captured output is named <output>", d.get("inputs"))

# with a (fake) NVML: GPU processes and device memory at the moment
r = run(["--report", rep, "--format", "json", "--", "sh", oomprog],
        env=env(LD_LIBRARY_PATH=NVML_DIR, FAKE_NVML_PID="1"))
d = json.load(open(rep))
g = d["run"]["readings"][0]["gpu"]
check(g["available"] is True and len(g["devices"]) == 2 and g["devices"][0]["total_bytes"] == 42949672960,
      "with NVML: devices and their memory recorded", g)
check(len(g["processes"]) == 2 and g["processes"][0]["pid"] == 1 and g["processes"][0]["name"],
      "with NVML: compute processes with names from /proc/PID/comm", g["processes"])
tail = r.stderr[len(open(OOM_LOG, "rb").read()):]
try:
    sd = json.loads(tail)
except Exception as e:
    sd = {}
check(sd.get("run", {}).get("readings", [{}])[0].get("gpu", {}).get("available") is True,
      "--format json: the diagnosis on stderr is the JSON report", tail[:300])

# the readings are evidence (issue 31 item 9): a process outside the run
# holding 28 GiB of the 40 GiB device names parallelism; a device only the
# run uses counts against it
oom0 = script("oom0.sh", 'echo "step 10 loss 1.0"\necho "torch.OutOfMemoryError: CUDA out of memory. '
               'Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 40.00 GiB of which 96.00 MiB is free. '
               'Of the allocated memory 25.00 GiB is allocated by PyTorch, and 1.00 GiB is reserved by PyTorch '
               'but unallocated." >&2\nexit 1\n')
r = run(["--report", rep, "--", "sh", oom0], env=env(LD_LIBRARY_PATH=NVML_DIR))
d = json.load(open(rep))
inc = d["incidents"][0]
procs = d["run"]["readings"][0]["gpu"]["processes"]
check(inc["cause"] == "parallelism" and any(f["rule"] == "parallelism.run-others" for f in inc["findings"])
      and procs[0]["of_run"] is False,
      "NVML at the OOM: a process outside the run holding 28 GiB is evidence for parallelism",
      (inc.get("cause"), [f["rule"] for f in inc["findings"]], procs))
r = run(["--report", rep, "--", "sh", oom0], env=env(LD_LIBRARY_PATH=NVML_DIR, FAKE_NVML_PID="self",
                                                        FAKE_NVML_ONE="1"))
d = json.load(open(rep))
inc = d["incidents"][0]
check(d["run"]["readings"][0]["gpu"]["processes"][0]["of_run"] is True
      and any(f["rule"] == "parallelism.run-alone" for f in inc["findings"]) and inc["cause"] != "parallelism",
      "NVML at the OOM: only the run's own process on the device counts against parallelism",
      (inc.get("cause"), [f["rule"] for f in inc["findings"]]))

# the same OOM through a regular file (2>&1)
with open(os.path.join(TMP, "oom.out"), "wb") as f:
    r = subprocess.run([EXE, "run", "--report", rep, "--", "sh", oomprog], stdout=f, stderr=f, env=env())
d = json.load(open(rep))
text = open(os.path.join(TMP, "oom.out"), "rb").read()
check(r.returncode == 1 and d["run"]["readings"][0]["line"] == d["incidents"][0]["location"]["line"] == 4
      and text.startswith(b"step 10 loss 1.0\n" + open(OOM_LOG, "rb").read())
      and b"== kgmem-diagnose: out of memory ==" in text,
      "to a regular file: the OOM is seen live, the diagnosis follows in the file", (r.returncode, d.get("run")))

# no OOM: nothing added to stderr; --report still written
r = run(["--report", rep, "--", "sh", "-c", "echo fine"])
d = json.load(open(rep))
check(r.stderr == b"" and d["incidents"] == [] and d["run"]["exit_code"] == 0,
      "a clean run: no diagnosis on stderr, --report with the run", (r.stderr, d.get("run")))

# a real host OOM: a memory cgroup with a 64 MiB limit (v2 memory.max, or v1
# memory.limit_in_bytes) below ours; the kernel's OOM killer kills the child
def limited_cgroup():
    """A new memory cgroup below this process's, limited to 64 MiB:
    (its directory, the file to write a pid into), or (None, why)."""
    if os.geteuid() != 0:
        return None, "not root"
    lines = open("/proc/self/cgroup").read().splitlines()
    for ln in lines:
        num, ctl, path = ln.split(":", 2)
        if num == "0" and ctl == "":
            base = "/sys/fs/cgroup" + path.rstrip("/")
            if os.path.exists(base + "/memory.events") and \
               "memory" in open(base + "/cgroup.subtree_control").read().split():
                d = base + "/kgmem-test-%d" % os.getpid()
                try:
                    os.mkdir(d)
                    open(d + "/memory.max", "w").write("67108864")
                    open(d + "/memory.swap.max", "w").write("0") if os.path.exists(d + "/memory.swap.max") else None
                    return d, None
                except OSError as e:
                    return None, "cgroup v2: %s" % e
    for ln in lines:
        num, ctl, path = ln.split(":", 2)
        if "memory" in ctl.split(","):
            d = "/sys/fs/cgroup/memory" + path.rstrip("/") + "/kgmem-test-%d" % os.getpid()
            try:
                os.mkdir(d)
                open(d + "/memory.limit_in_bytes", "w").write("67108864")
                return d, None
            except OSError as e:
                return None, "cgroup v1: %s" % e
    return None, "no writable memory cgroup"


cg, why = limited_cgroup()
made = cg
if cg:
    try:
        hog = 'x = bytearray(512 * 1024 * 1024); print(len(x))'
        def enter():
            with open(cg + "/cgroup.procs", "w") as f:
                f.write(str(os.getpid()))
        try:
            r = subprocess.run([EXE, "run", "--report", rep, "--", PY, "-c", hog], preexec_fn=enter,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env(), timeout=120)
            d = json.load(open(rep))
        except subprocess.TimeoutExpired:
            raise
        except subprocess.SubprocessError as e:  # could not enter the cgroup
            cg, why = None, "cannot enter the cgroup: %s" % e
            raise
        check(r.returncode == 137 and d["run"]["signal"] == "SIGKILL" and d["run"]["oom_kill_during_run"] == 1
              and d["run"]["readings"][-1]["trigger"] == "exit",
              "a real host OOM kill in a 64 MiB cgroup: 137, oom_kill_during_run 1, a reading at exit",
              (r.returncode, d.get("run", {}).get("oom_kill_during_run"), r.stderr[-400:]))
        check(b"host out of memory" in r.stderr and b"OOM killer fired 1 time" in r.stderr
              and b"diagnosis:" not in r.stderr,
              "… and the diagnosis on stderr says the kernel's OOM killer fired", r.stderr[-600:])
        incs = d.get("incidents", [])
        check(len(incs) == 1 and incs[0]["family"] == "oom_killer" and incs[0]["cause"] == "host-oom"
              and "host-oom.run-cgroup-kill" in [f["rule"] for f in incs[0]["findings"]]
              and "oom_kill 0 -> 1" in incs[0]["message"] and b"no out-of-memory incident" not in r.stderr,
              "… the kill is the report's incident (no OOM line in the output): host-oom from the cgroup's count",
              [(i.get("family"), i.get("cause"), i.get("message")) for i in incs])
    except subprocess.SubprocessError:
        if cg:  # a time-out, not a refusal
            check(False, "a real host OOM kill: the wrapper did not finish within 120 s")
    finally:
        for _ in range(50):
            try:
                os.rmdir(made)
                break
            except OSError:
                time.sleep(0.1)
if not cg:
    for what in ("a real host OOM kill", "… its diagnosis", "… its incident"):
        n += 1
        print("ok %d - %s # SKIP %s" % (n, what, why))

# --fail-on on top of the child's status, only when asked
oom0 = script("oom0.sh", 'cat "%s"\nexit 0\n' % OOM_LOG)
r = run(["--", "sh", oom0])
check(r.returncode == 0, "OOM printed, child exits 0: exit 0 without --fail-on", r.returncode)
r = run(["--fail-on", "error", "--", "sh", oom0])
check(r.returncode == 1, "… and 1 with --fail-on error", r.returncode)
r = run(["--fail-on", "error", "--", "sh", "-c", 'cat "$0"; exit 5', OOM_LOG])
check(r.returncode == 5, "--fail-on never masks the child's own failure", r.returncode)

# --label: JSON Lines appended, one per run
spool = os.path.join(TMP, "spool.jsonl")
for rank in ("0", "1"):
    run(["--report", spool, "--label", "job=42", "--label", "rank=" + rank, "--", "sh", oom0])
lines = open(spool).read().splitlines()
ok = len(lines) == 2
try:
    objs = [json.loads(x) for x in lines]
    ok = ok and [o["run"]["labels"] for o in objs] == [{"job": "42", "rank": "0"}, {"job": "42", "rank": "1"}]
except Exception:
    ok = False
check(ok, "--label: one JSON line per run, appended, with the labels", lines[:2])

# issue 26: a record is appended whole or not at all: a short write (the
# disk filling mid-record, by the fault shim) leaves no partial line for the
# next record to be glued onto
def faulty(fault, **kw):
    return env(LD_PRELOAD=FAULTINJ, KGMEM_FAULT=fault,
               ASAN_OPTIONS=(os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0").lstrip(":"), **kw)
spool2 = os.path.join(TMP, "spool2.jsonl")
run(["--report", spool2, "--label", "rank=0", "--", "sh", oom0])
r1 = run(["--report", spool2, "--label", "rank=1", "--", "sh", oom0], env=faulty("write:1:short:spool2"))
run(["--report", spool2, "--label", "rank=2", "--", "sh", oom0])
lines = open(spool2).read().splitlines()
try:
    ranks = [json.loads(x)["run"]["labels"]["rank"] for x in lines]
except Exception as e:
    ranks = repr(e)
check(FAULTINJ and r1.returncode == 3 and b"spool2.jsonl" in r1.stderr and ranks == ["0", "2"],
      "--label spool: a short write leaves no partial line; the next record is whole",
      (r1.returncode, r1.stderr[-300:], ranks, [x[:60] for x in lines]))

# issue 26: --report FILE is replaced atomically: a failed write (the
# fault shim) keeps the previous report whole
rep3 = os.path.join(TMP, "atomic.json")
run(["--report", rep3, "--", "sh", oom0])
before = open(rep3, "rb").read()
r = run(["--report", rep3, "--", "sh", "-c", "echo no oom here"], env=faulty("write:1:fail:" + TMP))
after = open(rep3, "rb").read()
leftover = [x for x in os.listdir(TMP) if x.startswith("atomic.json.")]
check(FAULTINJ and r.returncode == 3 and after == before and json.loads(after).get("incidents")
      and not leftover and r.stderr.count(b"atomic.json") == 1,
      "--report: a failed write keeps the previous report whole, names the file once",
      (r.returncode, r.stderr[-300:], len(before), len(after), leftover))
os.chmod(rep3, 0o640)
r = run(["--report", rep3, "--", "sh", "-c", "echo fine"])
check(r.returncode == 0 and json.loads(open(rep3).read()).get("incidents") == []
      and os.stat(rep3).st_mode & 0o777 == 0o640, "--report: replaced whole, keeping its mode",
      (r.returncode, oct(os.stat(rep3).st_mode)))
fifo = os.path.join(TMP, "report.fifo")
os.mkfifo(fifo)
reader = subprocess.Popen(["timeout", "20", "cat", fifo], stdout=subprocess.PIPE)
r = run(["--report", fifo, "--", "sh", "-c", "echo fine"])
got = reader.communicate(timeout=30)[0]
check(r.returncode == 0 and os.path.exists(fifo) and not os.path.isfile(fifo) and b'"schema"' in got,
      "--report FIFO: written in place, still a FIFO", (r.returncode, got[:80]))

# --log keeps the output; the report names it
logf = os.path.join(TMP, "kept.log")
r = run(["--log", logf, "--report", rep, "--", "sh", oomprog])
d = json.load(open(rep))
check(open(logf, "rb").read() == b"step 10 loss 1.0\n" + open(OOM_LOG, "rb").read()
      and d["run"]["log"] == logf, "--log FILE keeps the captured output", d["run"].get("log"))
r = run(["--report", os.path.join(TMP, "no/such/dir/r.json"), "--", "true"])
check(r.returncode == 3 and b"--report" in r.stderr, "unwritable --report after a clean run: 3",
      (r.returncode, r.stderr))

# --- the Python hook
hookenv = env()
hookenv.pop("PYTHONPATH", None)
snap = os.path.join(TMP, "snaps")
prog = script("plain.py", 'import sys\nprint("hello", sorted(m for m in ("torch",) if m in sys.modules))\n')
nohook = subprocess.run([PY, prog], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=hookenv)
r = run(["--snapshot-on-oom", snap, "--", PY, prog], env=hookenv)
check(r.returncode == 0 and r.stdout == nohook.stdout and r.stderr == nohook.stderr,
      "hook: a program without torch behaves as without the hook", (r.stdout, r.stderr))
check(os.path.isdir(snap) and os.listdir(snap) == [], "hook: DIR created, nothing dumped")
# an existing sitecustomize still runs
other = os.path.join(TMP, "other")
os.mkdir(other)
script("other/sitecustomize.py", 'import sys\nsys.stderr.write("site hook ran\\n")\n')
r = run(["--snapshot-on-oom", snap, "--", PY, prog], env=dict(hookenv, PYTHONPATH=other))
check(r.stderr == b"site hook ran\n" and r.stdout == nohook.stdout,
      "hook: an existing sitecustomize on PYTHONPATH is chained", r.stderr)

# a simulated CUDA torch: the observer dumps a snapshot the wrapper reads
fake = os.path.join(TMP, "faketorch")
os.makedirs(os.path.join(fake, "torch"))
script("faketorch/torch/__init__.py", r'''
import types, sys
cuda = types.ModuleType("torch.cuda"); memory = types.ModuleType("torch.cuda.memory")
_C = types.ModuleType("torch._C")
state = {"recording": False, "observer": None}
def _lazy_call(f): f()  # CUDA "already initialised"
def _record_memory_history(*a, **k): state["recording"] = True
def _snapshot():
    return {"segments": [{"device": 0, "address": 1 << 30, "total_size": 2097152,
                          "allocated_size": 1048576, "active_size": 1048576,
                          "requested_size": 1048576, "stream": 0, "segment_type": "small",
                          "blocks": [{"size": 1048576, "requested_size": 1048576,
                                      "state": "active_allocated", "address": 1 << 30},
                                     {"size": 1048576, "state": "inactive", "address": (1 << 30) + 1048576}]}],
            "device_traces": [[]]}
def _cuda_attach_out_of_memory_observer(f): state["observer"] = f
cuda._lazy_call = _lazy_call; cuda.memory = memory
memory._record_memory_history = _record_memory_history; memory._snapshot = _snapshot
_C._cuda_attach_out_of_memory_observer = _cuda_attach_out_of_memory_observer
sys.modules["torch.cuda"] = cuda; sys.modules["torch.cuda.memory"] = memory; sys.modules["torch._C"] = _C
''')
train = script("train.py", r'''
import sys, torch
print("recording", torch.state["recording"], "observer", torch.state["observer"] is not None)
sys.stdout.flush()
if torch.state["observer"]:
    torch.state["observer"](0, 20971520, 0, 0)
sys.stderr.write(open(sys.argv[1]).read())
sys.exit(1)
''')
shutil_snap = os.path.join(TMP, "snaps2")
rep2 = os.path.join(TMP, "r2.json")
os.mkdir(shutil_snap)
# another rank's snapshot in the shared DIR
foreign = "kgmem-oom-otherhost-1-2-1.pickle"
open(os.path.join(shutil_snap, foreign), "wb").write(
    open(os.path.join(ROOT, "testdata/snapshots/cs336-transformer-fullstep.pickle"), "rb").read())
r = run(["--snapshot-on-oom", shutil_snap, "--report", rep2, "--", PY, train, OOM_LOG],
        env=dict(hookenv, PYTHONPATH=fake))
dumped = sorted(x for x in os.listdir(shutil_snap) if x != foreign)
check(r.stdout == b"recording True observer True\n",
      "hook: once torch is imported, memory history is recorded and the OOM observer attached", r.stdout)
check(len(dumped) == 1 and dumped[0].startswith("kgmem-oom-") and dumped[0].endswith(".pickle"),
      "hook: the observer dumped the snapshot into DIR", dumped)
d = json.load(open(rep2)) if os.path.exists(rep2) else {}
kinds = [i.get("kind") for i in d.get("inputs", [])]
check(kinds.count("snapshot") == 1 and d.get("run", {}).get("snapshot_dir") == shutil_snap
      and b"diagnosis:" not in r.stderr,
      "the wrapper read its own snapshot into the diagnosis, not another rank's", (kinds, r.stderr[-500:]))

# Debian's CPU-only torch, when installed: a no-op (nothing queued runs, no dump)
if os.path.exists("/usr/lib/python3/dist-packages/torch/__init__.py") and os.path.exists("/usr/bin/python3"):
    tprog = script("cpu.py", 'import torch\nx = torch.ones(3) * 2\nprint(x.tolist(), torch.cuda.is_available(), torch.cuda.is_initialized())\n')
    base = subprocess.run(["/usr/bin/python3", tprog], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=hookenv)
    snap3 = os.path.join(TMP, "snaps3")
    r = run(["--snapshot-on-oom", snap3, "--", "/usr/bin/python3", tprog], env=hookenv)
    check(r.returncode == 0 and r.stdout == base.stdout == b"[2.0, 2.0, 2.0] False False\n"
          and r.stderr == base.stderr and os.listdir(snap3) == [],
          "hook with CPU-only torch: same output, CUDA not initialised, no dump", (r.stdout, r.stderr[-300:]))
else:
    print("ok %d - # SKIP python3-torch (Debian, CPU-only) not installed" % (n + 1))
    n += 1

# issue 26: a relative --snapshot-on-oom DIR is the wrapper's DIR even when
# the program changes directory before its OOM
relwd = os.path.join(TMP, "relwd")
os.makedirs(os.path.join(relwd, "elsewhere"))
train_cd = script("train_cd.py", r'''
import os, sys, torch
os.chdir(sys.argv[2])
if torch.state["observer"]:
    torch.state["observer"](0, 20971520, 0, 0)
sys.stderr.write(open(sys.argv[1]).read())
sys.exit(1)
''')
rep4 = os.path.join(TMP, "r4.json")
r = run(["--snapshot-on-oom", "snaps-rel", "--report", rep4, "--", PY, train_cd, OOM_LOG, "elsewhere"],
        env=dict(hookenv, PYTHONPATH=fake), cwd=relwd)
here = os.listdir(os.path.join(relwd, "snaps-rel")) if os.path.isdir(os.path.join(relwd, "snaps-rel")) else []
d = json.load(open(rep4)) if os.path.exists(rep4) else {}
kinds = [i.get("kind") for i in d.get("inputs", [])]
check(len(here) == 1 and kinds.count("snapshot") == 1
      and d.get("run", {}).get("snapshot_dir") == os.path.join(relwd, "snaps-rel"),
      "a relative --snapshot-on-oom DIR: the snapshot lands there though the program changed directory, and is read",
      (here, kinds, d.get("run", {}).get("snapshot_dir"), r.stderr[-300:]))
# an OOM but no snapshot (not a torch program): said, not silent
r = run(["--snapshot-on-oom", os.path.join(TMP, "snaps5"), "--", "sh", oom0])
check(b"--snapshot-on-oom" in r.stderr and b"no snapshot" in r.stderr,
      "an OOM with --snapshot-on-oom and no snapshot written: said so", r.stderr[-400:])

# --- issue 34 (an outside tester's second round)
# N2: a line over 1 MiB (a tqdm bar of \r updates on stdout, no \n for 15
# minutes) is ended in the capture file where it is cut, so the OOM logged
# on stderr meanwhile is a line of its own and is found
tq = script("tqdm_oom.py", r'''
import sys, logging
n = int(sys.argv[1])
for i in range(n):
    sys.stdout.write("\r%3d%%|%s| %d/%d [00:%02d<00:10, 11.2it/s]" % (i*100//n, "#"*(i*40//n), i, n, i%60)); sys.stdout.flush()
logging.basicConfig(format="%(asctime)s %(levelname)s %(message)s")
logging.error("step 812: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.11 GiB of which 1.00 GiB is free. Including non-PyTorch memory, this process has 78.00 GiB memory in use. Of the allocated memory 70.00 GiB is allocated by PyTorch, and 7.00 GiB is reserved by PyTorch but unallocated.")
sys.exit(1)
''')
rep_tq, cap_tq = os.path.join(TMP, "tq.json"), os.path.join(TMP, "tq.log")
r = run(["--report", rep_tq, "--log", cap_tq, "--", PY, tq, "20000"])
d = json.load(open(rep_tq)) if os.path.exists(rep_tq) else {}
caplines = open(cap_tq, "rb").read().split(b"\n") if os.path.exists(cap_tq) else []
oomline = [l for l in caplines if b"OutOfMemoryError" in l]
check(r.returncode == 1 and d.get("summary", {}).get("incidents") == 1,
      "an OOM on stderr after a 1.2 MB tqdm bar on stdout is found", (r.returncode, d.get("summary"), r.stderr[-300:]))
check(len(r.stdout) > 1048576 and max(len(l) for l in caplines) <= 1048576 and len(oomline) == 1
      and oomline[0].startswith(b"20"),
      "the capture file: the bar cut at 1 MiB with a line end, the OOM line whole on a line of its own",
      [len(l) for l in caplines])

# N4: a signal while the output is diagnosed after CMD exited: the wrapper
# finishes (--report written, CMD's status), and the capture file in TMPDIR
# is gone, even after SIGKILL. The report goes to a FIFO, so the wrapper
# is held in its last step until the test reads it.
def late_signals(sigs):
    td = tempfile.mkdtemp(dir=TMP)
    fifo = os.path.join(td, "report.fifo")
    os.mkfifo(fifo)
    errf = open(os.path.join(td, "err"), "wb")
    p = subprocess.Popen([EXE, "run", "--report", fifo, "--", "sh", "-c", 'cat "%s" >&2; exit 5' % OOM_LOG],
                         stdout=subprocess.DEVNULL, stderr=errf, env=env(TMPDIR=td))
    time.sleep(1.5)  # CMD has exited; the wrapper waits for a reader of the FIFO
    for s in sigs:
        os.kill(p.pid, s)
        time.sleep(0.1)
    time.sleep(0.3)
    alive = p.poll() is None
    left = [f for f in os.listdir(td) if f.startswith("kgmem-run.")]
    data = b""
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    t0 = time.time()
    while time.time() - t0 < 20:
        rd, _, _ = select.select([fd], [], [], 0.2)
        chunk = os.read(fd, 65536) if rd else None
        if chunk:
            data += chunk
        elif p.poll() is not None:
            break
    os.close(fd)
    try:
        p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    errf.close()
    try:
        rep = json.loads(data)
    except ValueError:
        rep = {}
    return alive, p.returncode, rep, left
alive, rc, rep, left = late_signals([signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGUSR1])
check(alive and rc == 5 and rep.get("run", {}).get("exit_code") == 5 and rep.get("summary", {}).get("incidents") == 1
      and left == [],
      "SIGTERM, SIGHUP, SIGINT, SIGUSR1 after CMD exited: the report is written, exit status 5, no capture file left",
      (alive, rc, rep.get("run", {}).get("exit_code"), left))
alive, rc, rep, left = late_signals([signal.SIGKILL])
check(rc == -signal.SIGKILL and left == [], "SIGKILL to the wrapper after CMD exited leaves no capture file in TMPDIR",
      (rc, left))

# N5: --snapshot-on-oom DIR is a name, not a glob pattern, and only regular
# files at this run's snapshot names are read: a FIFO planted there does not
# hang the wrapper
planter = script("plant.py", r'''
import os, sys
d, tag = os.environ["KGMEM_SNAPSHOT_DIR"], os.environ["KGMEM_SNAPSHOT_TAG"]
os.mkfifo(os.path.join(d, "kgmem-oom-%s-1-1.pickle" % tag))
sys.stderr.write(open(sys.argv[1]).read())
sys.exit(1)
''')
fifodir = os.path.join(TMP, "snaps-fifo")
try:
    r = subprocess.run([EXE, "run", "--snapshot-on-oom", fifodir, "--", PY, planter, OOM_LOG],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=hookenv, timeout=30)
    hung = False
except subprocess.TimeoutExpired:
    hung = True
check(not hung and r.returncode == 1 and b"not a regular file" in r.stderr and b"error[" in r.stderr,
      "a FIFO at the run's snapshot name: skipped with a note, the wrapper exits with CMD's status",
      "hung 30 s" if hung else (r.returncode, r.stderr[-400:]))
for name in ("sn[1]", "sn*", "a b", "-dash"):
    sd = os.path.join(TMP, "globs", name)
    os.makedirs(sd)
    rep_g = os.path.join(TMP, "globs", "r.json")
    r = run(["--snapshot-on-oom", sd, "--report", rep_g, "--", PY, train, OOM_LOG], env=dict(hookenv, PYTHONPATH=fake))
    d = json.load(open(rep_g)) if os.path.exists(rep_g) else {}
    kinds = [i.get("kind") for i in d.get("inputs", [])]
    paths = [i.get("path", "") for i in d.get("inputs", [])]
    check(len(os.listdir(sd)) == 1 and kinds.count("snapshot") == 1 and b"no snapshot" not in r.stderr
          and any(p.startswith(sd + "/kgmem-oom-") for p in paths),
          "--snapshot-on-oom %r: the snapshot written there is read, under its own name" % name,
          (os.listdir(sd), kinds, paths, r.stderr[-300:]))
    if os.path.exists(rep_g):
        os.unlink(rep_g)

# N15: notes name the captured output <output>, never the deleted
# $TMPDIR/kgmem-run.* file (nor the descriptor it is read through)
seedlog = os.path.join(os.path.abspath(ROOT), "testdata/logs/seed-001-rotate-eval.log")
rep_n = os.path.join(TMP, "notes.json")
r = run(["--report", rep_n, "--", "sh", "-c", 'cat "%s" >&2; exit 1' % seedlog])
d = json.load(open(rep_n)) if os.path.exists(rep_n) else {}
notes = d.get("notes", [])
check(any(x.startswith("<output>:1: the log names the config") for x in notes)
      and b"kgmem-run." not in r.stderr + open(rep_n, "rb").read()
      and b"/proc/self/fd" not in r.stderr + open(rep_n, "rb").read(),
      "notes name <output>, not the capture file", notes)

subprocess.run(["rm", "-rf", TMP])
print("1..%d" % n)
sys.exit(1 if failed else 0)

#!/usr/bin/env python3
"""The action and the verdict on every real input the repository holds
(issue 32), each input in every output format.

  verdicts.py EXE ROOT [--list] [--modes-from EXE2]

The inputs: every log of testdata/logs, testdata/gpu, testdata/fail-on and
testdata/multi (with its FILE.args, as the goldens run it, --diff and
--apply left out), every record of testdata/cases/dev-causes.jsonl and
testdata/corpus/dev.jsonl, and every message of tests/oom/*.test. Each
runs in six formats: text, text --verbose, json, sarif, markdown, github.
The JSON report says what each incident is (its mode, cause, confidence,
action, findings); the other formats are checked against it.

  void        no remedy sets a value to the one in force: no "from N to N"
              in any remedy of any finding, nor on any line of any format
  mode        where the job does not train (mode eval, serve or load), no
              remedy of the incident names gradient accumulation, and no
              format's output does when all its incidents are such
  ruled-out   no remedy of an incident is one that a finding of the same
              incident says cannot help (RULED_OUT: what each such
              finding's message says, as a pattern over remedy texts)
  one-verdict an incident is one SARIF result, one GitHub annotation and
              one Markdown section, each at the incident's severity; a
              finding for a hypothesis that is not the incident's cause
              (or that the differential rules out) is an error nowhere:
              not in JSON, SARIF, Markdown nor the --verbose text
  agree       text, SARIF, Markdown and GitHub say the JSON's cause,
              confidence and action (the instruction) for every incident
  differential the text's differential line reads as a distribution: its
              numbers add up to 1 (within the rounding of two decimals)
  fail-on     an input with a line that says out of memory in an error's
              words (an `…Error:`/`…Exception:`, `error:`, `ERROR`,
              `FATAL` before it) never exits 0 under --fail-on warning

--list prints one line per incident (input, mode, verdict, action) and
nothing else. --modes-from EXE2: take each incident's mode from EXE2's
JSON (to count an older build's violations, which has no mode). Prints
TAP otherwise; a failure lists the offending inputs.
"""
import concurrent.futures
import glob
import gzip
import json
import os
import re
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden import run  # noqa: E402
from tap import check, done  # noqa: E402

FORMATS = {"text": ["--color", "never", "--width", "0"], "verbose": ["--color", "never", "--width", "0", "-v"],
           "json": ["--format", "json"], "sarif": ["--format", "sarif"],
           "markdown": ["--format", "markdown"], "github": ["--format", "github"]}

# "from 8 to 8": a setting to the value it has
SAME = re.compile(r"\bfrom\s+`?(\d[\d,.]*)`?\s+to\s+`?\1`?(?![\d,.]*\d)")
# a remedy that names gradient accumulation (not HF's eval_accumulation_steps)
ACCUM = re.compile(r"(?i)gradient[ _]accumulation|grad_accum|accumulate_grad_batches|accumulation steps")
# a remedy that makes a batch smaller
SMALLER_BATCH = re.compile(r"(?i)\b(?:halve|lower|reduce|smaller|shrink)\b[^.;]{0,40}\b(?:micro-?)?batch\b")
DEVICE_SIDE = re.compile(SMALLER_BATCH.pattern + r"|PYTORCH_CUDA_ALLOC_CONF|expandable_segments")

# What a finding says cannot help, as a pattern over the text of a remedy
# (title, instruction, code): the finding's own message says it.
RULED_OUT = {
    # "The run fails with a batch size of 1: a smaller batch cannot help."
    "activation-peak.batch-one": SMALLER_BATCH,
    "eval-blowup.batch-one": SMALLER_BATCH,
    # "host memory (CPU RAM), not the GPU: GPU settings and batch sizes on
    # the device will not change it"
    "host-oom.host-ram": DEVICE_SIDE,
    "host-oom.memory-limit": DEVICE_SIDE,
    "host-oom.killed": DEVICE_SIDE,
    "host-oom.shared-memory": DEVICE_SIDE,
    "host-oom.shared-memory-refused": DEVICE_SIDE,
}

# an out-of-memory line in an error's words
OOM_WORDS = re.compile(r"(?i)out[ _-]?of[ _-]?memory|outofmemory|\boom\b|oom-kill|oomkilled|resource_?exhausted")
ERROR_WORDS = re.compile(r"(?:\w*(?:Error|Exception)|\b(?:error|ERROR|FATAL|fatal))\s*[:\]]")


def inputs(root):
    """(name, args, stdin) for every input."""
    out = []
    for d in ("testdata/logs", "testdata/gpu", "testdata/fail-on", "testdata/multi"):
        for p in sorted(glob.glob(os.path.join(root, d, "*"))):
            if p.endswith((".txt", ".json", ".args", ".md", ".svg", ".yaml", ".orig")):
                continue
            args = []
            if os.path.exists(p + ".args"):
                args = [a for a in shlex.split(open(p + ".args").read())
                        if a not in ("--diff", "--apply")]
            rel = os.path.relpath(p, root)
            out.append((rel, args + [rel], None))
    for jl in ("testdata/cases/dev-causes.jsonl", "testdata/corpus/dev.jsonl"):
        for line in open(os.path.join(root, jl), encoding="utf-8"):
            if line.strip():
                rec = json.loads(line)
                out.append((rec["id"], ["-"], rec["text"].encode()))
    for t in sorted(glob.glob(os.path.join(root, "tests/oom/*.test"))):
        text, title, k = None, None, 0
        for line in open(t, encoding="utf-8"):
            if text is None and line.startswith("<<< "):
                text, title = [], line[4:].strip()
            elif text is not None and line.rstrip("\n") == ">>>":
                k += 1
                out.append((f"{os.path.basename(t)}#{k} {title}", ["-"], "\n".join(text).encode()))
                text = None
            elif text is not None:
                text.append(line.rstrip("\n"))
    return out


def input_text(args, stdin):
    """The input's text (a directory's files joined), for the fail-on check."""
    if stdin is not None:
        return stdin.decode("utf-8", "replace")
    path = args[-1]
    files = [path] if os.path.isfile(path) else sorted(glob.glob(os.path.join(path, "**", "*"), recursive=True))
    parts = []
    for f in files:
        if not os.path.isfile(f):
            continue
        data = open(f, "rb").read()
        if f.endswith(".gz"):
            try:
                data = gzip.decompress(data)
            except (OSError, EOFError):
                pass
        parts.append(data.decode("utf-8", "replace"))
    return "\n".join(parts)


def diagnose(exe, case):
    name, args, stdin = case
    outs = {}
    for fmt, opts in FORMATS.items():
        outs[fmt] = run(exe, opts + args, stdin)[1]
    text = input_text(args, stdin)
    failon = None
    if any(OOM_WORDS.search(ln) and ERROR_WORDS.search(ln) for ln in text.splitlines()):
        failon = run(exe, ["--fail-on", "warning", "-q"] + args, stdin)[0]
    return outs, failon


def remedy_texts(rem):
    return [rem.get("title") or "", rem.get("instruction") or "", rem.get("code") or ""]


def shown_remedies(inc):
    """(rule, remedy) of every remedy of the incident, its action last."""
    rems = [(f.get("rule"), r) for f in inc.get("findings", []) for r in f.get("remedies", [])]
    act = inc.get("action") or {}
    if act:
        rems.append(("action", act))
    return rems


def remedy_violations(inc, mode, where):
    """void, mode and ruled-out, on one JSON incident."""
    bad = []
    ruled = [(f["rule"], RULED_OUT[f["rule"]]) for f in inc.get("findings", []) if f.get("rule") in RULED_OUT]
    for rule, r in shown_remedies(inc):
        for t in remedy_texts(r):
            if SAME.search(t):
                bad.append(f"{where}: void ({rule}): {t[:160]}")
            if mode in ("eval", "serve", "load") and ACCUM.search(t):
                bad.append(f"{where}: mode {mode}, gradient accumulation ({rule}): {t[:160]}")
            for by, pat in ruled:
                if by != rule and pat.search(t):
                    bad.append(f"{where}: {by} rules it out ({rule}): {t[:160]}")
    return bad


def not_the_cause(inc, f):
    """Whether finding f is evidence for a hypothesis that is not the
    incident's verdict (another cause, or one the differential rules out)."""
    sup = f.get("supports")
    if not sup:
        return False
    out = {h["cause"] for h in inc.get("differential", []) if h.get("ruled_out")}
    return sup in out or bool(inc.get("cause") and sup != inc["cause"])


def unescape_md(s):
    return re.sub(r"\\(.)", r"\1", s)


def gh_unescape(s):
    return s.replace("%0A", "\n").replace("%0D", "\r").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


def format_checks(name, doc, outs):
    """one-verdict and agree: the other formats against the JSON."""
    bad, agree = [], []
    incs = doc.get("incidents", [])
    # --- SARIF: one result per incident, at its severity, its verdict
    try:
        sarif = json.loads(outs["sarif"])
        results = sarif["runs"][0].get("results", [])
    except (ValueError, KeyError, IndexError):
        return [f"{name}: SARIF does not parse"], []
    if len(results) != len(incs):
        bad.append(f"{name}: {len(incs)} incidents, {len(results)} SARIF results")
    # --- GitHub: one annotation per incident
    ann = [ln for ln in outs["github"].splitlines() if ln.startswith(("::error ", "::warning ", "::notice file", "::notice title=CUDA"))
           and not ln.startswith("::notice title=kgmem-diagnose input note")]
    if len(ann) != len(incs):
        bad.append(f"{name}: {len(incs)} incidents, {len(ann)} GitHub annotations")
    # --- Markdown: one section per incident
    secs = re.split(r"(?m)^### Incident \d+ — ", outs["markdown"])[1:]
    if len(secs) != len(incs):
        bad.append(f"{name}: {len(incs)} incidents, {len(secs)} Markdown sections")
    # --- text: line 1 and line 2 of each incident
    tlines = outs["text"].splitlines()
    heads = [i for i, ln in enumerate(tlines) if re.search(r": (?:error|warning)\[[^]]*\]: ", ln)
             and not ln.startswith(" ")]
    vlines = outs["verbose"].splitlines()
    vheads = [i for i, ln in enumerate(vlines) if re.search(r": (?:error|warning)\[[^]]*\]: ", ln)
              and not ln.startswith(" ")]
    for k, inc in enumerate(incs):
        where = f"{name} #{inc['id']}"
        sev = inc.get("severity")
        cause, conf = inc.get("cause"), inc.get("confidence")
        act = (inc.get("action") or {}).get("instruction")
        verdict = f"{cause}, {conf}" if cause else "undetermined"
        words = f"{cause}, {conf} confidence" if cause else "cause undetermined"
        # JSON itself: no finding for another hypothesis at error
        for f in inc.get("findings", []):
            if f.get("severity") == "error" and not_the_cause(inc, f):
                bad.append(f"{where}: JSON shows {f['rule']} (for {f.get('supports')}, not the verdict) as an error")
        # text
        ok = k < len(heads) and f": {sev}[{verdict}]: " in tlines[heads[k]]
        if act:
            ok = ok and heads[k] + 1 < len(tlines) and tlines[heads[k] + 1] == "  help: " + act
        agree.append((where, "text", ok))
        if k < len(vheads):
            end = vheads[k + 1] if k + 1 < len(vheads) else len(vlines)
            for ln in vlines[vheads[k]:end]:
                m = re.match(r"  error: .* \[([\w.-]+)\]$", ln)
                f = next((f for f in inc.get("findings", []) if m and f.get("rule") == m.group(1)), None)
                if f is not None and not_the_cause(inc, f):
                    bad.append(f"{where}: --verbose shows {f['rule']} (not the verdict) as an error")
        # SARIF
        if k < len(results):
            res = results[k]
            props = res.get("properties", {})
            msg = res.get("message", {}).get("text", "")
            ok = (res.get("level") == sev and props.get("cause") == cause and props.get("confidence") == conf
                  and props.get("action") == act and f"[{words}]" in msg.split("\n", 1)[0]
                  and (not act or f"\nhelp: {act}\n" in msg + "\n"))
            agree.append((where, "sarif", ok))
            for f in props.get("findings", []):
                if f.get("severity") == "error" and not_the_cause(inc, f):
                    bad.append(f"{where}: SARIF shows {f['rule']} (not the verdict) as an error")
        # GitHub
        if k < len(ann):
            line = ann[k]
            m = re.match(r"::(\w+) (.*?)title=(.*?)::(.*)$", line)
            ok = bool(m) and m.group(1) == sev and gh_unescape(m.group(3)).endswith(f"[{words}]")
            if ok and act:
                helps = [ln for ln in gh_unescape(m.group(4)).split("\n") if ln.startswith("help: ")]
                ok = bool(helps) and helps[0] == "help: " + act
            agree.append((where, "github", ok))
        # Markdown
        if k < len(secs):
            sec = secs[k]
            head = sec.split("\n", 1)[0]
            ok = head.endswith(f" — {sev}: {words}")
            if act:
                m = re.search(r"(?m)^\*\*What to do:\*\* (.*)$", sec)
                ok = ok and bool(m) and unescape_md(m.group(1)) == act
            agree.append((where, "markdown", ok))
            for m in re.finditer(r"(?m)^    - \*\*error\*\* .*? `([\w.-]+)`", sec):
                f = next((f for f in inc.get("findings", []) if f.get("rule") == m.group(1)), None)
                if f is not None and not_the_cause(inc, f):
                    bad.append(f"{where}: Markdown shows {f['rule']} (not the verdict) as an error")
    return bad, agree


def differential_sum(name, outs):
    bad = []
    for ln in outs["text"].splitlines():
        if ln.startswith("  = differential: "):
            ps = [float(x) for x in re.findall(r"(?:^|· )[\w-]+ (\d\.\d\d|1|0)\b", ln[len("  = differential: "):])]
            small = len(re.findall(r" <0\.01", ln))
            big = len(re.findall(r" >0\.99", ln))
            total = sum(ps) + 0.99 * big
            if not (abs(total - 1) <= 0.011 + 0.005 * small or big):
                bad.append(f"{name}: the differential adds up to {total:.2f}: {ln.strip()}")
    return bad


def main():
    exe, root = os.path.abspath(sys.argv[1]), sys.argv[2]
    listing = "--list" in sys.argv
    modes_from = sys.argv[sys.argv.index("--modes-from") + 1] if "--modes-from" in sys.argv else None
    os.chdir(root)
    cases = inputs(root)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(2, os.cpu_count() or 1))) as ex:
        results = list(ex.map(lambda c: diagnose(exe, c), cases))
    remedy_bad, verdict_bad, diff_bad, failon_bad, agree = [], [], [], [], []
    n_incidents, n_failon = 0, 0
    for (name, args, stdin), (outs, failon) in zip(cases, results):
        try:
            doc = json.loads(outs["json"])
        except ValueError:
            verdict_bad.append(f"{name}: JSON does not parse")
            continue
        incs = doc.get("incidents", [])
        modes = [inc.get("mode") for inc in incs]
        if modes_from:
            other = json.loads(run(os.path.abspath(modes_from), ["--format", "json"] + args, stdin)[1])
            modes = [i.get("mode") for i in other.get("incidents", [])] + [None] * len(incs)
        for inc, mode in zip(incs, modes):
            n_incidents += 1
            where = f"{name} #{inc['id']}"
            if listing:
                act = (inc.get("action") or {}).get("instruction", "-")
                verdict = f"{inc.get('cause')}/{inc.get('confidence')}" if inc.get("cause") else "undetermined"
                print(f"{where}\t{mode}\t{verdict}\t{act[:150]}")
                continue
            remedy_bad += remedy_violations(inc, mode, where)
        if listing:
            continue
        # every format's lines: no "from N to N"; no gradient accumulation
        # where no incident trains
        quiet_modes = incs and all(m in ("eval", "serve", "load") for m in modes[:len(incs)])
        for fmt, out in outs.items():
            for ln in out.splitlines():
                if SAME.search(ln):
                    remedy_bad.append(f"{name} ({fmt}): void: {ln.strip()[:160]}")
                if quiet_modes and ACCUM.search(ln) and fmt != "json":
                    remedy_bad.append(f"{name} ({fmt}): mode {modes[0]}, gradient accumulation: {ln.strip()[:160]}")
        b, a = format_checks(name, doc, outs)
        verdict_bad += b
        agree += a
        diff_bad += differential_sum(name, outs)
        if failon is not None:
            n_failon += 1
            if failon == 0:
                failon_bad.append(f"{name}: an out-of-memory line in an error's words, exit 0 under --fail-on warning")
    if listing:
        return
    runs = len(cases) * len(FORMATS)
    print(f"# {len(cases)} inputs x {len(FORMATS)} formats = {runs} reports, {n_incidents} incidents")
    check(not remedy_bad, f"void, mode and ruled-out: no remedy sets a value to the one in force, none names "
          f"gradient accumulation where the job does not train, none is one a finding of its incident rules "
          f"out ({n_incidents} incidents, {len(cases)} inputs x {len(FORMATS)} formats; {len(remedy_bad)} violations)",
          "\n".join(remedy_bad[:80]))
    check(not verdict_bad, f"one verdict: one SARIF result, one GitHub annotation, one Markdown section per "
          f"incident; no finding for another hypothesis shown as an error ({len(verdict_bad)} violations)",
          "\n".join(verdict_bad[:80]))
    wrong = [f"{w} ({fmt})" for w, fmt, ok in agree if not ok]
    check(not wrong, f"text, SARIF, Markdown and GitHub agree with JSON on cause, confidence and action "
          f"({len(agree)} incident-format pairs; {len(wrong)} disagree)", "\n".join(wrong[:80]))
    check(not diff_bad, f"the differential line adds up to 1 ({len(diff_bad)} do not)", "\n".join(diff_bad[:40]))
    check(not failon_bad, f"--fail-on warning exits 1 on every input with an out-of-memory line in an error's "
          f"words ({n_failon} inputs; {len(failon_bad)} exit 0)", "\n".join(failon_bad[:40]))
    done()


if __name__ == "__main__":
    main()

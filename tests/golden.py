#!/usr/bin/env python3
"""Golden-output tests for kgmem-diagnose (run by meson; python3 is always
present where meson is).

  golden.py corpus EXE dev.jsonl
      Runs EXE --format json on every record of the dev corpus
      (testdata/corpus/dev.jsonl, real OOM messages from public trackers) and
      checks that every `expect` value appears in the first incident, that
      every record except the memory_summary tables and the non-OOM warning
      oth-0005 yields at least one incident, and that those yield none.

  golden.py logs EXE DIR [--bless]
      For each DIR/*.log (and *.log.gz), compares `EXE --color never FILE`
      with FILE.txt and `EXE --format json FILE` with FILE.json (options
      from FILE.args, if present, go before FILE; only the
      keys present in the expected file are compared, so additive schema
      fields do not break old goldens). Files named clean-*.log must give
      zero incidents. --bless rewrites the expected files. Each log's text
      report (without --diff) must also be verdict first (DIAGNOSIS §6):
      at most 15 lines at 100 columns per incident (the notes about the
      input, printed after the incidents, not counted; so are the lines
      summing up each snapshot or memory_summary input), line 1 the verdict
      of the first incident, each incident's first line its verdict (with the OOM line's time stamp when it has one),
      line 2 the action when the cause has a remedy (for an undetermined
      cause, the missing-evidence finding's), each remedy once per
      incident; -q one line per incident and nothing else (nothing for a
      clean log); --verbose every finding's rule id. Every log's --format
      jsonl output parses line by line: one object per incident, equal to
      that incident of --format json.

  golden.py snapshots EXE DIR [--bless]
      For each DIR/*.pickle and *.pickle.gz, compares `EXE snapshot FILE`
      with FILE.txt and `EXE snapshot --format json FILE` with FILE.json
      (only the keys present in the expected file; --bless rewrites the
      text and creates the JSON when absent, as for logs).

Prints TAP.
"""
import json
import os
import subprocess
import sys
import tempfile

NO_INCIDENT = {"oth-0005"}          # DeepSpeed cache-flush warning: not an OOM
NOT_YET = {"memory_summary"}        # tables: snapshot view, not incidents

n = 0
failed = 0


def tap(ok, what, detail=None):
    global n, failed
    n += 1
    print(("ok" if ok else "not ok"), n, "-", what)
    if not ok:
        failed += 1
        if detail:
            for line in str(detail).splitlines():
                print("#  ", line)


def run(exe, args, stdin=None):
    env = dict(os.environ)
    env.pop("NO_COLOR", None)
    env.pop("CI", None)
    # the goldens are the UTF-8 report (bars and glyphs): the locale decides
    # between it and the ASCII one (kg_locale_utf8), so fix it
    env["LC_ALL"] = "C.UTF-8"
    p = subprocess.run([exe] + args, input=stdin, capture_output=True, env=env, timeout=120)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def lookup(inc, path):
    cur = inc
    for part in path.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            return KeyError(path)
    return cur


def norm_procs(v):
    if not isinstance(v, list):
        return v
    return sorted((json.dumps(x, sort_keys=True) for x in v))


def corpus(exe, jsonl):
    values = 0
    values_ok = 0
    with open(jsonl, encoding="utf-8") as f:
        records = [json.loads(line) for line in f if line.strip()]
    for rec in records:
        with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False, encoding="utf-8") as t:
            t.write(rec["text"] + "\n")
            path = t.name
        try:
            rc, out, err = run(exe, ["--format", "json", path])
        finally:
            os.unlink(path)
        rid = rec["id"]
        try:
            doc = json.loads(out)
        except ValueError as e:
            tap(False, f"{rid}: JSON output", f"rc={rc} {e}\n{err}")
            continue
        incs = doc.get("incidents", [])
        if rid in NO_INCIDENT or rec["family"] in NOT_YET:
            tap(len(incs) == 0, f"{rid}: no incident ({rec['family']})",
                f"got {len(incs)} incidents")
            continue
        tap(rc == 0 and len(incs) >= 1, f"{rid}: detected as an incident", f"rc={rc} {err}")
        if not incs:
            values += len(rec.get("expect") or {})
            continue
        inc = incs[0]
        tap(all(i.get("findings") for i in incs),
            f"{rid}: every incident gets a cause or an explicit not-enough-evidence finding",
            [i.get("findings") for i in incs])
        for key, want in (rec.get("expect") or {}).items():
            values += 1
            got = lookup(inc, key)
            if key == "memory.other_processes":
                ok = norm_procs(got) == norm_procs(want)
            else:
                ok = got == want
            values_ok += ok
            tap(ok, f"{rid}: {key} = {json.dumps(want)}", f"got {json.dumps(got) if not isinstance(got, KeyError) else 'missing'}")
    print(f"# corpus: {values_ok}/{values} expect values reproduced over {len(records)} records")


def compare_subset(want, got, path=""):
    """Every key of `want` must be in `got` with an equal value (recursively
    for objects; lists compare element-wise by position and length). In an
    incident, the key "_rules" compares with the list of its findings' rule
    ids, in order (so "this rule did not fire" can be asserted)."""
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return f"{path}: expected an object"
        for k, v in want.items():
            if k == "_rules":
                ids = [f.get("rule") for f in got.get("findings", [])]
                if ids != v:
                    return f"{path}: findings {ids}, expected {v}"
                continue
            if k not in got:
                return f"{path}.{k}: missing"
            r = compare_subset(v, got[k], f"{path}.{k}")
            if r:
                return r
        return None
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return f"{path}: expected a list of {len(want)}, got {json.dumps(got)[:200]}"
        for i, (a, b) in enumerate(zip(want, got)):
            r = compare_subset(a, b, f"{path}[{i}]")
            if r:
                return r
        return None
    if isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        # a ratio printed to 17 digits by C and by Python can differ in the last
        if abs(want - got) <= 1e-12 * max(1.0, abs(want)):
            return None
    if want != got:
        return f"{path}: expected {json.dumps(want)}, got {json.dumps(got)}"
    return None


def logs(exe, d, bless):
    files = sorted(f for f in os.listdir(d) if f.endswith(".log") or f.endswith(".log.gz"))
    for name in files:
        path = os.path.join(d, name)
        rel = os.path.relpath(path)
        extra = []
        if os.path.exists(path + ".args"):
            import shlex
            with open(path + ".args", encoding="utf-8") as f:
                extra = shlex.split(f.read())
        rc, out, err = run(exe, ["--color", "never"] + extra + [rel])
        rcj, outj, errj = run(exe, ["--format", "json"] + extra + [rel])
        doc = json.loads(outj) if outj.strip() else {}
        jsonl_lines(exe, name, rel, extra, doc)
        if name.startswith("clean-"):
            tap(rc == 0 and doc.get("incidents") == [], f"{name}: no incident in a clean log",
                out + err)
            rc, out, err = run(exe, ["--color", "never", "-q"] + extra + [rel])
            tap(rc == 0 and out == "", f"{name}: -q prints nothing without an incident", out)
            continue
        txt, js = path + ".txt", path + ".json"
        expected(name, "", out, txt, doc, js, bless, {"incidents": doc.get("incidents", []),
                                                     "summary": doc.get("summary", {})})
        verdict_first(exe, name, rel, extra, doc)


def snapshots(exe, d, bless):
    files = sorted(f for f in os.listdir(d) if f.endswith(".pickle") or f.endswith(".pickle.gz"))
    for name in files:
        rel = os.path.relpath(os.path.join(d, name))
        rc, out, err = run(exe, ["snapshot", rel])
        rcj, outj, errj = run(exe, ["snapshot", "--format", "json", rel])
        tap(rc == 0 and rcj == 0, f"{name}: snapshot reads (exit 0)", err + errj)
        doc = json.loads(outj) if outj.strip() else {}
        expected(name, "snapshot ", out, rel + ".txt", doc, rel + ".json", bless, doc)


def expected(name, what, out, txt, doc, js, bless, first_json):
    """Compares the text `out` with the file `txt` and the JSON `doc` with
    the keys of the file `js` (compare_subset); --bless rewrites `txt` and
    writes `first_json` to `js` only when absent (hand-curated JSON stays)."""
    if bless:
        with open(txt, "w", encoding="utf-8") as f:
            f.write(out)
        if not os.path.exists(js):
            with open(js, "w", encoding="utf-8") as f:
                json.dump(first_json, f, indent=1)
                f.write("\n")
    if os.path.exists(txt):
        with open(txt, encoding="utf-8") as f:
            want = f.read()
        tap(out == want, f"{name}: {what}text output matches {os.path.basename(txt)}",
            "".join(__import__("difflib").unified_diff(
                want.splitlines(True), out.splitlines(True), "expected", "got")))
    else:
        tap(False, f"{name}: has an expected {what}text output", "run golden.py with --bless")
    if os.path.exists(js):
        with open(js, encoding="utf-8") as f:
            want = json.load(f)
        r = compare_subset(want, doc)
        tap(r is None, f"{name}: {what}JSON output matches {os.path.basename(js)}", r)


def jsonl_lines(exe, name, rel, extra, doc):
    """--format jsonl: every line parses on its own as a JSON object, one
    per incident (none for a clean log), each that incident of --format
    json with schema, version, input and the --label labels."""
    plain = [a for a in extra if a not in ("--diff", "--apply")]
    rc, out, err = run(exe, ["--format", "jsonl", "--label", "job=golden"] + plain + [rel])
    incs = doc.get("incidents", [])
    ok, why = out.endswith("\n") or out == "", ""
    lines = out.split("\n")[:-1] if out else []
    if len(lines) != len(incs):
        ok, why = False, f"{len(lines)} lines for {len(incs)} incidents"
    for k, line in enumerate(lines):
        try:
            obj = json.loads(line)
        except ValueError as e:
            ok, why = False, f"line {k + 1} does not parse: {e}"
            break
        if not isinstance(obj, dict) or obj.get("schema") != doc.get("schema") or \
                obj.get("labels") != {"job": "golden"} or not isinstance(obj.get("input"), dict):
            ok, why = False, f"line {k + 1}: schema, labels or input wrong"
            break
        if k < len(incs):
            rest = {key: v for key, v in obj.items()
                    if key not in ("schema", "version", "input", "labels")}
            if rest != incs[k]:
                ok, why = False, f"line {k + 1} is not incidents[{k}] of --format json"
                break
    tap(ok and rc == 0, f"{name}: --format jsonl parses line by line, one incident a line",
        why + "\n" + out + err)


def run_tty(exe, args, cols=100, env=None):
    """EXE's standard output on a pseudo-terminal `cols` columns wide (the
    text report wraps itself to a terminal's width; 0: a terminal that
    reports no size), stderr discarded; env: the environment (default
    this one)."""
    import fcntl
    import struct
    import termios
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, cols, 0, 0))
    p = subprocess.Popen([exe] + args, stdin=subprocess.DEVNULL, stdout=slave,
                         stderr=subprocess.DEVNULL, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            b = os.read(master, 65536)
        except OSError:         # EIO: the child closed the terminal
            break
        if not b:
            break
        chunks.append(b)
    p.wait()
    os.close(master)
    return b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")


def visual_lines(text, width=100):
    """Lines the text takes on a terminal `width` columns wide."""
    return sum(max(1, -(-len(line) // width)) for line in text.splitlines())


def verdict_first(exe, name, rel, extra, doc):
    plain = [a for a in extra if a not in ("--diff", "--apply")]
    rc, out, err = run(exe, ["--color", "never"] + plain + [rel])
    incs = doc.get("incidents", [])
    lines = out.splitlines()
    heads = [i for i, l in enumerate(lines) if l.startswith(rel + ":") and (": error[" in l
             or ": warning[" in l)]
    # as printed on a terminal 100 columns wide (the report wraps itself,
    # continuing under the line's indent plus 4); the incidents and the
    # summary count, the notes about the input (after the incidents, the
    # text of JSON's notes[], each with its continuation lines) do not
    tty = run_tty(exe, ["--color", "never"] + plain + [rel]).splitlines()
    starts = {n[:40] for n in doc.get("notes", [])}
    # the one-line view of each snapshot or memory_summary input (JSON
    # snapshots[]) is a note about an input too, printed after the incidents
    starts |= {f"{sn.get('path')}: {sn.get('kind')}" for sn in doc.get("snapshots", [])}
    body, in_note = [], False
    for l in tty:
        if not l.startswith(" "):
            in_note = any(l.startswith(st) for st in starts)
        elif not l.startswith("    "):
            in_note = False
        if not in_note:
            body.append(l)
    limit = 15 * max(1, len(incs))
    # no line wider than the terminal: a word wider than a line (a long
    # path) is broken by characters (the report's glyphs are one column)
    wide = [l for l in tty if len(l) > 100]
    tap(visual_lines("\n".join(body)) <= limit and len(tty) >= len(lines) and not wide,
        f"{name}: the text report fits in 15 lines on a 100-column terminal per incident ({limit})",
        f"{visual_lines(chr(10).join(body))} lines:\n" + "\n".join(tty))
    ok = len(heads) == len(incs) and (not heads or heads[0] == 0)
    for k, inc in zip(heads, incs):
        want = f"{inc['cause']}, {inc['confidence']}" if inc.get("cause") else "undetermined"
        ok = ok and f": {inc['severity']}[{want}]: " in lines[k]
        # the time stamp of the OOM line, as in JSON
        if inc.get("time"):
            ok = ok and lines[k].endswith(f"at {inc['time']})")
        # the action: the cause's first remedy; for an undetermined cause,
        # that of the finding saying what evidence is missing (category none)
        if inc.get("cause"):
            # the strongest finding for the cause, the first on ties
            rank = {"weak": 1, "strong": 2, "decisive": 3}
            acting = [f for f in inc.get("findings", [])
                      if f.get("supports") == inc["cause"] and not f.get("refutes")]
            acting.sort(key=lambda f: -rank.get(f.get("strength"), 0))
        else:
            # the leaning hypothesis's remedy, else the input that would
            # decide (a category-none fallback finding's)
            top = (inc.get("differential") or [{}])[0]
            acting = [f for f in inc.get("findings", [])
                      if top.get("cause") and not top.get("open") and not top.get("ruled_out")
                      and f.get("supports") == top["cause"] and not f.get("refutes")
                      and f.get("category") != "none" and f.get("remedies")]
            acting += [f for f in inc.get("findings", [])
                       if f.get("category") == "none" and f.get("remedies")]
        remedies = [r for f in acting[:1] for r in f.get("remedies", [])]
        if remedies:
            ok = ok and k + 1 < len(lines) and \
                lines[k + 1] == "  help: " + remedies[0]["instruction"]
    tap(ok, f"{name}: line 1 is the verdict (with the time stamp), line 2 the action", out)
    once = True
    for b, start in enumerate(heads):
        block = lines[start:heads[b + 1] if b + 1 < len(heads) else len(lines)]
        titles = [l.split("help: ", 1)[1].split(":")[0] for l in block if "help: " in l]
        titles += [t for l in block if l.startswith("  also: ") for t in l[8:].split(" · ")]
        once = once and len(titles) == len(set(titles))
    tap(once, f"{name}: each remedy appears once per incident", out)
    rc, out, err = run(exe, ["--color", "never", "-q"] + plain + [rel])
    qlines = out.splitlines()
    tap(len(qlines) == len(incs) and
        all(l.startswith(rel + ":") and (": error[" in l or ": warning[" in l) for l in qlines),
        f"{name}: -q prints one line per incident and nothing else", out)
    rc, out, err = run(exe, ["--color", "never", "--verbose"] + plain + [rel])
    rules = [f["rule"] for inc in incs for f in inc.get("findings", [])]
    tap(all(f"[{r}]" in out for r in rules), f"{name}: --verbose shows every finding", out)


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    mode, exe, arg = sys.argv[1:4]
    if mode == "corpus":
        corpus(exe, arg)
    elif mode == "logs":
        logs(exe, arg, "--bless" in sys.argv[4:])
    elif mode == "snapshots":
        snapshots(exe, arg, "--bless" in sys.argv[4:])
    else:
        print(__doc__)
        return 2
    print(f"1..{n}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

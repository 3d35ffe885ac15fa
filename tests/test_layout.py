#!/usr/bin/env python3
"""test_layout.py SOURCE_ROOT — the library's layout holds (issue 22).

lib/ and include/ are grouped by stage, in the order data flows (the
STAGES list below; doc/architecture.md). Every `#include "..."` in lib/,
include/ is read and the tree fails when:

  (a) a file includes a header by a bare name, or a header that does not
      exist, or a higher stage's header (a reader never includes the
      report; model/ includes nothing above it);
  (b) two modules (module = lib/STAGE/NAME.c + include/STAGE/NAME.h)
      include each other, directly or through others;
  (c) the library exits, reads a policy variable of the environment (CI,
      colours, terminals: src/ decides those) or knows exit statuses (they
      are src/cli.h's KG_EXIT_*; the library's enum kg_status in
      include/run/pipeline.h says what failed, 0 or negative, never an exit
      code);
  (d) cJSON appears in a stage that neither reads JSON/pickle nor reports
      (tests/test_cjson_scope.py checks the exact files).

    test_layout.py ROOT           check the tree at ROOT
    test_layout.py --cases DIR    each DIR/CASE/ is a small tree with a file
                                  DIR/CASE/expect naming the check that must
                                  fail on it (a, b, c or d) and no other;
                                  proves each check can fail
"""
import os
import re
import sys

from tap import check, done

# Lowest first: a stage may include only itself and the stages before it.
STAGES = ["model", "read", "diagnose", "report", "run"]
# Stages whose files may name cJSON: the JSON/pickle readers and reporters.
CJSON_STAGES = {"read", "report"}
# Headers outside include/<stage>/: generated at the build root.
GENERATED = {"kg_build.h", "kg_rules_image.h", "kg_atoms_placed.h"}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# (c): what the library never does. Comments are stripped before matching.
FORBIDDEN = [
    (re.compile(r"\b_?exit\s*\("), "calls exit()"),
    (re.compile(r"\b_Exit\s*\("), "calls _Exit()"),
    (re.compile(r"\bEXIT_(SUCCESS|FAILURE)\b"), "names EXIT_SUCCESS/EXIT_FAILURE"),
    (re.compile(r"\bKG_EXIT_\w+"), "names an exit status (KG_EXIT_*)"),
    (re.compile(r'\b(secure_)?getenv\s*\(\s*"(CI|GITHUB_ACTIONS|GITLAB_CI|NO_COLOR|FORCE_COLOR|CLICOLOR\w*|TERM|COLUMNS)"'),
     "reads a policy variable of the environment"),
]
STATUS_ENUM = re.compile(r"enum\s+kg_status\s*\{([^}]*)\}", re.S)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def library_files(root):
    """(relative path, stage, module) of every .c in lib/STAGE/ and .h/.def
    in include/STAGE/ (vocab/*.def belong to their stage)."""
    out = []
    for top, exts in (("lib", (".c",)), ("include", (".h", ".def"))):
        base = os.path.join(root, top)
        for dirpath, _, names in os.walk(base):
            for n in sorted(names):
                if not n.endswith(exts):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, n), root)
                parts = rel.split(os.sep)
                stage = parts[1] if len(parts) > 2 else None
                module = "%s/%s" % (stage, os.path.splitext(parts[2])[0]) if stage and len(parts) == 3 else None
                out.append((rel, stage, module))
    return sorted(out)


def run_checks(root):
    """Returns {check letter: [problem, ...]} for the tree at root."""
    problems = {"a": [], "b": [], "c": [], "d": []}
    files = library_files(root)
    edges = {}
    for rel, stage, module in files:
        text = open(os.path.join(root, rel), encoding="utf-8").read()
        if stage not in STAGES:
            problems["a"].append("%s: not in a stage folder (%s)" % (rel, ", ".join(STAGES)))
            continue
        for m in INCLUDE.finditer(text):
            name = m.group(1)
            line = text.count("\n", 0, m.start()) + 1
            where = "%s:%d: \"%s\"" % (rel, line, name)
            if name in GENERATED:
                continue
            target_stage = name.split("/")[0]
            if "/" not in name or target_stage not in STAGES:
                problems["a"].append(where + ": not STAGE/NAME")
                continue
            if not os.path.isfile(os.path.join(root, "include", name)):
                problems["a"].append(where + ": no include/" + name)
                continue
            if STAGES.index(target_stage) > STAGES.index(stage):
                problems["a"].append("%s: %s includes the higher stage %s" % (where, stage, target_stage))
            if module and name.endswith(".h") and name.count("/") == 1:
                target = os.path.splitext(name)[0]
                if target != module:
                    edges.setdefault(module, set()).add(target)
        code = strip_comments(text)
        for pat, what in FORBIDDEN:
            for m in pat.finditer(code):
                problems["c"].append("%s:%d: %s" % (rel, code.count("\n", 0, m.start()) + 1, what))
        for m in STATUS_ENUM.finditer(code):
            for v in re.findall(r"=\s*(-?\s*\d+)", m.group(1)):
                if int(v.replace(" ", "")) > 0:
                    problems["c"].append("%s: enum kg_status value %s is an exit code" % (rel, v))
        if stage not in CJSON_STAGES and re.search(r"\bcJSON", code):
            problems["d"].append("%s: cJSON in the %s stage" % (rel, stage))
    # (b) cycles: depth-first search, reporting each cycle found once.
    state = {}
    seen_cycles = set()

    def visit(node, path):
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                cyc = path[path.index(nxt):] + [nxt]
                key = frozenset(cyc)
                if key not in seen_cycles:
                    seen_cycles.add(key)
                    problems["b"].append("include cycle: " + " -> ".join(cyc))
            elif nxt not in state:
                visit(nxt, path)
        path.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [])
    return files, problems


def check_tree(root):
    files, problems = run_checks(root)
    check(len(files) > 30, "library files found (%d)" % len(files))
    for s in STAGES:
        check(os.path.isdir(os.path.join(root, "lib", s)) and os.path.isdir(os.path.join(root, "include", s)),
              "lib/%s/ and include/%s/ exist" % (s, s))
        readme = os.path.join(root, "lib", s, "README.md")
        lines = open(readme, encoding="utf-8").read().splitlines() if os.path.isfile(readme) else []
        check(len([l for l in lines if l.strip()]) == 3, "lib/%s/README.md: three lines" % s)
    check(not os.path.exists(os.path.join(root, "cli")), "cli/ is gone (the command is in src/)")
    check(os.path.isfile(os.path.join(root, "src", "main.c")), "src/main.c exists")
    cli_h = os.path.join(root, "src", "cli.h")
    check(os.path.isfile(cli_h) and "KG_EXIT_INPUT = 3" in open(cli_h, encoding="utf-8").read(),
          "exit statuses are defined in src/cli.h")
    names = {"a": "no bare, missing or upward include", "b": "no include cycle between modules",
             "c": "the library never exits, reads CI/colour/terminal variables or names exit statuses",
             "d": "cJSON only in the read and report stages"}
    for k in "abcd":
        check(not problems[k], names[k], "\n".join(problems[k][:20]))


def check_cases(d):
    cases = sorted(c for c in os.listdir(d) if os.path.isdir(os.path.join(d, c)))
    check(len(cases) >= 4, "layout cases found (%d)" % len(cases))
    for c in cases:
        expect = open(os.path.join(d, c, "expect"), encoding="utf-8").read().split()
        _, problems = run_checks(os.path.join(d, c))
        failed = sorted(k for k, v in problems.items() if v)
        check(failed == sorted(expect), "%s: fails %s" % (c, "check " + " ".join(expect) if expect else "no check"),
              "failed: %s\n%s" % (failed, "\n".join(sum(problems.values(), []))))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--cases":
        check_cases(sys.argv[2])
    else:
        check_tree(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    done()

#!/usr/bin/env python3
"""test_readme_examples.py EXE SOURCE_ROOT [--bless] — README.md stands alone,
and so does every page of doc/ it links (the reference moved there).

1. Every ```console block of README.md and of those pages is run: each
   `$ COMMAND` line from the source root with EXE's directory first on
   PATH (stdout and stderr together, LC_ALL=C.UTF-8, no colour, not a
   terminal), and what it prints must be the lines under it, up to the
   next `$` line or the end of the block. A line that is only "…" stands
   for any number of lines (an elided part). With --bless the blocks are
   rewritten with what the commands print (a block with "…" keeps its
   elisions when it still matches).
2. Every relative link of each ([text](path), relative to the page)
   names a file or folder of the source tree that git tracks (what a clean
   clone has), and no path in backquotes reaches outside it (`../name`).
3. README.md links every page of doc/ (each one hop from it).
Prints TAP."""
import glob
import os
import re
import subprocess
import sys

from tap import check, done

exe, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
bless = "--bless" in sys.argv[3:]


def run_blocks(page, text):
    """Runs the console blocks of `text` (the page `page`, relative to the
    root); returns the text with each block's output as the commands gave
    it (for --bless)."""
    blocks = list(re.finditer(r"^```console\n(.*?)^```\n", text, re.S | re.M))
    out_text, last = [], 0
    for bi, m in enumerate(blocks):
        lines = m.group(1).split("\n")[:-1]
        new = []
        i = 0
        while i < len(lines):
            if not lines[i].startswith("$ "):
                check(False, "%s block %d: output before a $ line: %r" % (page, bi + 1, lines[i]))
                i += 1
                continue
            cmd = lines[i][2:]
            j = i + 1
            while j < len(lines) and not lines[j].startswith("$ "):
                j += 1
            want = lines[i + 1:j]
            p = subprocess.run(["bash", "-c", cmd], cwd=root, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=120)
            got = p.stdout.decode("utf-8", "replace").split("\n")
            if got and got[-1] == "":
                got.pop()
            ok = matches(want, got)
            check(ok, "%s example: $ %s" % (page, cmd),
                  "" if ok else "got:\n" + "\n".join(got) + "\nwant:\n" + "\n".join(want))
            new.append(lines[i])
            new.extend(want if ok else got)
            i = j
        out_text.append(text[last:m.start(1)])
        out_text.append("\n".join(new) + "\n")
        last = m.end(1)
    out_text.append(text[last:])
    return "".join(out_text), len(blocks)


text = open(os.path.join(root, "README.md"), encoding="utf-8").read()
env = dict(os.environ, LC_ALL="C.UTF-8", PATH=os.path.dirname(exe) + os.pathsep + os.environ.get("PATH", ""))
for k in ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE", "CI", "KGMEM_RULES_PATH"):
    env.pop(k, None)


def matches(want, got):
    """want may hold "…" lines, each any run of lines (greedy-free search)."""
    if not want:
        return not got
    if want[0].strip() == "…":
        return any(matches(want[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and want[0] == got[0] and matches(want[1:], got[1:])


def links(text):
    return [l for l in re.findall(r"\[[^\]]*\]\(([^)\s]+)\)", text)
            if not re.match(r"[a-z]+:", l) and not l.startswith("#")]


# the pages: README.md and the doc/ pages it links
pages = ["README.md"] + sorted({os.path.normpath(l.split("#")[0]) for l in links(text)
                                if re.match(r"doc/[^/]+\.md$", os.path.normpath(l.split("#")[0]))})
for page in pages:
    path = os.path.join(root, page)
    if not os.path.exists(path):
        check(False, "README links %s, which is missing" % page)
        continue
    ptext = open(path, encoding="utf-8").read()
    new, nb = run_blocks(page, ptext)
    if page == "README.md":
        check(nb >= 2, "README.md has its console examples (%d)" % nb)
    if bless and new != ptext:
        with open(path, "w", encoding="utf-8") as f:
            f.write(new)
docs = sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "doc", "*.md")))
unlinked = [d for d in docs if d not in pages]
check(docs and not unlinked, "README.md links every page of doc/ (%s)" % ", ".join(docs),
      "not linked: %s" % ", ".join(unlinked))

# links resolve to files a clean clone has
try:
    tracked = set(subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True,
                                 check=True).stdout.split("\n"))
except (OSError, subprocess.CalledProcessError):
    tracked = None  # not a git checkout (a release tarball): the files must exist
dirs = set()
if tracked is not None:
    for f in tracked:
        parts = f.split("/")
        for k in range(1, len(parts)):
            dirs.add("/".join(parts[:k]))
for page in pages:
    if not os.path.exists(os.path.join(root, page)):
        continue
    ptext = open(os.path.join(root, page), encoding="utf-8").read()
    rel = links(ptext)
    if page == "README.md":
        check(len(rel) >= 1, "README.md has relative links (%d)" % len(rel))
    for link in rel:
        path = os.path.normpath(os.path.join(os.path.dirname(page), link.split("#")[0])).rstrip("/")
        inside = not path.startswith("..") and not os.path.isabs(path)
        shipped = os.path.exists(os.path.join(root, path)) and (
            tracked is None or path in tracked or path in dirs)
        check(inside and shipped, "%s link %s is a shipped file or folder" % (page, link))
    outside = re.findall(r"`(\.\./[A-Za-z][^`]*)`", ptext)
    check(not outside, "no path in %s reaches outside the repository (%s)" % (page, ", ".join(outside)))
done()

#!/usr/bin/env python3
"""test_vocab.py SOURCE_ROOT — each vocabulary word is defined once (and
doc/reference.md, the reference README.md links, lists the families and
phases).

The closed vocabularies of kgmem-diagnose/1 (message families, frameworks,
device types, severities, cause categories, phases) are X-macro lists in
include/model/vocab/*.def. This test reads them and greps the C sources (lib/,
src/, include/, comments stripped) for a string literal that spells one of
their words: such a literal is a stray copy that can drift from the table.

A literal that is log or code text rather than a vocabulary value (a word
the scanner looks for in a log line, a Python function name in a frame) is
not a copy; it is recognised by the call it is an argument of (TEXT_CALLS)
or by the comment `not vocabulary` on its line."""
import glob
import os
import re
import sys

from tap import check, done

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")

# calls whose literal argument is text searched for, not a vocabulary value
TEXT_CALLS = re.compile(
    r"(window_has\(c, |framework_cue\(c, |cap_is\([^()]*, |memmem\([^()]*, |"
    r"kg_memcasemem\([^()]*, |strcmp\(fn, |contains\([a-z]+, |"
    r"cJSON_[A-Za-z]+\([^()]*, )$")  # the last: a JSON object key


def strip_comments(text):
    """Blanks out /* */ and // comments, keeping line numbers and strings."""
    out, i, L = [], 0, len(text)
    while i < L:
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < L and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = L if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = L if j < 0 else j
            out.append(" " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


vocab = {}  # word -> [vocabulary names]
# the word for what nothing told (job.mode's "unknown"): every other
# "unknown" in the sources is the same plain word, not a copy of the mode
COMMON = {"unknown"}
defs = sorted(glob.glob(os.path.join(root, "include", "model", "vocab", "*.def")))
check(len(defs) >= 6, "include/model/vocab has the .def lists (%d)" % len(defs))
for d in defs:
    name = os.path.basename(d)[:-4]
    words = re.findall(r'^KG_[A-Z]+\([A-Z0-9_]+, "([^"]+)"', strip_comments(open(d).read()), re.M)
    check(len(words) == len(set(words)) and words, "%s: words, each once (%d)" % (name, len(words)))
    for w in words:
        vocab.setdefault(w, []).append(name)

# the reference's JSON section (doc/reference.md, linked from README.md)
# lists every family and phase
readme = open(os.path.join(root, "doc", "reference.md"), encoding="utf-8").read()
for name in ("family", "phase"):
    d = os.path.join(root, "include", "model", "vocab", name + ".def")
    for w in re.findall(r'^KG_[A-Z]+\([A-Z0-9_]+, "([^"]+)"', strip_comments(open(d).read()), re.M):
        check("`%s`" % w in readme, "doc/reference.md lists %s %s" % (name, w))

sources = sorted(glob.glob(os.path.join(root, "lib", "*", "*.c")) + glob.glob(os.path.join(root, "src", "*.[ch]")) +
                 glob.glob(os.path.join(root, "include", "*", "*.h")))
check(len(sources) > 30, "C sources found (%d)" % len(sources))


def strays(raw_text, name):
    """'NAME:LINE: "word" (vocabularies)' for each stray copy in raw_text."""
    raw = raw_text.split("\n")
    code = strip_comments(raw_text).split("\n")
    found = []
    for ln, line in enumerate(code):
        if "not vocabulary" in raw[ln]:
            continue
        for m in re.finditer(r'"((?:[^"\\]|\\.)*)"', line):
            w = m.group(1)
            if w in vocab and w not in COMMON and not TEXT_CALLS.search(line[:m.start()]):
                found.append('%s:%d: "%s" (%s)' % (name, ln + 1, w, ", ".join(vocab[w])))
    return found


# the check itself finds a copy, and passes text and keys
sample = ('o->family = "pytorch2";\n/* "cuda" in a comment */\nif (window_has(c, "ggml"))\n'
          'cJSON_AddNumberToObject(o, "fragmentation", x);\nx = "eval"; /* not vocabulary */\n'
          'return "model-load";\n')
check(strays(sample, "sample") == ['sample:1: "pytorch2" (family)', 'sample:6: "model-load" (phase)'],
      "a stray copy is found; comments, searched text, JSON keys and marked lines are not",
      "\n".join(strays(sample, "sample")))
for path in sources:
    rel = os.path.relpath(path, root)
    found = strays(open(path, encoding="utf-8").read(), rel)
    check(not found, "%s: no stray vocabulary word" % rel, "\n".join(found))

done()

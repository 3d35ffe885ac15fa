#!/usr/bin/env python3
"""test_readme_commands.py SOURCE_ROOT — README's two set-up commands
(issues 25, 33): at the top (under the title and at most a short
tagline), the first installs only what building and running need
(install-deps.sh) and diagnoses a bundled log; the second runs
tests/install-test-deps.sh and the whole suite, and .ci/run runs exactly
it. Prints TAP."""
import os
import re
import subprocess
import sys

from tap import check, done

root = sys.argv[1]
readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
block = re.search(r"\A# kgmem-diagnose\n\n(?:[^`\n][^\n]*\n){0,3}\n?```sh\n(.*?)```", readme, re.S)
check(block is not None, "README opens with a sh block of set-up commands (under the title and at most "
      "a three-line tagline)")
lines = block.group(1).splitlines() if block else []
cmds = [lines[i + 1] for i, ln in enumerate(lines[:-1]) if re.match(r"# [12]\. ", ln)]
check(len(cmds) == 2, "two numbered commands", "\n".join(lines))
first, second = (cmds + ["", ""])[:2]

deps = subprocess.run([os.path.join(root, "tests", "install-test-deps.sh"), "--list"],
                      stdout=subprocess.PIPE, check=True).stdout.decode().split()
check(len(deps) > 5, "tests/install-test-deps.sh --list names the test packages (%d)" % len(deps))
pkgs = []
script = re.match(r"\./(install-deps\.sh) && ", first)
if script:
    pkgs = subprocess.run([os.path.join(root, script.group(1)), "--list"],
                          stdout=subprocess.PIPE, check=True).stdout.decode().split()
build_needs = ["build-essential", "meson", "ninja-build", "pkg-config", "libpcre2-dev",
               "libcjson-dev", "libyaml-dev", "zlib1g-dev", "scdoc"]
check(script is not None and sorted(pkgs) == sorted(build_needs),
      "command 1's script (./install-deps.sh, --list) installs exactly what building and running need",
      first + "\n" + " ".join(pkgs))
body = open(os.path.join(root, "install-deps.sh"), encoding="utf-8").read() if script else ""
check(re.search(r"apt-get install -y\b", body) and "apt-get update" in body,
      "install-deps.sh installs them with apt-get (after apt-get update)")
check(len(first) <= 140, "command 1 is short (%d characters, at most 140)" % len(first), first)
script_build = subprocess.run([os.path.join(root, "tests", "install-test-deps.sh"), "--list-build"],
                              stdout=subprocess.PIPE, check=True).stdout.decode().split()
check(sorted(script_build) == sorted(build_needs),
      "command 2's script also installs what building needs, so it works alone on a fresh machine",
      " ".join(script_build))
check(not set(pkgs) & set(deps), "command 1 installs no test-only package",
      " ".join(sorted(set(pkgs) & set(deps))))
log = re.search(r"meson setup build && ninja -C build && \./build/kgmem-diagnose (testdata/\S+\.log)$",
                first)
check(log is not None and os.path.exists(os.path.join(root, log.group(1))),
      "command 1 builds and diagnoses a bundled log", first)
check(second.startswith("tests/install-test-deps.sh && ")
      and second.endswith("meson test -C build --print-errorlogs"),
      "command 2 installs the test packages, then runs the whole suite", second)
ci = open(os.path.join(root, ".ci", "run"), encoding="utf-8").read()
check(second != "" and second in ci, ".ci/run runs README's command 2 verbatim", second)
ci_install = re.search(r"apt-get install -y -qq --no-install-recommends \\\n(.*?)>/dev/null", ci, re.S)
ci_pkgs = ci_install.group(1).replace("\\", " ").split() if ci_install else []
check(set(build_needs) <= set(ci_pkgs) and not set(ci_pkgs) & set(deps),
      ".ci/run installs the build needs and leaves the test packages to the script",
      " ".join(sorted(set(ci_pkgs) & set(deps))))
done()

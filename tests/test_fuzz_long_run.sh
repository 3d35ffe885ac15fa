#!/usr/bin/env bash
# tests/fuzz/long-run.sh picks its harnesses from the fuzz build: the
# fuzz_<name> programs, not the fuzz_<name>.p object folders beside them
# (issue 34, N15: each folder counted as a harness, failed with rc=126 and
# made the script exit 1 after clean runs). Prints TAP.
# usage: test_fuzz_long_run.sh SOURCE_ROOT
set -u
root=$(cd "$1" && pwd)
. "$(dirname "$0")/tap.sh"
mkdir -p "$tmp/b/tests/fuzz/fuzz_alpha.p" "$tmp/b/tests/fuzz/fuzz_beta.p"
printf '#!/bin/sh\n' >"$tmp/b/tests/fuzz/fuzz_alpha"
chmod +x "$tmp/b/tests/fuzz/fuzz_alpha"
printf 'not a program\n' >"$tmp/b/tests/fuzz/fuzz_gamma"
BUILD_FUZZ=$tmp/b "$root/tests/fuzz/long-run.sh" -n >"$tmp/o" 2>&1; rc=$?
check "-n lists the harness programs only: not the .p folders, not a file that is not executable" \
	"[ $rc = 0 ] && [ \"\$(cat $tmp/o)\" = alpha ]" "rc=$rc $(cat "$tmp/o")"
BUILD_FUZZ=$tmp/b "$root/tests/fuzz/long-run.sh" -n beta >"$tmp/o" 2>&1; rc=$?
check "-n with named harnesses lists those" "[ $rc = 0 ] && [ \"\$(cat $tmp/o)\" = beta ]" "rc=$rc $(cat "$tmp/o")"
echo "1..$n"
[ $failed = 0 ]

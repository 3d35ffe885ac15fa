#!/bin/bash
# test_ci_formats_markdown.sh EMITTER — renders `--format markdown` of the
# seed-004 fixture (`EMITTER --emit markdown`) with cmark-gfm, GitHub's own
# Markdown implementation (Debian package cmark-gfm), and checks that the
# incident table, the fenced OOM text and the diff survive as such.
# Exit 77 (skipped) when cmark-gfm is not installed.
set -u
command -v cmark-gfm >/dev/null || { echo "SKIP: cmark-gfm is not installed"; exit 77; }
html=$("$1" --emit markdown | cmark-gfm -e table) || { echo "FAIL: render"; exit 1; }
fail=0
expect() { # count, fixed string, what
	local got
	got=$(printf '%s\n' "$html" | grep -cF -- "$2")
	if [ "$got" -eq "$1" ]; then echo "PASS: $3"; else echo "FAIL: $3: $got × '$2', want $1"; fail=1; fi
}
expect 1 '<table>' "one incident table"
expect 10 '</th>' "ten columns"
rows=$(printf '%s\n' "$html" | sed -n '/<tbody>/,/<\/tbody>/p' | grep -c '<tr>')
if [ "$rows" -eq 2 ]; then echo "PASS: two incident rows"; else echo "FAIL: $rows rows, want 2"; fail=1; fi
expect 20 '</td>' "ten cells per row"
expect 2 '<pre><code class="language-text">' "OOM texts fenced"
expect 1 'See ```docs``` | here' "backticks inside the OOM text kept verbatim"
expect 1 '<pre><code class="language-diff">--- a/configs/tune.yaml' "patch as a diff block"
expect 1 '<code>PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True</code>' "env remedy as code"
exit $fail

#!/bin/bash
# test_install.sh MESON BUILDDIR BUILT_BINARY — `meson install --destdir`
# into a temporary directory, then checks every installed file is where
# `meson introspect --installed` says (binary, rules, man pages, shell
# completions in the standard directories) and that the installed binary
# runs: --help, --version (finding its rule set relative to itself, not in
# the source tree), and a diagnosis of a log giving the same SARIF results
# as the binary in the build tree.
set -u
meson=$1 builddir=$2 built=$(realpath "$3")
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); echo "not ok $n - $*"; fail=1; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else notok "$what"; fi; }

dest=$(mktemp -d) || exit 1
trap 'rm -rf "$dest"' EXIT
unset KGMEM_RULES_PATH

if ! "$meson" install -C "$builddir" --destdir "$dest" --no-rebuild --quiet > "$dest.log" 2>&1; then
	sed 's/^/# /' "$dest.log"
	rm -f "$dest.log"
	echo "not ok 1 - meson install --destdir"
	echo "1..1"
	exit 1
fi
rm -f "$dest.log"
ok "meson install --destdir"

# Map of installed files, from meson itself.
map=$("$meson" introspect --installed "$builddir" | python3 -c '
import json, sys
for src, dst in sorted(json.load(sys.stdin).items()):
    print(dst)')
installed() { printf '%s\n' "$map" | grep -E "$1" | head -n1; }

bin=$(installed '/bin/kgmem-diagnose$')
check "binary listed for install" test -n "$bin"
check "binary installed and executable" test -x "$dest$bin"
rules=$(installed '/kgmem-diagnose/rules$')
check "rules directory installed (datadir/kgmem-diagnose/rules)" test -d "$dest$rules"
for f in 'man1/kgmem-diagnose\.1$' 'man5/kgmem-rules\.5$'; do
	p=$(installed "$f")
	if [[ -z $p ]]; then
		if command -v scdoc >/dev/null; then notok "man page $f listed although scdoc is installed"
		else ok "man page $f # SKIP scdoc not installed"; fi
		continue
	fi
	check "man page $p installed" grep -q '^\.TH' "$dest$p"
done
for f in '/bash-completion/completions/kgmem-diagnose$' \
	 '/zsh/site-functions/_kgmem-diagnose$' \
	 '/fish/vendor_completions\.d/kgmem-diagnose\.fish$'; do
	p=$(installed "$f")
	check "completion $f installed" test -n "$p" -a -s "$dest$p"
done
p=$(installed '/bash-completion/completions/kgmem-diagnose$')
check "installed bash completion loads and registers" \
	bash -c "source '$dest$p' && complete -p kgmem-diagnose | grep -q _kgmem_diagnose"

"$dest$bin" --help > "$dest/help" 2>&1
check "installed binary: --help exits 0" test $? -eq 0
check "installed binary: --help prints usage" grep -q '^Usage: kgmem-diagnose' "$dest/help"

# run --snapshot-on-oom's Python hook, installed beside the rules and found
# by the installed binary (a plain Python program still runs unchanged).
hook=$(installed '/kgmem-diagnose/hooks/sitecustomize\.py$')
check "Python hook installed (datadir/kgmem-diagnose/hooks)" test -s "$dest$hook"
"$dest$bin" run --snapshot-on-oom "$dest/snaps" -- python3 -c '
import sys, sitecustomize
print(sys.path[1].endswith("hooks"), sitecustomize._hook.__file__)' > "$dest/run" 2>&1
check "installed binary: run --snapshot-on-oom puts the installed hook on PYTHONPATH" \
	grep -q '^True ' "$dest/run"
check "the hook loads the installed shared OOM module (hooks/_kgmem_oomhook.py)" \
	grep -qx "True $dest${hook%/sitecustomize.py}/_kgmem_oomhook.py" "$dest/run"

# The rule set beside the installed binary is found without any path hint
# (a rules/VERSION of the shipped set, or one put there for this test).
if [[ ! -f $dest$rules/VERSION ]]; then
	echo "test-$$" > "$dest$rules/VERSION"
fi
want=$(head -n1 "$dest$rules/VERSION")
"$dest$bin" --version > "$dest/version" 2>&1
check "installed binary: --version exits 0" test $? -eq 0
sed 's/^/# /' "$dest/version"
check "--version: program version" grep -qE '^kgmem-diagnose [0-9]+\.[0-9]+' "$dest/version"
check "--version: rule set found beside the installed binary" \
	grep -qF "rules $want ($(cd "$dest$rules" && pwd -P))" "$dest/version"
for lib in PCRE2 cJSON libyaml zlib; do
	check "--version: $lib version" grep -qE "^$lib [0-9]" "$dest/version"
done

# A crash log (seed 004's OOM, as PyTorch 2.x prints it).
cat > "$dest/train.log" <<'EOF'
[I 2025-10-28 03:12:44,118] Trial 268 started with parameters: {'lr': 0.0003, 'dim': 512}
Traceback (most recent call last):
  File "scripts/tune_max.py", line 951, in run_training_eval
    loss.backward()
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 16.00 MiB. GPU 0 has a total capacity of 23.56 GiB of which 33.56 MiB is free. Process has 22.88 GiB memory in use. Of the allocated memory 21.13 GiB is allocated by PyTorch, and 1.41 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)
torch.AcceleratorError: CUDA error: device-side assert triggered
EOF
(cd "$dest" && "$dest$bin" --format sarif train.log > "$dest/installed.sarif" 2> "$dest/err")
rc=$?
check "installed binary diagnoses a log (exit 0 without --fail-on)" test $rc -eq 0
(cd "$dest" && "$built" --format sarif train.log > "$dest/built.sarif" 2>/dev/null)
count() { python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(len(d["runs"][0]["results"]))' "$1" 2>/dev/null || echo invalid; }
ci=$(count "$dest/installed.sarif") cb=$(count "$dest/built.sarif")
echo "# results: installed $ci, build tree $cb"
check "installed binary: valid SARIF on the log" test "$ci" != invalid
check "installed binary finds what the build-tree binary finds" test "$ci" = "$cb"

echo "1..$n"
exit $fail

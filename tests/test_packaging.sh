#!/bin/bash
# test_packaging.sh EXE SOURCE_ROOT — the Python package as a user gets it
# (issues 25, 33), from a clean copy of the tree (the files git tracks or
# does not ignore, as they are in the working tree; no build output):
#   - in a fresh `python3 -m venv --system-site-packages`, offline
#     `pip install --no-build-isolation --no-index .` (meson-python builds
#     the C tool); it leaves no untracked file in the copy; then the copy is
#     deleted, so nothing can come from it;
#   - the installed `kgmem-diagnose` and `python -m kgmem_diagnose` on a
#     bundled log give EXE's report; the binary finds its rules and the
#     `run --snapshot-on-oom` hook in the environment's share/; man pages and
#     completions are installed there;
#   - tests/test_python.py --installed against the installed package (API
#     against the CLI on every testdata/logs log, torch hook, IPython);
#   - python/install.sh, the one offline install command, into a venv
#     without meson-python (it builds with a Python that has it), keeping
#     the wheel: tagged manylinux_2_N_ARCH for this glibc, holding the
#     binary, libcjson, rules, hook, man pages and the package; the
#     installed binary needs nothing outside the venv but the C library
#     (ldd), runs with LD_LIBRARY_PATH pointing nowhere, and diagnoses a
#     real log in a chroot that holds only the venv, libc, libm and the
#     loader (as root; a SKIP otherwise); without any Python that has
#     meson-python the script says so in one line;
#   - the GitHub Action's build step builds the self-contained tool
#     (tests/test_action.sh --build).
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
# a git repository of its own, to see what pip leaves behind
git -C "$tmp/src" init -q && git -C "$tmp/src" add -A
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
left=$(git -C "$tmp/src" status --porcelain --untracked-files=all | grep '^??')
check "pip install . leaves no untracked file in the checkout (.mesonpy-native-file.ini is ignored)" \
	'[ -z "$left" ]' "$left"
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

# --- python/install.sh into a venv without meson-python; the wheel it keeps
copy "$tmp/src2"
"$PY" -m venv "$tmp/venv2"   # no system site packages: no meson-python, no torch
venv2=$tmp/venv2
t0=$(date +%s)
if PYTHON=$venv2/bin/python KGMEM_WHEEL_DIR=$tmp/dist "$tmp/src2/python/install.sh" > "$tmp/install.log" 2>&1; then
	ok "python/install.sh into a venv without meson-python ($(($(date +%s) - t0)) s): $(grep -o 'building the wheel with [^ ]*' "$tmp/install.log")"
else
	notok "python/install.sh into a venv without meson-python"
	indent < "$tmp/install.log"
fi
whl=$(ls "$tmp"/dist/*.whl 2>/dev/null)
glibc=$(getconf GNU_LIBC_VERSION | sed -n 's/^glibc \([0-9]*\)\.\([0-9]*\).*/\1_\2/p')
arch=$(uname -m)
check "the wheel is tagged py3-none-manylinux_${glibc}_$arch (the glibc it was built against)" \
	'[[ ${whl##*/} = kgmem_diagnose-*-py3-none-manylinux_${glibc}_$arch.whl ]]' "${whl##*/}"
"$PY" - "$whl" > "$tmp/wheel.txt" 2>&1 <<'PY'
import sys, zipfile
for n in zipfile.ZipFile(sys.argv[1]).namelist():
    print(n)
PY
for p in 'kgmem_diagnose/__init__.py' 'kgmem_diagnose/torch.py' 'kgmem_diagnose/py\.typed$' \
	'kgmem_diagnose/_version\.py$' '\.data/scripts/kgmem-diagnose$' \
	'\.data/data/lib/kgmem-diagnose/libcjson\.so\.[0-9]*$' \
	'\.data/data/share/kgmem-diagnose/rules/capacity\.yaml$' \
	'\.data/data/share/kgmem-diagnose/hooks/sitecustomize\.py$' \
	'\.data/data/share/kgmem-diagnose/hooks/_kgmem_oomhook\.py$' \
	'\.data/data/share/man/man1/kgmem-diagnose\.1$' 'dist-info/WHEEL$' 'dist-info/RECORD$'; do
	check "the wheel holds $p" 'grep -q "$p" "$tmp/wheel.txt"'
done
check "the wheel's WHEEL file names the same tag" \
	'"$PY" -c "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); w = [n for n in z.namelist() if n.endswith(\"dist-info/WHEEL\")][0]; sys.exit(\"Tag: py3-none-manylinux_\" not in z.read(w).decode())" "$whl"'
rm -rf "$tmp/src2"
bin2=$venv2/bin/kgmem-diagnose
# what the binary needs from outside the venv: only the C library
outside=$(ldd "$bin2" 2>&1 | awk '$3 ~ /^\// {print $1, $3} $1 ~ /^\// {print $1} / not found/ {print "MISSING", $1}' |
	grep -v "$venv2" |
	grep -Ev '^(libc\.so\.6|libm\.so\.6|/lib64/ld-linux-[-a-z0-9_]*\.so\.[0-9]|/lib/ld-linux-[-a-z0-9_]*\.so\.[0-9])( |$)')
check "ldd: the venv's binary needs nothing outside the venv but libc, libm and the loader" \
	'[ -z "$outside" ] && ldd "$bin2" | grep -q "libcjson.*=> $venv2/"' "$(ldd "$bin2" 2>&1 | tr '\n' ';')"
got=$(cd "$tmp/work" && LD_LIBRARY_PATH=/nonexistent "$venv2/bin/python" -m kgmem_diagnose --color never crash.log 2>&1)
check "python -m kgmem_diagnose from that venv, LD_LIBRARY_PATH pointing nowhere: the build's report" \
	'[ "$got" = "$want" ]' "$got"
# a root file system with only the C library and the venv's files
root2=$tmp/chroot
mkdir -p "$root2/work" "$root2/proc"
for f in $(ldd "$bin2" | awk '$3 ~ /^\// && $3 !~ /kgmem-diagnose/ {print $3} $1 ~ /^\// {print $1}'); do
	mkdir -p "$root2$(dirname "$f")" && cp -L "$f" "$root2$f"
done
mkdir -p "$root2$venv2" && cp -a "$venv2/bin" "$venv2/lib" "$venv2/share" "$root2$venv2/"
rm -f "$root2$venv2"/bin/python*   # no Python in there: the binary alone
cp "$tmp/work/crash.log" "$root2/work/"
libs=$(cd "$root2" && find . -name '*.so*' | sort | tr '\n' ' ')
if [ "$(id -u)" = 0 ] && mount -t proc proc "$root2/proc" 2>/dev/null; then
	# /proc: the loader's $ORIGIN and the binary's rules are found through /proc/self/exe
	got=$(chroot "$root2" "$venv2/bin/kgmem-diagnose" --color never /work/crash.log 2>&1)
	umount "$root2/proc"
	check "in a chroot with only libc, libm, the loader and the venv ($libs), the wheel's binary diagnoses a real log" \
		'[ "$got" = "${want//crash.log//work/crash.log}" ]' "$got"
else
	ok "the wheel's binary in a chroot without the libraries # SKIP needs root and mount -t proc"
fi
# no Python with meson-python: one clear line
err=$(BUILD_PYTHON=$venv2/bin/python PYTHON=$venv2/bin/python "$root/python/install.sh" 2>&1)
rc=$?
check "python/install.sh with no Python that has meson-python: exit 1, one line saying so" \
	'[ $rc = 1 ] && [ "$(printf "%s\n" "$err" | wc -l)" = 1 ] && [[ $err = *"no meson-python"* ]]' "$err"

# --- the GitHub Action's build step, for real
t0=$(date +%s)
bash "$root/tests/test_action.sh" "$exe" "$root" --build > "$tmp/action.tap" 2>&1
rc=$?
check "tests/test_action.sh --build: the action builds the tool and its steps pass ($(($(date +%s) - t0)) s)" \
	'[ $rc = 0 ]'
[[ $rc = 0 ]] || grep -A5 '^not ok' "$tmp/action.tap" | indent

echo "1..$n"
[ $failed = 0 ]

#!/bin/sh
# python/install.sh [PIP-OPTION...] — install kgmem-diagnose (the binary,
# rules, man pages, completions and the kgmem_diagnose package) from this
# checkout, offline, into the environment of $PYTHON (default: the python3
# on PATH: an active venv's, a conda env's).
#
# The wheel is built by the first Python that has meson-python (and the
# `wheel` library): $BUILD_PYTHON when set, else $PYTHON, python3 and
# /usr/bin/python3 in that order (Debian/Ubuntu: python3-mesonpy); it is
# then installed with $PYTHON's pip, --no-index, so the target needs
# neither meson-python nor a network. When no Python has meson-python it
# says so in one line and exits 1. PIP-OPTIONs go to pip (--user;
# --break-system-packages for a Debian system Python; --force-reinstall).
# KGMEM_WHEEL_DIR=DIR also keeps the wheel there (tagged
# manylinux_2_N_ARCH, self-contained: to copy to machines without a
# compiler or the libraries). Building needs what README's first command
# installs.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
target=${PYTHON:-python3}
me="python/install.sh"

if ! command -v "$target" >/dev/null 2>&1; then
	echo "$me: no Python '$target' to install into (set PYTHON=/path/to/python3)" >&2
	exit 1
fi
has_mesonpy() { "$1" -c 'import mesonpy, wheel' >/dev/null 2>&1; }
builder=
if [ -n "${BUILD_PYTHON:-}" ]; then
	if ! has_mesonpy "$BUILD_PYTHON"; then
		echo "$me: BUILD_PYTHON=$BUILD_PYTHON has no meson-python (or no wheel library): apt-get install python3-mesonpy python3-wheel, or pip install meson-python wheel" >&2
		exit 1
	fi
	builder=$BUILD_PYTHON
else
	for py in "$target" python3 /usr/bin/python3; do
		if command -v "$py" >/dev/null 2>&1 && has_mesonpy "$py"; then
			builder=$py
			break
		fi
	done
fi
if [ -z "$builder" ]; then
	echo "$me: no Python here has meson-python ($target, python3, /usr/bin/python3 tried): apt-get install python3-mesonpy python3-wheel (Debian, Ubuntu), or pip install meson-python wheel, then run this again" >&2
	exit 1
fi

dist=$(mktemp -d "${TMPDIR:-/tmp}/kgmem-wheel.XXXXXX")
trap 'rm -rf "$dist"' EXIT INT TERM
echo "$me: building the wheel with $(command -v "$builder") (meson-python)" >&2
# the PEP 517 hook of pyproject.toml's backend, called directly: no
# frontend, no build isolation, nothing downloaded
(cd "$root" && "$builder" -c 'import sys; sys.path.insert(0, "python")
import kgmem_backend
print(kgmem_backend.build_wheel(sys.argv[1]))' "$dist") >"$dist/build.log" 2>&1 || {
	tail -n 30 "$dist/build.log" >&2
	echo "$me: building the wheel failed (above: the end of meson's output)" >&2
	exit 1
}
whl=$(tail -n 1 "$dist/build.log")
if [ -n "${KGMEM_WHEEL_DIR:-}" ]; then
	mkdir -p "$KGMEM_WHEEL_DIR"
	cp "$dist/$whl" "$KGMEM_WHEEL_DIR/"
	echo "$me: the wheel: $KGMEM_WHEEL_DIR/$whl" >&2
fi
echo "$me: installing $whl into $(command -v "$target")'s environment" >&2
"$target" -m pip install --no-index --no-build-isolation --no-deps "$@" "$dist/$whl"

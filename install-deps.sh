#!/bin/sh
# install-deps.sh — installs the Debian (bookworm) or Ubuntu packages that
# building and running kgmem-diagnose need, and nothing the tests alone need
# (tests/install-test-deps.sh installs those): README's first command.
# Installs nothing when all are there; uses sudo when not root. `--list`
# prints the packages, one a line. Packages named as arguments are
# installed with them (tests/install-test-deps.sh passes the tests' own).
#
#   build-essential meson ninja-build pkg-config   the compiler and the build
#   libpcre2-dev libcjson-dev libyaml-dev zlib1g-dev
#                                                  PCRE2, cJSON, libyaml, zlib
#   scdoc                                          the man pages
set -eu
PKGS="build-essential meson ninja-build pkg-config libpcre2-dev libcjson-dev libyaml-dev
zlib1g-dev scdoc"

if [ "${1:-}" = --list ]; then
	printf '%s\n' $PKGS
	exit 0
fi
missing=
for p in $PKGS "$@"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
if [ -z "$missing" ]; then
	echo "install-deps: all the packages are installed"
	exit 0
fi
echo "install-deps: installing$missing"
SUDO=$(command -v sudo || true)
if [ "$(id -u)" = 0 ]; then SUDO=; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null

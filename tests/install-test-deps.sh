#!/bin/sh
# Installs the Debian (bookworm) packages only the test suite needs, beyond
# README's first command (install-deps.sh: what building and running need).
# Installs nothing when all are there; README's second command and .ci/run
# call it before `meson test`. `--list` prints the packages, one a line.
#
#   bash-completion zsh fish   completion test (each shell's own engine)
#   python3-torch              run --snapshot-on-oom, the torch hook (CPU torch)
#   python3-ipython            the IPython extension, in a real IPython
#   python3-mesonpy python3-build python3-venv python3-wheel
#                              pip install . / python/install.sh / the
#                              wheel and its manylinux tag (test_packaging.sh)
#   python3-yaml               action.yml parsed (test_action.sh)
#   python3-jsonschema         SARIF against its schema
#   cmark-gfm                  the Markdown report rendered
#   librsvg2-bin chromium      the SVG pictures rendered, checked in pixels
#   slurm-wlm munge            contrib/slurm on a one-node Slurm
#   git                        test_packaging.sh copies the tree git tracks
#
# It also installs what building needs (README's first command's packages:
# install-deps.sh --list, printed again by --list-build) when they are
# missing, so that README's second command works on its own on a fresh
# machine.
set -eu
BUILD=$("$(dirname "$0")/../install-deps.sh" --list)
PKGS="bash-completion zsh fish python3-torch python3-ipython python3-mesonpy python3-build
python3-venv python3-wheel python3-yaml python3-jsonschema cmark-gfm librsvg2-bin chromium slurm-wlm munge git"

if [ "${1:-}" = --list ]; then
	printf '%s\n' $PKGS
	exit 0
fi
if [ "${1:-}" = --list-build ]; then
	printf '%s\n' $BUILD
	exit 0
fi
# the build's packages and these, each installed unless it is (one apt run)
# shellcheck disable=SC2086
exec "$(dirname "$0")/../install-deps.sh" $PKGS

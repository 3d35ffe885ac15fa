#!/usr/bin/env bash
# The steps of the GitHub Action (action.yml at the top of the repository).
#
#   action.sh build      build kgmem-diagnose from the action's checkout
#                        ($GITHUB_ACTION_PATH, else this script's repository)
#                        into $KGMEM_BUILD_DIR (default: $RUNNER_TEMP or
#                        /tmp, /kgmem-diagnose-build), installing the build
#                        packages with apt-get when any is missing; writes
#                        KGMEM_DIAGNOSE_BIN to $GITHUB_ENV. With
#                        KGMEM_DIAGNOSE_BIN already an executable, nothing
#                        is built.
#   action.sh diagnose   in $GITHUB_WORKSPACE, run the binary on $INPUT_LOGS
#                        (paths, directories or globs, white-space separated)
#                        with --format github --fail-on $INPUT_FAIL_ON and
#                        $INPUT_ARGS (annotations on stdout), append the
#                        --format markdown report to $GITHUB_STEP_SUMMARY,
#                        write incidents=N to $GITHUB_OUTPUT, and exit with
#                        the github run's status (0 none at or above the
#                        level, 1 some, 2 usage, 3 unreadable input).
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
src=${GITHUB_ACTION_PATH:-$here}
err() { echo "::error title=kgmem-diagnose action::$*"; }

build() {
	if [[ -n ${KGMEM_DIAGNOSE_BIN:-} && -x $KGMEM_DIAGNOSE_BIN ]]; then
		echo "kgmem-diagnose: using $KGMEM_DIAGNOSE_BIN"
		return 0
	fi
	local pkgs=(build-essential meson ninja-build pkg-config libpcre2-dev libcjson-dev
	            libyaml-dev zlib1g-dev) missing=() p
	if command -v dpkg-query >/dev/null; then
		for p in "${pkgs[@]}"; do
			dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
		done
		if ((${#missing[@]})); then
			local sudo
			sudo=$(command -v sudo || true)
			[[ $(id -u) = 0 ]] && sudo=
			$sudo apt-get update -qq
			$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
		fi
	fi
	local dir=${KGMEM_BUILD_DIR:-${RUNNER_TEMP:-/tmp}/kgmem-diagnose-build}
	if [[ ! -f $dir/build.ninja ]]; then
		meson setup "$dir" "$src" -Dtests=false >/dev/null
	fi
	ninja -C "$dir" >/dev/null
	echo "kgmem-diagnose: built $dir/kgmem-diagnose"
	if [[ -n ${GITHUB_ENV:-} ]]; then
		echo "KGMEM_DIAGNOSE_BIN=$dir/kgmem-diagnose" >> "$GITHUB_ENV"
	fi
}

diagnose() {
	local bin=${KGMEM_DIAGNOSE_BIN:-}
	if [[ -z $bin || ! -x $bin ]]; then
		err "no kgmem-diagnose binary (KGMEM_DIAGNOSE_BIN); run the build step first"
		exit 2
	fi
	local level=${INPUT_FAIL_ON:-error}
	case $level in
	never | info | warning | error) ;;
	*) err "fail-on: '$level' is not one of never, info, warning, error"; exit 2 ;;
	esac
	cd "${GITHUB_WORKSPACE:-.}"
	# globs expand here, relative to the workspace; a pattern that matches
	# nothing stays as written, and the binary names it (exit 3)
	local logs=() extra=() w
	read -r -a words <<< "${INPUT_LOGS:-}"
	for w in "${words[@]}"; do
		local m=()
		mapfile -t m < <(compgen -G "$w" || true)
		if ((${#m[@]})); then logs+=("${m[@]}"); else logs+=("$w"); fi
	done
	if ((${#logs[@]} == 0)); then
		err "logs: no log path given"
		exit 2
	fi
	read -r -a extra <<< "${INPUT_ARGS:-}"
	local rc=0
	"$bin" --no-progress "${extra[@]}" --format github --fail-on "$level" -- "${logs[@]}" || rc=$?
	if ((rc > 1)); then
		exit "$rc"
	fi
	if [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then
		"$bin" --no-progress "${extra[@]}" --format markdown -- "${logs[@]}" >> "$GITHUB_STEP_SUMMARY"
	fi
	if [[ -n ${GITHUB_OUTPUT:-} ]]; then
		local n
		# --format jsonl: one line per incident
		n=$("$bin" --no-progress "${extra[@]}" --format jsonl -- "${logs[@]}" | wc -l)
		echo "incidents=$((n))" >> "$GITHUB_OUTPUT"
	fi
	exit "$rc"
}

case ${1:-} in
build) build ;;
diagnose) diagnose ;;
*) echo "usage: $0 build|diagnose" >&2; exit 2 ;;
esac

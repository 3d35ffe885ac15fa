#!/usr/bin/env bash
# The steps of the GitHub Action (action.yml at the top of the repository).
#
#   action.sh key        write key=… to $GITHUB_OUTPUT: the cache key of
#                        the built tool (the runner's OS and release,
#                        architecture, and a hash of every source file the
#                        build reads), for actions/cache/restore and save.
#   action.sh build      make $KGMEM_PREFIX (default: $RUNNER_TEMP or /tmp,
#                        /kgmem-diagnose) hold a self-contained build
#                        (meson -Dself_contained=true: needs only the C
#                        library), unless it already does (restored from the
#                        cache: then nothing is installed or built); else
#                        install the build packages with apt-get when any is
#                        missing and build from the action's checkout
#                        ($GITHUB_ACTION_PATH, else this script's
#                        repository). Writes KGMEM_DIAGNOSE_BIN to
#                        $GITHUB_ENV. With KGMEM_DIAGNOSE_BIN already an
#                        executable file, nothing is built.
#   action.sh diagnose   in $GITHUB_WORKSPACE, diagnose $INPUT_LOGS (paths,
#                        directories or globs, separated by white space or
#                        newlines; quote a name with spaces) with
#                        $INPUT_CONFIG (configs, the same way) and
#                        $INPUT_ARGS (further diagnosis options, split as a
#                        shell would split them, quotes kept, nothing
#                        expanded): annotations on stdout (--format github
#                        --fail-on $INPUT_FAIL_ON), the --format markdown
#                        report appended to $GITHUB_STEP_SUMMARY, the SARIF
#                        report written to $INPUT_SARIF_FILE (default
#                        $RUNNER_TEMP/kgmem-diagnose.sarif), and incidents=N,
#                        cause=, confidence= (the first error incident's,
#                        else the first incident's; empty when none) and
#                        sarif-file= to $GITHUB_OUTPUT. Exits with the github
#                        run's status (0 none at or above the level, 1 some,
#                        2 usage, 3 unreadable input). Options that choose
#                        the output (--format, --output, --fail-on, --quiet,
#                        --verbose, --apply, --help, --version) are the
#                        action's own: in args they are an ::error (exit 2).
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
src=${GITHUB_ACTION_PATH:-$here}
err() { echo "::error title=kgmem-diagnose action::$*"; }
out() { [[ -z ${GITHUB_OUTPUT:-} ]] || printf '%s=%s\n' "$1" "$2" >> "$GITHUB_OUTPUT"; }
prefix=${KGMEM_PREFIX:-${RUNNER_TEMP:-/tmp}/kgmem-diagnose}

key() {
	local os=unknown hash
	if [[ -r /etc/os-release ]]; then
		os=$(. /etc/os-release && echo "${ID:-linux}-${VERSION_ID:-}")
	fi
	# what the build reads; the self-contained binary is tied to the
	# runner's C library, hence its OS release in the key
	hash=$(cd "$src" && find meson.build meson_options.txt src lib include rules hooks man completions \
		python -type f ! -name '*.pyc' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
	echo "kgmem-diagnose: cache key kgmem-diagnose-$os-$(uname -m)-$hash"
	out key "kgmem-diagnose-$os-$(uname -m)-$hash"
}

build() {
	if [[ -n ${KGMEM_DIAGNOSE_BIN:-} && -f $KGMEM_DIAGNOSE_BIN && -x $KGMEM_DIAGNOSE_BIN ]]; then
		echo "kgmem-diagnose: using $KGMEM_DIAGNOSE_BIN"
		return 0
	fi
	local bin=$prefix/bin/kgmem-diagnose
	if [[ -x $bin ]] && "$bin" --version >/dev/null 2>&1; then
		echo "kgmem-diagnose: using the cached build $bin"
	else
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
			meson setup "$dir" "$src" -Dtests=false -Dself_contained=true --prefix "$prefix" \
				--bindir bin --buildtype release >/dev/null
		fi
		ninja -C "$dir" >/dev/null
		meson install -C "$dir" --no-rebuild >/dev/null
		echo "kgmem-diagnose: built $bin (self-contained; cached for the next run)"
	fi
	if [[ -n ${GITHUB_ENV:-} ]]; then
		echo "KGMEM_DIAGNOSE_BIN=$bin" >> "$GITHUB_ENV"
	fi
}

# words NAME TEXT: the words of TEXT (white space and newlines separate;
# single and double quotes and backslashes as xargs(1) reads them; no
# expansion of any kind) into the array NAME. Fails on an unmatched quote.
words() {
	local -n into=$1
	local tmpf
	tmpf=$(mktemp)
	if ! printf '%s\n' "$2" | xargs -r printf '%s\0' > "$tmpf" 2>/dev/null; then
		rm -f "$tmpf"
		return 1
	fi
	mapfile -d '' -t into < "$tmpf"
	rm -f "$tmpf"
}

diagnose() {
	local bin=${KGMEM_DIAGNOSE_BIN:-}
	if [[ -z $bin || ! -f $bin || ! -x $bin ]]; then
		err "no kgmem-diagnose binary (KGMEM_DIAGNOSE_BIN); run the build step first"
		exit 2
	fi
	local level=${INPUT_FAIL_ON:-error}
	case $level in
	never | info | warning | error) ;;
	*) err "fail-on: '$level' is not one of never, info, warning, error"; exit 2 ;;
	esac
	cd "${GITHUB_WORKSPACE:-.}"
	local patterns=() configs=() extra=() logs=() opts=() w
	words patterns "${INPUT_LOGS:-}" || { err "logs: unmatched quote in '${INPUT_LOGS:-}'"; exit 2; }
	words configs "${INPUT_CONFIG:-}" || { err "config: unmatched quote in '${INPUT_CONFIG:-}'"; exit 2; }
	words extra "${INPUT_ARGS:-}" || { err "args: unmatched quote in '${INPUT_ARGS:-}'"; exit 2; }
	# globs expand here, relative to the workspace; a pattern that matches
	# nothing stays as written, and the binary names it (exit 3)
	for w in "${patterns[@]}"; do
		local m=()
		mapfile -t m < <(compgen -G "$w" || true)
		if ((${#m[@]})); then logs+=("${m[@]}"); else logs+=("$w"); fi
	done
	if ((${#logs[@]} == 0)); then
		err "logs: no log path given"
		exit 2
	fi
	for w in "${extra[@]}"; do
		case $w in
		-f | -f* | --format | --format=* | -o | -o* | --output | --output=* | --fail-on | --fail-on=* | \
			-q | --quiet | -v | --verbose | --apply | -h | --help | -V | --version)
			err "args: $w is the action's own (the outputs are fixed: annotations, the job summary, the sarif-file output; use the fail-on input for the gate)"
			exit 2 ;;
		-q* | -v* | -V* | -h*)  # bundled short options
			err "args: $w: give options one at a time (-q, -v, -V and -h are the action's own)"
			exit 2 ;;
		esac
	done
	for w in "${configs[@]}"; do opts+=(--config "$w"); done
	opts+=("${extra[@]}")
	local rc=0 r
	# the gate: annotations on the logs' lines
	"$bin" --no-progress "${opts[@]}" --format github --fail-on "$level" -- "${logs[@]}" || rc=$?
	if ((rc > 1)); then
		exit "$rc"
	fi
	if [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then
		r=0
		"$bin" --no-progress "${opts[@]}" --format markdown --fail-on never -- "${logs[@]}" \
			>> "$GITHUB_STEP_SUMMARY" || r=$?
		((r == 0)) || err "the job summary was not written (exit $r)"
	fi
	local sarif=${INPUT_SARIF_FILE:-${RUNNER_TEMP:-/tmp}/kgmem-diagnose.sarif}
	r=0
	"$bin" --no-progress "${opts[@]}" --format sarif --fail-on never -o "$sarif" -- "${logs[@]}" || r=$?
	if ((r == 0)); then
		out sarif-file "$sarif"
	else
		err "the SARIF file was not written (exit $r)"
		out sarif-file ""
	fi
	# the verdict lines, "PATH:LINE: error[CAUSE, CONFIDENCE]: …", one per
	# incident: the count and the first error's (else the first's) cause
	local verdicts first cause= confidence=
	verdicts=$("$bin" --no-progress "${opts[@]}" --format text --color never --width 0 -q \
		--fail-on never -- "${logs[@]}" | grep -E ': (error|warning|info)\[' || true)
	first=$(printf '%s\n' "$verdicts" | grep -m1 -E ': error\[' || printf '%s\n' "$verdicts" | head -n 1)
	if [[ $first =~ :\ (error|warning|info)\[([a-z-]+)(,\ ([a-z]+))?\]:\  ]]; then
		cause=${BASH_REMATCH[2]} confidence=${BASH_REMATCH[4]}
	fi
	out incidents "$(printf '%s' "$verdicts" | grep -c . || true)"
	out cause "$cause"
	out confidence "$confidence"
	exit "$rc"
}

case ${1:-} in
key) key ;;
build) build ;;
diagnose) diagnose ;;
*) echo "usage: $0 key|build|diagnose" >&2; exit 2 ;;
esac

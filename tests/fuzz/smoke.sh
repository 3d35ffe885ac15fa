#!/usr/bin/env bash
# Short libFuzzer run of one harness, as a meson test (suite `fuzz`, only
# with -Dfuzz=true): builds the seed corpus from testdata into a temp dir,
# runs HARNESS for SECONDS, and fails on any crash, leak, timeout or
# sanitizer report. A finding is kept as $FUZZ_ARTIFACTS/crash-… (default:
# the build's meson-logs/fuzz-artifacts) for `HARNESS FILE` to replay.
# usage: smoke.sh HARNESS NAME SOURCE_ROOT SECONDS
set -eu
exe=$1 name=$2 root=$3 secs=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
art=${FUZZ_ARTIFACTS:-$(dirname "$exe")/fuzz-artifacts}
mkdir -p "$art"
python3 "$root/tests/fuzz/seeds.py" "$root" "$tmp/seeds" >/dev/null
mkdir -p "$tmp/corpus" "$tmp/seeds/$name"
dict=()
[ -f "$root/tests/fuzz/$name.dict" ] && dict=(-dict="$root/tests/fuzz/$name.dict")
[ "$name" = logscan ] && dict=(-dict="$root/tests/fuzz/oom.dict")
# a fixed seed: CI tries the same inputs every run (README.md)
exec "$exe" "${dict[@]}" -seed="${FUZZ_SEED:-1}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -error_exitcode=1 -timeout_exitcode=1 \
	-max_len=65536 -print_final_stats=1 -artifact_prefix="$art/$name-" \
	"$tmp/corpus" "$tmp/seeds/$name"

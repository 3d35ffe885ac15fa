# tap.sh — TAP helpers for the shell tests, sourced after `set -u`:
# makes $tmp (removed on exit) and defines ok WHAT, notok WHAT [DETAIL] and
# check WHAT CONDITION [DETAIL] (CONDITION is eval'd); $n counts the tests,
# $failed the failures. End with: echo "1..$n"; [ $failed = 0 ]
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '#   %s\n' "$2"; }
check() { if eval "$2"; then ok "$1"; else notok "$1" "${3:-}"; fi; }

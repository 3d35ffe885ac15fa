#!/bin/sh
# Snapshot reader benchmark: kgmem-diagnose vs CPython pickle.load alone.
#
#   bench/snapshot/run.sh [BUILD_DIR] [SIZE_MB] [RUNS]
#
# Generates a ~SIZE_MB (default 400) snapshot by repeating the real trace in
# testdata/snapshots/cs336-transformer-fullstep.pickle (bench/snapshot/gen.py,
# pickle protocol 4) in a temporary directory, then runs, alternately RUNS
# times (default 5): `kgmem-diagnose snapshot --format json FILE` and
# `python3 -c 'pickle.load(...)'`, each under /usr/bin/time -v. Prints the
# median wall time and peak RSS of each and the speed ratio. Nothing is
# written outside the temporary directory.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
size=${2:-400}
runs=${3:-5}
exe=$build/kgmem-diagnose
[ -x "$exe" ] || { echo "no $exe; build first (meson setup build && ninja -C build)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$here/gen.py" "$root/testdata/snapshots/cs336-transformer-fullstep.pickle" "$tmp/big.pickle" "$size"
ls -l "$tmp/big.pickle" | awk '{printf "file: %.1f MB\n", $5/1e6}'
cat /proc/cpuinfo 2>/dev/null | grep -m1 'model name' || true
echo "cores: $(nproc)"

measure() { # label command... → appends "secs kib" to $tmp/label
	label=$1; shift
	/usr/bin/time -v "$@" >/dev/null 2>"$tmp/time.txt"
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; secs = s }
		/Maximum resident set size/ { kib = $2 }
		END { print secs, kib }' "$tmp/time.txt" >>"$tmp/$label"
}
i=0
while [ $i -lt "$runs" ]; do
	measure kg "$exe" snapshot --format json "$tmp/big.pickle"
	measure py python3 -c 'import pickle, sys; pickle.load(open(sys.argv[1], "rb"))' "$tmp/big.pickle"
	i=$((i + 1))
done
median() { sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'; }
kg_t=$(median "$tmp/kg" 1); kg_m=$(median "$tmp/kg" 2)
py_t=$(median "$tmp/py" 1); py_m=$(median "$tmp/py" 2)
printf "kgmem-diagnose snapshot --format json: median %.2f s, peak RSS %.1f MiB\n" "$kg_t" "$(awk "BEGIN { print $kg_m / 1024 }")"
printf 'python3 pickle.load:                    median %.2f s, peak RSS %.1f MiB\n' "$py_t" "$(awk "BEGIN { print $py_m / 1024 }")"
printf 'speed-up: %.1fx (target >= 10x); kgmem-diagnose RSS target <= 256 MiB\n' "$(awk "BEGIN { print $py_t / $kg_t }")"

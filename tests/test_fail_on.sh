#!/bin/sh
# --fail-on error gates on the incident's own severity (DIAGNOSIS §5): every
# fatal OOM, of every family, exits 1; a clean log and a retried allocator
# warning exit 0. One input per family in testdata/fail-on/ (pass-*.log must
# exit 0, every other file 1); an allocator snapshot whose trace holds an
# oom entry is a fatal OOM too. A message no grammar knows is a warning
# (issue 31's safety net): warn-*.log exit 0 at --fail-on error and 1 at
# --fail-on warning; training-log chatter about OOMs is no incident at all:
# quiet-*.log exit 0 even at --fail-on warning. Prints TAP.
exe=$1
dir=$2
n=0
fail=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}
count=$(ls "$dir"/fail-on/* | wc -l)
twice=$(ls "$dir"/fail-on/warn-* "$dir"/fail-on/quiet-* 2>/dev/null | wc -l)
echo "1..$((count + twice + 2))"
for f in "$dir"/fail-on/*; do
	name=$(basename "$f")
	"$exe" --fail-on error "$f" >/dev/null 2>&1
	rc=$?
	case $name in
	pass-* | warn-* | quiet-*) [ $rc = 0 ]; ok $? "$name: exit 0 (got $rc)" ;;
	*) [ $rc = 1 ]; ok $? "$name: exit 1 (got $rc)" ;;
	esac
	"$exe" --fail-on warning "$f" >/dev/null 2>&1
	rc=$?
	case $name in
	warn-*) [ $rc = 1 ]; ok $? "$name: --fail-on warning exits 1 (got $rc)" ;;
	quiet-*) [ $rc = 0 ]; ok $? "$name: --fail-on warning exits 0 (got $rc)" ;;
	esac
done
"$exe" --fail-on error "$dir/snapshots/synthetic-p2.pickle" >/dev/null 2>&1
rc=$?
[ $rc = 1 ]; ok $? "snapshot with an oom trace entry: exit 1 (got $rc)"
"$exe" --fail-on warning "$dir/fail-on/pass-tensorflow-retried--tf-0026.log" >/dev/null 2>&1
rc=$?
[ $rc = 1 ]; ok $? "a retried allocator warning is a warning: --fail-on warning exits 1 (got $rc)"
exit $fail

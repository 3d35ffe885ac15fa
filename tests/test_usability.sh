#!/bin/bash
# test_usability.sh EXE SOURCE_ROOT — the smaller items of issue 33, each
# on real inputs (testdata/):
#   - --diff headers read a/PATH for an absolute config path (never
#     a//tmp/...), and `patch -p1` applies the diff (from the config's
#     directory, and with -d / from elsewhere) to what --apply writes;
#   - explain takes SIZE as one word or two (19.99 GiB) and refuses a unit
#     that is not one of bytes (12 pounds), naming it;
#   - one malformed YAML config in a directory is skipped with a note, as a
#     binary file there is; the other files are diagnosed (named with
#     --config or as a file, it still fails the run);
#   - snapshot --width N wraps the text view (no line wider than N), 0 never;
#   - `rules facts` is in the usage line and both man pages' SYNOPSIS;
#   - bash-completion (Debian bookworm's 2.11, the real loader) finds the
#     completion installed in a venv's share/ with the line the README
#     gives, and a `pip install --user`'s in ~/.local/share with none.
# Prints TAP.
set -u
exe=$(realpath "$1") root=$(realpath "$2")
. "$(dirname "$0")/tap.sh"

# --- --diff headers and patch -p1
mkdir -p "$tmp/cfg" "$tmp/elsewhere"
cp "$root/testdata/configs/seed001-rotate-wn18rr.yaml" "$tmp/cfg/train.yaml"
log=$root/testdata/logs/seed-001-rotate-eval.log
(cd "$tmp/elsewhere" && "$exe" --color never --diff --config "$tmp/cfg/train.yaml" "$log") > "$tmp/report.txt"
sed -n '/^--- a\//,$p' "$tmp/report.txt" > "$tmp/far.diff"
abs=${tmp#/}
check "--diff, config by absolute path, run elsewhere: headers a/$abs/cfg/train.yaml (no a//)" \
	'grep -qx -- "--- a/$abs/cfg/train.yaml" "$tmp/far.diff" && grep -qx -- "+++ b/$abs/cfg/train.yaml" "$tmp/far.diff" && ! grep -q "^--- a//" "$tmp/report.txt"' \
	"$(grep -- '^---\|^+++' "$tmp/report.txt")"
(cd "$tmp/cfg" && "$exe" --color never --diff --config "$tmp/cfg/train.yaml" "$log") | sed -n '/^--- a\//,$p' > "$tmp/near.diff"
check "--diff, config by absolute path under the current directory: headers a/train.yaml" \
	'grep -qx -- "--- a/train.yaml" "$tmp/near.diff"' "$(head -2 "$tmp/near.diff")"
cp -r "$tmp/cfg" "$tmp/applied"
(cd "$tmp/applied" && "$exe" --apply --config train.yaml "$log" >/dev/null 2>&1)
cp -r "$tmp/cfg" "$tmp/p1" && cp -r "$tmp/cfg" "$tmp/p2"
(cd "$tmp/p1" && patch -s -p1 < "$tmp/near.diff") > "$tmp/patch1.out" 2>&1
r1=$?
sed "s#a/$abs/cfg/#a/$abs/p2/#; s#b/$abs/cfg/#b/$abs/p2/#" "$tmp/far.diff" > "$tmp/far2.diff"
patch -s -p1 -d / < "$tmp/far2.diff" > "$tmp/patch2.out" 2>&1
r2=$?
check "patch -p1 applies the diff (in the config's directory, and with -d / from elsewhere) as --apply writes it" \
	'[ $r1 = 0 ] && [ $r2 = 0 ] && cmp -s "$tmp/p1/train.yaml" "$tmp/applied/train.yaml" && cmp -s "$tmp/p2/train.yaml" "$tmp/applied/train.yaml" && grep -q "test_bs: 64" "$tmp/p1/train.yaml"' \
	"$(cat "$tmp/patch1.out" "$tmp/patch2.out")"

# --- explain: a unit that is not one of bytes is refused
err=$("$exe" explain 12 pounds 2>&1 >/dev/null)
rc=$?
check "explain 12 pounds: exit 2, the error names the unit" \
	'[ $rc = 2 ] && [[ $err = *"12 pounds"*"not a size"* ]]' "$rc $err"
"$exe" explain 40 bananas 2>/dev/null
check "explain 40 bananas: exit 2" '[ $? = 2 ]'
one=$("$exe" explain "19.99 GiB" --config "$root/testdata/configs/seed001-rotate-wn18rr.yaml" 2>&1)
two=$("$exe" explain 19.99 GiB --config "$root/testdata/configs/seed001-rotate-wn18rr.yaml" 2>&1)
check "explain 19.99 GiB (two words) is explain \"19.99 GiB\"" \
	'[ -n "$one" ] && [ "$one" = "$two" ] && [[ $one = *"40943"* ]]' "$two"
"$exe" explain 19.99 GiB extra >/dev/null 2>&1
check "explain with a third word: exit 2" '[ $? = 2 ]'

# --- a malformed YAML in a directory is skipped with a note
mkdir -p "$tmp/dir"
cp "$root/testdata/logs/real-mr-0010-rank1-linear.log" "$tmp/dir/a-train.log"
cp "$root/testdata/configs/invalid.yaml" "$tmp/dir/b-broken.yaml"
printf '\000\001\002binary' > "$tmp/dir/c-data.bin"
out=$(cd "$tmp" && "$exe" --color never dir 2>&1)
rc=$?
want=$("$exe" --color never -q "$tmp/dir/a-train.log" | sed "s#^$tmp/##")
check "a directory with a malformed YAML config: exit 0, its log diagnosed, the YAML skipped with a note naming the line" \
	'[ $rc = 0 ] && [[ $out = *"${want#*: }"* ]] && [[ $out = *"dir/b-broken.yaml:4: skipped: invalid YAML"* ]] && [[ $out = *"dir/c-data.bin: skipped: binary data"* ]]' \
	"$rc $out"
"$exe" --config "$tmp/dir/b-broken.yaml" "$tmp/dir/a-train.log" >/dev/null 2>&1
r1=$?
"$exe" "$tmp/dir/b-broken.yaml" >/dev/null 2>&1
r2=$?
check "the same YAML named with --config or as a file still fails the run (exit 3)" '[ $r1 = 3 ] && [ $r2 = 3 ]' "$r1 $r2"

# --- snapshot --width
snap=$root/testdata/snapshots/cs336-transformer-fullstep.pickle
full=$("$exe" snapshot "$snap")
wrapped=$("$exe" snapshot --width 60 "$snap")
w0=$("$exe" snapshot --width 0 "$snap")
widest() { LC_ALL=C.UTF-8 awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }'; }
check "snapshot --width 60: no line wider than 60 columns ($(printf '%s\n' "$full" | widest) unwrapped), the same words" \
	'[ "$(printf "%s\n" "$full" | widest)" -gt 60 ] && [ "$(printf "%s\n" "$wrapped" | widest)" -le 60 ] &&
	 [ "$(printf "%s" "$full" | tr -d " \n")" = "$(printf "%s" "$wrapped" | tr -d " \n")" ]'
check "snapshot --width 0 never wraps; a pipe is not wrapped by default" '[ "$w0" = "$full" ]'
err=$("$exe" snapshot --width 5 "$snap" 2>&1 >/dev/null)
check "snapshot --width 5: exit 2 with the range" '[ $? = 2 ] && [[ $err = *"20 to 10000"* ]]' "$err"

# --- rules facts in the usage line and SYNOPSIS
check "--help's usage line lists rules list|show ID|check [DIR]|facts" \
	'"$exe" --help | grep -q "kgmem-diagnose rules list|show ID|check \[DIR\]|facts"'
check "kgmem-diagnose(1) SYNOPSIS lists rules facts" \
	'sed -n "/^# SYNOPSIS/,/^# DESCRIPTION/p" "$root/man/kgmem-diagnose.1.scd" | grep -q "^\*kgmem-diagnose rules\*.*|\*facts\*"'
check "kgmem-rules(5) SYNOPSIS lists rules facts" \
	'sed -n "/^# SYNOPSIS/,/^# DESCRIPTION/p" "$root/man/kgmem-rules.5.scd" | grep -q "|\*facts\*"'

# --- bash-completion's own loader finds the completion of an install
bc=/usr/share/bash-completion/bash_completion
if [ -r "$bc" ]; then
	# a venv's layout (as pip installs it: tests/test_packaging.sh) and a
	# --user install's (~/.local)
	venv=$tmp/venv
	mkdir -p "$venv/bin" "$venv/share/bash-completion/completions" "$tmp/home" "$tmp/user/.local/bin" \
		"$tmp/user/.local/share/bash-completion/completions"
	ln -s "$exe" "$venv/bin/kgmem-diagnose"
	ln -s "$exe" "$tmp/user/.local/bin/kgmem-diagnose"
	cp "$root/completions/kgmem-diagnose.bash" "$venv/share/bash-completion/completions/kgmem-diagnose"
	cp "$root/completions/kgmem-diagnose.bash" "$tmp/user/.local/share/bash-completion/completions/kgmem-diagnose"
	# the line README gives for a venv (bash-completion 2.11; 2.12 finds
	# <dir>/../share/bash-completion/completions of each PATH entry itself)
	line=$(grep -o 'export XDG_DATA_DIRS="$VIRTUAL_ENV/share:[^`]*' "$root/README.md" | head -n 1)
	loaded() {  # loaded SETUP ENV...: `complete -p kgmem-diagnose` after SETUP and the loader
		local setup=$1
		shift
		env -i PATH="$PATH" HOME="$tmp/home" "$@" bash --norc --noprofile -c ". $bc
$setup
__load_completion kgmem-diagnose >/dev/null 2>&1
complete -p kgmem-diagnose 2>/dev/null" 2>/dev/null
	}
	got=$(loaded "$line" VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH")
	check "bash-completion finds a venv's completion with README's activation line ($line)" \
		'[ -n "$line" ] && [[ $got = *"-F _kgmem_diagnose"* ]]' "$got"
	got=$(loaded "" PATH="$venv/bin:$PATH")
	check "(without that line bash-completion 2.11 does not look in the venv: the line is needed)" \
		'[[ $got != *"-F _kgmem_diagnose"* ]] || [ -e /usr/share/bash-completion/completions/kgmem-diagnose ]' "$got"
	got=$(loaded "" HOME="$tmp/user" PATH="$tmp/user/.local/bin:$PATH")
	check "bash-completion finds a pip --user install's completion (~/.local/share) with no setting" \
		'[[ $got = *"-F _kgmem_diagnose"* ]]' "$got"
else
	ok "bash-completion finds an install's completion # SKIP bash-completion is not installed"
fi

echo "1..$n"
[ $failed = 0 ]

#!/bin/sh
# Slurm Epilog (slurm.conf: Epilog=/usr/share/kgmem-diagnose/contrib/slurm/epilog.sh,
# or EpilogSlurmctld= on the controller): when a job failed, diagnose its
# output file and append one JSON line to a spool, for jobs that were not
# wrapped in `kgmem-diagnose run`.
#
# Settings (environment, or /etc/default/kgmem-diagnose, which is sourced):
#   KGMEM_SPOOL     JSON Lines file to append to (default
#                   /var/spool/kgmem-diagnose/oom.jsonl)
#   KGMEM_DIAGNOSE  the kgmem-diagnose binary (default: from PATH)
#   SCONTROL        the scontrol binary (default: from PATH)
# The line is the JSON report (schema kgmem-diagnose/1) with a top-level
# "labels" object {job, user, exit_code, output, source: "epilog"}.
# Never fails the epilog: Slurm drains a node whose Epilog exits non-zero,
# so every error is logged to stderr (slurmd's log) and the script exits 0.
[ -r /etc/default/kgmem-diagnose ] && . /etc/default/kgmem-diagnose
SPOOL=${KGMEM_SPOOL:-/var/spool/kgmem-diagnose/oom.jsonl}
KGMEM=${KGMEM_DIAGNOSE:-kgmem-diagnose}
SCONTROL=${SCONTROL:-scontrol}
job=${SLURM_JOB_ID:-}
[ -n "$job" ] || exit 0

info=$("$SCONTROL" show job -o "$job" 2>/dev/null) || info=
field() { printf '%s\n' "$info" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n1; }

# Exit code: EpilogSlurmctld sets SLURM_JOB_EXIT_CODE2 ("1:0"); otherwise
# scontrol's ExitCode=STATUS:SIGNAL.
ec=${SLURM_JOB_EXIT_CODE2:-$(field ExitCode)}
case $ec in
"" | 0:0) exit 0 ;;
esac
# Slurm 22.05 gives the --output pattern unexpanded (SLURM_JOB_STDOUT, scontrol): expand Slurm's
# filename patterns %j %J %x %u %A %a %N %%.
esc() { printf '%s' "$1" | sed 's/[\\/&]/\\&/g'; }
expand() {
	printf '%s' "$1" | sed -e "s/%%/\x01/g; s/%[jJ]/$(esc "$job")/g; s/%x/$(esc "$(field JobName)")/g" \
		-e "s/%u/$(esc "$(field UserId | sed 's/(.*//')")/g; s/%A/$(esc "$(field ArrayJobId)")/g" \
		-e "s/%a/$(esc "$(field ArrayTaskId)")/g; s/%N/$(esc "$(field BatchHost)")/g; s/\x01/%/g"
}
out=$(expand "${SLURM_JOB_STDOUT:-$(field StdOut)}")
err=$(expand "${SLURM_JOB_STDERR:-$(field StdErr)}")
[ -n "$out" ] && [ -r "$out" ] || { echo "kgmem-diagnose epilog: job $job: output file '$out' not readable" >&2; exit 0; }
files=$out
[ -n "$err" ] && [ "$err" != "$out" ] && [ -r "$err" ] && files="$out $err"

mkdir -p "$(dirname "$SPOOL")" 2>/dev/null
# shellcheck disable=SC2086 # two paths at most, no spaces in Slurm's
"$KGMEM" --format json $files 2>/dev/null |
python3 -c '
import json, os, sys
spool, job, user, ec, out = sys.argv[1:6]
try:
    d = json.load(sys.stdin)
except ValueError:
    sys.exit("kgmem-diagnose epilog: job %s: no report" % job)
d["labels"] = {"job": job, "user": user, "exit_code": ec, "output": out, "source": "epilog"}
line = (json.dumps(d, separators=(",", ":")) + "\n").encode()
fd = os.open(spool, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
os.write(fd, line)  # one write(2) with O_APPEND: lines from many nodes do not interleave
os.close(fd)
' "$SPOOL" "$job" "${SLURM_JOB_USER:-}" "$ec" "$out" || true
exit 0

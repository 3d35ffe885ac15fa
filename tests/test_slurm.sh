#!/usr/bin/env bash
# test_slurm.sh EXE SOURCE_ROOT — the fleet patterns of contrib/slurm on a
# real one-node Slurm started inside the test (munged, slurmctld, slurmd on
# private ports, sockets and directories under a temporary directory):
#  - job.sbatch (srun kgmem-diagnose run --report … --label …) on a program
#    that prints a real OOM traceback: one JSON line with the labels and the
#    incident in the job's spool, the job's exit status unchanged;
#  - epilog.sh as the cluster's Epilog: a failed unwrapped job's output file
#    diagnosed into the JSON Lines spool; a successful job adds nothing.
# Skips, saying why, where Slurm cannot start (not installed, not root).
# Prints TAP.
set -u
exe=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$2" && pwd)
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); echo "not ok $n - $*"; fail=1; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }

for b in munged slurmctld slurmd sbatch squeue scontrol sinfo python3; do
	command -v "$b" >/dev/null || skip_all "$b not installed (Debian: slurm-wlm munge)"
done
[ "$(id -u)" = 0 ] || skip_all "slurmd needs root to start jobs as their user"

tmp=$(mktemp -d /tmp/kg-slurm.XXXXXX) || exit 1
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do
		for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
		kill -9 "$p" 2>/dev/null
	done
	[ -n "${KG_KEEP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp"/{state,spool,log,out,bin}
chmod 755 "$tmp"

# munge: a private key and socket
head -c 1024 /dev/urandom > "$tmp/munge.key" && chmod 400 "$tmp/munge.key"
munged -f -F --socket="$tmp/munge.sock" --key-file="$tmp/munge.key" \
	--pid-file="$tmp/munged.pid" --log-file="$tmp/log/munged.log" \
	--seed-file="$tmp/munge.seed" > "$tmp/log/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$tmp/munge.sock" ] && break; sleep 0.1; done
[ -S "$tmp/munge.sock" ] || skip_all "munged did not start: $(tail -n1 "$tmp/log/munged.out")"

ports=$(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))')
read -r ctld_port d_port <<< "$ports"
node=$(slurmd -C 2>/dev/null | sed -n 's/^NodeName=\([^ ]*\).*/\1/p')
cpus=$(slurmd -C 2>/dev/null | sed -n 's/.* CPUs=\([0-9]*\).*/\1/p')
[ -n "$node" ] || skip_all "slurmd -C does not report this node"

# The Epilog as a cluster would install it: a site wrapper that points
# contrib/slurm/epilog.sh at the spool and the binaries (slurmd runs it with
# an almost empty environment).
cat > "$tmp/bin/epilog" <<EOF
#!/bin/sh
export SLURM_CONF=$tmp/slurm.conf KGMEM_SPOOL=$tmp/epilog.jsonl KGMEM_DIAGNOSE=$exe
export PATH=$PATH
echo "epilog job \$SLURM_JOB_ID" >> $tmp/log/epilog.err
exec "$root/contrib/slurm/epilog.sh" 2>> $tmp/log/epilog.err
EOF
chmod +x "$tmp/bin/epilog"

cat > "$tmp/slurm.conf" <<EOF
ClusterName=kgtest
SlurmctldHost=$node
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.sock
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
Epilog=$tmp/bin/epilog
NodeName=$node CPUs=${cpus:-1} RealMemory=100 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$tmp/slurm.conf
slurmctld -D -i -f "$SLURM_CONF" > "$tmp/log/ctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" > "$tmp/log/d.out" 2>&1 &
pids+=($!)
state=
for _ in $(seq 100); do
	state=$(sinfo -h -o %T 2>/dev/null | head -n1)
	[ "$state" = idle ] && break
	sleep 0.2
done
if [ "$state" != idle ]; then
	echo "# slurmctld: $(tail -n2 "$tmp/log/ctld.out" "$tmp/log/slurmctld.log" 2>/dev/null | tr '\n' ' ')"
	echo "# slurmd: $(tail -n2 "$tmp/log/d.out" "$tmp/log/slurmd.log" 2>/dev/null | tr '\n' ' ')"
	skip_all "the one-node Slurm did not come up (node state '${state:-none}')"
fi
ok "one-node Slurm up (slurmctld, slurmd, munged; node $node idle)"

log=$root/testdata/logs/real-mr-0010-rank1-linear.log
submit() { sbatch --parsable "$@" | cut -d';' -f1; }

# 1. the job-script pattern: srun kgmem-diagnose run ... -- CMD
j1=$(PATH=$(dirname "$exe"):$PATH KGMEM_SPOOL=$tmp/runspool \
	submit --output="$tmp/out/%j.out" "$root/contrib/slurm/job.sbatch" \
	sh -c 'echo "step 10 loss 1.0"; cat "$0" >&2; exit 1' "$log")
# 2. an unwrapped job that prints the OOM and fails: the Epilog's case
j2=$(submit --output="$tmp/out/%j.out" --wrap "echo 'epoch 3'; cat '$log' >&2; exit 1")
# 3. a job that succeeds: the Epilog adds nothing
j3=$(submit --output="$tmp/out/%j.out" --wrap "echo all good")
[ -n "$j1" ] && [ -n "$j2" ] && [ -n "$j3" ] && ok "three jobs submitted ($j1 $j2 $j3)" ||
	notok "sbatch failed: $j1 $j2 $j3"

for _ in $(seq ${KG_WAIT:-300}); do
	[ -z "$(squeue -h 2>/dev/null)" ] && [ -f "$tmp/epilog.jsonl" ] &&
		[ "$(wc -l < "$tmp/epilog.jsonl")" -ge 2 ] && break
	sleep 0.2
done
sleep 1 # a late Epilog would still append

ec=$(scontrol show job -o "$j1" 2>/dev/null | tr ' ' '\n' | sed -n 's/^ExitCode=//p')
[ "$ec" = 1:0 ] && ok "job.sbatch: the job's exit status is the program's (ExitCode=$ec)" ||
	notok "job.sbatch: ExitCode '$ec', want 1:0"
grep -q '== kgmem-diagnose: out of memory ==' "$tmp/out/$j1.out" &&
	ok "job.sbatch: the diagnosis is in the job's output file" ||
	notok "job.sbatch: no diagnosis in $tmp/out/$j1.out: $(tail -n3 "$tmp/out/$j1.out" | tr '\n' ' ')"

check_py() { # what, python snippet reading sys.argv[1]
	local what=$1 out
	if out=$(python3 -c "$2" "${@:3}" 2>&1); then ok "$what"; else notok "$what: $out"; fi
}
check_py "job.sbatch: the run spool holds one JSON line with labels job/step/rank/host and the incident" '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
d = json.loads(lines[0])
lab = d["run"]["labels"]
assert lab["job"] == sys.argv[2] and lab["rank"] == "0" and lab["step"] == "0" and lab["host"], lab
assert d["summary"]["incidents"] == 1 and d["incidents"][0]["memory"]["requested_bytes"] == 20971520, d["summary"]
assert d["run"]["exit_code"] == 1 and d["run"]["command"][0] == "sh", d["run"]
' "$tmp/runspool/kgmem-$j1.jsonl" "$j1"

[ -s "$tmp/log/epilog.err" ] && sed 's/^/# epilog: /' "$tmp/log/epilog.err"
check_py "epilog: failed jobs diagnosed into the JSON Lines spool, the successful one left out" '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
recs = {json.loads(l)["labels"]["job"]: json.loads(l) for l in lines}
assert len(lines) == 2 and set(recs) == {sys.argv[2], sys.argv[3]}, [l[:120] for l in lines]
d = recs[sys.argv[3]]
assert d["schema"] == "kgmem-diagnose/1" and d["summary"]["incidents"] == 1, d["summary"]
assert d["labels"]["exit_code"] == "1:0" and d["labels"]["source"] == "epilog", d["labels"]
assert d["incidents"][0]["memory"]["requested_bytes"] == 20971520, d["incidents"][0]["memory"]
' "$tmp/epilog.jsonl" "$j1" "$j2"

echo "1..$n"
exit $fail

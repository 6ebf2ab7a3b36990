#!/usr/bin/env bash
# The Snakemake workflow through its SLURM profile (workflow/profiles/slurm)
# on a REAL, single-node SLURM cluster on this machine (issue #15). Not run by
# CI: it installs packages, writes /etc/slurm and starts daemons. For a fresh
# Debian 12 machine (slurm-wlm 22.05), as root:
#
#   tests/workflow/slurm_local.sh [GPUALIGN]     (default build/app/gpualign)
#
# 1. installs slurm-wlm, munge (and snakemake, seqkit when missing);
# 2. writes /etc/slurm/slurm.conf: cluster "local", node "localhost" with this
#    machine's CPUs and memory, partition "debug", no cgroups
#    (proctrack/linuxproc, task/none), no accounting database (completed jobs
#    stay in `squeue -t all` for an hour and go to
#    /var/log/slurm/jobcomp.log), and two FAKE GPUs (gres gpu:2, device files
#    that are links to /dev/null): jobs asking --gres=gpu:1 are scheduled, but
#    nothing has a GPU, so every gpualign runs --backend cpu;
# 3. starts munged, slurmctld and slurmd (systemd when it runs, else by hand),
#    checks sinfo / srun / sbatch;
# 4. runs the workflow through the profile (3 shards, --backend cpu):
#      sw     data/reads.fa x data/ref_windows.fa -> sw.sam, the align jobs
#             with --gres=gpu:1 (--set-resources), as on a GPU backend;
#      search 30 reads against data/ref_windows.fa, --strand both -> .m8;
#    and cmp's each merged output with one gpualign run;
# 5. prints the jobs' SLURM states and stops the daemons.
# Idempotent: run it again and it rewrites the configuration, restarts the
# daemons and runs again. SLURM_LOCAL_KEEP=1 keeps the work directory and the
# daemons running.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$(id -u)" != 0 ]; then echo "slurm_local.sh: run as root" >&2; exit 2; fi
G=$(realpath "${1:-$ROOT/build/app/gpualign}")
if [ ! -x "$G" ]; then echo "slurm_local.sh: no gpualign binary at $G" >&2; exit 2; fi
D=$ROOT/data
KEEP=${SLURM_LOCAL_KEEP:-0}

echo "== install =="
need=()
for p in slurm-wlm:slurmctld munge:munged snakemake:snakemake seqkit:seqkit; do
  command -v "${p#*:}" >/dev/null 2>&1 || need+=("${p%%:*}")
done
if [ ${#need[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi
echo "slurm $(sinfo --version), snakemake $(snakemake --version)"

USE_SYSTEMD=0
if [ -d /run/systemd/system ] && systemctl is-system-running >/dev/null 2>&1; then USE_SYSTEMD=1; fi
if [ "$(systemctl is-system-running 2>/dev/null || true)" = degraded ]; then USE_SYSTEMD=1; fi

stop_daemons() {
  if [ "$USE_SYSTEMD" = 1 ]; then
    systemctl stop slurmd slurmctld munge 2>/dev/null || true
    return
  fi
  local f pid
  for f in /run/slurmd.pid /run/slurmctld.pid /run/munge/munged.pid; do
    [ -s "$f" ] || continue
    pid=$(cat "$f")
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid"
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    fi
    rm -f "$f"
  done
}

echo "== configure =="
stop_daemons
# the package's postinst normally makes the key; make one if it did not
if [ ! -s /etc/munge/munge.key ]; then
  if command -v mungekey >/dev/null 2>&1; then mungekey -c -f -k /etc/munge/munge.key
  else dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none; fi
  chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key
fi
# this machine's size, as slurmd sees it (a little memory kept back, so that
# the configured RealMemory is never above what slurmd reports)
hw=$(slurmd -C | head -n 1)
cpus=$(sed -n 's/.* CPUs=\([0-9]*\).*/\1/p' <<< "$hw")
sockets=$(sed -n 's/.*SocketsPerBoard=\([0-9]*\).*/\1/p' <<< "$hw")
cores=$(sed -n 's/.*CoresPerSocket=\([0-9]*\).*/\1/p' <<< "$hw")
tpc=$(sed -n 's/.*ThreadsPerCore=\([0-9]*\).*/\1/p' <<< "$hw")
mem=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<< "$hw")
mem=$((mem * 95 / 100))
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/slurm-fakegpu
ln -sfn /dev/null /run/slurm-fakegpu/gpu0
ln -sfn /dev/null /run/slurm-fakegpu/gpu1
cat > /etc/slurm/slurm.conf <<EOF
# written by gpualign's tests/workflow/slurm_local.sh: one node, localhost
ClusterName=local
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# no cgroups (containers often have none usable)
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
# no slurmdbd: no sacct; finished jobs are kept an hour (squeue -t all,
# scontrol show job) and logged to the jobcomp file
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=/var/log/slurm/jobcomp.log
MinJobAge=3600
# a job no node could ever run is refused by sbatch, not left pending
EnforcePartLimits=ALL
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MpiDefault=none
ReturnToService=2
GresTypes=gpu
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus SocketsPerBoard=$sockets CoresPerSocket=$cores ThreadsPerCore=$tpc RealMemory=$mem Gres=gpu:2 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
cat > /etc/slurm/gres.conf <<'EOF'
# two FAKE GPUs (links to /dev/null; gres/gpu needs a File= per device):
# a scheduling test only
Name=gpu File=/run/slurm-fakegpu/gpu[0-1]
EOF
echo "node: CPUs=$cpus RealMemory=$mem Gres=gpu:2 (fake)"

echo "== start =="
if [ "$USE_SYSTEMD" = 1 ]; then
  echo 'SLURMD_OPTIONS="-N localhost"' > /etc/default/slurmd
  systemctl restart munge slurmctld slurmd
else
  mkdir -p /run/munge; chown munge:munge /run/munge
  runuser -u munge -- /usr/sbin/munged
  slurmctld
  slurmd -N localhost
fi
if [ "$KEEP" != 1 ]; then trap stop_daemons EXIT; fi
for _ in $(seq 1 60); do
  state=$(sinfo -h -n localhost -o %T 2>/dev/null || true)
  case "$state" in idle*|mixed*|allocated*) break ;; esac
  # a node left drained by an earlier configuration
  case "$state" in drain*|down*|inval*) scontrol update nodename=localhost state=resume 2>/dev/null || true ;; esac
  sleep 1
done
sinfo -o '%P %a %l %D %T %c %m %G'
case "$state" in idle*|mixed*|allocated*) ;; *) echo "FAIL: node state '$state'"; scontrol show node localhost; exit 1 ;; esac
echo "srun hostname: $(srun hostname)"
# shellcheck disable=SC2016  # expanded by the job's shell
echo "srun --gres=gpu:1: $(srun --gres=gpu:1 bash -c 'echo CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES')"
sbatch --wait -o /dev/null --wrap true >/dev/null && echo "sbatch --wait --wrap true: ok"

echo "== the workflow through workflow/profiles/slurm =="
W=$(mktemp -d "${TMPDIR:-/tmp}/gpualign-slurm.XXXXXX")
mkdir -p "$W/wf" "$W/single" "$W/in"
if [ "$KEEP" = 1 ]; then echo "keeping $W"; else trap 'stop_daemons; rm -rf "$W"' EXIT; fi
seqkit head -n 30 "$D/reads.fa" > "$W/in/reads30.fa"
failures=0
jobs_all=()

# run NAME OUT MODE Q RKEY R ARGS [SNAKEMAKE OPTION...]: the workflow through
# the profile in $W/wf, one gpualign run in $W/single, cmp
run() {
  local name=$1 out=$2 mode=$3 q=$4 rkey=$5 r=$6 args=$7; shift 7
  local t0=$SECONDS
  if (cd "$W/wf" && snakemake -s "$ROOT/workflow/Snakefile" --profile "$ROOT/workflow/profiles/slurm" "$@" \
        --config mode="$mode" queries="$q" "$rkey=$r" shards=3 out="$out" args="$args" \
        threads="$cpus" gpualign="$G") > "$W/$name.log" 2>&1; then
    # shellcheck disable=SC2086  # args is a list of words
    (cd "$W/single" && "$G" "$mode" "$q" "$r" $args -o "$out") 2>> "$W/single.log"
    if cmp "$W/wf/$out" "$W/single/$out"; then
      echo "cmp OK  $name: $out ($(wc -l < "$W/wf/$out") lines) == single run ($((SECONDS - t0)) s)"
    else
      echo "FAIL  $name: $out differs from the single run"; failures=$((failures + 1))
    fi
  else
    echo "FAIL  $name: the workflow failed:"; tail -30 "$W/$name.log"; failures=$((failures + 1))
  fi
  local ids
  ids=$(grep -o "external jobid '[0-9]*'" "$W/$name.log" | grep -o '[0-9]*' | tr '\n' ',' | sed 's/,$//')
  echo "        SLURM jobs: $ids"
  jobs_all+=("$ids")
}

run sw sw.sam sw "$D/reads.fa" refs "$D/ref_windows.fa" "--backend cpu" \
  --set-resources "align:slurm_extra='--gres=gpu:1'"
gres=$(grep -c -- "--gres=gpu:1" "$W/sw.log" || true)
echo "        align jobs submitted with --gres=gpu:1: $gres"
run search search.m8 search "$W/in/reads30.fa" db "$D/ref_windows.fa" "--backend cpu --strand both"

echo "== SLURM's record of the jobs =="
ids=$(IFS=,; echo "${jobs_all[*]}")
squeue -t all -j "$ids" -o '%.6i %.20j %.10T %.5C %.6m %.12b %.8M %R'
if sacct -n -j 1 >/dev/null 2>&1; then sacct -X -j "$ids" -o JobID,JobName%20,State,ExitCode,AllocTRES%40; fi
not_done=$(squeue -h -t all -j "$ids" -o %T | grep -vc '^COMPLETED$' || true)
if [ "$not_done" != 0 ]; then echo "FAIL  $not_done job(s) not COMPLETED"; failures=$((failures + 1)); fi

echo "slurm_local: $failures failure(s)"
[ "$failures" = 0 ]

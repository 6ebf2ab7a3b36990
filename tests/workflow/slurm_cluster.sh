# A real one-node SLURM cluster on localhost for the workflow's SLURM test
# (tests/workflow/run_slurm_test.sh), sourced by it. Debian 12's packages:
# slurm-wlm and slurmdbd 22.05, munge, mariadb-server (scripts/deps.sh).
#
#   slurm_cluster_start DIR   configures and starts, under DIR, munged,
#                             mariadbd, slurmdbd, slurmctld and slurmd; exports
#                             SLURM_CONF (DIR/etc/slurm.conf), so that sbatch,
#                             squeue, sacct and scancel of this shell and of
#                             its children talk to this cluster
#   slurm_cluster_stop        stops them (idempotent; the EXIT trap runs it)
#   slurm_cluster_can_run     0 where this machine can run the cluster, else
#                             1 with the reason on stdout
#
# Nothing outside DIR is written: every daemon gets its configuration, state,
# sockets, pid file and log under DIR (logs in DIR/log), on free loopback
# ports. The cluster:
#   - node "localhost" with this machine's CPUs, sockets, cores and threads
#     and 90% of its memory (slurmd -C), partition "debug";
#   - GRES gpu:N only where nvidia-smi lists N GPUs, with their /dev/nvidiaK
#     files, so that jobs asking --gres=gpu:1 are refused where none exist;
#   - no cgroups (containers often have none usable): proctrack/linuxproc,
#     task/none; memory requests are enforced by polling each second
#     (jobacct_gather/linux with OverMemoryKill), time limits by slurmctld;
#   - accounting through slurmdbd into a MariaDB server of its own, so that
#     sacct answers as on a production cluster.

# slurm_cluster_can_run: root, the daemons installed, and slurmd able to read
# this machine's size.
slurm_cluster_can_run() {
  if [ "$(id -u)" != 0 ]; then
    echo "not root (the daemons run as root here; run the test as root)"; return 1
  fi
  local b
  for b in munged mariadbd mariadb-install-db mariadb slurmdbd slurmctld slurmd sbatch sacct sacctmgr; do
    if ! command -v "$b" >/dev/null 2>&1; then
      echo "$b not found (bash scripts/deps.sh installs slurm-wlm, slurmdbd, munge, mariadb-server)"; return 1
    fi
  done
  if ! slurmd -C >/dev/null 2>&1; then
    echo "slurmd -C cannot read this machine's configuration"; return 1
  fi
  return 0
}

# free_port: an unused TCP port on 127.0.0.1
_slurm_free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# _slurm_wait SECONDS WHAT COMMAND...: runs COMMAND each 0.2 s until it
# succeeds; fails with WHAT after SECONDS
_slurm_wait() {
  local secs=$1 what=$2; shift 2
  local n=$((secs * 5))
  while [ "$n" -gt 0 ]; do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2; n=$((n - 1))
  done
  echo "slurm_cluster: $what did not come up within $secs s" >&2
  return 1
}

# _slurm_pid_alive FILE: the daemon whose pid FILE holds runs
_slurm_pid_alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

slurm_cluster_start() {
  SLURM_CLUSTER_DIR=$1
  local C=$SLURM_CLUSTER_DIR
  mkdir -p "$C/etc" "$C/log" "$C/run" "$C/munge" "$C/mysql" "$C/ctld" "$C/slurmd"
  chmod 700 "$C/munge" "$C/etc"

  # munge: a fresh key, its socket in DIR; --force lets it run as root
  dd if=/dev/urandom of="$C/munge/munge.key" bs=1024 count=1 status=none
  chmod 400 "$C/munge/munge.key"
  SLURM_CLUSTER_MUNGE_SOCKET=$C/munge/munge.socket
  munged --force --socket="$SLURM_CLUSTER_MUNGE_SOCKET" --key-file="$C/munge/munge.key" \
    --pid-file="$C/run/munged.pid" --log-file="$C/log/munged.log" --seed-file="$C/munge/munged.seed" || return 1

  # MariaDB for slurmdbd: root over the socket, a user "slurm" over TCP
  local db_port ctld_port slurmd_port dbd_port
  db_port=$(_slurm_free_port); ctld_port=$(_slurm_free_port)
  slurmd_port=$(_slurm_free_port); dbd_port=$(_slurm_free_port)
  mariadb-install-db --no-defaults --datadir="$C/mysql" --user=root --skip-test-db \
    > "$C/log/mariadb-install.log" 2>&1 || { cat "$C/log/mariadb-install.log" >&2; return 1; }
  mariadbd --no-defaults --datadir="$C/mysql" --user=root --socket="$C/run/mysql.sock" \
    --port="$db_port" --bind-address=127.0.0.1 --pid-file="$C/run/mariadbd.pid" \
    --log-error="$C/log/mariadb.log" --innodb-buffer-pool-size=64M > /dev/null 2>&1 &
  _slurm_wait 60 mariadbd mariadb --no-defaults --socket="$C/run/mysql.sock" -e 'select 1' || return 1
  mariadb --no-defaults --socket="$C/run/mysql.sock" -e \
    "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurmtest';
     GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';" || return 1

  # the node: this machine's size as slurmd sees it
  local hw cpus sockets cores tpc mem gres="" gres_conf="" ngpu=0
  hw=$(slurmd -C | head -n 1)
  cpus=$(sed -n 's/.* CPUs=\([0-9]*\).*/\1/p' <<< "$hw")
  sockets=$(sed -n 's/.*SocketsPerBoard=\([0-9]*\).*/\1/p' <<< "$hw")
  cores=$(sed -n 's/.*CoresPerSocket=\([0-9]*\).*/\1/p' <<< "$hw")
  tpc=$(sed -n 's/.*ThreadsPerCore=\([0-9]*\).*/\1/p' <<< "$hw")
  mem=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<< "$hw")
  mem=$((mem * 90 / 100))
  if command -v nvidia-smi >/dev/null 2>&1; then
    ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
  fi
  if [ "$ngpu" -gt 0 ]; then
    gres="Gres=gpu:$ngpu"
    gres_conf="Name=gpu File=/dev/nvidia[0-$((ngpu - 1))]"
  fi
  SLURM_CLUSTER_CPUS=$cpus
  SLURM_CLUSTER_GPUS=$ngpu

  cat > "$C/etc/slurm.conf" <<EOF
# gpualign tests/workflow/slurm_cluster.sh: one node on localhost
ClusterName=gpualigntest
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SLURM_CLUSTER_MUNGE_SOCKET
StateSaveLocation=$C/ctld
SlurmdSpoolDir=$C/slurmd
SlurmctldPidFile=$C/run/slurmctld.pid
SlurmdPidFile=$C/run/slurmd.pid
SlurmctldLogFile=$C/log/slurmctld.log
SlurmdLogFile=$C/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=task=1
JobAcctGatherParams=OverMemoryKill
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$dbd_port
# the munge socket for slurmdbd connections (AuthInfo covers the others)
AccountingStoragePass=$SLURM_CLUSTER_MUNGE_SOCKET
JobCompType=jobcomp/none
KillWait=5
MinJobAge=300
EnforcePartLimits=ALL
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MpiDefault=none
ReturnToService=2
GresTypes=gpu
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus SocketsPerBoard=$sockets CoresPerSocket=$cores ThreadsPerCore=$tpc RealMemory=$mem $gres State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
  printf '%s\n' "$gres_conf" > "$C/etc/gres.conf"
  cat > "$C/etc/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$SLURM_CLUSTER_MUNGE_SOCKET
DbdHost=localhost
DbdPort=$dbd_port
SlurmUser=root
LogFile=$C/log/slurmdbd.log
PidFile=$C/run/slurmdbd.pid
DebugLevel=info
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db_port
StorageUser=slurm
StoragePass=slurmtest
StorageLoc=slurm_acct_db
EOF
  chmod 600 "$C/etc/slurmdbd.conf"
  export SLURM_CONF=$C/etc/slurm.conf

  slurmdbd || return 1
  _slurm_wait 60 slurmdbd sacctmgr -n list cluster || return 1
  sacctmgr -i add cluster gpualigntest > "$C/log/sacctmgr.log" 2>&1 || { cat "$C/log/sacctmgr.log" >&2; return 1; }
  slurmctld || return 1
  _slurm_wait 30 slurmctld scontrol ping || return 1
  slurmd -N localhost || return 1
  local state="" _
  for _ in $(seq 1 60); do
    state=$(sinfo -h -n localhost -o %T 2>/dev/null || true)
    case "$state" in idle*|mixed*|allocated*) return 0 ;; esac
    sleep 0.5
  done
  echo "slurm_cluster: node state '$state' after 30 s" >&2
  scontrol show node localhost >&2 || true
  return 1
}

slurm_cluster_stop() {
  [ -n "${SLURM_CLUSTER_DIR:-}" ] || return 0
  local C=$SLURM_CLUSTER_DIR f pid _
  # jobs still queued or running first, so that no job outlives the cluster
  if _slurm_pid_alive "$C/run/slurmctld.pid"; then
    SLURM_CONF=$C/etc/slurm.conf timeout 10 scancel --full -u root 2>/dev/null || true
  fi
  for f in slurmd slurmctld slurmdbd mariadbd munged; do
    [ -s "$C/run/$f.pid" ] || continue
    pid=$(cat "$C/run/$f.pid")
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$C/run/$f.pid"
  done
}

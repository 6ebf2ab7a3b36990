#!/usr/bin/env bash
# The Snakemake workflow through its SLURM profile (workflow/profiles/slurm)
# on a real one-node SLURM cluster on this machine (tests/workflow/
# slurm_cluster.sh: munged, MariaDB, slurmdbd, slurmctld, slurmd, all under a
# temporary folder, started and stopped here). Every job goes through sbatch;
# Snakemake follows them through the profile's cluster-status (sacct).
#
#   tests/workflow/run_slurm_test.sh [GPUALIGN]   (default build/app/gpualign)
#
# Scenarios, run at once (each its own Snakemake in its own folder; the
# cluster queues their jobs), --backend cpu, one CPU a job:
#   sw, sg, search   3-4 shards; each merged output cmp'd with one gpualign run
#   cancel           an align job cancelled with scancel while it runs:
#                    Snakemake's retry resubmits it, the output is identical
#   memory           an align job that uses more memory than it asked for
#                    (--set-resources align:mem_mb=100): SLURM kills it, the
#                    workflow fails naming the job, its state and "Exceeded
#                    job memory limit", and writes no output
#   time             an align job past its time request (runtime=1 minute):
#                    SLURM ends it (TIMEOUT), the workflow fails naming the
#                    job and its state, and writes no output
#   kill             Snakemake SIGKILLed while its jobs run; the jobs it
#                    left are cancelled, then --unlock and a rerun with
#                    --rerun-incomplete give the same bytes
#   gres             the GPU backend on a node without GPUs: the jobs before
#                    align ask for no GPU and run; the align jobs ask for
#                    --gres=gpu:1, which SLURM refuses
# Then sacct's record of every job: the job names, states and requests.
#
# Skips (exit 0, with the reason) where this machine cannot run the cluster:
# not root, or the packages of scripts/deps.sh missing. A cluster that fails
# to start is a failure. On a failure the daemons' logs and the Snakemake
# logs are kept in $SLURM_TEST_LOGS (default build/slurm-test-logs) and the
# ends of them printed. SLURM_TEST_KEEP=1 keeps the work folder and leaves
# the cluster running (SLURM_CONF is printed).
# SLURM_TEST_WAIT_S (default 1500) bounds the wait for the slow jobs of the
# cancel and kill scenarios to start.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/workflow/slurm_cluster.sh
source "$ROOT/tests/workflow/slurm_cluster.sh"
for tool in snakemake seqkit; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "SKIP: SLURM workflow test: $tool not found (bash scripts/deps.sh installs it)"; exit 0
  fi
done
if ! why=$(slurm_cluster_can_run); then echo "SKIP: SLURM workflow test: $why"; exit 0; fi
G=$(realpath "${1:-$ROOT/build/app/gpualign}")
if [ ! -x "$G" ]; then echo "FAIL: SLURM workflow test: no gpualign binary at $G" >&2; exit 1; fi
D=$ROOT/data
SNAKEFILE=$ROOT/workflow/Snakefile
PROFILE=$ROOT/workflow/profiles/slurm
LOGS=${SLURM_TEST_LOGS:-$ROOT/build/slurm-test-logs}
KEEP=${SLURM_TEST_KEEP:-0}
W=$(mktemp -d "${TMPDIR:-/tmp}/gpualign-slurm.XXXXXX")
start=$SECONDS
failures=0
fail() { echo "FAIL  $*"; failures=$((failures + 1)); }

finish() {
  local rc=$?
  if [ "$KEEP" = 1 ]; then
    echo "kept: $W (SLURM_CONF=${SLURM_CONF:-}; stop: source tests/workflow/slurm_cluster.sh;" \
      "SLURM_CLUSTER_DIR=$W/cluster slurm_cluster_stop)"
    return
  fi
  slurm_cluster_stop
  if [ "$failures" != 0 ] || [ "$rc" != 0 ]; then
    rm -rf "$LOGS"; mkdir -p "$LOGS"
    cp -r "$W/cluster/log" "$LOGS/daemons" 2>/dev/null || true
    find "$W" -maxdepth 2 -name '*.log' -exec cp {} "$LOGS/" \; 2>/dev/null || true
    find "$W" -maxdepth 2 -name 'slurm-*.out' -exec cp {} "$LOGS/" \; 2>/dev/null || true
    echo "logs kept in $LOGS"
    for f in "$LOGS"/daemons/slurmctld.log "$LOGS"/daemons/slurmd.log "$LOGS"/daemons/slurmdbd.log; do
      [ -f "$f" ] && { echo "--- tail $f"; tail -n 15 "$f"; }
    done
  fi
  rm -rf "$W"
}
trap finish EXIT
trap 'exit 130' INT TERM

echo "== a one-node SLURM cluster on localhost =="
if ! slurm_cluster_start "$W/cluster"; then
  fail "the SLURM cluster did not start"; exit 1
fi
echo "$(sinfo --version), $(mariadbd --version | cut -d' ' -f2-4), snakemake $(snakemake --version)," \
  "started in $((SECONDS - start)) s"
sinfo -o '%P %a %l %D %T %c %m %G'

mkdir -p "$W/in"
seqkit head -n 60 "$D/reads.fa" > "$W/in/reads60.fa"
seqkit head -n 60 "$D/ref_windows.fa" > "$W/in/windows60.fa"

# sm NAME SNAKEMAKE-ARGS...: Snakemake through the profile in $W/NAME (log
# $W/NAME/NAME.log), one CPU a job so that two jobs share the 2-core node
sm() {
  local name=$1; shift
  mkdir -p "$W/$name"
  (cd "$W/$name" && snakemake -s "$SNAKEFILE" --profile "$PROFILE" "$@") > "$W/$name/$name.log" 2>&1
}

# single NAME OUT MODE Q R ARGS: one gpualign run into $W/NAME/single/OUT
single() {
  local name=$1 out=$2 mode=$3 q=$4 r=$5 args=$6
  mkdir -p "$W/$name/single"
  # shellcheck disable=SC2086  # args is a list of words, as the workflow splits it
  (cd "$W/$name/single" && "$G" "$mode" "$q" "$r" $args -o "$out") 2>> "$W/$name/single.log"
}

# same NAME OUT: cmp the workflow's output with the single run's
same() {
  local name=$1 out=$2
  if [ ! -e "$W/$name/$out" ]; then fail "$name: the workflow wrote no $out"; return; fi
  if cmp "$W/$name/$out" "$W/$name/single/$out"; then
    echo "cmp OK  $name: $out ($(wc -l < "$W/$name/$out") lines) == single run"
  else
    fail "$name: $out differs from the single run"
  fi
}

# job_ids NAME: the SLURM job ids Snakemake submitted, in order
job_ids() { grep -o "external jobid '[0-9]*'" "$W/$1/$1.log" | grep -o '[0-9]*' | tr '\n' ' ' || true; }

# plain NAME MODE Q RKEY R OUT SHARDS ARGS: a workflow that must succeed
plain() {
  local name=$1 mode=$2 q=$3 rkey=$4 r=$5 out=$6 shards=$7 args=$8
  if sm "$name" --config mode="$mode" queries="$q" "$rkey=$r" shards="$shards" out="$out" \
       args="$args" threads=1 gpualign="$G"; then
    single "$name" "$out" "$mode" "$q" "$r" "$args"
    same "$name" "$out"
  else
    fail "$name: the workflow failed:"; tail -n 20 "$W/$name/$name.log"
  fi
}

# --- cancel: shard 1's align job sleeps until the test has cancelled it once
mkdir -p "$W/cancel"
cat > "$W/cancel/gpualign-slow-once" <<EOF
#!/usr/bin/env bash
case "\$*" in
  *part.1.*) if [ ! -e "$W/cancel/cancelled" ]; then echo "\$SLURM_JOB_ID" > "$W/cancel/slow.jobid"; sleep 600; fi ;;
esac
exec "$G" "\$@"
EOF
# --- memory: shard 0's align job writes 400 MB, then holds it 10 s
mkdir -p "$W/memory"
cat > "$W/memory/gpualign-hog" <<EOF
#!/usr/bin/env bash
case "\$*" in
  *part.0.*) python3 -c 'import time; b = b"x" * (400 << 20); time.sleep(10)' ;;
esac
exec "$G" "\$@"
EOF
# --- time: shard 0's align job runs past its one-minute request
mkdir -p "$W/time"
cat > "$W/time/gpualign-stuck" <<EOF
#!/usr/bin/env bash
case "\$*" in *part.0.*) sleep 600 ;; esac
exec "$G" "\$@"
EOF
# --- kill: shard 2's align job runs until Snakemake has been killed
mkdir -p "$W/kill"
cat > "$W/kill/gpualign-slow" <<EOF
#!/usr/bin/env bash
case "\$*" in *part.2.*) if [ ! -e "$W/kill/killed" ]; then touch "$W/kill/slow-started"; sleep 600; fi ;; esac
exec "$G" "\$@"
EOF
chmod +x "$W"/*/gpualign-*

echo "== the workflow through workflow/profiles/slurm (all scenarios at once) =="
# cancel and kill first: SLURM starts jobs in the order they were submitted,
# and both interventions wait for one of their jobs to run
sm cancel --config mode=sw queries="$W/in/reads60.fa" refs="$W/in/windows60.fa" shards=3 out=cancel.tsv \
  args="--backend cpu" threads=1 gpualign="$W/cancel/gpualign-slow-once" &
cancel_pid=$!
sm memory --restart-times 0 --set-resources align:mem_mb=100 --config mode=sg queries="$W/in/reads60.fa" \
  refs="$W/in/windows60.fa" shards=3 out=memory.tsv args="--backend cpu" threads=1 \
  gpualign="$W/memory/gpualign-hog" &
memory_pid=$!
sm time --restart-times 0 --set-resources align:runtime=1 --config mode=sw queries="$W/in/reads60.fa" \
  refs="$W/in/windows60.fa" shards=3 out=time.tsv args="--backend cpu" threads=1 \
  gpualign="$W/time/gpualign-stuck" &
time_pid=$!
sm gres --config mode=sw queries="$W/in/reads60.fa" refs="$W/in/windows60.fa" shards=3 out=gres.tsv \
  threads=1 gpualign="$G" &
gres_pid=$!
# kill: Snakemake under setsid (its process group is it and its children)
setsid bash -c 'echo $$ > "$1/kill/sm.pid"; cd "$1/kill"; shift; exec snakemake "$@"' _ "$W" \
  -s "$SNAKEFILE" --profile "$PROFILE" --config mode=search queries="$D/orthologs_cow.fa" \
  db="$D/orthologs_pig.fa" shards=3 out=killed.m8 args="--backend cpu" threads=1 \
  gpualign="$W/kill/gpualign-slow" > "$W/kill/kill.log" 2>&1 &
kill_launcher=$!
sleep 5  # their first jobs go into the queue before the others
pids=()
plain sw sw "$D/reads.fa" refs "$D/ref_windows.fa" sw.sam 3 "--backend cpu" & pids+=($!)
plain sg sg "$D/reads.fa" refs "$D/ref_windows.fa" sg.tsv 4 "--backend cpu" & pids+=($!)
plain search search "$D/orthologs_cow.fa" db "$D/orthologs_pig.fa" search.m8 3 "--backend cpu" & pids+=($!)

# The two interventions, as soon as each one's slow job runs (whichever
# first: both hold a CPU of the node until then).
#   cancel: scancel shard 1's align job;
#   kill: SIGKILL Snakemake's process group, then cancel the jobs it left in
#   SLURM (as its user would: squeue shows them).
# The wait is bounded by time, not by polls: on a loaded 2-core machine (the
# sanitizer build runs beside this test in CI) the jobs queued before the
# slow ones can take minutes.
cancelled_id=none
killed=0
left=""
# kill_snakemake: SIGKILL the kill scenario's Snakemake (its process group),
# then cancel the jobs it left in SLURM; sets `left` to the jobs it submitted
kill_snakemake() {
  [ -s "$W/kill/sm.pid" ] && kill -KILL -- "-$(cat "$W/kill/sm.pid")" 2>/dev/null || true
  wait "$kill_launcher" 2>/dev/null || true
  touch "$W/kill/killed"
  left=$(job_ids kill)
  orphans=$(squeue -h -o %i -j "${left// /,}" 2>/dev/null | tr '\n' ' ' || true)
  echo "kill: Snakemake SIGKILLed; its jobs still in SLURM: ${orphans:-none}; scancel them"
  # shellcheck disable=SC2086
  [ -z "$orphans" ] || scancel $orphans
}
deadline=$((SECONDS + ${SLURM_TEST_WAIT_S:-1500}))
while [ "$SECONDS" -lt "$deadline" ]; do
  if [ "$cancelled_id" = none ] && [ -s "$W/cancel/slow.jobid" ]; then
    cancelled_id=$(cat "$W/cancel/slow.jobid")
    touch "$W/cancel/cancelled"
    scancel "$cancelled_id"
    echo "scancel $cancelled_id (cancel: shard 1's align job, running)"
  fi
  if [ "$killed" = 0 ] && [ -e "$W/kill/slow-started" ] && [ -s "$W/kill/sm.pid" ]; then
    kill_snakemake
    killed=1
  fi
  [ "$cancelled_id" != none ] && [ "$killed" = 1 ] && break
  sleep 0.1
done
[ "$cancelled_id" != none ] || fail "cancel: shard 1's align job never started"
if [ "$killed" != 1 ]; then
  fail "kill: shard 2's align job never started"
  kill_snakemake  # all the same, so that the rerun below is alone in its folder
fi
for _ in $(seq 1 300); do
  [ -z "$(squeue -h -o %i -j "${left// /,}" 2>/dev/null)" ] && break; sleep 0.2
done
if [ -e "$W/kill/killed.m8" ]; then fail "kill: killed.m8 exists after the kill"; fi
mv "$W/kill/kill.log" "$W/kill/kill-1.log"
(cd "$W/kill" && snakemake -s "$SNAKEFILE" --profile "$PROFILE" --unlock --config mode=search \
  queries="$D/orthologs_cow.fa" db="$D/orthologs_pig.fa" shards=3 out=killed.m8) > "$W/kill/unlock.log" 2>&1
if sm kill --rerun-incomplete --config mode=search queries="$D/orthologs_cow.fa" db="$D/orthologs_pig.fa" \
     shards=3 out=killed.m8 args="--backend cpu" threads=1 gpualign="$W/kill/gpualign-slow"; then
  single kill killed.m8 search "$D/orthologs_cow.fa" "$D/orthologs_pig.fa" "--backend cpu"
  same kill killed.m8
  echo "        kill: rerun jobs: $(job_ids kill)"
else
  fail "kill: the rerun failed"; tail -n 20 "$W/kill/kill.log"
fi

for p in "${pids[@]}"; do wait "$p" || true; done

if wait "$cancel_pid"; then
  single cancel cancel.tsv sw "$W/in/reads60.fa" "$W/in/windows60.fa" "--backend cpu"
  same cancel cancel.tsv
  if grep -q "SLURM job $cancelled_id ended CANCELLED" "$W/cancel/cancel.log"; then
    echo "ok    cancel: job $cancelled_id reported CANCELLED, resubmitted: jobs $(job_ids cancel)"
  else
    fail "cancel: the log does not report job $cancelled_id CANCELLED"
  fi
else
  fail "cancel: the workflow failed after the cancelled job"; tail -n 20 "$W/cancel/cancel.log"
fi

# expect_failure NAME OUT PID PATTERN: the workflow failed, and printed the
# job's SLURM state and why (PATTERN, a grep -E of the status line)
expect_failure() {
  local name=$1 out=$2 pid=$3 pattern=$4 line
  if wait "$pid"; then fail "$name: the workflow succeeded"; return; fi
  if [ -e "$W/$name/$out" ]; then fail "$name: the failed workflow left $out"; fi
  line=$(grep -m 1 -E "$pattern" "$W/$name/$name.log" || true)
  if [ -n "$line" ]; then
    echo "ok    $name: the workflow failed, no $out; it printed: $line"
    grep -m 1 "Error executing rule align on cluster" "$W/$name/$name.log" | sed 's/^/        /' || true
  else
    fail "$name: no line '$pattern' in the log:"; tail -n 20 "$W/$name/$name.log"
  fi
}
# (memory is enforced by polling, not cgroups: the job ends FAILED, its log
# says why)
expect_failure memory memory.tsv "$memory_pid" "^SLURM job [0-9]+ ended (FAILED|OUT_OF_MEMORY) .*Exceeded job memory limit"
expect_failure time time.tsv "$time_pid" "^SLURM job [0-9]+ ended TIMEOUT .*DUE TO TIME LIMIT"

if [ "$SLURM_CLUSTER_GPUS" -gt 0 ]; then
  # a node with GPUs: the GPU workflow runs, one GPU a shard
  if wait "$gres_pid"; then
    single gres gres.tsv sw "$W/in/reads60.fa" "$W/in/windows60.fa" ""
    same gres gres.tsv
  else
    fail "gres: the GPU workflow failed:"; tail -n 20 "$W/gres/gres.log"
  fi
elif wait "$gres_pid"; then
  fail "gres: the GPU workflow succeeded on a node without GPUs"
elif grep -q "Requested node configuration is not available" "$W/gres/gres.log"; then
  echo "ok    gres: sbatch --gres=gpu:1 refused for the align jobs (no GPU on the node);" \
    "the plan and split jobs ran: $(job_ids gres)"
else
  fail "gres: the GPU workflow failed otherwise:"; tail -n 20 "$W/gres/gres.log"
fi

echo "== sacct: every job of the test =="
sleep 2  # slurmdbd records the last job ends asynchronously
sacct -X -a -o JobID,JobName%22,State%14,ExitCode,ReqTRES%40,Timelimit,Elapsed
all_ids=$(sacct -X -a -n -P -o JobID | tr '\n' ' ')
n_all=$(wc -w <<< "$all_ids")
# job names: gpualign-RULE-N, and --gres only on the align jobs of the GPU run
bad_names=$(sacct -X -a -n -P -o JobName | grep -cvE '^gpualign-(plan|split|align|merge)-[0-9]+$' || true)
[ "$bad_names" = 0 ] || fail "$bad_names job(s) not named gpualign-RULE-N"
gpu_jobs=$(sacct -X -a -n -P -o JobName,ReqTRES | grep 'gres/gpu' | grep -vc '^gpualign-align-' || true)
[ "$gpu_jobs" = 0 ] || fail "$gpu_jobs job(s) other than align asked for a GPU"
for name in sw sg search kill; do
  for id in $(job_ids "$name"); do
    st=$(sacct -X -n -P -o State -j "$id" | head -n 1)
    [ "$st" = COMPLETED ] || fail "$name: job $id $st, not COMPLETED"
  done
done
echo "sacct: $n_all jobs"

echo "SLURM workflow test: $failures failure(s), $((SECONDS - start)) s"
[ "$failures" = 0 ]

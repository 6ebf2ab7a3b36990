#!/usr/bin/env bash
# One device call: gpualign_long_bench (issue 11) on the long-pair workloads.
# Expects .carry/gpualign_long_bench (CMake target gpualign_long_bench; static
# but for libc) and the shared data in .carry/data (bash bench/prepare_carry.sh
# dna/long copies both).
# Steps (each one process under `timeout`, at most ~4 minutes):
#   real     mito, hp50, hp100, sa200 (--runs, median), WFA2 peer beside the global rows
#   cpu      the same four with the CPU backend (--cpu: align_pair_long on every core,
#            compared with the GPU), no WFA2
#   syn1m5   1 Mbp x 1 Mbp, 5% divergence, WFA2 peer capped at PEER_TIMEOUT s
#   syn1m20  1 Mbp x 1 Mbp, 20% divergence, likewise
#   bulk     2,000 pairs of 5-50 kb, 10% divergence, likewise
# Writes to OUT_DIR: device.txt, long.log (every step's output) and long.csv
# (the rows of every step; one header).
# Env: LONG_MODES (global,local), LONG_RUNS (3), PEER_TIMEOUT (30), LONG_ARGS (more flags).
# Usage on the device machine, from the repo root:
#   bench/device_long.sh OUT_DIR [real|cpu|syn1m5|syn1m20|bulk]...   (default: real syn1m5 syn1m20 bulk)
set -uo pipefail
out=${1:?OUT dir}; shift
mkdir -p "$out"
steps=${*:-real syn1m5 syn1m20 bulk}
B=.carry/gpualign_long_bench
export GPUALIGN_SHARED_DATA=$PWD/.carry/data
modes=${LONG_MODES:-global,local} runs=${LONG_RUNS:-3} peer_timeout=${PEER_TIMEOUT:-30}
log=$out/long.log csv=$out/long.csv
[ -x $B ] || { echo "no $B: build the target gpualign_long_bench and run bench/prepare_carry.sh dna/long"; exit 1; }
[ -d .carry/data/dna/long ] || echo "warning: no .carry/data/dna/long: the real workloads will be skipped"
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
  echo "host: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB"; ldd $B; } 2>&1 | tee "$out/device.txt"
: > "$log"

# run STEP SECONDS ARGS...: one bench process; its rows are appended to long.csv.
run() {
  local step=$1 limit=$2; shift 2
  local c=/tmp/long_$step.csv
  rm -f "$c"
  echo "=== $step: $B --modes $modes --runs $runs --peer-timeout-s $peer_timeout $* ${LONG_ARGS:-}" | tee -a "$log"
  local s
  s=$(date +%s)
  # shellcheck disable=SC2086
  timeout -k 10 "$limit" $B --modes "$modes" --runs "$runs" --peer-timeout-s "$peer_timeout" --csv "$c" "$@" \
    ${LONG_ARGS:-} 2>&1 | tee -a "$log"
  local rc=${PIPESTATUS[0]}
  echo "=== $step rc=$rc ($(( $(date +%s) - s )) s)$([ "$rc" = 124 ] && echo ", TIMED OUT after $limit s")" | tee -a "$log"
  if [ -s "$c" ]; then
    if [ -s "$csv" ]; then tail -n +2 "$c" >> "$csv"; else cat "$c" > "$csv"; fi
  fi
}

for step in $steps; do
  case $step in
    real)    run real 240 --workloads mito,hp50,hp100,sa200 ;;
    cpu)     run cpu 240 --workloads mito,hp50,hp100,sa200 --cpu --no-peer ;;
    syn1m5)  run syn1m5 240 --workloads syn1m5 ;;
    syn1m20) run syn1m20 240 --workloads syn1m20 ;;
    bulk)    run bulk 240 --workloads bulk2000 ;;
    *) echo "unknown step $step (real cpu syn1m5 syn1m20 bulk)" | tee -a "$log" ;;
  esac
done
echo "rows: $(( $(wc -l < "$csv" 2>/dev/null || echo 1) - 1 )) in $csv"

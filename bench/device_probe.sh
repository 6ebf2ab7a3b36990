#!/usr/bin/env bash
# One device call: CUDA start-up breakdown (cuda_startup_probe, carried as
# .carry/cuda_startup_probe) and the CLI on (a) / (a)x3 with the -v stage log.
# Usage: bench/device_probe.sh OUT_DIR
set -uo pipefail
out=${1:?OUT dir}
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=${B:-.carry/gpualign}
W=/tmp/e2e; mkdir -p $W
nvidia-smi -L; nproc; nvidia-smi -q | grep -i -E "persistence|driver version" | head -3
(python3 scripts/gen_pairs.py 100000 512 0.1 42 $W/a_q.fa $W/a_r.fa && for k in 1 2 3; do cat $W/a_q.fa; done > $W/a3_q.fa &&
  for k in 1 2 3; do cat $W/a_r.fa; done > $W/a3_r.fa) &
gen=$!
for k in 1 2 3; do .carry/cuda_startup_probe; echo; done
s=$(date +%s%N); .carry/cuda_startup_probe > /dev/null; echo "probe process wall $(( ($(date +%s%N) - s) / 1000000 )) ms"
wait $gen
cat $W/*.fa > /dev/null
run() {
  local label=$1; shift
  local s=$(date +%s%N)
  $B "$@" -v > /dev/null 2> $W/run.log
  local rc=$? ms=$(( ($(date +%s%N) - s) / 1000000 ))
  echo "$label rc=$rc wall_ms=$ms"; grep -o 'stages (s):.*' $W/run.log | sed 's/^/    /'
}
for so in "" "--score-only"; do
  for rep in 1 2; do run "a $so" sw $W/a_q.fa $W/a_r.fa --backend gpu $so -o $W/a.tsv; done
  for rep in 1 2; do run "a3 $so" sw $W/a3_q.fa $W/a3_r.fa --backend gpu $so -o $W/a3.tsv; done
done

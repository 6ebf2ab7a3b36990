#!/usr/bin/env bash
# One device call: end-to-end (a) and (a)x3 timings of .carry/gpualign under
# several run-time settings (environment / options), to find what limits the
# steady state. Each setting: 2 runs of (a) and 2 of (a)x3, CIGAR and
# score-only, process wall (ms) and the -v stage lines.
# Usage: bench/device_knobs.sh OUT_DIR 'LABEL|ENV|ARGS[|BINARY]' ...
#   e.g. 'default||' 'passive|OMP_WAIT_POLICY=passive|' 't8||--threads 8' 'prev|||.carry/gpualign_prev'
# Outputs are compared (cmp) with the first setting's. KNOBS_FRESH=1 removes the
# output file before each run (so the run does not pay for replacing it).
set -uo pipefail
out=${1:?OUT dir}; shift
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=${KNOBS_BINARY:-.carry/gpualign}
W=/tmp/e2e
mkdir -p $W
nvidia-smi -L; nproc
if [ ! -s $W/a3_r.fa ]; then
  python3 scripts/gen_pairs.py 100000 512 0.1 42 $W/a_q.fa $W/a_r.fa &&
    for k in 1 2 3; do cat $W/a_q.fa; done > $W/a3_q.fa && for k in 1 2 3; do cat $W/a_r.fa; done > $W/a3_r.fa
fi
cat $W/a_q.fa $W/a_r.fa $W/a3_q.fa $W/a3_r.fa > /dev/null
for spec in "$@"; do
  IFS='|' read -r label envs args bin <<< "$spec"
  bin=${bin:-$B}
  for so in "" "--score-only"; do
    tag=cigar; [ -n "$so" ] && tag=scoreonly
    for input in a a3; do
      for rep in $(seq ${KNOBS_REPS:-2}); do
        [ -n "${KNOBS_FRESH:-}" ] && rm -f $W/k.tsv
        s=$(date +%s%N)
        TIMEFORMAT='%U %S'
        cpu=$( { time env $envs $bin sw $W/${input}_q.fa $W/${input}_r.fa --backend gpu $so $args -o $W/k.tsv -v > /dev/null 2> $W/run.log; } 2>&1 )
        rc=$(grep -c "error" $W/run.log) ms=$(( ($(date +%s%N) - s) / 1000000 ))
        cat $W/run.log >> "$out/$label.log"
        echo "$label $tag $input errors=$rc wall_ms=$ms cpu_user_sys_s=$cpu $(grep -o '[0-9.]* s, [0-9.]* GCUPS' $W/run.log)"
        [ $rep = 1 ] && grep -o 'stages (s):.*' $W/run.log | sed 's/^/    /'
      done
      [ -s $W/ref_${input}_$tag.tsv ] && { cmp -s $W/k.tsv $W/ref_${input}_$tag.tsv || echo "    OUTPUT DIFFERS from the first setting's"; }
      [ -s $W/ref_${input}_$tag.tsv ] || cp $W/k.tsv $W/ref_${input}_$tag.tsv
    done
  done
done

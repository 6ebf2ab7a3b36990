#!/usr/bin/env bash
# One device call: end-to-end timings of .carry/gpualign under several
# run-time settings (environment / options), to find what limits the steady
# state. Each setting: KNOBS_REPS (2) runs of each input in KNOBS_INPUTS
# ("a a3"; any of a a2 a3 a6 = workload (a) and its k-fold concatenation),
# CIGAR and score-only, process wall (ms), CPU time and the -v stage lines.
# With a2 and a6 both given, a summary gives the steady state per setting:
# 4 x 2.62e10 cells / (median in-process total (a6) - median total (a2)).
# Usage: bench/device_knobs.sh OUT_DIR 'LABEL|ENV|ARGS[|BINARY]' ...
#   e.g. 'default||' 'passive|OMP_WAIT_POLICY=passive|' 't8||--threads 8' 'prev|||.carry/gpualign_prev'
# Outputs are compared (cmp) with the first setting's. KNOBS_FRESH=1 removes the
# output file before each run (so the run does not pay for replacing it).
set -uo pipefail
out=${1:?OUT dir}; shift
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=${KNOBS_BINARY:-.carry/gpualign}
INPUTS=${KNOBS_INPUTS:-a a3}
W=/tmp/e2e
mkdir -p $W
nvidia-smi -L; nproc
[ -s $W/a_r.fa ] || python3 scripts/gen_pairs.py 100000 512 0.1 42 $W/a_q.fa $W/a_r.fa || exit 1
for k in 2 3 6; do
  for s in q r; do [ -s $W/a${k}_$s.fa ] || for i in $(seq $k); do cat $W/a_$s.fa; done > $W/a${k}_$s.fa; done
done
cat $W/*.fa > /dev/null
: > "$out/summary.txt"
for spec in "$@"; do
  IFS='|' read -r label envs args bin <<< "$spec"
  bin=${bin:-$B}
  for so in "" "--score-only"; do
    tag=cigar; [ -n "$so" ] && tag=scoreonly
    for input in $INPUTS; do
      for rep in $(seq ${KNOBS_REPS:-2}); do
        [ -n "${KNOBS_FRESH:-}" ] && rm -f $W/k.tsv
        s=$(date +%s%N)
        TIMEFORMAT='%U %S'
        cpu=$( { time env $envs $bin sw $W/${input}_q.fa $W/${input}_r.fa --backend gpu $so $args -o $W/k.tsv -v > /dev/null 2> $W/run.log; } 2>&1 )
        rc=$(grep -c "error" $W/run.log) ms=$(( ($(date +%s%N) - s) / 1000000 ))
        total=$(grep -o 'cells, [0-9.]* s' $W/run.log | grep -o '[0-9.]* s' | tr -d ' s')
        cat $W/run.log >> "$out/$label.log"
        echo "$label $tag $input errors=$rc wall_ms=$ms cpu_user_sys_s=$cpu total_s=$total"
        echo "$label $tag $input $total" >> "$out/summary.txt"
        [ $rep = 1 ] && grep -o 'stages (s):.*\|GPU engine (s):.*' $W/run.log | sed 's/^/    /'
      done
      [ -s $W/ref_${input}_$tag.tsv ] && { cmp -s $W/k.tsv $W/ref_${input}_$tag.tsv || echo "    OUTPUT DIFFERS from the first setting's"; }
      [ -s $W/ref_${input}_$tag.tsv ] || cp $W/k.tsv $W/ref_${input}_$tag.tsv
    done
  done
done
python3 - "$out/summary.txt" <<'PY'
import sys, statistics, collections
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    label, tag, inp, total = line.split()
    runs[(label, tag, inp)].append(float(total))
print("steady state (in-process totals, median): 4 x 2.62e10 cells / (t(a6) - t(a2))")
for (label, tag, inp), v in runs.items():
    if inp == "a6" and (label, tag, "a2") in runs:
        d = statistics.median(v) - statistics.median(runs[(label, tag, "a2")])
        print(f"  {label:12s} {tag:10s} {4 * 2.62144e10 / d / 1e9:7.1f} GCUPS")
PY

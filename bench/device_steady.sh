#!/usr/bin/env bash
# One device call: end-to-end CLI throughput (FASTA in, TSV out) on workload
# (a) and its 2- and 6-fold concatenations, for .carry/gpualign and a
# baseline binary, then pacbio_ecoli GPU vs CPU.
#  - each run: `gpualign sw Q R --backend gpu [--score-only] -o OUT -v`, the
#    output file removed before the run (a pipeline writes a new file;
#    replacing an existing 100 MB file costs its unlink at commit);
#    process wall (date, ns), CPU time (bash time: user sys), and the
#    in-process total and backend start-up from the -v log;
#  - steady state = 4 x 2.62e10 cells / (median wall (a)x6 - median wall (a)x2),
#    by process wall and by in-process total;
#  - outputs compared with cmp: new vs baseline, and across repetitions.
# Usage: [STEADY_REPS=3] bench/device_steady.sh OUT_DIR [BASELINE_BINARY]
set -uo pipefail
out=${1:?OUT dir}
base=${2:-}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.carry/lib
W=/tmp/steady
mkdir -p $W
if [ ! -s $W/a6_r.fa ]; then
  python3 scripts/gen_pairs.py 100000 512 0.1 42 $W/a_q.fa $W/a_r.fa || exit 1
  for s in q r; do
    cat $W/a_$s.fa $W/a_$s.fa > $W/a2_$s.fa
    cat $W/a2_$s.fa $W/a2_$s.fa $W/a2_$s.fa > $W/a6_$s.fa
  done
fi
cat $W/*.fa > /dev/null  # page cache
bins="new:.carry/gpualign"
[ -n "$base" ] && bins="$bins base:$base"
TIMEFORMAT='%U %S'
for so in "" "--score-only"; do
  tag=cigar; [ -n "$so" ] && tag=scoreonly
  for spec in $bins; do
    label=${spec%%:*} bin=${spec#*:}
    for input in a a2 a6; do
      for rep in $(seq ${STEADY_REPS:-3}); do
        rm -f $W/o.tsv
        s=$(date +%s%N)
        cpu=$( { time $bin sw $W/${input}_q.fa $W/${input}_r.fa --backend gpu $so -o $W/o.tsv -v > /dev/null 2> $W/run.log; } 2>&1 )
        ms=$(( ($(date +%s%N) - s) / 1000000 ))
        total=$(grep -o 'cells, [0-9.]* s' $W/run.log | grep -o '[0-9.]* s' | tr -d ' s')
        init=$(grep -o 'backend init [0-9.]*' $W/run.log | grep -o '[0-9.]*$')
        echo "$label $tag $input wall_ms=$ms total_s=$total init_s=$init cpu_user_sys_s=$cpu errors=$(grep -c error $W/run.log)"
        cat $W/run.log >> "$out/runs.log"
        if [ $rep = 1 ]; then cp $W/o.tsv $W/first.tsv; else cmp -s $W/o.tsv $W/first.tsv || echo "  OUTPUT DIFFERS between repetitions"; fi
      done
      if [ $label = new ]; then cp $W/o.tsv $W/new_${tag}_${input}.tsv
      else cmp $W/o.tsv $W/new_${tag}_${input}.tsv && echo "  $tag $input: baseline output identical to new ($(wc -l < $W/o.tsv) lines)"; fi
    done
  done
done
D=.carry/data/dna/pacbio_ecoli
for mode in sw nw; do
  for backend in gpu cpu; do
    s=$(date +%s%N)
    .carry/gpualign $mode $D/reads.fa $D/ref_windows.fa --backend $backend -o $W/pb_${mode}_$backend.tsv 2> $W/run.log
    echo "pacbio $mode $backend wall_ms=$(( ($(date +%s%N) - s) / 1000000 )) $(grep -o '[0-9]* pairs.*' $W/run.log)"
  done
  cmp $W/pb_${mode}_gpu.tsv $W/pb_${mode}_cpu.tsv && echo "pacbio $mode: GPU and CPU outputs identical ($(wc -l < $W/pb_${mode}_gpu.tsv) lines)"
done

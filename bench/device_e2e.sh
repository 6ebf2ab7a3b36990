#!/usr/bin/env bash
# One device call: end-to-end CLI timings (FASTA in, TSV out).
#  - pacbio_ecoli, sw and nw: GPU backend vs CPU backend, outputs compared with cmp
#  - workload (a): 100,000 synthetic DNA pairs of 512 (scripts/gen_pairs.py, seed 42),
#    sw with CIGAR and score-only, 3 runs each (the log line gives wall time and GCUPS)
# Expects .carry/{gpualign,lib/,data/} (see docs/benchmarks.md). Usage: bench/device_e2e.sh OUT_DIR
set -uo pipefail
out=${1:?OUT dir}
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/gpualign
D=.carry/data
nvidia-smi -L
for mode in sw nw; do
  for backend in gpu cpu; do
    s=$(date +%s%N)
    $B $mode $D/dna/pacbio_ecoli/reads.fa $D/dna/pacbio_ecoli/ref_windows.fa --backend $backend -o /tmp/pb_${mode}_$backend.tsv
    echo "pacbio $mode $backend wall $(( ($(date +%s%N) - s) / 1000000 )) ms"
  done
  cmp /tmp/pb_${mode}_gpu.tsv /tmp/pb_${mode}_cpu.tsv && echo "pacbio $mode: GPU and CPU outputs identical ($(wc -l < /tmp/pb_${mode}_gpu.tsv) lines)"
done
python3 scripts/gen_pairs.py 100000 512 0.1 42 /tmp/a_q.fa /tmp/a_r.fa
for so in "" "--score-only"; do
  for rep in 1 2 3; do
    $B sw /tmp/a_q.fa /tmp/a_r.fa --backend gpu $so -o /tmp/a.tsv
  done
done

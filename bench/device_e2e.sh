#!/usr/bin/env bash
# One device call: GPU tests, then end-to-end CLI timings (FASTA in, TSV out).
#  - workload (a): 100,000 synthetic DNA pairs of 512 (scripts/gen_pairs.py, seed 42,
#    generated here in the background while the tests run), sw with CIGAR and
#    score-only: process wall time (date, ns) and the -v stage breakdown;
#    3 runs each; the output is compared (cmp) with the baseline binary's when present
#  - (a) x 3 concatenated (300,000 pairs): the same, where start-up amortises
#  - start-up floor: the same command on the first pair of (a) only
#  - pacbio_ecoli, sw and nw: GPU backend vs CPU backend, outputs compared with cmp
# Expects .carry/{gpualign,gpualign_gpu_tests,lib/,data/} and optionally
# .carry/gpualign_old (a baseline binary) (see docs/benchmarks.md).
# Optional: E2E_STREAMS="3 4" also times the new binary on (a) and (a)x3 with
# --gpu-streams N for each N listed (outputs compared with the default's).
# Usage: bench/device_e2e.sh OUT_DIR [skip-tests]
set -uo pipefail
out=${1:?OUT dir}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.carry/lib GPUALIGN_SHARED_DATA=$PWD/.carry/data GPUALIGN_BINARY=$PWD/.carry/gpualign
B=.carry/gpualign
OLD=.carry/gpualign_old
D=.carry/data
W=/tmp/e2e
mkdir -p $W
nvidia-smi -L; nproc; free -g | head -2
(python3 scripts/gen_pairs.py 100000 512 0.1 42 $W/a_q.fa $W/a_r.fa && for k in 1 2 3; do cat $W/a_q.fa; done > $W/a3_q.fa &&
  for k in 1 2 3; do cat $W/a_r.fa; done > $W/a3_r.fa && head -2 $W/a_q.fa > $W/one_q.fa && head -2 $W/a_r.fa > $W/one_r.fa) &
gen=$!
if [ "${2:-}" != skip-tests ]; then
  .carry/gpualign_gpu_tests 2>&1 | tee $out/gpu_tests.log | grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|FAILED" | tail -30
fi
wait $gen || { echo "generating (a) failed"; exit 1; }
cat $W/a_q.fa $W/a_r.fa $W/a3_q.fa $W/a3_r.fa > /dev/null  # page cache
s=$(date +%s%N); cat $W/a3_q.fa $W/a3_r.fa > /dev/null; echo "page-cache read of a3 (624 MB): $(( ($(date +%s%N) - s) / 1000000 )) ms"

# run LABEL BINARY ARGS...: one timed run; the -v log goes to $out/LABEL.log
run() {
  local label=$1 bin=$2; shift 2
  local s=$(date +%s%N)
  $bin "$@" -v > /dev/null 2> $W/run.log
  local rc=$? ms=$(( ($(date +%s%N) - s) / 1000000 ))
  cat $W/run.log >> $out/$label.log
  echo "$label rc=$rc wall_ms=$ms $(grep -o 'info: [0-9]* pairs.*GCUPS' $W/run.log)"
  grep -o 'stages (s):.*' $W/run.log | sed 's/^/    /'
}
for so in "" "--score-only"; do
  tag=cigar; [ -n "$so" ] && tag=scoreonly
  run one_$tag $B sw $W/one_q.fa $W/one_r.fa --backend gpu $so -o $W/one.tsv
  if [ -x $OLD ]; then
    for rep in 1 2; do run a_old_$tag $OLD sw $W/a_q.fa $W/a_r.fa --backend gpu $so -o $W/a_old.tsv; done
  fi
  run a_serial_$tag $B sw $W/a_q.fa $W/a_r.fa --backend gpu --threads 1 $so -o $W/a_serial.tsv
  for rep in 1 2 3; do run a_$tag $B sw $W/a_q.fa $W/a_r.fa --backend gpu $so -o $W/a.tsv; done
  [ -x $OLD ] && { cmp $W/a.tsv $W/a_old.tsv && echo "(a) $tag: output identical to the baseline binary's ($(wc -l < $W/a.tsv) lines)"; }
  cmp $W/a.tsv $W/a_serial.tsv && echo "(a) $tag: output identical with --threads 1"
  [ -x $OLD ] && run a3_old_$tag $OLD sw $W/a3_q.fa $W/a3_r.fa --backend gpu $so -o $W/a3_old.tsv
  for rep in 1 2; do run a3_$tag $B sw $W/a3_q.fa $W/a3_r.fa --backend gpu $so -o $W/a3.tsv; done
  [ -x $OLD ] && { cmp $W/a3.tsv $W/a3_old.tsv && echo "(a)x3 $tag: output identical to the baseline binary's"; }
  for ns in ${E2E_STREAMS:-}; do
    for rep in 1 2; do run a_s${ns}_$tag $B sw $W/a_q.fa $W/a_r.fa --backend gpu --gpu-streams $ns $so -o $W/a_s.tsv; done
    for rep in 1 2; do run a3_s${ns}_$tag $B sw $W/a3_q.fa $W/a3_r.fa --backend gpu --gpu-streams $ns $so -o $W/a3_s.tsv; done
    cmp $W/a_s.tsv $W/a.tsv && cmp $W/a3_s.tsv $W/a3.tsv && echo "(a), (a)x3 $tag --gpu-streams $ns: outputs identical"
  done
done
for mode in sw nw; do
  for backend in gpu cpu; do
    run pacbio_${mode}_$backend $B $mode $D/dna/pacbio_ecoli/reads.fa $D/dna/pacbio_ecoli/ref_windows.fa --backend $backend -o $W/pb_${mode}_$backend.tsv
  done
  cmp $W/pb_${mode}_gpu.tsv $W/pb_${mode}_cpu.tsv && echo "pacbio $mode: GPU and CPU outputs identical ($(wc -l < $W/pb_${mode}_gpu.tsv) lines)"
done

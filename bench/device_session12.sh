#!/usr/bin/env bash
# One device call for session 12's verification (single GPU): the whole GPU
# test suite, compute-sanitizer memcheck and racecheck on the GPU hit
# selection, the s1 search workload twice (scan kernel seconds and process
# wall), and the mito pair's nw through the CLI on the CPU and the GPU with
# cmp. Expects .carry/ from bench/prepare_carry.sh (dna/long, protein/).
# Usage on the device machine, from the repo root: bench/device_session12.sh OUT_DIR
set -uo pipefail
out=${1:?OUT dir}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.carry/lib GPUALIGN_SHARED_DATA=$PWD/.carry/data GPUALIGN_BINARY=$PWD/.carry/gpualign
B=.carry/gpualign
D=.carry/data
W=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"
(python3 -c "
import random; random.seed(20261123); aa='ACDEFGHIKLMNPQRSTVWY'
with open('$W/pseudo_db.fa','w') as f:
    for k in range(1000000): f.write('>p%d\n%s\n' % (k, ''.join(random.choices(aa, k=512))))
") &
gen=$!
s=$(date +%s)
timeout 420 .carry/gpualign_gpu_tests > "$out/gpu_tests.log" 2>&1
echo "GPU tests rc=$? ($(( $(date +%s) - s )) s)"
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]|tests? ran|SKIPPED \] [0-9]" "$out/gpu_tests.log" | tail -12
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 .carry/gpualign_gpu_tests \
  --gtest_filter='ScanEngine.TopHits*' > "$out/memcheck_tophits.log" 2>&1
echo "memcheck TopHits rc=$? $(grep -E 'ERROR SUMMARY' "$out/memcheck_tophits.log")"
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 .carry/gpualign_gpu_tests \
  --gtest_filter='ScanEngine.TopHits*' > "$out/racecheck_tophits.log" 2>&1
echo "racecheck TopHits rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$out/racecheck_tophits.log" | tr '\n' ' ')"
awk '/^>/{n++} n==1' $D/dna/long/mito_human_vs_orangutan.fa > "$W/mito_q.fa"
awk '/^>/{n++} n==2' $D/dna/long/mito_human_vs_orangutan.fa > "$W/mito_r.fa"
for be in cpu gpu; do
  t0=$(date +%s%N)
  $B nw "$W/mito_q.fa" "$W/mito_r.fa" --backend $be -q -o "$W/mito_$be.tsv" 2>&1
  echo "mito nw --backend $be: rc=$? wall $(( ($(date +%s%N) - t0) / 1000000 )) ms"
done
cmp "$W/mito_cpu.tsv" "$W/mito_gpu.tsv" && echo "mito nw: cpu and gpu cmp identical; $(cut -f1,5,9 "$W/mito_gpu.tsv" | tail -1)"
wait $gen
for k in 1 2 3; do
  t0=$(date +%s%N)
  $B search $D/protein/benchmark_queries_20.fa "$W/pseudo_db.fa" --backend gpu -k 10 -v -o "$W/s1.m8" 2> "$W/s1.err"
  echo "s1 run $k: rc=$? wall $(( ($(date +%s%N) - t0) / 1000000 )) ms; $(grep -oE '[0-9.]+ s of scan kernels' "$W/s1.err"); md5 $(md5sum < "$W/s1.m8" | cut -c1-10)"
done
cp "$W/s1.err" "$out/"
head -3 "$W/s1.m8" > "$out/s1_head.m8"
rm -rf "$W"

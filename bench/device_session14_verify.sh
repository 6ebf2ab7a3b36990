#!/usr/bin/env bash
# Session 14's final verification on one GPU (binaries of the final code
# commit in .carry/, from bench/prepare_carry.sh): the whole GPU test suite;
# the mito pair (nw, sw) and pacbio_ecoli (sw, nw) through the CLI on the CPU
# and the GPU with cmp; the long-pair workloads (gpualign_long_bench, no peer,
# one run each); the 1 Mbp x 1 Mbp nw with CIGAR through the CLI twice
# (part "main"); compute-sanitizer memcheck and racecheck on the long engine's
# sanitizer tests (every kernel path, the two-column R = 16 variants
# included; part "sanitize"). Each part fits one device call.
# Usage on the device machine, from the repo root:
#   bench/device_session14_verify.sh OUT_DIR main|sanitize
set -uo pipefail
out=${1:?OUT dir}
part=${2:?main or sanitize}
export LD_LIBRARY_PATH=$PWD/.carry/lib GPUALIGN_SHARED_DATA=$PWD/.carry/data GPUALIGN_BINARY=$PWD/.carry/gpualign
B=.carry/gpualign; D=.carry/data; W=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if [ "$part" = main ]; then
s=$(date +%s)
timeout 400 .carry/gpualign_gpu_tests > "$out/gpu_tests.log" 2>&1
echo "GPU tests rc=$? ($(( $(date +%s) - s )) s)"
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]|SKIPPED \] [0-9]" "$out/gpu_tests.log" | tail -12
awk '/^>/{n++} n==1' $D/dna/long/mito_human_vs_orangutan.fa > "$W/mito_q.fa"
awk '/^>/{n++} n==2' $D/dna/long/mito_human_vs_orangutan.fa > "$W/mito_r.fa"
P=$D/dna/pacbio_ecoli
for set in mito pacbio; do
  if [ $set = mito ]; then q=$W/mito_q.fa; r=$W/mito_r.fa; else q=$P/reads.fa; r=$P/ref_windows.fa; fi
  for mode in nw sw; do
    for be in cpu gpu; do
      t0=$(date +%s%N); $B $mode "$q" "$r" --backend $be -q -o "$W/${set}_${mode}_$be.tsv"
      echo "$set $mode --backend $be: rc=$? wall $(( ($(date +%s%N) - t0) / 1000000 )) ms"
    done
    cmp "$W/${set}_${mode}_cpu.tsv" "$W/${set}_${mode}_gpu.tsv" && echo "$set $mode: cpu and gpu cmp identical ($(wc -l < "$W/${set}_${mode}_gpu.tsv") lines, md5 $(md5sum < "$W/${set}_${mode}_gpu.tsv" | cut -c1-12))"
  done
done
timeout 200 .carry/gpualign_long_bench --workloads mito,hp50,hp100,sa200,syn1m5,syn1m20,bulk2000 --modes global,local \
  --runs 1 --no-peer --csv "$out/long.csv" > "$out/long.log" 2>&1
echo "long bench rc=$?"; grep -E "^[a-zA-Z].*x [0-9]|^  GPU" "$out/long.log" | cut -c1-200
.carry/gpualign_long_bench --workloads syn1m5 --dump-fasta "$W" > /dev/null
for k in 1 2; do
  t0=$(date +%s%N)
  /usr/bin/time -f "%M" -o "$W/rss" $B nw "$W/syn1m5_q.fa" "$W/syn1m5_r.fa" -o "$W/syn.tsv" -q
  echo "1 Mbp x 1 Mbp nw (CIGAR) via CLI: rc=$? process wall $(( ($(date +%s%N) - t0) / 1000000 )) ms, peak RSS $(cat "$W/rss") KB"
done
fi
if [ "$part" = sanitize ]; then
# (with bench/prepare_carry.sh dna/miseq_16S: the three tests on the data that part "main" leaves out)
timeout 120 .carry/gpualign_gpu_tests --gtest_filter='RealData.Miseq16S:SearchGpuChunks.*:RealData/CliBackends.*miseq*' > "$out/gpu_tests_miseq.log" 2>&1
echo "miseq and chunked-search tests rc=$?"; grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]|SKIPPED \] [0-9]" "$out/gpu_tests_miseq.log"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
# racecheck skips LongEngineSanitizer.AlignManyWorkers (see its comment in tests/gpu/long_engine_test.cpp)
for tool in memcheck racecheck; do
  s=$(date +%s)
  filter='LongEngineSanitizer.*:LongEngine.MemoryCap*'
  [ $tool = racecheck ] && filter='LongEngineSanitizer.*:LongEngine.MemoryCap*:-LongEngineSanitizer.AlignManyWorkers'
  timeout 240 $CS --tool $tool --error-exitcode 9 .carry/gpualign_gpu_tests --gtest_filter="$filter" > "$out/sanitizer_$tool.log" 2>&1
  echo "compute-sanitizer $tool: rc=$? ($(( $(date +%s) - s )) s) $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$out/sanitizer_$tool.log" | tail -3 | tr '\n' ' ')"
done
fi
rm -rf "$W"

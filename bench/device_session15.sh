#!/usr/bin/env bash
# Session 15's device work on one GPU (issue 11), binaries in .carry/
# (bench/prepare_carry.sh). It replaces bench/device_session14_verify.sh,
# whose steps are the parts gputests, all and sanitize. Parts:
#   tests    - the long engine's GPU tests (LongEngine*, LongCli*)
#   (the pruning A/B parts "ab" and "matrix" need the pruning build: they
#   are in this script on branch experiment/block-pruning, commit 7f07a5d)
#   conn     - bulk2000 against CUDA_DEVICE_MAX_CONNECTIONS and workers
#   startup  - process start/exit cost of the work queues (CLI), bulk2000
#   leaves   - the 1 Mbp CLI of .carry/gpualign_s14 (the session 14 binary)
#              against this one; bulk2000 with CIGAR against leaf batch size
#   gputests - the whole GPU suite
#   all      - CPU-vs-GPU cmp on mito and pacbio, the long bench, the 1 Mbp
#              CLI with CIGAR (three runs)
#   sanitize - compute-sanitizer memcheck and racecheck on the long engine
# Usage on the device machine, from the repo root: bench/device_session15.sh OUT PART
set -uo pipefail
out=${1:?OUT dir}
part=${2:?part}
export LD_LIBRARY_PATH=$PWD/.carry/lib GPUALIGN_SHARED_DATA=$PWD/.carry/data GPUALIGN_BINARY=$PWD/.carry/gpualign
B=.carry/gpualign; D=.carry/data; W=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
summary() { grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]|SKIPPED \] [0-9]" "$1" | tail -14; }
case $part in
tests)
  s=$(date +%s)
  timeout 300 .carry/gpualign_gpu_tests --gtest_filter='LongEngine*:LongCli*' > "$out/long_tests.log" 2>&1
  echo "long GPU tests rc=$? ($(( $(date +%s) - s )) s)"; summary "$out/long_tests.log"
  grep -E "Failure|Expected|Which is|pair [0-9]" "$out/long_tests.log" | head -30
  ;;
conn)
  # bulk2000 against CUDA's hardware work queues (CUDA_DEVICE_MAX_CONNECTIONS, default 8) and workers
  for cfg in "8 16" "32 16" "32 32" "32 24" "8 8"; do
    set -- $cfg
    CUDA_DEVICE_MAX_CONNECTIONS=$1 timeout 150 .carry/gpualign_long_bench --workloads bulk2000 --modes global,local --runs 1 --no-peer --workers $2 > "$out/c.log" 2>&1
    echo "bulk2000 connections $1 workers $2 rc=$?"; grep -E "^  GPU [gl]" "$out/c.log" | cut -c1-200
  done
  ;;
startup)
  # process start/exit cost of the work queues: the mito nw CLI, then the 1 Mbp CLI and bulk2000
  awk '/^>/{n++} n==1' $D/dna/long/mito_human_vs_orangutan.fa > "$W/mito_q.fa"
  awk '/^>/{n++} n==2' $D/dna/long/mito_human_vs_orangutan.fa > "$W/mito_r.fa"
  .carry/gpualign_long_bench --workloads syn1m5 --dump-fasta "$W" > /dev/null
  for c in 8 16 32 8 16 32; do
    t0=$(date +%s%N); CUDA_DEVICE_MAX_CONNECTIONS=$c /usr/bin/time -f "%M" -o "$W/rss" $B nw "$W/mito_q.fa" "$W/mito_r.fa" -q -o "$W/m.tsv"
    echo "connections $c mito nw gpu: wall $(( ($(date +%s%N) - t0) / 1000000 )) ms rss $(cat "$W/rss") KB"
  done
  for c in 8 16; do
    t0=$(date +%s%N); CUDA_DEVICE_MAX_CONNECTIONS=$c /usr/bin/time -f "%M" -o "$W/rss" $B nw "$W/syn1m5_q.fa" "$W/syn1m5_r.fa" -q -o "$W/m.tsv"
    echo "connections $c 1 Mbp nw gpu: wall $(( ($(date +%s%N) - t0) / 1000000 )) ms rss $(cat "$W/rss") KB"
  done
  for cfg in "16 16" "16 32" "32 32"; do
    set -- $cfg
    CUDA_DEVICE_MAX_CONNECTIONS=$1 timeout 150 .carry/gpualign_long_bench --workloads bulk2000 --modes global,local --runs 1 --no-peer --workers $2 > "$out/c.log" 2>&1
    echo "bulk2000 connections $1 workers $2 rc=$?"; grep -E "^  GPU [gl]" "$out/c.log" | cut -c1-200
  done
  ;;
leaves)
  # bulk2000 with CIGAR: leaf batch x workers (queues = workers)
  .carry/gpualign_long_bench --workloads syn1m5 --dump-fasta "$W" > /dev/null
  for k in 1 2; do
    for b in .carry/gpualign_s14 .carry/gpualign; do
      for c in 8 16; do
        t0=$(date +%s%N); CUDA_DEVICE_MAX_CONNECTIONS=$c /usr/bin/time -f "%M" -o "$W/rss" $b nw "$W/syn1m5_q.fa" "$W/syn1m5_r.fa" -q -o "$W/m.tsv"
        echo "$b queues $c 1 Mbp nw (CIGAR) CLI: wall $(( ($(date +%s%N) - t0) / 1000000 )) ms rss $(cat "$W/rss") KB md5 $(md5sum < "$W/m.tsv" | cut -c1-12)"
      done
    done
  done
  for cfg in "16 16 32" "16 16 64" "16 16 128" "24 24 32" "24 24 64"; do
    set -- $cfg
    CUDA_DEVICE_MAX_CONNECTIONS=$1 timeout 150 .carry/gpualign_long_bench --workloads bulk2000 --modes global,local --runs 1 --no-peer --workers $2 --leaf-batch $3 > "$out/c.log" 2>&1
    echo "bulk2000 queues $1 workers $2 leaf batch $3 rc=$?"; grep -E "^  GPU [gl]" "$out/c.log" | grep cigar | cut -c1-200
  done
  ;;
gputests)
  s=$(date +%s)
  timeout 560 .carry/gpualign_gpu_tests > "$out/gpu_tests.log" 2>&1
  echo "GPU tests rc=$? ($(( $(date +%s) - s )) s)"; summary "$out/gpu_tests.log"
  ;;
all)
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
  echo "long bench rc=$?"; grep -E "^[a-zA-Z].*x [0-9]|^  GPU" "$out/long.log" | cut -c1-220
  .carry/gpualign_long_bench --workloads syn1m5,syn1m20 --dump-fasta "$W" > /dev/null
  for pair in syn1m5 syn1m20 syn1m5; do
    t0=$(date +%s%N)
    /usr/bin/time -f "%M" -o "$W/rss" $B nw "$W/${pair}_q.fa" "$W/${pair}_r.fa" -o "$W/syn.tsv" -q
    echo "$pair nw (CIGAR) via CLI: rc=$? process wall $(( ($(date +%s%N) - t0) / 1000000 )) ms, peak RSS $(cat "$W/rss") KB, $(cut -f1-4 "$W/syn.tsv" | tail -1)"
  done
  ;;
sanitize)
  CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck; do
    s=$(date +%s)
    filter='LongEngineSanitizer.*:LongEngine.MemoryCap*'
    [ $tool = racecheck ] && filter='LongEngineSanitizer.*:LongEngine.MemoryCap*:-LongEngineSanitizer.AlignManyWorkers'
    timeout 240 $CS --tool $tool --error-exitcode 9 .carry/gpualign_gpu_tests --gtest_filter="$filter" > "$out/sanitizer_$tool.log" 2>&1
    echo "compute-sanitizer $tool: rc=$? ($(( $(date +%s) - s )) s) $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$out/sanitizer_$tool.log" | tail -3 | tr '\n' ' ')"
  done
  ;;
esac
rm -rf "$W"

#!/usr/bin/env bash
# Device work on one GPU (sessions 16-17, issue 11: the leaf walk on the
# device; align_many's workers and allocations), binaries in .carry/ (bench/prepare_carry.sh). Parts:
#   tests    - the long engine's GPU tests (LongEngine*, LongCli*)
#   walk     - the walk through leaf batches on the device against the walk
#              on the host (--walk-on-host): bulk2000 and the single pairs,
#              with CIGAR; the 1 Mbp CLI
#   sweep    - bulk2000 with CIGAR over leaf size x walk x workers; the
#              single pairs over leaf size x walk
#   split    - bulk2000: each worker's host time per pair (launches,
#              walks, other), walk on the device or the host
#   workers  - bulk2000 over workers x hardware work queues (CFGS)
#   queues   - the CLI's wall (start and exit) over hardware work queues (QUEUES)
#   leaves   - bulk2000 with CIGAR over leaf size x leaf batch; the 1 Mbp CLI's stages (-vv)
#   band     - bulk2000 with CIGAR over leaf band x leaf batch (BANDS="band,batch ...")
#   solo     - the single pairs with CIGAR over leaf band; bulk2000 at the defaults
#   gputests - the whole GPU suite
#   all      - CPU-vs-GPU cmp on mito and pacbio, the long bench, the 1 Mbp
#              CLI with CIGAR (three runs)
#   sanitize - compute-sanitizer memcheck and racecheck on the long engine
# Usage on the device machine, from the repo root: bench/device_session17.sh OUT PART
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
  timeout 400 .carry/gpualign_gpu_tests --gtest_filter='LongEngine*:LongCli*' > "$out/long_tests.log" 2>&1
  echo "long GPU tests rc=$? ($(( $(date +%s) - s )) s)"; summary "$out/long_tests.log"
  grep -E "^\[       OK \]" "$out/long_tests.log" | sed 's/^\[       OK \] //' | tr '\n' ' '; echo
  grep -E "Failure|Expected|Which is|pair [0-9]" "$out/long_tests.log" | head -30
  ;;
workers)
  # bulk2000: workers x hardware work queues (CFGS="workers,queues ...")
  for cfg in ${CFGS:-16,16 24,24 32,32}; do
    IFS=, read -r wk q <<< "$cfg"
    CUDA_DEVICE_MAX_CONNECTIONS=$q timeout 150 .carry/gpualign_long_bench --workloads bulk2000 --modes ${MODES:-global,local} --runs 1 --no-peer \
      --workers $wk > "$out/g.log" 2>&1
    echo "bulk2000 workers $wk queues $q rc=$?"; grep -E "^  GPU [gl]|host time" "$out/g.log" | cut -c1-250
  done
  ;;
queues)
  # the CLI's start and exit over hardware work queues: the mito pair (nw, CIGAR) and a small batch
  for q in ${QUEUES:-8 16 24 32}; do
    awk '/^>/{n++} n==1' $D/dna/long/mito_human_vs_orangutan.fa > "$W/mito_q.fa"
    awk '/^>/{n++} n==2' $D/dna/long/mito_human_vs_orangutan.fa > "$W/mito_r.fa"
    for k in 1 2 3; do
      t0=$(date +%s%N); CUDA_DEVICE_MAX_CONNECTIONS=$q /usr/bin/time -f "%M" -o "$W/rss" $B nw "$W/mito_q.fa" "$W/mito_r.fa" -q -o "$W/m.tsv"
      t1=$(date +%s%N); CUDA_DEVICE_MAX_CONNECTIONS=$q $B sw data/reads.fa data/ref_windows.fa -q -o "$W/s.tsv"
      echo "queues $q: mito nw wall $(( (t1 - t0) / 1000000 )) ms rss $(cat "$W/rss") KB; data/ sw wall $(( ($(date +%s%N) - t1) / 1000000 )) ms"
    done
  done
  ;;
walk)
  for k in 1 2; do
    for w in "" --walk-on-host; do
      timeout 150 .carry/gpualign_long_bench --workloads bulk2000 --modes global,local --runs 1 --no-peer $w > "$out/w.log" 2>&1
      echo "bulk2000 ${w:-device walk} rc=$?"; grep -E "^  GPU [gl]" "$out/w.log" | grep cigar | cut -c1-200
    done
  done
  for w in "" --walk-on-host; do
    timeout 150 .carry/gpualign_long_bench --workloads mito,hp50,hp100,sa200,syn1m5 --modes global,local --runs 1 --no-peer $w > "$out/w.log" 2>&1
    echo "single pairs ${w:-device walk} rc=$?"; grep -E "^[a-zA-Z].*x [0-9]|^  GPU [gl]" "$out/w.log" | grep -v "score-only" | cut -c1-200
  done
  .carry/gpualign_long_bench --workloads syn1m5 --dump-fasta "$W" > /dev/null
  for k in 1 2 3; do
    t0=$(date +%s%N); /usr/bin/time -f "%M" -o "$W/rss" $B nw "$W/syn1m5_q.fa" "$W/syn1m5_r.fa" -q -o "$W/m.tsv"
    echo "1 Mbp nw (CIGAR) CLI: wall $(( ($(date +%s%N) - t0) / 1000000 )) ms rss $(cat "$W/rss") KB md5 $(md5sum < "$W/m.tsv" | cut -c1-12)"
  done
  ;;
sweep)
  # bulk2000 with CIGAR: leaf size x walk (device / host) x workers (queues = workers)
  for cfg in "16 1048576 -" "16 1048576 --walk-on-host" "16 262144 -" "16 262144 --walk-on-host" "16 65536 -" "16 65536 --walk-on-host" "32 262144 -" "32 65536 -"; do
    set -- $cfg; w=$3; [ "$w" = - ] && w=
    CUDA_DEVICE_MAX_CONNECTIONS=$1 timeout 150 .carry/gpualign_long_bench --workloads bulk2000 --modes global,local --runs 1 --no-peer \
      --workers $1 --leaf-cells $2 $w > "$out/s.log" 2>&1
    echo "bulk2000 workers $1 leaf cells $2 ${w:-device walk} rc=$?"; grep -E "^  GPU [gl]" "$out/s.log" | grep cigar | cut -c1-200
  done
  for cfg in "1048576 -" "1048576 --walk-on-host" "262144 -" "65536 -"; do
    set -- $cfg; w=$2; [ "$w" = - ] && w=
    timeout 150 .carry/gpualign_long_bench --workloads mito,hp50,sa200,syn1m5 --modes global --runs 1 --no-peer --leaf-cells $1 $w > "$out/s.log" 2>&1
    echo "single pairs leaf cells $1 ${w:-device walk} rc=$?"; grep -E "^  GPU [gl]" "$out/s.log" | grep cigar | cut -c1-200
  done
  ;;
split)
  # bulk2000 with CIGAR: where each worker's host time goes (launches, walks, other), walk on the device or host
  for w in - --walk-on-host - --walk-on-host; do
    [ "$w" = - ] && w=
    timeout 150 .carry/gpualign_long_bench --workloads bulk2000 --modes global,local --runs 1 --no-peer $w > "$out/s.log" 2>&1
    echo "bulk2000 ${w:-device walk} rc=$?"; grep -E "^  GPU [gl]|host time" "$out/s.log" | cut -c1-220
  done
  ;;
leaves)
  # bulk2000 with CIGAR (device walk): leaf size x leaf batch, twice; the 1 Mbp CLI's stages
  for k in 1 2; do
    for cfg in "262144 128" "262144 48" "131072 128" "131072 48"; do
      set -- $cfg
      timeout 150 .carry/gpualign_long_bench --workloads bulk2000 --modes global,local --runs 1 --no-peer \
        --leaf-cells $1 --leaf-batch $2 > "$out/s.log" 2>&1
      echo "bulk2000 leaf cells $1 leaf batch $2 rc=$?"; grep -E "^  GPU [gl]|host time" "$out/s.log" | grep -A1 "host time" | grep -v score-only | cut -c1-220
    done
  done
  .carry/gpualign_long_bench --workloads syn1m5 --dump-fasta "$W" > /dev/null
  t0=$(date +%s%N); $B nw "$W/syn1m5_q.fa" "$W/syn1m5_r.fa" -o "$W/m.tsv" -vv 2>&1 | tail -12
  echo "1 Mbp CLI wall $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  ls /usr/local/cuda/bin | tr '\n' ' '; echo
  ;;
band)
  # bulk2000 with CIGAR (device walk, leaves of 2^18): leaf band x leaf batch, twice
  for k in 1 2; do
    for cfg in ${BANDS:-1.5,48 0.75,48 0.75,32 0.5,32}; do
      set -- ${cfg/,/ }
      timeout 150 .carry/gpualign_long_bench --workloads bulk2000 --modes global,local --runs 1 --no-peer \
        --leaf-band $1 --leaf-batch $2 > "$out/s.log" 2>&1
      echo "bulk2000 leaf band $1 leaf batch $2 rc=$?"; grep -E "^  GPU [gl]|host time" "$out/s.log" | grep -A1 "host time" | grep -v score-only | grep GPU.*cigar | cut -c1-200
    done
  done
  ;;
solo)
  # the single pairs with CIGAR: leaf band 1.5 (default) against 0.75; bulk2000 at the defaults, twice
  for b in 1.5 0.75 1.5 0.75; do
    timeout 150 .carry/gpualign_long_bench --workloads mito,hp50,hp100,sa200,syn1m5,syn1m20 --modes global,local --runs 1 --no-peer --leaf-band $b > "$out/s.log" 2>&1
    echo "single pairs leaf band $b rc=$?"; grep -E "^[a-zA-Z].*x [0-9]|^  GPU [gl]" "$out/s.log" | grep -v "score-only" | cut -c1-170
  done
  for k in 1 2; do
    timeout 150 .carry/gpualign_long_bench --workloads bulk2000 --modes global,local --runs 1 --no-peer > "$out/s.log" 2>&1
    echo "bulk2000 defaults rc=$?"; grep -E "^  GPU [gl]" "$out/s.log" | cut -c1-200
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

#!/usr/bin/env bash
# One device call (issue 11): the whole GPU test suite, compute-sanitizer
# memcheck and racecheck on the long engine, and the CLI end to end (mito pair
# nw/sw on the CPU and the GPU with cmp; a 1 Mbp x 1 Mbp pair, FASTA in, TSV
# out, with CIGAR: process wall and peak RSS).
# Expects .carry/{gpualign,gpualign_gpu_tests,gpualign_long_bench,lib/,data/}
# (bash bench/prepare_carry.sh dna/long dna/pacbio_ecoli dna/miseq_16S).
# Usage on the device machine, from the repo root: bench/device_long_verify.sh OUT_DIR [tests|sanitize|cli]...
set -uo pipefail
out=${1:?OUT dir}; shift
steps=${*:-tests sanitize cli}
export LD_LIBRARY_PATH=$PWD/.carry/lib GPUALIGN_SHARED_DATA=$PWD/.carry/data GPUALIGN_BINARY=$PWD/.carry/gpualign
B=.carry/gpualign
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$out/device.txt"
for step in $steps; do
  case $step in
    tests)
      s=$(date +%s)
      timeout 480 .carry/gpualign_gpu_tests > "$out/gpu_tests.log" 2>&1; echo "gpu tests rc=$? ($(( $(date +%s) - s )) s)"
      grep -E "^\[  (PASSED|FAILED) |tests? ran|^\[  FAILED  \]" "$out/gpu_tests.log" | tail -12 ;;
    sanitize)
      # racecheck skips LongEngineSanitizer.AlignManyWorkers (see its comment in tests/gpu/long_engine_test.cpp)
      for tool in memcheck racecheck; do
        s=$(date +%s)
        filter='LongEngineSanitizer.*:LongEngine.MemoryCap*'
        [ $tool = racecheck ] && filter='LongEngineSanitizer.*:LongEngine.MemoryCap*:-LongEngineSanitizer.AlignManyWorkers'
        timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 .carry/gpualign_gpu_tests \
          --gtest_filter="$filter" > "$out/sanitizer_$tool.log" 2>&1
        echo "compute-sanitizer --tool $tool rc=$? ($(( $(date +%s) - s )) s)"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$out/sanitizer_$tool.log" | tail -3
      done ;;
    cli)
      d=$(mktemp -d)
      # mito: record 1 vs record 2 of the pair file
      awk '/^>/{n++} n==1' .carry/data/dna/long/mito_human_vs_orangutan.fa > "$d/q.fa"
      awk '/^>/{n++} n==2' .carry/data/dna/long/mito_human_vs_orangutan.fa > "$d/r.fa"
      for cmd in nw sw; do
        for be in cpu gpu; do
          s=$(date +%s%N); $B $cmd "$d/q.fa" "$d/r.fa" --backend $be -o "$d/$cmd.$be.tsv" 2> "$d/$cmd.$be.err"
          echo "mito $cmd --backend $be rc=$? wall $(( ($(date +%s%N) - s) / 1000000 )) ms"
        done
        if cmp "$d/$cmd.cpu.tsv" "$d/$cmd.gpu.tsv"; then echo "mito $cmd: cmp identical"; else echo "mito $cmd: DIFFER"; fi
        cut -f1-9 "$d/$cmd.gpu.tsv" | tail -1
      done
      cp "$d/nw.gpu.tsv" "$out/mito_nw_gpu.tsv"
      .carry/gpualign_long_bench --workloads syn1m5 --dump-fasta "$d" > /dev/null
      for k in 1 2 3; do
        s=$(date +%s%N)
        /usr/bin/time -f "%M" -o "$d/rss" $B nw "$d/syn1m5_q.fa" "$d/syn1m5_r.fa" -o "$d/syn.tsv" -v 2> "$d/syn.err" \
          || $B nw "$d/syn1m5_q.fa" "$d/syn1m5_r.fa" -o "$d/syn.tsv" -v 2> "$d/syn.err"
        echo "1 Mbp x 1 Mbp nw (CIGAR) via CLI: rc=$? process wall $(( ($(date +%s%N) - s) / 1000000 )) ms, peak RSS $(cat "$d/rss" 2>/dev/null) KB"
      done
      cut -f1-9 "$d/syn.tsv" | tail -1
      grep -iE "long|GCUPS|peak" "$d/syn.err" | tail -4
      rm -rf "$d" ;;
  esac
done

#!/usr/bin/env bash
# One device call for session 13's final verification (single GPU): the
# whole GPU test suite, the mito pair's nw and sw through the CLI on the CPU
# and the GPU with cmp, the long-pair workloads (gpualign_long_bench, no
# peer, one run each) and the 1 Mbp x 1 Mbp nw with CIGAR through the CLI
# twice (FASTA in, TSV out). Expects .carry/ from bench/prepare_carry.sh.
# Usage on the device machine, from the repo root: bench/device_session13.sh OUT_DIR
set -uo pipefail
out=${1:?OUT dir}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.carry/lib GPUALIGN_SHARED_DATA=$PWD/.carry/data GPUALIGN_BINARY=$PWD/.carry/gpualign
B=.carry/gpualign
D=.carry/data
W=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"
s=$(date +%s)
timeout 420 .carry/gpualign_gpu_tests > "$out/gpu_tests.log" 2>&1
echo "GPU tests rc=$? ($(( $(date +%s) - s )) s)"
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]|tests? ran|SKIPPED \] [0-9]" "$out/gpu_tests.log" | tail -12
awk '/^>/{n++} n==1' $D/dna/long/mito_human_vs_orangutan.fa > "$W/mito_q.fa"
awk '/^>/{n++} n==2' $D/dna/long/mito_human_vs_orangutan.fa > "$W/mito_r.fa"
for mode in nw sw; do
  for be in cpu gpu; do
    t0=$(date +%s%N)
    $B $mode "$W/mito_q.fa" "$W/mito_r.fa" --backend $be -q -o "$W/mito_${mode}_$be.tsv" 2>&1
    echo "mito $mode --backend $be: rc=$? wall $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  done
  cmp "$W/mito_${mode}_cpu.tsv" "$W/mito_${mode}_gpu.tsv" && echo "mito $mode: cpu and gpu cmp identical; $(cut -f1,5,9 "$W/mito_${mode}_gpu.tsv" | tail -1)"
done
if [ -x .carry/gpualign_long_bench ]; then
  timeout 150 .carry/gpualign_long_bench --workloads mito,hp50,hp100,sa200,syn1m5,syn1m20,bulk2000 --modes global,local \
    --runs 1 --no-peer --csv "$out/long.csv" > "$out/long.log" 2>&1
  echo "long bench rc=$?"; grep -E "^[a-zA-Z].*x [0-9]|^  GPU" "$out/long.log" | cut -c1-200
  .carry/gpualign_long_bench --workloads syn1m5 --dump-fasta "$W" > /dev/null
  for k in 1 2; do
    t0=$(date +%s%N)
    /usr/bin/time -f "%M" -o "$W/rss" $B nw "$W/syn1m5_q.fa" "$W/syn1m5_r.fa" -o "$W/syn.tsv" -q
    echo "1 Mbp x 1 Mbp nw (CIGAR) via CLI: rc=$? process wall $(( ($(date +%s%N) - t0) / 1000000 )) ms, peak RSS $(cat "$W/rss") KB"
  done
fi
rm -rf "$W"

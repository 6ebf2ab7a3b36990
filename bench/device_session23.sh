#!/usr/bin/env bash
# Session 23 device parts (issue 11, the 1 Mbp CLI run with CIGAR):
#   probe - cuda_startup_probe, three runs of each: queues 4 and 1 set before the start; 4
#           before and 1 set after the driver's start (PROBE_LATE_CONNS: read at the context?);
#           the end by return, _exit and cudaDeviceReset (PROBE_EXIT); process wall outside
#   cli   - ROUNDS rounds of the 1 Mbp pair (nw, FASTA in, TSV out) for each "name|env ...|binary"
#           in CLI_VARIANTS, process wall and the -v stages
#   check - gpualign nw and sw on the mito pair, --backend cpu against gpu, cmp; the -v queue
#           line on the mito pair (one pair) and on pacbio_ecoli (many)
#   tests - the GPU test suite (FILTER), log in OUT
# Usage on the device machine, from the repo root: bench/device_session23.sh OUT PART...
set -uo pipefail
out=${1:?OUT dir}; shift
export LD_LIBRARY_PATH=$PWD/.carry/lib GPUALIGN_SHARED_DATA=$PWD/.carry/data GPUALIGN_BINARY=$PWD/.carry/gpualign
nvidia-smi --query-gpu=index,name,driver_version,persistence_mode --format=csv,noheader
W=$(mktemp -d)
for part in "$@"; do
case $part in
probe)
  for v in "q4|CUDA_DEVICE_MAX_CONNECTIONS=4" "q1|CUDA_DEVICE_MAX_CONNECTIONS=1" "q4late1|CUDA_DEVICE_MAX_CONNECTIONS=4 PROBE_LATE_CONNS=1" \
           "q4_exit|CUDA_DEVICE_MAX_CONNECTIONS=4 PROBE_EXIT=underscore" "q4_reset|CUDA_DEVICE_MAX_CONNECTIONS=4 PROBE_EXIT=reset" \
           "q1_exit|CUDA_DEVICE_MAX_CONNECTIONS=1 PROBE_EXIT=underscore"; do
    name=${v%%|*}; envs=${v#*|}
    for k in 1 2 3; do
      t0=$(date +%s%N)
      env $envs .carry/cuda_startup_probe > $W/p
      t1=$(date +%s%N)
      tot=$(awk '/^total [0-9]/ {print $2}' $W/p | tail -1)
      echo "probe $name run $k: process wall $(( (t1 - t0) / 1000000 )) ms, last line $tot ms; $(grep -E 'cudaGetDeviceCount|cudaSetDevice|context|Reset' $W/p | tr -s ' ' | sed 's/(cudaSuccess)//' | tr '\n' ';')" | tee -a $out/probe.log
    done
  done
  ;;
cli)
  [ -f $W/syn1m5_q.fa ] || .carry/gpualign_long_bench --workloads syn1m5 --dump-fasta $W > /dev/null || exit 1
  IFS=';' read -ra vs <<< "${CLI_VARIANTS:?name|env|binary;...}"
  for k in $(seq 1 "${ROUNDS:-4}"); do
    for v in "${vs[@]}"; do
      IFS='|' read -r name envs bin <<< "$v"
      t0=$(date +%s%N)
      env $envs .carry/${bin:-gpualign} nw $W/syn1m5_q.fa $W/syn1m5_r.fa --backend gpu --progress never -v -o $W/syn.tsv 2> $W/syn.err
      rc=$?
      t1=$(date +%s%N)
      echo "round $k $name: rc=$rc wall $(( (t1 - t0) / 1000000 )) ms md5 $(md5sum < $W/syn.tsv | cut -c1-12)" | tee -a $out/cli.log
      grep -E "stages" $W/syn.err | sed 's/.*debug: stages (s): /    /' | cut -c1-240 >> $out/cli.log
    done
  done
  ;;
check)
  awk '/^>/{n++} {print > ("'$W'/mito_" n ".fa")}' .carry/data/dna/long/mito_human_vs_orangutan.fa
  for mode in nw sw; do
    .carry/gpualign $mode $W/mito_1.fa $W/mito_2.fa --backend cpu --progress never -o $W/mito_$mode.cpu.tsv 2> $W/c.err || cat $W/c.err
    .carry/gpualign $mode $W/mito_1.fa $W/mito_2.fa --backend gpu --progress never -v -o $W/mito_$mode.gpu.tsv 2> $W/g.err || cat $W/g.err
    if cmp $W/mito_$mode.cpu.tsv $W/mito_$mode.gpu.tsv; then r=identical; else r=DIFFERENT; fi
    echo "mito $mode: cpu vs gpu cmp $r (md5 $(md5sum < $W/mito_$mode.cpu.tsv | cut -c1-12) / $(md5sum < $W/mito_$mode.gpu.tsv | cut -c1-12)); $(grep -o 'CUDA hardware queues.*' $W/g.err)" | tee -a $out/check.log
  done
  P=.carry/data/dna/pacbio_ecoli
  .carry/gpualign sw $P/reads.fa $P/ref_windows.fa --backend gpu --progress never -v -o $W/pb.tsv 2> $W/pb.err
  echo "pacbio sw rc=$? md5 $(md5sum < $W/pb.tsv | cut -c1-12); $(grep -o 'CUDA hardware queues.*' $W/pb.err)" | tee -a $out/check.log
  ;;
tests)
  t0=$(date +%s)
  .carry/gpualign_gpu_tests --gtest_filter="${FILTER:-*}" > $out/gputests.log 2>&1
  echo "gpu tests rc=$? in $(( $(date +%s) - t0 )) s"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[==========\]|FAILED  \]" $out/gputests.log | tail -${TAIL:-20}
  ;;
esac
done

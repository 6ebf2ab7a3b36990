#!/usr/bin/env bash
# Session 23 device parts (issue 11, the 1 Mbp CLI run with CIGAR):
#   probe - cuda_startup_probe, three runs of each: queues 4 and 1 set before the start; 4
#           before and 1 set after the driver's start (PROBE_LATE_CONNS: read at the context?);
#           the end by return, _exit and cudaDeviceReset (PROBE_EXIT); process wall outside
#   cli   - ROUNDS rounds of the 1 Mbp pair (nw, FASTA in, TSV out) for each "name|env ...|binary"
#           in CLI_VARIANTS, process wall and the -v stages
#   check - gpualign nw and sw on the mito pair, --backend cpu against gpu, cmp; the -v queue
#           line on the mito pair (one pair) and on pacbio_ecoli (many)
#   real  - REAL_ROUNDS runs of gpualign nw on .carry/data/real1m (the real-sequence 1 Mbp pair:
#           the S. aureus and H. pylori windows of dna/long concatenated), the output kept in OUT
#   ab    - ROUNDS_AB rounds of the real and synthetic 1 Mbp pairs (nw, CLI) with each of BINS
#           (default gpualign_base gpualign), process wall and the -v pair line; then
#           gpualign_long_bench(_base) on WORKLOADS, MODES, RUNS 1, no peer, CSV in OUT
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
real)
  for k in $(seq 1 "${REAL_ROUNDS:-5}"); do
    t0=$(date +%s%N)
    .carry/gpualign nw .carry/data/real1m/real1m_q.fa .carry/data/real1m/real1m_r.fa --backend gpu --progress never -v -o $out/real1m_nw.gpu.tsv 2> $W/real.err
    rc=$?
    t1=$(date +%s%N)
    echo "real1m nw round $k: rc=$rc wall $(( (t1 - t0) / 1000000 )) ms md5 $(md5sum < $out/real1m_nw.gpu.tsv | cut -c1-12)" | tee -a $out/real.log
    grep -E "stages|long-pair engine of|CUDA hardware" $W/real.err | sed 's/.*debug: /    /' | cut -c1-300 >> $out/real.log
  done
  ;;
ab)
  [ -f $W/syn1m5_q.fa ] || .carry/gpualign_long_bench --workloads syn1m5 --dump-fasta $W > /dev/null || exit 1
  R=.carry/data/real1m
  for k in $(seq 1 "${ROUNDS_AB:-4}"); do
    for bin in ${BINS:-gpualign_base gpualign}; do
      for pair in real1m syn1m5; do
        if [ $pair = real1m ]; then qf=$R/real1m_q.fa; rf=$R/real1m_r.fa; else qf=$W/syn1m5_q.fa; rf=$W/syn1m5_r.fa; fi
        t0=$(date +%s%N)
        .carry/$bin nw $qf $rf --backend gpu --progress never -v -o $W/$pair.$bin.tsv 2> $W/ab.err
        rc=$?
        t1=$(date +%s%N)
        echo "round $k $bin $pair: rc=$rc wall $(( (t1 - t0) / 1000000 )) ms md5 $(md5sum < $W/$pair.$bin.tsv | cut -c1-12); $(grep -oE '[0-9]+ passes, [0-9.]+ s of kernels|[0-9.]+ s wall' $W/ab.err | tr '\n' ' ')" | tee -a $out/ab.log
      done
    done
  done
  for bin in ${LBINS:-gpualign_long_bench_base gpualign_long_bench}; do
    echo "== $bin"
    .carry/$bin --workloads "${WORKLOADS:-mito,hp50,hp100,sa200,syn1m5,syn1m20,bulk2000}" --modes "${MODES:-global,local}" --runs "${RUNS:-1}" --no-peer \
      --csv "$out/ab_$bin.csv" > $out/ab_$bin.log 2>&1
    grep -E "^[a-z0-9]+ +(global|local) " $out/ab_$bin.log | tail -40
  done
  ;;
tests)
  t0=$(date +%s)
  .carry/gpualign_gpu_tests --gtest_filter="${FILTER:-*}" > $out/gputests.log 2>&1
  echo "gpu tests rc=$? in $(( $(date +%s) - t0 )) s"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[==========\]|FAILED  \]" $out/gputests.log | tail -${TAIL:-20}
  ;;
esac
done

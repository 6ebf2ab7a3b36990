#!/usr/bin/env bash
# Session 22 device parts (issue 11, the 1 Mbp CLI run with CIGAR):
#   startup - cuda_startup_probe under CUDA_DEVICE_MAX_CONNECTIONS=${CONNS}, process wall
#             measured outside (the part after the probe's last line is the exit)
#   cli     - gpualign nw on the synthetic 1 Mbp pair at 5% with CIGAR, RUNS runs for each
#             CONNS value (unset = the driver's default), process wall and the -v lines
#   bulk    - gpualign_long_bench_base (the session's start) against gpualign_long_bench on
#             WORKLOADS (bulk2000), MODES, RUNS (1), no peer
#   conns   - ROUNDS rounds of: for each CUDA_DEVICE_MAX_CONNECTIONS in CONNS, the CLI on the 1 Mbp pair
#             (nw) and on pacbio_ecoli (sw), process walls
#   loading - ROUNDS rounds of: for each CUDA_MODULE_LOADING in LOADINGS, the CLI on the 1 Mbp pair
#             (nw) and on pacbio_ecoli (sw), process walls
#   batch   - gpualign_bench (the batch engine) under CUDA_DEVICE_MAX_CONNECTIONS=${CONNS:-8 4 2}
#   variants - VARIANTS="name|binary|bench args;..." over WORKLOADS, MODES, RUNS (1), no peer
#   trace   - the long bench, syn1m5 global CIGAR, one run, with GPUALIGN_PASS_TRACE set, from a
#             build with bench/pass_trace.patch applied (git apply; it prints each pass, walk and
#             replay to stderr), and a summary of the CIGAR run's passes
# Usage on the device machine, from the repo root: bench/device_session22.sh OUT PART...
set -uo pipefail
out=${1:?OUT dir}; shift
export LD_LIBRARY_PATH=$PWD/.carry/lib GPUALIGN_SHARED_DATA=$PWD/.carry/data GPUALIGN_BINARY=$PWD/.carry/gpualign
nvidia-smi --query-gpu=index,name,driver_version,persistence_mode --format=csv,noheader
W=$(mktemp -d)
for part in "$@"; do
case $part in
startup)
  for c in ${CONNS:-unset 1 2 8}; do
    for k in 1 2 3; do
      t0=$(date +%s%N)
      if [ $c = unset ]; then .carry/cuda_startup_probe > $W/p; else CUDA_DEVICE_MAX_CONNECTIONS=$c .carry/cuda_startup_probe > $W/p; fi
      echo "probe conns=$c run $k: process wall $(( ($(date +%s%N) - t0) / 1000000 )) ms; $(grep -E 'cudaGetDeviceCount|cudaSetDevice|total before' $W/p | tr -s ' ' | sed 's/(cudaSuccess)//' | tr '\n' ';')" | tee -a $out/startup.log
    done
  done
  ;;
cli)
  [ -f $W/syn1m5_q.fa ] || .carry/gpualign_long_bench --workloads syn1m5 --dump-fasta $W > /dev/null || exit 1
  for c in ${CONNS:-unset 2}; do
    for k in $(seq 1 "${RUNS:-3}"); do
      t0=$(date +%s%N)
      if [ $c = unset ]; then env -u CUDA_DEVICE_MAX_CONNECTIONS .carry/gpualign nw $W/syn1m5_q.fa $W/syn1m5_r.fa --backend gpu --progress never -v -o $W/syn1m5.tsv 2> $W/syn.err
      else CUDA_DEVICE_MAX_CONNECTIONS=$c .carry/gpualign nw $W/syn1m5_q.fa $W/syn1m5_r.fa --backend gpu --progress never -v -o $W/syn1m5.tsv 2> $W/syn.err; fi
      echo "syn1m5 nw CLI conns=$c run $k: rc=$? wall $(( ($(date +%s%N) - t0) / 1000000 )) ms md5 $(md5sum < $W/syn1m5.tsv | cut -c1-12)"
      grep -E "long-pair engine of|stages \(s\)|GPU engine on" $W/syn.err | sed 's/.*debug: /    /' | sed -E 's/on 16 threads \(aligner waited [0-9.]+\); //; s/ \(GPU kernels [0-9.]+, engine host threads [0-9]+\)//; s/format .* commit/commit/' | cut -c1-330
    done
  done
  ;;
bulk)
  for bin in ${BINS:-gpualign_long_bench_base gpualign_long_bench}; do
    echo "== $bin"
    .carry/$bin --workloads "${WORKLOADS:-bulk2000}" --modes "${MODES:-global,local}" --runs "${RUNS:-1}" --no-peer ${BENCH_ARGS:-} \
      --csv "$out/$bin.bulk.csv" 2>&1 | grep -E "GPU (global|local)" | tail -${TAIL:-20}
  done
  ;;
conns)
  [ -f $W/syn1m5_q.fa ] || .carry/gpualign_long_bench --workloads syn1m5 --dump-fasta $W > /dev/null || exit 1
  P=.carry/data/dna/pacbio_ecoli
  for k in $(seq 1 "${ROUNDS:-4}"); do
    for c in ${CONNS:-8 4 2}; do
      t0=$(date +%s%N)
      CUDA_DEVICE_MAX_CONNECTIONS=$c .carry/gpualign nw $W/syn1m5_q.fa $W/syn1m5_r.fa --backend gpu --progress never -v -o $W/syn.tsv 2> $W/syn.err
      t1=$(date +%s%N)
      CUDA_DEVICE_MAX_CONNECTIONS=$c .carry/gpualign sw $P/reads.fa $P/ref_windows.fa --backend gpu --progress never -o $W/pb.tsv 2> $W/pb.err
      t2=$(date +%s%N)
      echo "round $k conns $c: syn1m5 nw $(( (t1 - t0) / 1000000 )) ms (md5 $(md5sum < $W/syn.tsv | cut -c1-8)), pacbio sw $(( (t2 - t1) / 1000000 )) ms (md5 $(md5sum < $W/pb.tsv | cut -c1-8))" | tee -a $out/conns.log
      grep -E "stages|GPU engine on" $W/syn.err | sed 's/.*debug: /    /' | cut -c1-200 >> $out/conns.log
    done
  done
  ;;
loading)
  [ -f $W/syn1m5_q.fa ] || .carry/gpualign_long_bench --workloads syn1m5 --dump-fasta $W > /dev/null || exit 1
  P=.carry/data/dna/pacbio_ecoli
  for k in $(seq 1 "${ROUNDS:-4}"); do
    for l in ${LOADINGS:-EAGER LAZY}; do
      t0=$(date +%s%N)
      CUDA_MODULE_LOADING=$l .carry/gpualign nw $W/syn1m5_q.fa $W/syn1m5_r.fa --backend gpu --progress never -v -o $W/syn.tsv 2> $W/syn.err
      t1=$(date +%s%N)
      CUDA_MODULE_LOADING=$l .carry/gpualign sw $P/reads.fa $P/ref_windows.fa --backend gpu --progress never -o $W/pb.tsv 2> $W/pb.err
      t2=$(date +%s%N)
      echo "round $k $l: syn1m5 nw $(( (t1 - t0) / 1000000 )) ms (md5 $(md5sum < $W/syn.tsv | cut -c1-8)), pacbio sw $(( (t2 - t1) / 1000000 )) ms (md5 $(md5sum < $W/pb.tsv | cut -c1-8))"
      grep -E "stages" $W/syn.err | sed 's/.*debug: stages (s): /    /' | sed -E 's/read .* align/align/; s/\(main waited [0-9.]+\); //' | cut -c1-200
    done
  done
  ;;
batch)
  for c in ${CONNS:-8 4 2}; do
    echo "== gpualign_bench, CUDA_DEVICE_MAX_CONNECTIONS=$c"
    CUDA_DEVICE_MAX_CONNECTIONS=$c .carry/gpualign_bench --workloads ${BATCH_WORKLOADS:-a} --runs ${RUNS:-3} --global > $out/batch_$c.log 2>&1
    grep -iE "gcups|workload" $out/batch_$c.log | tail -${TAIL:-8}
  done
  ;;
variants)
  IFS=';' read -ra vs <<< "${VARIANTS:?name|bin|args;...}"
  for v in "${vs[@]}"; do
    IFS='|' read -r name bin args <<< "$v"
    echo "== $name ($bin $args)"
    .carry/$bin --workloads "${WORKLOADS:-mito,hp50,hp100,sa200,syn1m5}" --modes "${MODES:-global,local}" --runs "${RUNS:-1}" --no-peer $args \
      --csv "$out/variant_$name.csv" 2>&1 | grep -E "^[a-z0-9]+ +(global|local) " | tail -${TAIL:-40}
  done
  ;;
trace)
  IFS=';' read -ra vs <<< "${VARIANTS:-default|}"
  for v in "${vs[@]}"; do
    name=${v%%|*}; args=${v#*|}
    GPUALIGN_PASS_TRACE=1 .carry/${TRACE_BIN:-gpualign_long_bench} --workloads ${TRACE_WORKLOAD:-syn1m5} --modes ${TRACE_MODE:-global} --runs 1 --no-peer $args \
      > $W/trace.out 2> $W/trace.err
    echo "== trace $name ($args)"
    grep -E "GPU " $W/trace.out | head -5
    cp $W/trace.err $out/trace_${TRACE_WORKLOAD:-syn1m5}_${TRACE_MODE:-global}_$name.log
    # the CIGAR run's passes: from the last forward pass (R = 32 or the largest cells) on
    awk '/TRACE pass/ && /regions=1 / && $0 ~ /R=32/ {start=NR} {line[NR]=$0} END {
         for (r=start; r<=NR; r++) { $0=line[r]; delete v; for(i=1;i<=NF;i++){split($i,kv,"="); v[kv[1]]=kv[2]}
           if ($2=="pass") { key=(v["dirs"]=="1"?"leaf":(v["regions"]>1?"tile":"single")); c[key]++; d[key]+=v["dev"]; h[key]+=v["host"]; cl[key]+=v["cells"]; last=v["t"]+v["host"] }
           else if ($2=="walk") { c["walk"]++; h["walk"]+=v["wall"]; s+=v["steps"]; last=v["t"]+v["wall"] }
           if (r==start) first=v["t"] }
         for (k in c) printf "  %s: %d, cells %.3g, device %.1f ms, host %.1f ms\n", k, c[k], cl[k], d[k], h[k]
         printf "  walk steps %d; first pass to last end %.1f ms\n", s, last-first }' $W/trace.err
  done
  ;;
esac
done

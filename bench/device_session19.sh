#!/usr/bin/env bash
# Device work of session 19 (issue 15: the bulk long pairs on one GPU
# against two), binaries in .carry/ (bench/prepare_carry.sh). Parts:
#   tests - the GPU tests of the long engine and of several GPUs
#           (LongEngine*, LongCli*, *MultiGpu*; FILTER='*' for all)
#   diag  - bulk2000 (nw, CIGAR; BATCH=one for one input batch) through the
#           CLI, --device 0 and --devices 0,1, RUNS each, under each setting
#           of VARIANTS (env assignments joined by '+', 'base' for none); the
#           -v lines of the long engine and the stages; outputs cmp'd
#   cli   - the mito pair and the synthetic 1 Mbp pair at 5% (nw, CIGAR)
#           through the CLI on device 0, RUNS each, under
#           CUDA_MODULE_LOADING=EAGER (the CLI's default) and LAZY
#   lazy  - the CLI's start, two builds side by side: the mito pair, the
#           synthetic 1 Mbp pair at 5% (nw, CIGAR, device 0) and bulk2000
#           (one GPU), RUNS each, for .carry/gpualign_a and .carry/gpualign
#           (call 7: batch engines started with the backend against started
#           at the first batch with pairs for them, a change not kept)
#   final - every GPU test, then bench/device_multi_gpu.sh (RUNS=3)
# Usage on the device machine, from the repo root: bench/device_session19.sh OUT PART
set -uo pipefail
out=${1:?OUT dir}
part=${2:?part}
export LD_LIBRARY_PATH=$PWD/.carry/lib GPUALIGN_SHARED_DATA=$PWD/.carry/data GPUALIGN_BINARY=$PWD/.carry/gpualign
B=.carry/gpualign; W=$(mktemp -d)
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
bulk() {  # LABEL ENVS DEVICES: RUNS runs of bulk2000 nw
  local label=$1 envs=$2 dev=$3 extra=""
  [ "${BATCH:-}" = one ] && extra="--batch-bases 4000000000"
  for k in $(seq 1 "${RUNS:-2}"); do
    local t0=$(date +%s%N)
    env $envs $B nw "$W/bulk2000_q.fa" "$W/bulk2000_r.fa" $extra --backend gpu --progress never -v $dev \
      -o "$W/$label.tsv" 2> "$W/$label.err"
    local rc=$? ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    echo "$label run $k: rc=$rc wall $ms ms"
    grep -E "long-pair engine of|readied|stages \(s\): open" "$W/$label.err" | sed 's/.*debug: /    /; s/(summed over streams), //; s/.*stages (s): .*loop/    loop/' | cut -c1-400
  done
  cat "$W/$label.err" >> "$out/diag.err"
  cmp -s "$W/$label.tsv" "$W/base_one.tsv" || echo "$label: OUTPUT DIFFERS from base_one"
}
case $part in
diag)
  .carry/gpualign_long_bench --workloads bulk2000 --dump-fasta $W > /dev/null || exit 1
  for v in ${VARIANTS:-base}; do
    envs="X=1 ${v//+/ }"; [ "$v" = base ] && envs="X=1"
    bulk "${v}_one" "$envs" "--device 0"
    bulk "${v}_two" "$envs" "--devices 0,1"
  done
  ;;
cli)
  .carry/gpualign_long_bench --workloads syn1m5 --dump-fasta $W > /dev/null || exit 1
  awk '/^>/{n++} {print > ("'$W'/mito_" n ".fa")}' .carry/data/dna/long/mito_human_vs_orangutan.fa
  for load in EAGER LAZY; do
    for w in "mito|$W/mito_1.fa $W/mito_2.fa" "syn1m5|$W/syn1m5_q.fa $W/syn1m5_r.fa"; do
      name=${w%%|*}; args=${w#*|}
      for k in $(seq 1 "${RUNS:-2}"); do
        t0=$(date +%s%N)
        CUDA_MODULE_LOADING=$load $B nw $args --backend gpu --device 0 --progress never -v -o "$W/$name.$load.tsv" 2> "$W/$name.err"
        rc=$?; ms=$(( ($(date +%s%N) - t0) / 1000000 ))
        echo "$name $load run $k: rc=$rc wall $ms ms; $(grep -E 'stages \(s\): open' "$W/$name.err" | sed 's/.*stages (s): //' | cut -c1-120)"
      done
    done
  done
  cmp "$W/mito.EAGER.tsv" "$W/mito.LAZY.tsv" && cmp "$W/syn1m5.EAGER.tsv" "$W/syn1m5.LAZY.tsv" && echo "cli: EAGER and LAZY outputs identical"
  ;;
lazy)
  .carry/gpualign_long_bench --workloads syn1m5,bulk2000 --dump-fasta $W > /dev/null || exit 1
  awk '/^>/{n++} {print > ("'$W'/mito_" n ".fa")}' .carry/data/dna/long/mito_human_vs_orangutan.fa
  for w in "mito|$W/mito_1.fa $W/mito_2.fa" "syn1m5|$W/syn1m5_q.fa $W/syn1m5_r.fa" "bulk|$W/bulk2000_q.fa $W/bulk2000_r.fa"; do
    name=${w%%|*}; args=${w#*|}
    for k in $(seq 1 "${RUNS:-2}"); do
      for bin in gpualign_a gpualign; do
        t0=$(date +%s%N)
        .carry/$bin nw $args --backend gpu --device 0 --progress never -v -o "$W/$name.$bin.tsv" 2> "$W/$name.err"
        rc=$?; ms=$(( ($(date +%s%N) - t0) / 1000000 ))
        echo "$name $bin run $k: rc=$rc wall $ms ms; $(grep -E 'stages \(s\): open' "$W/$name.err" | sed 's/.*stages (s): //' | cut -c1-110)"
        grep -E "GPU engine on device" "$W/$name.err" | sed 's/.*debug: /    /' | cut -c1-80
      done
    done
    cmp "$W/$name.gpualign_a.tsv" "$W/$name.gpualign.tsv" && echo "$name: outputs identical"
  done
  ;;
tests)
  s=$(date +%s)
  timeout 500 .carry/gpualign_gpu_tests --gtest_filter="${FILTER:-LongEngine*:LongCli*:*MultiGpu*}" > "$out/tests.log" 2>&1
  echo "GPU tests rc=$? ($(( $(date +%s) - s )) s)"
  grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]|SKIPPED \] [0-9]|tests? ran" "$out/tests.log" | tail -14
  grep -E "Failure|Expected|Which is" "$out/tests.log" | head -20
  ;;
final)
  FILTER='*' bash "$0" "$out" tests
  m=$(mktemp -d)
  RUNS=3 bash bench/device_multi_gpu.sh "$m" skip-tests > "$out/multi.log" 2>&1
  tar czf "$out/multi_err.tgz" -C "$m" .
  grep -vE "^    " "$out/multi.log"
  grep -E "long-pair engine of device|scanned DB records|stages \(s\): open|device [0-9]+: " "$out/multi.log" |
    sed 's/.*debug: //; s/(summed over streams), //' | cut -c1-200 | head -40
  ;;
*) echo "unknown part $part"; exit 2 ;;
esac
rm -rf "$W"

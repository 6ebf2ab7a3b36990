#!/usr/bin/env bash
# Device work of session 18 (issue 15: the bulk long pairs on one GPU
# against two), binaries in .carry/ (bench/prepare_carry.sh). Parts:
#   diag  - bulk2000 (nw, CIGAR) through the CLI in one batch, --device 0
#           and --devices 0,1, RUNS each (with EAGER=1 also under
#           CUDA_MODULE_LOADING=EAGER): the long engine's start, setup, tail,
#           allocations and pinned buffers from the -v log
#   ab    - diag's runs for .carry/gpualign_a and .carry/gpualign_b, alternating
#   tests - the GPU tests of the long engine and of several GPUs
#           (LongEngine*, LongCli*, *MultiGpu*; FILTER='*' for all)
#   final - every GPU test, then bench/device_multi_gpu.sh (RUNS=3): the
#           scaling table of issue 15 on this machine
# Usage on the device machine, from the repo root: bench/device_session18.sh OUT PART
set -uo pipefail
out=${1:?OUT dir}
part=${2:?part}
export LD_LIBRARY_PATH=$PWD/.carry/lib GPUALIGN_SHARED_DATA=$PWD/.carry/data GPUALIGN_BINARY=$PWD/.carry/gpualign
B=.carry/gpualign; D=.carry/data; W=$(mktemp -d)
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
bulk() {  # LABEL ENV DEVICES [ARGS...]: RUNS runs of bulk2000 nw in one batch
  local label=$1 envs=$2 dev=$3; shift 3
  for k in $(seq 1 "${RUNS:-2}"); do
    local t0=$(date +%s%N)
    env $envs ${BIN:-$B} nw "$W/bulk2000_q.fa" "$W/bulk2000_r.fa" --batch-bases 4000000000 --backend gpu --progress never -v $dev "$@" \
      -o "$W/$label.tsv" 2> "$W/$label.err"
    local rc=$? ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    echo "$label run $k: rc=$rc wall $ms ms"
    grep -E "long-pair engine|stages \(s\): open" "$W/$label.err" | sed 's/.*debug: /    /' | cut -c1-330
  done
  cp "$W/$label.err" "$out/$label.err"
}
case $part in
diag)
  .carry/gpualign_long_bench --workloads bulk2000 --dump-fasta $W > /dev/null || exit 1
  bulk one "X=1" "--device 0"
  bulk two "X=1" "--devices 0,1"
  if [ -n "${EAGER:-}" ]; then
    bulk one_eager "CUDA_MODULE_LOADING=EAGER" "--device 0"
    bulk two_eager "CUDA_MODULE_LOADING=EAGER" "--devices 0,1"
  fi
  cmp "$W/one.tsv" "$W/two.tsv" && echo "one vs two: cmp identical"
  ;;
ab)
  .carry/gpualign_long_bench --workloads bulk2000 --dump-fasta $W > /dev/null || exit 1
  for k in 1 2; do
    for v in a b; do
      BIN=.carry/gpualign_$v RUNS=1 bulk ${v}_one "X=1" "--device 0"
      BIN=.carry/gpualign_$v RUNS=1 bulk ${v}_two "X=1" "--devices 0,1"
    done
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
  tar czf "$out/multi_err.tgz" -C "$m" .  # the runs' -v logs (one file: few files come back)
  grep -vE "^    " "$out/multi.log"
  grep -E "long-pair engine of device|scanned DB records|stages \(s\): open|device [0-9]+: " "$out/multi.log" |
    sed 's/.*debug: //; s/(summed over streams), //' | cut -c1-160 | head -40
  ;;
*) echo "unknown part $part"; exit 2 ;;
esac
rm -rf "$W"

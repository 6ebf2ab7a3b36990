#!/usr/bin/env bash
# One device call: GPU tests, benchmark, compute-sanitizer (memcheck, racecheck).
# Expects binaries and data in .carry/ (ninja targets gpualign_gpu_tests gpualign_bench + copied FASTA).
# Usage on the device machine: bench/device_run.sh OUT_DIR [tests|bench|sanitize]...
set -uo pipefail
out=${1:?OUT dir}; shift
steps=${*:-tests bench sanitize}
export GPUALIGN_SHARED_DATA=$PWD/.carry/data GPUALIGN_BINARY=$PWD/.carry/gpualign LD_LIBRARY_PATH=$PWD/.carry/lib
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$out/device.txt"
for step in $steps; do
  case $step in
    tests)
      timeout 300 .carry/gpualign_gpu_tests > "$out/tests.log" 2>&1; echo "tests rc=$?"
      grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[==========\]|FAILED|device 0" "$out/tests.log" | tail -25 ;;
    bench)
      timeout 240 .carry/gpualign_bench --runs 5 --global --csv "$out/bench.csv" 2>&1 | tee "$out/bench.log"; echo "bench rc=$?" ;;
    sanitize)
      for tool in memcheck racecheck; do
        timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 .carry/gpualign_gpu_tests \
          --gtest_filter=Engine.SmallMixedBatch > "$out/sanitizer_$tool.log" 2>&1
        echo "compute-sanitizer --tool $tool rc=$?"; tail -3 "$out/sanitizer_$tool.log"
      done ;;
  esac
done

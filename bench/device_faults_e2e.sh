#!/usr/bin/env bash
# One device call for the GPU-fault work (issue 4) and the asynchronous engine
# (issue 3): all GPU tests (the fault tests included), end-to-end timings
# (bench/device_e2e.sh, with --gpu-streams variants), and compute-sanitizer
# memcheck on the asynchronous-engine and memory-cap tests.
# Expects .carry/{gpualign,gpualign_gpu_tests,gpualign_old,lib/,data/}.
# Usage on the device machine: bench/device_faults_e2e.sh OUT_DIR
set -uo pipefail
out=${1:?OUT dir}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.carry/lib GPUALIGN_SHARED_DATA=$PWD/.carry/data GPUALIGN_BINARY=$PWD/.carry/gpualign
nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv
s=$(date +%s)
timeout 330 .carry/gpualign_gpu_tests > "$out/gpu_tests.log" 2>&1; echo "gpu tests rc=$? ($(( $(date +%s) - s )) s)"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[==========\]|FAILED|halvings|cap [0-9]|exit [0-9]" "$out/gpu_tests.log" | tail -40
E2E_STREAMS="${E2E_STREAMS:-4}" timeout 200 bash bench/device_e2e.sh "$out" skip-tests 2>&1 | tee "$out/e2e.log" | grep -v "^    stages"
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 .carry/gpualign_gpu_tests \
  --gtest_filter='EngineAsync.*' > "$out/memcheck.log" 2>&1
echo "memcheck EngineAsync rc=$?"; tail -2 "$out/memcheck.log"

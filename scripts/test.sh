#!/usr/bin/env bash
# README command 2: install, build, and run the whole test suite (GPU tests
# skip where no CUDA device is visible), then the CPU tests again under
# AddressSanitizer + UndefinedBehaviorSanitizer (preset "asan", ./build-asan:
# only the CPU test binary, the gpualign binary and the fuzz corpus replays are
# built). Any sanitizer report, including a leak, fails the run. Last, the
# Snakemake workflow on the CPU backend, 3 shards, each merged output cmp'd
# with a single run of build/app/gpualign (tests/workflow, docs/workflow.md),
# and the workflow through its SLURM profile on a real one-node SLURM cluster
# (tests/workflow/run_slurm_test.sh). That test mostly waits on the
# scheduler and Snakemake's polling, so it runs in the background while the
# sanitizer build compiles; its output is printed after the workflow test.
set -euo pipefail
cd "$(dirname "$0")/.."
stage() { echo "== [${SECONDS} s] $*"; }  # each stage's start, in seconds since this script began
stage "dependencies (scripts/deps.sh)"
bash scripts/deps.sh
stage "build (scripts/build.sh)"
bash scripts/build.sh
stage "tests (ctest, build/)"
ctest --test-dir build --output-on-failure -j "$(nproc)"

stage "workflow on a real SLURM cluster: started in the background"
mkdir -p build
bash tests/workflow/run_slurm_test.sh build/app/gpualign > build/slurm-test.log 2>&1 &
slurm_pid=$!
trap 'kill "$slurm_pid" 2>/dev/null || true' EXIT

stage "sanitizers (ASan + UBSan, CPU tests)"
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$(nproc)"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --preset asan -j "$(nproc)"

stage "workflow (Snakemake, CPU backend, 3 shards)"
bash tests/workflow/run_workflow_test.sh build/app/gpualign

stage "workflow on a real SLURM cluster (tests/workflow/run_slurm_test.sh)"
slurm_rc=0
wait "$slurm_pid" || slurm_rc=$?
trap - EXIT
cat build/slurm-test.log
stage "done (SLURM test exit status $slurm_rc)"
exit "$slurm_rc"

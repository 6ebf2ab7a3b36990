#!/usr/bin/env bash
# Builds gpualign_gpu_tests and gpualign_bench without gpualign_lib (for when
# lib/ is mid-edit): gpualign_core + gpualign_gpu from the CMake build dir,
# then the two programs with g++ directly. Usage:
#   bench/build_standalone.sh BUILD_DIR OUT_DIR
set -euo pipefail
build=${1:-/tmp/build-gpu}
out=${2:-.carry}
src=$(cd "$(dirname "$0")/.." && pwd)
ninja -C "$build" -j2 gpualign_core gpualign_gpu
mkdir -p "$out"
common=(-O2 -std=c++20 -isystem /usr/include/seqan3/submodules/sdsl-lite/include -isystem /usr/include/seqan3/submodules/cereal/include -I"$src/lib/include" -I"$src/gpu/include" -I"$src/tests" -I/usr/local/cuda/include
        -DGPUALIGN_SHARED_DATA="\"$src/../shared/data\"")
libs=("$build/gpu/libgpualign_gpu.a" "$build/lib/libgpualign_core.a" /usr/local/cuda/lib64/libcudart_static.a
      -ldl -lrt -lpthread -static-libstdc++ -static-libgcc)
g++ "${common[@]}" "$src"/tests/gpu/engine_test.cpp -o "$out/gpualign_gpu_tests" \
    /usr/lib/x86_64-linux-gnu/libgtest_main.a /usr/lib/x86_64-linux-gnu/libgtest.a "${libs[@]}" &
if ls "$src"/bench/*.cpp >/dev/null 2>&1; then
  g++ "${common[@]}" -I"$src/bench" "$src"/bench/*.cpp -o "$out/gpualign_bench" "${libs[@]}" &
fi
wait

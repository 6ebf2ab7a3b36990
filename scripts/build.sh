#!/usr/bin/env bash
# Configures and builds gpualign in ./build (Release). The CUDA backend is
# built when nvcc is found (PATH or /usr/local/cuda); otherwise a stub that
# reports no device is built and the CPU backend is used.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build -j "$(nproc)"

#!/usr/bin/env bash
# README command 2: install, build, and run the whole test suite (GPU tests
# skip where no CUDA device is visible).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"

#!/usr/bin/env bash
# Builds the libFuzzer targets (preset "fuzz", ./build-fuzz) and runs each for
# SECONDS (default 600) on one core, starting from fuzz/corpus/<target>;
# new inputs go to build-fuzz/corpus/<target>, crashes to
# build-fuzz/artifacts/<target>/ (copy a reproducer to fuzz/regressions/<target>/
# once fixed). Needs clang++ and libclang-rt-14-dev (installed here if missing).
#
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]     (targets: sequence_reader block_parsers matrix cli)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(sequence_reader block_parsers matrix cli)
if ! command -v clang++ >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev >/dev/null
fi
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j 2
for t in "${targets[@]}"; do
  mkdir -p "build-fuzz/corpus/$t" "build-fuzz/artifacts/$t"
  ASAN_OPTIONS=detect_leaks=1 "build-fuzz/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=8192 -print_final_stats=1 -artifact_prefix="build-fuzz/artifacts/$t/" \
    "build-fuzz/corpus/$t" "fuzz/corpus/$t" "fuzz/regressions/$t" 2>&1 | grep -E "INITED|DONE|ERROR|SUMMARY|stat::|Test unit written" ||
    echo "fuzz_$t stopped on a finding: see build-fuzz/artifacts/$t/"
done

#!/usr/bin/env bash
# Bounded memory: streams N (default 10,000,000) generated pairs of ~150 bp
# through the CPU backend (full traceback, TSV to /dev/null) and reports the
# peak RSS measured by /usr/bin/time -v (docs/hardening.md). The queries and
# refs come from two generator processes through two named pipes, so neither
# input is ever on disk.
#
#   bash scripts/rss_10m.sh [BUILD_DIR] [N] [extra gpualign options...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
n=${2:-10000000}
shift $(( $# > 2 ? 2 : $# ))
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g++ -O2 -o "$work/gen_pairs" scripts/gen_pairs.cpp
mkfifo "$work/q.fifo" "$work/r.fifo"
"$work/gen_pairs" query "$n" 7 > "$work/q.fifo" &
"$work/gen_pairs" ref "$n" 7 > "$work/r.fifo" &
/usr/bin/time -v "$build/app/gpualign" sw "$work/q.fifo" "$work/r.fifo" --backend cpu -o /dev/null "$@" \
  2> "$work/time.txt" || { cat "$work/time.txt" >&2; exit 1; }
wait
grep -E "gpualign\]|Maximum resident|Elapsed \(wall" "$work/time.txt"

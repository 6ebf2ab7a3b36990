#!/usr/bin/env bash
# Session 24 device parts (issue 11, the real-sequence 1 Mbp CLI run with CIGAR):
#   unpack - extracts .carry/bins.tar.xz (the binaries, xz-compressed to fit the carry limit)
#   trace  - gpualign_trace (built with GPUALIGN_PASS_TRACE prints: passes, walks, the walk's
#            cursor and gap run, tile batches) on the real1m pair, the log in OUT
#   sanitize - compute-sanitizer TOOLS (default memcheck racecheck) on the long engine's sanitizer
#            tests, its memory-cap test and the tiled pair (LongEngine.TiledPairs*)
#   ...    - any part of bench/device_session23.sh (tests, ab, check, real, cli)
# Usage on the device machine, from the repo root: bench/device_session24.sh OUT PART...
set -uo pipefail
out=${1:?OUT dir}; shift
for part in "$@"; do
case $part in
unpack)
  tar -C .carry -xJf .carry/bins.tar.xz && ls -la .carry | head -20
  ;;
trace)
  export LD_LIBRARY_PATH=$PWD/.carry/lib
  R=.carry/data/real1m
  for mode in nw sw; do
    GPUALIGN_PASS_TRACE=1 .carry/gpualign_trace $mode $R/real1m_q.fa $R/real1m_r.fa --backend gpu --progress never -v \
      -o $out/real1m_$mode.trace.tsv 2> $out/trace_real1m_$mode.log
    echo "trace real1m $mode rc=$? md5 $(md5sum < $out/real1m_$mode.trace.tsv | cut -c1-12); $(grep -c 'TRACE walk' $out/trace_real1m_$mode.log) walks, $(grep -c 'TRACE pass' $out/trace_real1m_$mode.log) passes"
    grep -E "long-pair engine of" $out/trace_real1m_$mode.log | sed 's/.*debug: /    /' | cut -c1-300
  done
  ;;
sanitize)
  SANITIZE_FILTER='LongEngineSanitizer.*:LongEngine.MemoryCap*:LongEngine.TiledPairs*' bench/device_session20.sh "$out" sanitize
  ;;
*)
  bench/device_session23.sh "$out" "$part"
  ;;
esac
done

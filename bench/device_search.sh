#!/usr/bin/env bash
# One device call for `gpualign search` (issue 12): the search GPU tests
# (SKIP_TESTS=1 skips them), compute-sanitizer memcheck and racecheck on the
# scan kernels and memcheck on a GPU search (SKIP_SANITIZERS=1 skips them), the warp kernel's threshold
# swept on (s2) 100 queries (SCAN_SWEEP="values", "" skips), and the
# benchmark workloads: (s1) the 20 CUDASW++ benchmark queries against a
# seeded pseudo-DB of S1_RECORDS (1,000,000) random 512-aa proteins, (s2)
# 100 and all 500 MMseqs2 example queries against the 20,000-record example
# DB, top 10 with alignments, and (s3) the MiSeq 16S reads against their
# reference windows as a DB. CUDASW++ is not installed on the device
# machine (no network), so its figures are the issue's, not run beside us.
# Expects .carry/ from bench/prepare_carry.sh (protein/ and dna/miseq_16S).
# Usage on the device machine, from the repo root: bench/device_search.sh OUT_DIR
set -uo pipefail
out=${1:?OUT dir}
export LD_LIBRARY_PATH=$PWD/.carry/lib GPUALIGN_SHARED_DATA=$PWD/.carry/data GPUALIGN_BINARY=$PWD/.carry/gpualign
B=.carry/gpualign
D=.carry/data
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"
s=$(date +%s)
if [ -z "${SKIP_TESTS:-}" ]; then
  timeout 300 .carry/gpualign_gpu_tests --gtest_filter='*SearchGpu*:ScanEngine*' > "$out/search_gpu_tests.log" 2>&1
  echo "SearchGpu tests rc=$? ($(( $(date +%s) - s )) s)"; grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]|tests? ran" "$out/search_gpu_tests.log" | tail -6
fi
s=$(date +%s)
if [ -z "${SKIP_SANITIZERS:-}" ]; then
timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 .carry/gpualign_gpu_tests --gtest_filter='ScanEngine.RealProteinFamilies:ScanEngine.ManyQueriesAtOnceEqualOneByOne:ScanEngine.SixteenBitOverflowIsRescoredExactly:ScanEngine.WarpAndThreadKernelsTogetherKeepQueryOrder' \
  > "$out/sanitizer_scan.log" 2>&1
echo "compute-sanitizer memcheck (ScanEngine tests) rc=$?"; grep -E "ERROR SUMMARY|OK \]|SKIPPED" "$out/sanitizer_scan.log"
timeout 240 compute-sanitizer --tool racecheck --error-exitcode 9 .carry/gpualign_gpu_tests --gtest_filter='ScanEngine.WarpAndThreadKernelsTogetherKeepQueryOrder' \
  > "$out/racecheck_scan.log" 2>&1
echo "compute-sanitizer racecheck (warp and thread kernels) rc=$?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|OK \]|SKIPPED" "$out/racecheck_scan.log"
timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 $B search $D/protein/families/globins4.fa \
  $D/protein/families/globins45.fa --backend gpu -k 5 -o "$out/sanitized.m8" > "$out/sanitizer_search.log" 2>&1
echo "compute-sanitizer memcheck (gpualign search, GPU) rc=$? ($(( $(date +%s) - s )) s)"; grep -E "ERROR SUMMARY" "$out/sanitizer_search.log"
fi
d=$(mktemp -d)
awk '/^>/{n++} n<=100' $D/protein/mmseqs2_example_query.fa > "$d/q100.fa"
# (s1): the 20 CUDASW++ benchmark queries against a seeded
# pseudo-DB of ${S1_RECORDS:-1000000} random proteins of 512 aa (the issue's size).
python3 -c "
import random; random.seed(20261123); aa='ACDEFGHIKLMNPQRSTVWY'
with open('$d/pseudo_db.fa','w') as f:
    for k in range(${S1_RECORDS:-1000000}): f.write('>p%d\n%s\n' % (k, ''.join(random.choices(aa, k=512))))
" || echo "python3 missing: s1 skipped"
# The warp kernel's threshold on (s2) 100 queries, one run each (SCAN_SWEEP="" skips it).
for wm in ${SCAN_SWEEP-2000000000 4096 2048 1024 512 256}; do
  t0=$(date +%s%N)
  GPUALIGN_SCAN_WARP_MIN=$wm timeout 300 $B search "$d/q100.fa" $D/protein/mmseqs2_example_db.fa --backend gpu -k 10 -v -o "$d/sweep.m8" 2> "$d/sweep.err"
  echo "sweep warp_min=$wm: rc=$? $(grep -oE '[0-9.]+ s of scan kernels' "$d/sweep.err" | head -1), $(grep -oE '[0-9]+ of [0-9]+ DB records scanned by the warp kernel' "$d/sweep.err" | head -1), wall $(( ($(date +%s%N) - t0) / 1000000 )) ms, md5 $(md5sum < "$d/sweep.m8" | cut -c1-8)"
done
for w in "s1 $D/protein/benchmark_queries_20.fa $d/pseudo_db.fa" "s2-100 $d/q100.fa $D/protein/mmseqs2_example_db.fa" "s2-500 $D/protein/mmseqs2_example_query.fa $D/protein/mmseqs2_example_db.fa" \
         "s3 $D/dna/miseq_16S/reads.fa $D/dna/miseq_16S/ref_windows.fa"; do
  set -- $w
  for k in 1 2; do
    t0=$(date +%s%N)
    /usr/bin/time -f "%M" -o "$d/rss" timeout 300 $B search "$2" "$3" --backend gpu -k 10 -v -o "$d/$1.m8" 2> "$d/$1.err"
    rc=$?
    echo "$1 run $k: rc=$rc $(grep -oE '[0-9.]+ s of scan kernels' "$d/$1.err" | head -1) wall $(( ($(date +%s%N) - t0) / 1000000 )) ms, peak RSS $(cat "$d/rss") KB; $(grep -E 'GCUPS' "$d/$1.err" | sed 's/.*info: //' | cut -c1-120)"
  done
  echo "  hits: $(wc -l < "$d/$1.m8"); first: $(head -1 "$d/$1.m8")"
  cp "$d/$1.err" "$out/$1.err"
done
head -20 "$d/s2-100.m8" > "$out/s2_example.m8"
rm -rf "$d"

#!/usr/bin/env bash
# One device call for scan-kernel A/B work (issue 12): the ScanEngine and
# search GPU tests, then (s1) the 20 CUDASW++ benchmark queries against a
# seeded pseudo-DB of S1_RECORDS (default 200,000) random 512-aa proteins
# with each binary of .carry/v/ (alternating, RUNS rounds), then an Nsight
# Compute profile of one 16-bit scan launch of NCU_BIN (default
# .carry/gpualign). Expects .carry/ from bench/prepare_carry.sh, variants in
# .carry/v/gpualign_*. Usage on the device machine: bench/device_scan_ab.sh OUT_DIR
set -uo pipefail
out=${1:?OUT dir}
export LD_LIBRARY_PATH=$PWD/.carry/lib GPUALIGN_SHARED_DATA=$PWD/.carry/data GPUALIGN_BINARY=$PWD/.carry/gpualign
D=.carry/data
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"
if [ -z "${SKIP_TESTS:-}" ]; then
  s=$(date +%s)
  timeout 300 .carry/gpualign_gpu_tests --gtest_filter='*SearchGpu*:ScanEngine*' > "$out/search_gpu_tests.log" 2>&1
  echo "ScanEngine/SearchGpu tests rc=$? ($(( $(date +%s) - s )) s)"; grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]|tests? ran" "$out/search_gpu_tests.log" | tail -6
fi
d=$(mktemp -d)
python3 -c "
import random; random.seed(20261123); aa='ACDEFGHIKLMNPQRSTVWY'
with open('$d/pseudo_db.fa','w') as f:
    for k in range(${S1_RECORDS:-200000}): f.write('>p%d\n%s\n' % (k, ''.join(random.choices(aa, k=512))))
"
for r in $(seq 1 "${RUNS:-2}"); do
  for b in .carry/v/gpualign_*; do
    timeout 120 $b search $D/protein/benchmark_queries_20.fa "$d/pseudo_db.fa" --backend gpu -k 10 -v -o "$d/s1.m8" 2> "$d/s1.err"
    echo "s1 $(basename $b) round $r: rc=$? $(grep -oE '[0-9.]+ s of scan kernels[^;]*' "$d/s1.err" | head -1), md5 $(md5sum < "$d/s1.m8" | cut -c1-8)"
  done
done
if [ -n "${NCU-1}" ]; then
  timeout 240 ncu --kernel-name regex:s16x2 --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section Occupancy \
    --section InstructionStats --section ComputeWorkloadAnalysis \
    --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,regex:sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active" \
    ${NCU_BIN:-.carry/gpualign} search $D/protein/benchmark_queries_20.fa "$d/pseudo_db.fa" --backend gpu -k 10 -o "$d/ncu.m8" \
    > "$out/ncu.log" 2>&1
  echo "ncu rc=$?"
  grep -E "s16x2|Issue Slots|Eligible|Active Warps|Registers Per|Achieved Active|Warp Cycles Per Issued|Pipe|stalled|pipe_" "$out/ncu.log" \
    | awk '{ if ($NF+0 > 0.05 || ($0 !~ /stalled/ && $0 !~ /pipe_/)) print }' | cut -c1-140 | head -70
fi
rm -rf "$d"
# Instruction mix of the 16-bit scan kernel in each binary (SASS=1).
if [ -n "${SASS:-}" ]; then
  for b in .carry/v/gpualign_*; do
    cuobjdump -sass -fun '_ZN8gpualign3gpu12scan_kernels17scan_kernel_s16x2ENS0_6detail10ScanParamsEi' $b > "$out/sass_$(basename $b).txt" 2>&1
    echo "sass $(basename $b): $(grep -cE '^ +/\*[0-9a-f]+\*/' "$out/sass_$(basename $b).txt") instructions; top opcodes:"
    grep -E '^ +/\*[0-9a-f]+\*/' "$out/sass_$(basename $b).txt" | sed -E 's/^ +\/\*[0-9a-f]+\*\/ +(@!?U?P[0-9T] +)?//; s/[ .;].*//' \
      | sort | uniq -c | sort -rn | head -12 | tr '\n' ' '; echo
  done
fi

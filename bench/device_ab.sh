#!/usr/bin/env bash
# One device call: a kernel change measured against its baseline in the same
# run (issue 11). Runs the long-engine GPU tests of the new build, then
# gpualign_long_bench of the baseline (.carry/gpualign_long_bench_base, built
# from the commit before the change) and of the new build on the same
# workloads, alternating, and optionally one Nsight Compute profile of the
# new build's forward kernel.
# Expects .carry/ from bench/prepare_carry.sh plus the baseline binary.
# Usage on the device machine, from the repo root:
#   bench/device_ab.sh OUT_DIR [tests] [ab] [real] [bulk] [cli] [ncu] [sass]
# cli: the 1 Mbp x 1 Mbp nw pair with CIGAR through the CLI (FASTA in, TSV
# out), 3 times: process wall, peak RSS, and the -v log with a timestamp per
# line (where the wall goes outside the engine).
# Env: AB_BINS (base new: .carry/gpualign_long_bench_NAME, "new" = the current
# build), AB_WORKLOADS (syn1m5), AB_MODES (global,local), NCU_SYN (1000000:
# query length of the profiled synthetic pair, >= 512K rows so R = 16 runs),
# NCU_MODE (global). Logs end up in OUT_DIR/logs.tgz (few files come back).
set -uo pipefail
out=${1:?OUT dir}; shift
steps=${*:-tests ab real ncu}
export LD_LIBRARY_PATH=$PWD/.carry/lib GPUALIGN_SHARED_DATA=$PWD/.carry/data
new=.carry/gpualign_long_bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$out/device.txt"
for step in $steps; do
  s=$(date +%s)
  case $step in
    tests)
      timeout 400 .carry/gpualign_gpu_tests --gtest_filter="${TEST_FILTER:-LongEngine*}" > "$out/gpu_tests.log" 2>&1
      echo "gpu tests rc=$? ($(( $(date +%s) - s )) s)"
      grep -E "^\[  (PASSED|FAILED) |tests? ran|^\[  FAILED  \]" "$out/gpu_tests.log" | tail -12 ;;
    ab)
      for round in 1 2; do
        for b in ${AB_BINS:-base new}; do
          bin=.carry/gpualign_long_bench_$b; [ $b = new ] && bin=$new
          [ -x "$bin" ] || continue
          echo "--- $b round $round"
          timeout 200 $bin --workloads "${AB_WORKLOADS:-syn1m5}" --modes "${AB_MODES:-global,local}" --runs 1 --no-peer \
            --csv "$out/ab_${b}_$round.csv" > "$out/ab_${b}_$round.log" 2>&1
          grep -E "^  GPU|MISMATCH|ERROR" "$out/ab_${b}_$round.log" | cut -c1-170
        done
      done ;;
    real)
      timeout 200 $new --workloads mito,hp50,hp100,sa200 --runs 3 --no-peer --csv "$out/real.csv" > "$out/real.log" 2>&1
      echo "real rc=$?"; grep -E "^  GPU|MISMATCH|ERROR|^[a-zA-Z].*x [0-9]" "$out/real.log" | cut -c1-170 ;;
    bulk)
      timeout 200 $new --workloads bulk2000 --modes global --runs 1 --no-peer --csv "$out/bulk.csv" > "$out/bulk.log" 2>&1
      echo "bulk rc=$?"; grep -E "^  GPU|MISMATCH|ERROR" "$out/bulk.log" | cut -c1-170 ;;
    cli)
      d=$(mktemp -d)
      $new --workloads syn1m5 --dump-fasta "$d" > /dev/null
      for k in 1 2 3; do
        t0=$(date +%s%N)
        /usr/bin/time -f "%M" -o "$d/rss" .carry/gpualign nw "$d/syn1m5_q.fa" "$d/syn1m5_r.fa" -o "$d/syn.tsv" -v 2>&1 \
          | while IFS= read -r l; do echo "+$(( ($(date +%s%N) - t0) / 1000000 )) ms $l"; done > "$out/cli_$k.log"
        echo "1 Mbp x 1 Mbp nw (CIGAR) via CLI: process wall $(( ($(date +%s%N) - t0) / 1000000 )) ms, peak RSS $(cat "$d/rss") KB"
      done
      cut -c1-160 "$out/cli_3.log"
      cut -f1-9 "$d/syn.tsv" | tail -1
      rm -rf "$d" ;;
    ncu)
      # The warm-up (8 kb, one launch) is skipped; the next launch is the forward pass.
      timeout 240 ncu --kernel-name regex:region_kernel --launch-skip 1 --launch-count 1 \
        --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section Occupancy \
        --section InstructionStats --section ComputeWorkloadAnalysis \
        --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio" \
        $new --workloads syn1m5 --syn-length "${NCU_SYN:-1000000}" --modes "${NCU_MODE:-global}" --runs 1 --no-peer \
        > "$out/ncu.log" 2>&1
      echo "ncu rc=$?"
      grep -E "region_kernel<|Issue Slots|Eligible|Active Warps|Registers Per|Achieved Active|Warp Cycles Per Issued|Pipe|stalled" "$out/ncu.log" \
        | awk '{ if ($NF+0 > 0.05 || $0 !~ /stalled/) print }' | cut -c1-140 | head -60 ;;
    sass)
      # Instruction mix of the R = 16 forward kernels (global and local, packed scores).
      for f in "ILi16ELb0ELb0ELb1E" "ILi16ELb1ELb0ELb1E"; do
        cuobjdump -sass -fun "_ZN8gpualign3gpu12long_kernels13region_kernel${f}EvNS1_12RegionParamsE" $new > "$out/sass_$f.txt" 2>&1
        echo "sass $f: $(grep -cE '^ +/\*[0-9a-f]+\*/' "$out/sass_$f.txt") instructions; top opcodes:"
        grep -E '^ +/\*[0-9a-f]+\*/' "$out/sass_$f.txt" | sed -E 's/^ +\/\*[0-9a-f]+\*\/ +(@!?U?P[0-9T] +)?//; s/[ .;].*//' \
          | sort | uniq -c | sort -rn | head -14 | tr '\n' ' '; echo
      done ;;
  esac
  echo "== $step done ($(( $(date +%s) - s )) s)"
done
(cd "$out" && tar czf logs.tgz --exclude=logs.tgz --exclude=summary.txt * 2>/dev/null && find . -type f ! -name logs.tgz ! -name summary.txt -delete)

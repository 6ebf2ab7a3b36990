#!/usr/bin/env bash
# Session 20: Nsight Compute counters of the 1 Mbp forward pass (the first
# R = 16 launch without direction bytes of MODE: global or local), with
# application replay (kernel replay of the flow-controlled cooperative launch
# did not finish under ncu). Binaries in .carry/.
# Usage on the device machine, from the repo root: MODE=global bench/ncu_session20.sh (writes to $OUT)
export LD_LIBRARY_PATH=$PWD/.carry/lib
N=/usr/local/cuda/bin/ncu
name=${MODE:-global}; code=1; [ "$name" = local ] && code=0
timeout 400 $N --replay-mode application --kernel-name-base mangled --kernel-name "regex:region_kernelILi16ELNS_9AlignModeE${code}ELb0ELb1" --launch-count 1 \
  --section SchedulerStats --section WarpStateStats --section Occupancy --section LaunchStats \
  -o $OUT/$name -f .carry/gpualign_long_bench --workloads syn1m5 --modes $name --runs 1 --no-peer > $OUT/$name.log 2>&1
echo "$name rc=$?"; grep -E "ERROR|PROF" $OUT/$name.log | head -8
$N -i $OUT/$name.ncu-rep --page details > $OUT/$name.details.txt 2>&1
grep -E "Eligible|Issued Warp|No Eligible|Active Warps|Warp Cycles|Achieved|Stall|stall" $OUT/$name.details.txt | head -30
$N -i $OUT/$name.ncu-rep --page raw --csv 2>/dev/null | tr ',' '\n' > $OUT/$name.raw.txt

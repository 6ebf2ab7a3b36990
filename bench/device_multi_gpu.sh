#!/usr/bin/env bash
# Issue 15's scaling benchmark and tests, one device call on a machine with
# two GPUs (nvidia-h200-x2): the MultiGpu GPU tests, then each workload once
# on one GPU (--device 0) and once on two (--devices 0,1), in the same run,
# each run twice, with the outputs compared (cmp):
#   (s1)   the 20 CUDASW++ benchmark queries against a seeded pseudo-DB of
#          S1_RECORDS (1,000,000) random 512-aa proteins (as device_search.sh),
#          top 10 with alignments; scan seconds per GPU from the -v log;
#   (bulk) 2,000 synthetic pairs of 5-50 kb at 10% (gpualign_long_bench
#          --dump-fasta), nw with CIGAR;
#   (e2e)  1,000,000 synthetic DNA pairs of 512 at 10% (scripts/gen_pairs.py),
#          sw with CIGAR, FASTA in, TSV out.
# Process wall from date (ns); per-GPU kernel seconds from the -v summary.
# Expects .carry/ from bench/prepare_carry.sh (protein/, dna/long).
#   (bulk1) the bulk pairs again with --batch-bases 4000000000: all 2,000 in
#          one batch, so the long pairs meet no batch boundary.
# Env: RUNS (default 2) runs of each; WORKLOADS (default "s1 bulk bulk1 e2e").
# Usage on the device machine, from the repo root: bench/device_multi_gpu.sh OUT_DIR [skip-tests]
set -uo pipefail
out=${1:?OUT dir}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.carry/lib GPUALIGN_SHARED_DATA=$PWD/.carry/data GPUALIGN_BINARY=$PWD/.carry/gpualign
B=.carry/gpualign
D=.carry/data
W=$(mktemp -d)
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | tee "$out/device.txt"
nproc
(python3 -c "
import random; random.seed(20261123); aa='ACDEFGHIKLMNPQRSTVWY'
with open('$W/pseudo_db.fa','w') as f:
    for k in range(${S1_RECORDS:-1000000}): f.write('>p%d\n%s\n' % (k, ''.join(random.choices(aa, k=512))))
" && .carry/gpualign_long_bench --workloads bulk2000 --dump-fasta $W > /dev/null &&
  python3 scripts/gen_pairs.py ${E2E_PAIRS:-1000000} 512 0.1 42 $W/e2e_q.fa $W/e2e_r.fa) &
gen=$!
if [ "${2:-}" != skip-tests ]; then
  timeout 400 .carry/gpualign_gpu_tests --gtest_filter='*MultiGpu*' 2>&1 | tee "$out/multi_gpu_tests.log" |
    grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests? ran|FAILED|OK \]" | tail -20
fi
wait $gen || { echo "generating the workloads failed"; exit 1; }
cat $W/*.fa > /dev/null  # page cache
run() {  # NAME DEVICES ARGS...
  local name=$1 dev=$2; shift 2
  for k in $(seq 1 "${RUNS:-2}"); do
    local t0=$(date +%s%N)
    timeout 500 $B "$@" --backend gpu --progress never -v $dev -o "$W/$name.out" 2> "$W/$name.err"
    local rc=$? ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    echo "$name run $k: rc=$rc wall $ms ms; $(grep -E 'GCUPS' "$W/$name.err" | grep -v 'device ' | sed 's/.*info: //' | cut -c1-150)"
    grep -E "device [0-9]+: |long-pair engine of device|search: device [0-9]+ scanned|stages \(s\)" "$W/$name.err" | sed 's/.*debug: /    /' | cut -c1-240
  done
  cp "$W/$name.err" "$out/$name.err"
}
for w in "s1|search $D/protein/benchmark_queries_20.fa $W/pseudo_db.fa -k 10" \
         "bulk|nw $W/bulk2000_q.fa $W/bulk2000_r.fa" \
         "bulk1|nw $W/bulk2000_q.fa $W/bulk2000_r.fa --batch-bases 4000000000" \
         "e2e|sw $W/e2e_q.fa $W/e2e_r.fa"; do
  name=${w%%|*}; args=${w#*|}
  [[ " ${WORKLOADS:-s1 bulk bulk1 e2e} " == *" $name "* ]] || continue
  run "${name}_1gpu" "--device 0" $args
  run "${name}_2gpu" "--devices 0,1" $args
  cmp "$W/${name}_1gpu.out" "$W/${name}_2gpu.out" && echo "$name: cmp identical ($(wc -l < "$W/${name}_1gpu.out") lines)"
done
rm -rf "$W"

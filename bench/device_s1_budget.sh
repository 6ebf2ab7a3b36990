#!/usr/bin/env bash
# (s1) at 1,000,000 records under three scan boundary budgets (default 2 GiB;
# --gpu-memory 32G / 64G give a quarter: 8 / 16 GiB, so more query pairs per
# launch). Usage on the device machine, from the repo root: bash bench/device_s1_budget.sh
export LD_LIBRARY_PATH=$PWD/.carry/lib; D=.carry/data; d=$(mktemp -d)
python3 -c "
import random; random.seed(20261123); aa='ACDEFGHIKLMNPQRSTVWY'
with open('$d/pseudo_db.fa','w') as f:
    for k in range(1000000): f.write('>p%d\n%s\n' % (k, ''.join(random.choices(aa, k=512))))
"
for r in 1 2; do for gm in "" "--gpu-memory 32G" "--gpu-memory 64G"; do
  t0=$(date +%s%N); .carry/gpualign search $D/protein/benchmark_queries_20.fa $d/pseudo_db.fa --backend gpu -k 10 -v $gm -o $d/s1.m8 2> $d/s1.err
  echo "s1 1M '$gm' run $r: rc=$? $(grep -E 'scan on the GPU' $d/s1.err | sed 's/.*search: //'), wall $(( ($(date +%s%N) - t0) / 1000000 )) ms, md5 $(md5sum < $d/s1.m8 | cut -c1-8)"
done; done

#!/usr/bin/env bash
# Device work of session 20 (issue 11: the 1 Mbp local forward pass with the
# windowed best cell), binaries in .carry/ (bench/prepare_carry.sh), the
# build before the change as .carry/gpualign_long_bench_base. Parts:
#   tests - the long engine's GPU tests (FILTER, default LongEngine*:LongCli*)
#   fwd   - gpualign_long_bench score-only on WORKLOADS (default syn1m5),
#           modes MODES (default local,global), RUNS runs, this build and the
#           base build side by side, same machine, same call (BINS: other
#           builds in .carry/ to compare)
#   bench - this build's gpualign_long_bench on WORKLOADS (default: every
#           workload of issue 11), both outputs, WFA2 (BiWFA, one core) beside
#           it with a PEER_TIMEOUT cap (20 s)
#   fanout - the 1 Mbp pair (syn1m5) with checkpoint grids of FANOUTS (pairs
#           fan_out:tile_batch, default 16:48 32:96 64:192), score-only and
#           CIGAR, global and local, RUNS runs each
#   variants - gpualign_long_bench on WORKLOADS (default syn1m5,sa200,hp100)
#           for each of VARIANTS, entries 'binary|extra arguments' separated
#           by ';' (e.g. 'gpualign_long_bench_prev|;gpualign_long_bench|--leaf-batch 512'),
#           both outputs, MODES, RUNS runs, no peer
#   sass  - cuobjdump -sass of the R = 16 forward kernels (global, local;
#           packed DNA scores, two columns a step) into OUT
#   cli   - gpualign nw and sw on the mito pair, CPU backend against GPU,
#           cmp of the outputs; the synthetic 1 Mbp pair at 5% (nw, CIGAR)
#           through the CLI, RUNS runs, process wall and the -v line
#   sanitize - compute-sanitizer memcheck and racecheck (TOOLS) on the long engine's
#           small-pair and memory-cap tests (SANITIZE_FILTER; racecheck less AlignManyWorkers)
# Usage on the device machine, from the repo root: bench/device_session20.sh OUT PART...
set -uo pipefail
out=${1:?OUT dir}; shift
export LD_LIBRARY_PATH=$PWD/.carry/lib GPUALIGN_SHARED_DATA=$PWD/.carry/data GPUALIGN_BINARY=$PWD/.carry/gpualign
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
for part in "$@"; do
case $part in
tests)
  .carry/gpualign_gpu_tests --gtest_filter="${FILTER:-LongEngine*:LongCli*}" 2>&1 | grep -E "^\[  (FAILED|PASSED|SKIPPED|  OK) |Failure|error|Expected|gpu score|^\[==" | tail -${TAIL:-60}
  ;;
fwd)
  for bin in ${BINS:-gpualign_long_bench_base gpualign_long_bench}; do
    echo "== $bin"
    .carry/$bin --workloads "${WORKLOADS:-syn1m5}" --modes "${MODES:-local,global}" --runs "${RUNS:-3}" --no-peer \
      --csv "$out/$bin.fwd.csv" 2>&1 | grep -vE "^\s*$" | tail -${TAIL:-40}
  done
  ;;
bench)
  .carry/gpualign_long_bench --workloads "${WORKLOADS:-mito,hp50,hp100,sa200,syn1m5,syn1m20,bulk2000}" --modes "${MODES:-local,global}" \
    --runs "${RUNS:-3}" --peer-timeout-s "${PEER_TIMEOUT:-20}" ${BENCH_ARGS:-} --csv "$out/bench.csv" 2>&1 | tail -${TAIL:-60}
  ;;
fanout)
  for ft in ${FANOUTS:-16:48 32:96 64:192}; do
    echo "== fan_out ${ft%%:*} tile_batch ${ft##*:}"
    .carry/gpualign_long_bench --workloads "${WORKLOADS:-syn1m5}" --modes "${MODES:-local,global}" --runs "${RUNS:-3}" --no-peer \
      --fan-out "${ft%%:*}" --tile-batch "${ft##*:}" --csv "$out/fanout_${ft%%:*}_${ft##*:}.csv" 2>&1 | grep -E "GPU (local|global)" | sed 's/, check ok//'
  done
  ;;
variants)
  IFS=';' read -ra vs <<< "${VARIANTS:?VARIANTS}"
  for v in "${vs[@]}"; do
    bin=${v%%|*}; args=${v#*|}
    echo "== $bin $args"
    .carry/$bin --workloads "${WORKLOADS:-syn1m5,sa200,hp100}" --modes "${MODES:-local,global}" --runs "${RUNS:-3}" --no-peer $args \
      2>&1 | grep -E "GPU (local|global)" | sed 's/, check ok//; s/, peak device.*//'
  done
  ;;
sass)
  for m in 1:global 0:local; do
    /usr/local/cuda/bin/cuobjdump -sass -fun "_ZN8gpualign3gpu12long_kernels13region_kernelILi16ELNS_9AlignModeE${m%%:*}ELb0ELb1ELi2EEEvNS1_12RegionParamsE" \
      .carry/gpualign_long_bench > "$out/${m##*:}.sass" 2>&1
  done
  wc -l "$out"/*.sass
  ;;
cli)
  W=$(mktemp -d)
  .carry/gpualign_long_bench --workloads syn1m5 --dump-fasta $W > /dev/null || exit 1
  awk '/^>/{n++} {print > ("'$W'/mito_" n ".fa")}' .carry/data/dna/long/mito_human_vs_orangutan.fa
  for cmd in nw sw; do
    for be in cpu gpu; do
      t0=$(date +%s%N)
      .carry/gpualign $cmd $W/mito_1.fa $W/mito_2.fa --backend $be --progress never -o $W/mito_$cmd.$be.tsv 2> $W/err
      echo "mito $cmd $be: rc=$? wall $(( ($(date +%s%N) - t0) / 1000000 )) ms, md5 $(md5sum < $W/mito_$cmd.$be.tsv | cut -c1-12)"
    done
    cmp $W/mito_$cmd.cpu.tsv $W/mito_$cmd.gpu.tsv && echo "mito $cmd: cmp CPU GPU identical"
  done
  for k in $(seq 1 "${RUNS:-3}"); do
    t0=$(date +%s%N)
    .carry/gpualign nw $W/syn1m5_q.fa $W/syn1m5_r.fa --backend gpu --progress never -v -o $W/syn1m5.tsv 2> $W/syn.err
    echo "syn1m5 nw CLI run $k: rc=$? wall $(( ($(date +%s%N) - t0) / 1000000 )) ms"
    grep -E "long-pair engine of|backend|stages \(s\)" $W/syn.err | sed 's/.*debug: /    /' | cut -c1-260
  done
  ;;
sanitize)
  S=/usr/local/cuda/bin/compute-sanitizer; command -v compute-sanitizer >/dev/null && S=compute-sanitizer
  for tool in ${TOOLS:-memcheck racecheck}; do
    t0=$(date +%s)
    filter=${SANITIZE_FILTER:-'LongEngineSanitizer.*:LongEngine.MemoryCap*'}
    [ $tool = racecheck ] && filter="$filter:-LongEngineSanitizer.AlignManyWorkers"
    $S --tool $tool --error-exitcode 9 .carry/gpualign_gpu_tests --gtest_filter="$filter" > "$out/sanitizer_$tool.log" 2>&1
    echo "compute-sanitizer $tool: rc=$? ($(( $(date +%s) - t0 )) s) $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$out/sanitizer_$tool.log" | tail -3 | tr '\n' ' ')"
  done
  ;;
esac
done

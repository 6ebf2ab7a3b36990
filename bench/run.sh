#!/usr/bin/env bash
# bench/run.sh — the benchmark runner: one or more named workloads, each
# writing bench/results/<workload>/<date>_<device>_<commit>.csv (and a .log of
# the programs' own output beside it). bench/README.md describes every
# workload, its data and the device copy step (bench/carry.sh).
set -uo pipefail

usage() {
    cat <<'EOF'
usage: bench/run.sh [--list] [--help] WORKLOAD...

Workloads (bench/run.sh --list prints what each runs):
  batch    gpualign_bench: the batch engine's kernel and engine GCUPS (GPU)
  long     gpualign_long_bench: the long-pair engine, WFA2-lib BiWFA beside it (GPU)
  search   gpualign search: the scan workloads s1, s2-100, s2-500, s3 (GPU)
  cli      gpualign end to end (FASTA in, TSV out): generated pairs, the 1 Mbp
           pairs, pacbio_ecoli on the GPU against the CPU backend
  cpu      cpu_bench: the CPU kernels against parasail (no GPU)
  reader   reader_bench: FASTA parsing throughput (no GPU)
  writer   writer_bench: output formatting throughput, TSV, PAF and SAM (no GPU)
  startup  cuda_startup_probe: the cost of CUDA's start-up steps (GPU)
  copy     cuda_copy_probe: pinned copy and mapped-write rates (GPU)
  multi    one GPU against two (--device 0 / --devices 0,1) (2 GPUs)

Environment:
  GPUALIGN_BIN_DIR  where the binaries are (flat); default build/ (its app/,
                    bench/ and tests/), or .carry/ when build/ lacks them
  GPUALIGN_DATA     the shared data sets; default ../shared/data, or
                    .carry/data when that is missing. A workload whose data
                    is missing says so and is skipped.
  RESULTS_DIR       default bench/results
  RUNS              repetitions where a workload repeats runs (default per workload)
  BATCH_ARGS, LONG_ARGS, CPU_ARGS   extra arguments of that workload's program
  LONG_WORKLOADS    default mito,hp50,hp100,sa200,syn1m5,syn1m20,real1m,bulk2000
  READER_FILE       default: the generated query file of 100,000 pairs of 512
  STARTUP_QUEUES    CUDA_DEVICE_MAX_CONNECTIONS values (default "1 4 8")
EOF
}

cd "$(dirname "$0")/.." || exit 1
root=$PWD

# --- where things are -------------------------------------------------------
bin_dir=${GPUALIGN_BIN_DIR:-}
if [ -z "$bin_dir" ] && [ ! -d build ] && [ -d .carry ]; then bin_dir=.carry; fi
[ -n "$bin_dir" ] && [ -d "$bin_dir/lib" ] && export LD_LIBRARY_PATH="$root/$bin_dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
data=${GPUALIGN_DATA:-${GPUALIGN_SHARED_DATA:-../shared/data}}
[ -d "$data" ] || { [ -z "${GPUALIGN_DATA:-}" ] && [ -d .carry/data ] && data=.carry/data; }
data=$(cd "$data" 2>/dev/null && pwd || echo "$data")
export GPUALIGN_SHARED_DATA=$data
results=${RESULTS_DIR:-bench/results}
work=$(mktemp -d "${TMPDIR:-/tmp}/gpualign_bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# bin NAME: the path of a binary, or nothing.
bin() {
    local d
    if [ -n "$bin_dir" ]; then [ -x "$bin_dir/$1" ] && echo "$bin_dir/$1"; return; fi
    for d in build/bench build/app build/tests build; do
        [ -x "$d/$1" ] && { echo "$d/$1"; return; }
    done
}

# gpus: the number of GPUs nvidia-smi lists (0 without it).
gpus() {
    local n=0
    command -v nvidia-smi > /dev/null && n=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU')
    echo "${n:-0}"
}

# device_slug: h100, h200x2, ... from nvidia-smi; cpu-<nproc>core without a GPU.
device_slug() {
    local n name
    n=$(gpus)
    if [ "$n" -gt 0 ]; then
        name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z' 'a-z' |
               sed -E 's/^nvidia //; s/^(geforce|tesla|quadro) //; s/ .*//; s/[^a-z0-9]+/-/g')
        [ "$n" -gt 1 ] && name="${name}x$n"
        echo "$name"
    else
        echo "cpu-$(nproc)core"
    fi
}

commit_slug() {
    local c
    c=$(git rev-parse --short=7 HEAD 2> /dev/null || echo nocommit)
    git diff --quiet HEAD -- 2> /dev/null || c="$c-dirty"
    echo "$c"
}

stem() { echo "$results/$1/$(date -u +%F)_$(device_slug)_$(commit_slug)"; }

# need_bin NAME...: every binary found, else a message.
need_bin() {
    local b
    for b in "$@"; do
        [ -n "$(bin "$b")" ] || { echo "  skipped: no $b in ${bin_dir:-build/} (build the target $b, or set GPUALIGN_BIN_DIR)"; return 1; }
    done
}

# need_data PATH...: every data path (relative to $data) present, else a message.
need_data() {
    local p
    for p in "$@"; do
        [ -e "$data/$p" ] || { echo "  skipped: no $data/$p (set GPUALIGN_DATA, or see bench/README.md)"; return 1; }
    done
}

need_gpus() {
    [ "$(gpus)" -ge "$1" ] || { echo "  skipped: needs $1 GPU(s), $(gpus) visible"; return 1; }
}

ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

# gen_pairs: the 100,000 synthetic DNA pairs of 512 at 10% (seed 42) and their
# 2- and 6-fold concatenations, in $work.
gen_pairs() {
    [ -s "$work/a6_r.fa" ] && return 0
    python3 scripts/gen_pairs.py 100000 512 0.1 42 "$work/a_q.fa" "$work/a_r.fa" || return 1
    local s
    for s in q r; do
        cat "$work/a_$s.fa" "$work/a_$s.fa" > "$work/a2_$s.fa"
        cat "$work/a2_$s.fa" "$work/a2_$s.fa" "$work/a2_$s.fa" > "$work/a6_$s.fa"
    done
}

# pseudo_db N: N seeded random proteins of 512 aa in $work/pseudo_db.fa.
pseudo_db() {
    [ -s "$work/pseudo_db.fa" ] && return 0
    python3 -c "
import random; random.seed(20261123); aa='ACDEFGHIKLMNPQRSTVWY'
with open('$work/pseudo_db.fa','w') as f:
    for k in range($1): f.write('>p%d\n%s\n' % (k, ''.join(random.choices(aa, k=512))))
"
}

# --- workloads ------------------------------------------------------------------
# Each describe_X prints the command lines; run_X STEM runs them.

describe_batch() { echo "gpualign_bench --runs 5 --global \$BATCH_ARGS --csv OUT.csv  (workloads a, b = dna/pacbio_ecoli, c)"; }
run_batch() {
    need_gpus 1 && need_bin gpualign_bench || return 0
    "$(bin gpualign_bench)" --runs 5 --global ${BATCH_ARGS:-} --csv "$1.csv" 2>&1 | tee "$1.log"
}

long_workloads=${LONG_WORKLOADS:-mito,hp50,hp100,sa200,syn1m5,syn1m20,real1m,bulk2000,sa_set,hp_set,mixed_set}
describe_long() { echo "gpualign_long_bench --workloads $long_workloads --modes global,local --runs 3 --peer-timeout-s 20 \$LONG_ARGS --csv OUT.csv"; }
run_long() {
    need_gpus 1 && need_bin gpualign_long_bench && need_data dna/long || return 0
    "$(bin gpualign_long_bench)" --workloads "$long_workloads" --modes global,local --runs 3 --peer-timeout-s 20 \
        ${LONG_ARGS:-} --csv "$1.csv" 2>&1 | tee "$1.log"
}

describe_search() {
    echo "gpualign search Q DB --backend gpu -k 10 -v -o out.m8, RUNS (2) runs each, process wall from the shell:"
    echo "  s1      protein/benchmark_queries_20.fa x 1,000,000 seeded random proteins of 512 aa"
    echo "  s1-db   the same against its prebuilt DB (gpualign makedb, timed once beside)"
    echo "  s2-100  the first 100 queries of protein/mmseqs2_example_query.fa x protein/mmseqs2_example_db.fa"
    echo "  s2-500  all 500 queries x the same DB"
    echo "  s3      dna/miseq_16S/reads.fa x dna/miseq_16S/ref_windows.fa"
}
run_search() {
    need_gpus 1 && need_bin gpualign && need_data protein/benchmark_queries_20.fa protein/mmseqs2_example_db.fa || return 0
    local g w name q db k t0 ms cells scan
    g=$(bin gpualign)
    pseudo_db 1000000 || { echo "  skipped: python3 could not write the pseudo-DB"; return 0; }
    awk '/^>/{n++} n<=100' "$data/protein/mmseqs2_example_query.fa" > "$work/q100.fa"
    echo "workload,run,rc,cells,scan_kernel_s,wall_s,kernel_gcups,wall_gcups,md5" > "$1.csv"
    : > "$1.log"
    t0=$(date +%s%N)
    "$g" makedb "$work/pseudo_db.fa" "$work/pseudo_db.gadb" -q && echo "makedb,1,0,,,$(awk -v ms="$(ms_since "$t0")" 'BEGIN {printf "%.3f", ms / 1000}'),,," >> "$1.csv"
    for w in "s1|$data/protein/benchmark_queries_20.fa|$work/pseudo_db.fa" \
             "s1-db|$data/protein/benchmark_queries_20.fa|$work/pseudo_db.gadb" \
             "s2-100|$work/q100.fa|$data/protein/mmseqs2_example_db.fa" \
             "s2-500|$data/protein/mmseqs2_example_query.fa|$data/protein/mmseqs2_example_db.fa" \
             "s3|$data/dna/miseq_16S/reads.fa|$data/dna/miseq_16S/ref_windows.fa"; do
        IFS='|' read -r name q db <<< "$w"
        [ -e "$q" ] && [ -e "$db" ] || { echo "  $name skipped: no $q or $db"; continue; }
        for k in $(seq 1 "${RUNS:-2}"); do
            t0=$(date +%s%N)
            "$g" search "$q" "$db" --backend gpu -k 10 -v -o "$work/$name.m8" 2> "$work/err"
            local rc=$?
            ms=$(ms_since "$t0")
            cat "$work/err" >> "$1.log"
            cells=$(grep -oE '[0-9]+ cells' "$work/err" | head -1 | cut -d' ' -f1)
            scan=$(grep -oE '[0-9.]+ s of scan kernels' "$work/err" | head -1 | cut -d' ' -f1)
            awk -v n="$name" -v k="$k" -v rc="$rc" -v c="${cells:-0}" -v s="$scan" -v ms="$ms" -v md5="$(md5sum < "$work/$name.m8" | cut -c1-12)" \
                'BEGIN {printf "%s,%s,%s,%s,%s,%.3f,%s,%.0f,%s\n", n, k, rc, c, s, ms / 1000, (s > 0 ? sprintf("%.0f", c / s / 1e9) : ""), c / (ms / 1000) / 1e9, md5}' | tee -a "$1.csv"
        done
    done
}

describe_cli() {
    echo "gpualign CMD Q R --backend gpu [--score-only] --progress never -v -o out.tsv, RUNS (3) runs each, process wall"
    echo "  a, a2, a6   sw: 100,000 DNA pairs of 512 at 10% (scripts/gen_pairs.py 100000 512 0.1 42), 2x and 6x;"
    echo "              steady state = 4 x 2.62e10 cells / (median wall a6 - median wall a2)"
    echo "  syn1m5      nw: the 1 Mbp x 1 Mbp pair at 5% (gpualign_long_bench --workloads syn1m5 --dump-fasta)"
    echo "  real1m      nw: the real-sequence 1 Mbp pair (gpualign_long_bench --workloads real1m --dump-fasta; dna/long)"
    echo "  pacbio      sw and nw on dna/pacbio_ecoli, --backend gpu and --backend cpu, outputs compared (cmp)"
}
run_cli() {
    need_bin gpualign || return 0
    local g lb backend name cmd q r so tag k t0 ms rc
    g=$(bin gpualign); lb=$(bin gpualign_long_bench)
    backend=gpu; [ "$(gpus)" -gt 0 ] || backend=cpu
    gen_pairs || { echo "  skipped: scripts/gen_pairs.py failed"; return 0; }
    local inputs="a|sw|$work/a_q.fa|$work/a_r.fa a2|sw|$work/a2_q.fa|$work/a2_r.fa a6|sw|$work/a6_q.fa|$work/a6_r.fa"
    if [ -n "$lb" ]; then
        "$lb" --workloads syn1m5 --dump-fasta "$work" > /dev/null && inputs="$inputs syn1m5|nw|$work/syn1m5_q.fa|$work/syn1m5_r.fa"
        [ -d "$data/dna/long" ] && "$lb" --workloads real1m --dump-fasta "$work" > /dev/null &&
            inputs="$inputs real1m|nw|$work/real1m_q.fa|$work/real1m_r.fa"
    else
        echo "  the 1 Mbp pairs skipped: no gpualign_long_bench to write them"
    fi
    cat "$work"/*.fa > /dev/null  # page cache
    echo "input,command,backend,output,run,rc,wall_ms,md5" > "$1.csv"
    : > "$1.log"
    for w in $inputs; do
        IFS='|' read -r name cmd q r <<< "$w"
        for so in "" --score-only; do
            tag=cigar; [ -n "$so" ] && tag=score-only
            [ "$cmd" = nw ] && [ -n "$so" ] && continue
            for k in $(seq 1 "${RUNS:-3}"); do
                rm -f "$work/o.tsv"
                t0=$(date +%s%N)
                "$g" "$cmd" "$q" "$r" --backend "$backend" $so --progress never -v -o "$work/o.tsv" 2> "$work/err"
                rc=$?; ms=$(ms_since "$t0")
                cat "$work/err" >> "$1.log"
                echo "$name,$cmd,$backend,$tag,$k,$rc,$ms,$(md5sum < "$work/o.tsv" | cut -c1-12)" | tee -a "$1.csv"
            done
        done
    done
    python3 - "$1.csv" <<'PY' | tee -a "$1.log"
import csv, statistics, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r['rc'] == '0']
med = lambda name, out: statistics.median(float(r['wall_ms']) for r in rows if r['input'] == name and r['output'] == out)
for out in ('cigar', 'score-only'):
    try:
        d = (med('a6', out) - med('a2', out)) / 1000
        print(f"steady state ({out}): 4 x 2.62e10 cells / {d:.3f} s = {4 * 2.62144e10 / d / 1e9:.0f} GCUPS")
    except statistics.StatisticsError:
        pass
PY
    if need_data dna/pacbio_ecoli/reads.fa; then
        local p=$data/dna/pacbio_ecoli m b
        for m in sw nw; do
            for b in gpu cpu; do
                [ $b = gpu ] && [ "$backend" = cpu ] && continue
                t0=$(date +%s%N)
                "$g" $m "$p/reads.fa" "$p/ref_windows.fa" --backend $b --progress never -o "$work/pb_$b.tsv" 2>> "$1.log"
                rc=$?; ms=$(ms_since "$t0")
                echo "pacbio,$m,$b,cigar,1,$rc,$ms,$(md5sum < "$work/pb_$b.tsv" | cut -c1-12)" | tee -a "$1.csv"
            done
            [ "$backend" = gpu ] && { cmp -s "$work/pb_gpu.tsv" "$work/pb_cpu.tsv" && echo "pacbio $m: GPU and CPU outputs identical" ||
                                        echo "pacbio $m: GPU and CPU outputs DIFFER"; } | tee -a "$1.log"
        done
    fi
}

describe_cpu() { echo "cpu_bench --repeat 3 \$CPU_ARGS  (dna/pacbio_ecoli, protein/mmseqs2_example_db.fa, dna/miseq_16S; parasail 2.6 beside it)"; }
run_cpu() {
    need_bin cpu_bench && need_data dna/pacbio_ecoli protein/mmseqs2_example_db.fa dna/miseq_16S || return 0
    "$(bin cpu_bench)" --repeat 3 ${CPU_ARGS:-} 2>&1 | tee "$1.log"
    grep -v '^#' "$1.log" | awk 'NF >= 10 { $1 = $1; gsub(/ /, ","); print }' > "$1.csv"
}

describe_reader() { echo "reader_bench FILE 1 2 4 <nproc>  (FILE: \$READER_FILE, default the generated query file of 100,000 pairs of 512)"; }
run_reader() {
    need_bin reader_bench || return 0
    local file=${READER_FILE:-}
    if [ -z "$file" ]; then gen_pairs || { echo "  skipped: scripts/gen_pairs.py failed"; return 0; }; file=$work/a_q.fa; fi
    [ -e "$file" ] || { echo "  skipped: no $file"; return 0; }
    "$(bin reader_bench)" "$file" $(printf '%s\n' 1 2 4 "$(nproc)" | sort -nu) 2>&1 | tee "$1.log"
    { echo "reader,threads,letters,seconds,mb_per_s"
      awk '/letters/ { t = ($1 == "bare") ? 1 : $2; r = ($1 == "bare") ? "seqan3" : "parallel_reader";
                       print r "," t "," $(NF-11) "," $(NF-9) "," $(NF-7) "," $(NF-3) }' "$1.log"; } > "$1.csv"
}

describe_writer() { echo "writer_bench Q R 1000000 1 <nproc/2> <nproc>  (the generated pairs of 512; 20,000 aligned on the CPU, repeated)"; }
run_writer() {
    need_bin writer_bench || return 0
    gen_pairs || { echo "  skipped: scripts/gen_pairs.py failed"; return 0; }
    "$(bin writer_bench)" "$work/a_q.fa" "$work/a_r.fa" 1000000 $(printf '%s\n' 1 $(( $(nproc) / 2 )) "$(nproc)" | sort -nu | grep -v '^0$') 2>&1 | tee "$1.log"
    { echo "format,threads,pairs,mb,seconds,mb_per_s,ns_per_pair"
      awk -F'\t' 'NF == 7 && $2 ~ /^[0-9]+$/ { print $1 "," $2 "," $3 "," $4 "," $5 "," $6 "," $7 }' "$1.log"; } > "$1.csv"
}

describe_startup() { echo "cuda_startup_probe under CUDA_DEVICE_MAX_CONNECTIONS in \$STARTUP_QUEUES (1 4 8), RUNS (3) runs each, process wall"; }
run_startup() {
    need_gpus 1 && need_bin cuda_startup_probe || return 0
    local p q k t0 ms
    p=$(bin cuda_startup_probe)
    echo "queues,run,driver_ms,context_ms,total_before_exit_ms,process_wall_ms" > "$1.csv"
    : > "$1.log"
    for q in ${STARTUP_QUEUES:-1 4 8}; do
        for k in $(seq 1 "${RUNS:-3}"); do
            t0=$(date +%s%N)
            CUDA_DEVICE_MAX_CONNECTIONS=$q "$p" > "$work/p"
            ms=$(ms_since "$t0")
            cat "$work/p" >> "$1.log"
            echo "$q,$k,$(awk '/^cudaGetDeviceCount/ {print $2}' "$work/p"),$(awk '/^cudaSetDevice/ {print $2}' "$work/p"),$(awk '/^total before exit/ {print $4}' "$work/p"),$ms" | tee -a "$1.csv"
        done
    done
}

describe_copy() { echo "cuda_copy_probe  (64 MiB pinned H2D, D2H and kernel writes to mapped memory, median of 5)"; }
run_copy() {
    need_gpus 1 && need_bin cuda_copy_probe || return 0
    "$(bin cuda_copy_probe)" 2>&1 | tee "$1.log"
    { echo "what,gb_per_s"; sed -nE 's/^(.*[^ ]) +([0-9.]+) GB\/s.*/"\1",\2/p' "$1.log"; } > "$1.csv"
}

describe_multi() {
    echo "gpualign CMD ... --backend gpu --progress never -v, --device 0 and then --devices 0,1, RUNS (2) runs each, outputs compared:"
    echo "  s1     search protein/benchmark_queries_20.fa x 1,000,000 random proteins of 512 aa -k 10"
    echo "  bulk   nw on 2,000 pairs of 5-50 kb at 10% (gpualign_long_bench --workloads bulk2000 --dump-fasta)"
    echo "  bulk1  the same with --batch-bases 4000000000 (one input batch)"
    echo "  e2e    sw on 1,000,000 DNA pairs of 512 at 10% (scripts/gen_pairs.py 1000000 512 0.1 42)"
}
run_multi() {
    need_gpus 2 && need_bin gpualign gpualign_long_bench && need_data protein/benchmark_queries_20.fa || return 0
    local g w name args dev k t0 ms rc
    g=$(bin gpualign)
    pseudo_db 1000000 && "$(bin gpualign_long_bench)" --workloads bulk2000 --dump-fasta "$work" > /dev/null &&
        python3 scripts/gen_pairs.py 1000000 512 0.1 42 "$work/e2e_q.fa" "$work/e2e_r.fa" || { echo "  skipped: generating the inputs failed"; return 0; }
    cat "$work"/*.fa > /dev/null
    echo "workload,devices,run,rc,wall_ms,md5" > "$1.csv"
    : > "$1.log"
    for w in "s1|search $data/protein/benchmark_queries_20.fa $work/pseudo_db.fa -k 10" \
             "bulk|nw $work/bulk2000_q.fa $work/bulk2000_r.fa" \
             "bulk1|nw $work/bulk2000_q.fa $work/bulk2000_r.fa --batch-bases 4000000000" \
             "e2e|sw $work/e2e_q.fa $work/e2e_r.fa"; do
        name=${w%%|*}; args=${w#*|}
        for dev in "--device 0" "--devices 0,1"; do
            for k in $(seq 1 "${RUNS:-2}"); do
                t0=$(date +%s%N)
                # shellcheck disable=SC2086
                "$g" $args --backend gpu --progress never -v $dev -o "$work/$name.${dev##* }.out" 2> "$work/err"
                rc=$?; ms=$(ms_since "$t0")
                { echo "== $name $dev run $k"; cat "$work/err"; } >> "$1.log"
                echo "$name,${dev##* },$k,$rc,$ms,$(md5sum < "$work/$name.${dev##* }.out" | cut -c1-12)" | tee -a "$1.csv"
            done
        done
        cmp -s "$work/$name.0.out" "$work/$name.0,1.out" && echo "$name: 1 and 2 GPUs identical" | tee -a "$1.log"
    done
}

# --- main -------------------------------------------------------------------------
all="batch long search cli cpu reader writer startup copy multi"
[ $# -gt 0 ] || { usage; exit 2; }
case $1 in
    -h|--help) usage; exit 0 ;;
    --list)
        echo "binaries: ${bin_dir:-build/}   data: $data   results: $results/<workload>/$(date -u +%F)_$(device_slug)_$(commit_slug).csv"
        for w in $all; do echo "$w:"; "describe_$w" | sed 's/^/  /'; done
        exit 0 ;;
esac
for w in "$@"; do
    [[ " $all " == *" $w "* ]] || { echo "unknown workload '$w' (bench/run.sh --list)"; exit 2; }
done
rc=0
for w in "$@"; do
    mkdir -p "$results/$w"
    s=$(stem "$w")
    echo "=== $w -> $s.csv"
    start=$(date +%s)
    "run_$w" "$s" || rc=1
    [ -s "$s.csv" ] || rm -f "$s.csv"
    [ -s "$s.log" ] || rm -f "$s.log"
    rmdir "$results/$w" 2> /dev/null
    echo "=== $w done ($(( $(date +%s) - start )) s)"
done
exit $rc

#!/usr/bin/env bash
# One device call (issue 14): the whole GPU test suite, then the CLI on the
# GPU against the CPU backend with cmp for every pair mode (sw, nw, sg) and
# format, with --strand both on reverse-complemented reads, search --mode
# semi-global, and the batch engine's GCUPS for the three modes
# (gpualign_bench, workload b: the 10,000 PacBio pairs).
# Expects .carry/{gpualign,gpualign_gpu_tests,gpualign_bench,lib/,data/}
# (bash bench/prepare_carry.sh dna/pacbio_ecoli dna/long).
# Usage on the device machine, from the repo root: bench/device_modes_verify.sh OUT_DIR [tests|cli|bench]...
set -uo pipefail
out=${1:?OUT dir}; shift
steps=${*:-tests cli bench}
export LD_LIBRARY_PATH=$PWD/.carry/lib GPUALIGN_SHARED_DATA=$PWD/.carry/data GPUALIGN_BINARY=$PWD/.carry/gpualign
B=.carry/gpualign
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$out/device.txt"
compare() {  # label, then the gpualign arguments without --backend and -o; $ext = output extension; cmp of all but @PG
  local label=$1; shift
  $B "$@" --backend cpu -o "$d/cpu.$ext" 2> "$d/cpu.err"; local rc_cpu=$?
  $B "$@" --backend gpu -o "$d/gpu.$ext" 2> "$d/gpu.err"; local rc_gpu=$?
  # SAM's @PG CL: holds the command line, which differs in --backend.
  if [ $rc_cpu -eq 0 ] && [ $rc_gpu -eq 0 ] && cmp -s <(grep -v '^@PG' "$d/cpu.$ext") <(grep -v '^@PG' "$d/gpu.$ext"); then
    echo "$label: identical ($(grep -vc '^@' "$d/gpu.$ext") lines)"
  else
    echo "$label: DIFFER (rc cpu $rc_cpu gpu $rc_gpu)"; tail -2 "$d/gpu.err"
  fi
}
for step in $steps; do
  case $step in
    tests)  # the whole GPU suite, as the long-pair script runs it
      bash bench/device_long_verify.sh "$out" tests | tail -n +2 ;;
    cli)
      d=$(mktemp -d)
      p=.carry/data/dna/pacbio_ecoli
      # The reads reverse-complemented (one line per record), for --strand both.
      awk 'BEGIN {split("A C G T a c g t N n", f, " "); split("T G C A t g c a N n", t, " "); for (k in f) c[f[k]] = t[k]}
           function flush() {if (h != "") {n = length(s); r = ""; for (i = n; i >= 1; i--) {x = substr(s, i, 1); r = r ((x in c) ? c[x] : "N")}; print h "_rc"; print r}}
           /^>/ {flush(); h = $1; s = ""; next} {s = s $0} END {flush()}' $p/reads.fa > "$d/reads_rc.fa"
      for cmd in sw nw sg; do
        for ext in tsv sam paf m8; do
          compare "pacbio_ecoli 10,000 pairs $cmd .$ext" $cmd $p/reads.fa $p/ref_windows.fa
        done
        ext=tsv compare "pacbio_ecoli $cmd --score-only" $cmd $p/reads.fa $p/ref_windows.fa --score-only
        ext=sam compare "pacbio_ecoli reverse-complemented $cmd --strand both .sam" $cmd "$d/reads_rc.fa" $p/ref_windows.fa --strand both
      done
      ext=tsv compare "sg --strand both TSV" sg "$d/reads_rc.fa" $p/ref_windows.fa --strand both
      echo "minus-strand rows of that run: $(awk -F'\t' 'NR > 1 && $NF == "-"' "$d/gpu.tsv" | wc -l)"
      pr=.carry/data/protein
      for mode in local global semi-global; do
        ext=tsv compare "search --mode $mode (mmseqs2 example, TSV)" search $pr/mmseqs2_example_query.fa $pr/mmseqs2_example_db.fa --mode $mode
      done
      head -60 "$d/reads_rc.fa" > "$d/reads_rc30.fa"  # 30 reads x 10,000 windows
      ext=tsv compare "search --mode semi-global --strand both (30 reads vs 10,000 windows)" search "$d/reads_rc30.fa" $p/ref_windows.fa --mode semi-global --strand both -k 3
      rm -rf "$d" ;;
    bench)
      timeout 300 .carry/gpualign_bench --workloads b --global --semi-global --runs 3 --csv "$out/modes_bench.csv" 2>&1 | tail -12 ;;
  esac
done

#!/usr/bin/env bash
# The README's plots, from bench/results/ (bench/README.md), with gnuplot
# (Debian gnuplot-nox); SVG into docs/plots/:
#  - long_gcups.svg: the long-pair engine (bench/results/long/*_h100_*.csv,
#    the newest): GCUPS of the forward pass and of the whole CIGAR run
#    against the pair's length (sqrt of its cells), global and local, with
#    WFA2-lib BiWFA (one CPU core, same run, global) where it finished;
#  - search_gcups.svg: the search scan (bench/results/search/*_h100_*.csv,
#    the newest), scan-kernel and whole-process GCUPS per workload (the best
#    run of each), with CUDASW++ 4.0's figures from the issue.
# The figures' source files are named in each plot's title.
# Usage: bash bench/plot.sh [LONG_CSV [SEARCH_CSV]]
set -euo pipefail
cd "$(dirname "$0")/.."
newest() { ls "bench/results/$1/"*_h100_*.csv 2> /dev/null | sort | tail -1; }
long=${1:-$(newest long)}
search=${2:-$(newest search)}
[ -n "$long" ] && [ -n "$search" ] || { echo "plot.sh: no long or search CSV of an H100 in bench/results/"; exit 1; }
command -v gnuplot > /dev/null || { echo "plot.sh: gnuplot missing (apt-get install gnuplot-nox)"; exit 1; }
mkdir -p docs/plots
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# label of a result file: its date and commit (bench/results/<workload>/<date>_<device>_<commit>.csv)
label() { basename "$1" .csv | awk -F_ '{print $3 ", " $1}'; }

# long: one file per mode and output; columns sqrt(cells), forward GCUPS,
# wall GCUPS, WFA2 GCUPS (cells / peer time, NaN where it did not finish), workload
python3 - "$long" "$tmp" <<'PY'
import csv, math, sys
out = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r['gpu_status'] != 'ok' or r['pairs'] != '1':
        continue
    cells = float(r['cells'])
    peer = 'NaN'
    if r['peer_status'] == 'ok' and r['peer_time_s']:
        peer = '%.3f' % (cells / float(r['peer_time_s']) / 1e9)
    out.setdefault((r['mode'], r['output']), []).append(
        (math.sqrt(cells), r['forward_gcups'], r['wall_gcups'], peer, r['workload']))
for (mode, output), pts in out.items():
    with open('%s/%s_%s.dat' % (sys.argv[2], mode, output), 'w') as f:
        for p in sorted(pts):
            f.write('%.0f %s %s %s %s\n' % p)
PY
gnuplot <<GP
set terminal svg size 820,520 font "sans,12"
set output "docs/plots/long_gcups.svg"
set title "Long pairs on one H100 ($(label "$long")): gpualign long-pair engine vs WFA2 BiWFA (1 CPU core)"
set logscale xy
set xlabel "pair length, sqrt(query x ref) (bases)"
set ylabel "GCUPS"
set key left top
set grid
plot "$tmp/global_score-only.dat" using 1:2 with linespoints title "gpualign global, forward pass", \
     "$tmp/global_cigar.dat" using 1:3 with linespoints title "gpualign global with CIGAR, wall", \
     "$tmp/local_cigar.dat" using 1:3 with linespoints title "gpualign local with CIGAR, wall", \
     "$tmp/global_cigar.dat" using 1:4 with points pt 7 title "WFA2 BiWFA global with CIGAR (where it finished)"
GP

# search: the best run of each workload; columns workload, kernel GCUPS, wall GCUPS, peer GCUPS
python3 - "$search" "$tmp/search.csv" <<'PY'
import csv, sys
best = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r['rc'] != '0':
        continue
    k = r['workload']
    if k not in best or float(r['kernel_gcups']) > float(best[k]['kernel_gcups']):
        best[k] = r
with open(sys.argv[2], 'w') as f:
    for k, r in best.items():
        f.write('%s,%s,%s,%s\n' % (k, r['kernel_gcups'], r['wall_gcups'], r.get('peer_gcups') or 'NaN'))
PY
gnuplot <<GP
set terminal svg size 820,460 font "sans,12"
set output "docs/plots/search_gcups.svg"
set title "Search scan on one H100 (gpualign $(label "$search")) and CUDASW++ 4.0 (issue figures)"
set datafile separator ","
set datafile missing "NaN"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel "GCUPS"
set yrange [0:8000]
set key right top
set grid ytics
plot "$tmp/search.csv" using 2:xtic(1) title "gpualign scan kernels", \
     "" using 3 title "gpualign whole process (with alignments)", \
     "" using 4 title "CUDASW++ 4.0 (issue)"
GP
ls -la docs/plots

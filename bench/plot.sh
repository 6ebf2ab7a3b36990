#!/usr/bin/env bash
# Plots of the benchmark figures (issue 14), from the CSV files in
# bench/results/, with gnuplot (Debian gnuplot-nox); SVG into docs/plots/.
#  - long_gcups.svg: the long-pair engine on an H100 (session 8 run): GCUPS
#    of the forward pass and of the whole CIGAR run against the pair's
#    length (sqrt of its cells), global and local, with WFA2 BiWFA (one CPU
#    core, same run, global) beside it where it finished;
#  - search_gcups.svg: the search scan on an H100 (session 9), scan-kernel
#    and whole-process GCUPS per workload, with CUDASW++ 4.0's figures from
#    the issue.
# Usage: bash bench/plot.sh
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p docs/plots
long=bench/results/long_h100_2026-11-23_s8.csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# columns: mode, output, sqrt(cells), forward_gcups, wall_gcups, peer GCUPS (cells / peer_time_s)
python3 - "$long" "$tmp" <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
out = {}
for r in rows:
    if r['gpu_status'] != 'ok': continue
    key = (r['mode'], r['output'])
    cells = float(r['cells'])
    peer = ''
    if r['peer_status'] == 'ok' and r['peer_time_s']:
        peer = '%.3f' % (cells / float(r['peer_time_s']) / 1e9)
    out.setdefault(key, []).append((math.sqrt(cells), r['forward_gcups'], r['wall_gcups'], peer, r['workload']))
for (mode, output), pts in out.items():
    with open('%s/%s_%s.dat' % (sys.argv[2], mode, output), 'w') as f:
        for p in sorted(pts):
            f.write('%.0f %s %s %s %s\n' % (p[0], p[1], p[2], p[3] if p[3] else 'NaN', p[4]))
PY
gnuplot <<GP
set terminal svg size 820,520 font "sans,12"
set output "docs/plots/long_gcups.svg"
set title "Long pairs on one H100: gpualign long-pair engine vs WFA2 BiWFA (1 CPU core)"
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
gnuplot <<GP
set terminal svg size 820,460 font "sans,12"
set output "docs/plots/search_gcups.svg"
set title "Search scan on one H100 (gpualign session 9) and CUDASW++ 4.0 (issue figures)"
set datafile separator ","
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel "GCUPS"
set yrange [0:7000]
set key right top
set xtics rotate by -15
set grid ytics
plot "bench/results/search_h100_2026-11-24_s9.csv" every ::1 using 8:xtic(1) title "gpualign scan kernels", \
     "" every ::1 using 9 title "gpualign whole process (with alignments)", \
     "" every ::1 using 11 title "CUDASW++ 4.0 (issue)"
GP
ls -la docs/plots

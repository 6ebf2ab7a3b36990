#!/usr/bin/env bash
# bench/carry.sh — the device copy step (bench/README.md, "Running on a GPU
# machine"). The GPU machine gets the working tree but neither build/ nor
# ../shared/data, so this fills the git-ignored .carry/ with what
# bench/run.sh and the GPU tests need there:
#   .carry/<binary>   the binaries of build/ (flat): gpualign, gpualign_gpu_tests,
#                     gpualign_bench, gpualign_long_bench, cuda_startup_probe,
#                     cuda_copy_probe, reader_bench, writer_bench, cpu_bench (those built)
#   .carry/lib/       the shared libraries they link that the device machine
#                     lacks (zlib, bzip2, libgomp, Highway)
#   .carry/data/      the data sets named (default: dna/long dna/pacbio_ecoli
#                     dna/miseq_16S, the protein queries, DBs and families)
# With --xz the binaries go into .carry/bins.tar.xz (to fit the carry limit);
# `bench/carry.sh --unpack` on the device machine extracts them.
# On the device machine, run.sh finds .carry/ by itself when build/ is absent.
# Usage: bench/carry.sh [--xz] [DATA_SUBFOLDER...]   |   bench/carry.sh --unpack
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --unpack ]; then
    tar -C .carry -xJf .carry/bins.tar.xz && rm .carry/bins.tar.xz && ls -la .carry
    exit 0
fi
xz=
if [ "${1:-}" = --xz ]; then xz=1; shift; fi
data=${GPUALIGN_DATA:-../shared/data}
rm -rf .carry && mkdir -p .carry/lib .carry/data
bins=()
for b in app/gpualign tests/gpualign_gpu_tests bench/gpualign_bench bench/gpualign_long_bench \
         bench/cuda_startup_probe bench/cuda_copy_probe bench/reader_bench bench/writer_bench bench/cpu_bench; do
    if [ -x "build/$b" ]; then cp "build/$b" .carry/; bins+=("$(basename "$b")"); fi
done
if [ -n "$xz" ] && [ ${#bins[@]} -gt 0 ]; then
    tar -C .carry -cJf .carry/bins.tar.xz "${bins[@]}" && (cd .carry && rm -f "${bins[@]}")
fi
# (no early exit in awk: under pipefail, ldconfig's SIGPIPE would end the script)
libs=$(ldconfig -p)
for lib in libz.so.1 libbz2.so.1.0 libgomp.so.1 libhwy.so.1; do
    p=$(printf '%s\n' "$libs" | awk -v l="$lib" '$1 == l && !found {print $NF; found = 1}')
    if [ -n "$p" ]; then cp -L "$p" .carry/lib/; fi
done
sets=${*:-dna/long dna/pacbio_ecoli dna/miseq_16S}
for s in $sets; do mkdir -p ".carry/data/$(dirname "$s")"; cp -r "$data/$s" ".carry/data/$(dirname "$s")/"; done
mkdir -p .carry/data/protein
cp "$data"/protein/orthologs_*.fa "$data"/protein/mmseqs2_example_*.fa "$data"/protein/benchmark_queries_20.fa \
    .carry/data/protein/ 2> /dev/null || true
cp -r "$data/protein/families" .carry/data/protein/
du -sh .carry

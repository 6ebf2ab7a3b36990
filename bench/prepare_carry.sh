#!/usr/bin/env bash
# Fills .carry/ (git-ignored) with what a device call needs: the binaries of
# build/, the shared libraries they link that the device machine lacks
# (zlib, bzip2, libgomp, Highway), and the shared data sets the GPU tests and benches
# read (../shared/data is not sent with the working tree).
# Usage: bash bench/prepare_carry.sh [data subfolders...] (default: dna/long dna/pacbio_ecoli dna/miseq_16S protein/orthologs*)
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .carry && mkdir -p .carry/lib .carry/data
for b in app/gpualign tests/gpualign_gpu_tests bench/gpualign_bench bench/gpualign_long_bench; do
  if [ -x "build/$b" ]; then cp "build/$b" .carry/; fi
done
# (no early exit in awk: under pipefail, ldconfig's SIGPIPE would end the script)
libs=$(ldconfig -p)
for lib in libz.so.1 libbz2.so.1.0 libgomp.so.1 libhwy.so.1; do
  p=$(printf '%s\n' "$libs" | awk -v l="$lib" '$1 == l && !found {print $NF; found = 1}')
  if [ -n "$p" ]; then cp -L "$p" .carry/lib/; fi
done
sets=${*:-dna/long dna/pacbio_ecoli dna/miseq_16S}
for s in $sets; do mkdir -p ".carry/data/$(dirname "$s")"; cp -r "../shared/data/$s" ".carry/data/$(dirname "$s")/"; done
mkdir -p .carry/data/protein && cp ../shared/data/protein/orthologs_*.fa ../shared/data/protein/mmseqs2_example_*.fa ../shared/data/protein/benchmark_queries_20.fa .carry/data/protein/ 2>/dev/null || true
cp -r ../shared/data/protein/families .carry/data/protein/
du -sh .carry

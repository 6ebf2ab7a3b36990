#!/usr/bin/env bash
# README command 1: install, build, and align the bundled example.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh
build/app/gpualign sw data/reads.fa data/ref_windows.fa -o out.tsv
head -3 out.tsv

#!/usr/bin/env bash
# Installs the build and test dependencies from Debian 12's apt.
# (libsdsl-dev is deliberately not installed: it breaks SeqAn3 3.2's build.)
# snakemake (7.21) and seqkit (2.3.1) run the workflow (workflow/,
# docs/workflow.md) and its test; snakemake pulls in python3-azure through
# python3-smart-open: ~30 MB to download, ~700 MB installed, ~2 min.
# slurm-wlm, slurmdbd, munge and mariadb-server (SLURM 22.05 with accounting)
# make the one-node cluster of tests/workflow/run_slurm_test.sh. The test
# does not use their system services (where systemd runs, apt starts
# mariadb and munge as usual): it starts daemons of its own under a
# temporary folder, on free ports and its own munge socket.
# ncbi-blast+ (2.12) is the reference of tests/cli/blast_stats_cli_test.cpp
# (E-values and bit scores against blastp and blastn).
# pybind11-dev, python3-dev, python3-numpy, python3-pytest and python3-pandas
# build and test the Python module (python/, docs/python.md).
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  cmake ninja-build g++ make libseqan3-dev libcxxopts-dev libspdlog-dev libfmt-dev \
  googletest libgtest-dev zlib1g-dev libbz2-dev liblzma-dev libzstd-dev bzip2 xz-utils zstd samtools ca-certificates libwfa2-dev help2man libhwy-dev libparasail-dev \
  pybind11-dev python3-dev python3-numpy python3-pytest python3-pandas \
  snakemake seqkit slurm-wlm slurmdbd munge mariadb-server ncbi-blast+ >/dev/null

#!/usr/bin/env bash
# Installs the build and test dependencies from Debian 12's apt.
# (libsdsl-dev is deliberately not installed: it breaks SeqAn3 3.2's build.)
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  cmake ninja-build g++ make libseqan3-dev libcxxopts-dev libspdlog-dev libfmt-dev \
  googletest libgtest-dev zlib1g-dev samtools ca-certificates libwfa2-dev help2man libhwy-dev libparasail-dev >/dev/null

#!/usr/bin/env bash
# Installs every Debian 12 package DL2 Console needs to build, test and run.
# Idempotent and non-interactive; run as root (or through sudo).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  qt6-base-dev qt6-base-dev-tools libqt6sql6-sqlite libgl-dev
  libqcustomplot-dev
  libtorch-dev
  libopenblas0-openmp   # libtorch's matrix products go through libblas.so.3: without it that is
                        # the reference BLAS, 2-3 x slower training (README "Performance")
  libprotobuf-dev protobuf-compiler
  libgrpc++-dev protobuf-compiler-grpc
  xvfb xauth
  openssl           # test certificates for the agent's TLS fault test
  libsqlite3-dev    # the audit log's fault-injection VFS (Qt's SQLite driver uses the same library)
  clang libclang-rt-14-dev   # libFuzzer targets (preset fuzz)
  help2man          # man pages of dl2, dl2-train, dl2-console, dl2-agent, made from their --help
  bash-completion   # where the .deb installs the completion of dl2 (pkg-config completionsdir)
  libavcodec-dev libavformat-dev libswscale-dev   # replay export as WebM/MP4/GIF/APNG
  libarchive-dev    # trace-import reads the public traces as published (.gz, .tar.gz, .zip)
  libgloo-dev       # dl2 train across processes and hosts: the Gloo headers torch's c10d includes
  libyaml-cpp-dev   # the Kubernetes connector reads kubeconfig files
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"

#!/usr/bin/env bash
# Quick start command 2 (and CI): install the Debian packages, build everything in Release,
# run the whole CTest suite (core, learning, gui, connectors).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
bash packaging/install-deps.sh
cmake --preset release
cmake --build --preset release
ctest --preset release "$@"

#!/usr/bin/env bash
# Quick start command 1: install the Debian packages, build in Release and start the main job.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
bash packaging/install-deps.sh
cmake --preset release
cmake --build --preset release
exec build/release/app/cli/dl2 compare --scenario dl2-reference "$@"

#!/usr/bin/env bash
# Quick start command 1: install the Debian packages, build in Release and start the console
# on its embedded simulated cluster (dl2-reference, seed 1, the shipped DL2 policy).
# Without a display (a bare server), it renders the console to console.png instead and prints
# the policy comparison table, so the command still shows what the product does.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
bash packaging/install-deps.sh
cmake --preset release
cmake --build --preset release
bin=build/release/app
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  exec "$bin/console/dl2-console" "$@"
fi
echo "No display found: rendering the console at slot 30 to $here/console.png (offscreen)."
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
QT_QPA_PLATFORM=offscreen QT_LOGGING_RULES="qt.qpa.*=false" "$bin/console/dl2-console" --slot 30 --screenshot "$here/console.png" --size 1600x1000
exec "$bin/cli/dl2" compare --scenario dl2-reference

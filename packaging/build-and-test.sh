#!/usr/bin/env bash
# Quick start command 2 (and CI): install the Debian packages, then
#  1. build everything in Release and run the whole CTest suite (core, learning, gui,
#     connectors, and the fuzz targets replaying their seeds and kept crash inputs);
#  2. build the suite with AddressSanitizer + UBSan (preset asan: -O2 -g1, the same code as
#     -O2 -g with line tables only, ~20 % less compile time, reports keep function and
#     file:line; the bench_* benchmarks, which CTest never runs, are left out) and run it;
#  3. build the libFuzzer targets (preset fuzz, clang) and fuzz each for DL2_FUZZ_SECONDS
#     (default 20) seconds (CTest label fuzz): a bounded smoke run on every change; longer
#     campaigns: `ctest --preset fuzz` with -DDL2_FUZZ_SECONDS=N (README "Fuzzing").
# Arguments go to the Release ctest. DL2_SKIP_SANITIZERS=1 stops after step 1 (a quick local
# check; CI runs all three).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
stage() { printf '\n== %s (%s)\n' "$1" "$(date -u +%H:%M:%S)"; }
start=$(date +%s)
bash packaging/install-deps.sh

stage "Release build and test suite"
cmake --preset release
cmake --build --preset release
ctest --preset release "$@"
if [ "${DL2_SKIP_SANITIZERS:-0}" = 1 ]; then
  exit 0
fi

stage "the test suite under AddressSanitizer + UndefinedBehaviorSanitizer"
cmake --preset asan
cmake --build --preset asan
# Leak detection off: libtorch keeps its allocations until exit.
ASAN_OPTIONS=detect_leaks=0 QT_QPA_PLATFORM=offscreen ctest --preset asan

stage "fuzzing (libFuzzer, ${DL2_FUZZ_SECONDS:-20} s per target)"
cmake --preset fuzz -DDL2_FUZZ_SECONDS="${DL2_FUZZ_SECONDS:-20}"
cmake --build --preset fuzz
ctest --preset fuzz

stage "all green in $(( ($(date +%s) - start) / 60 )) min $(( ($(date +%s) - start) % 60 )) s"

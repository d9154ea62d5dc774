#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang into build-fuzz/ (or
# $FUZZ_BUILD_DIR) and runs each for a bounded time through CTest (label
# fuzz). FUZZ_SECONDS sets the time per target (20 by default).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${FUZZ_BUILD_DIR:-build-fuzz}
CXX=${FUZZ_CXX:-clang++} cmake -S tests/fuzz -B "$BUILD_DIR" \
  -DFUZZ_SECONDS="${FUZZ_SECONDS:-20}" >/dev/null
cmake --build "$BUILD_DIR" -j "${JOBS:-$(nproc)}"
cd "$BUILD_DIR"
ctest -L fuzz --output-on-failure

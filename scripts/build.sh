#!/usr/bin/env bash
# Installs the dependencies (idempotent) and builds into build/ (or
# $BUILD_DIR):
#
#   scripts/build.sh            actorcrawl and every test
#   scripts/build.sh --binary   the actorcrawl binary alone (what scripts/run.sh
#                               needs: a first crawl without compiling the tests)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" ${CMAKE_ARGS:-} >/dev/null
if [ "${1:-}" = "--binary" ]; then
  cmake --build "$BUILD_DIR" -j "$JOBS" --target actorcrawl
else
  cmake --build "$BUILD_DIR" -j "$JOBS"
fi

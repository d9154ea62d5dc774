#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test through CTest:
# the fuzz targets for a bounded time (label fuzz, built apart with clang),
# then unit tests of core/, the message catalogue, and the integration tests
# (in-process test webs on 127.0.0.x, the actorcrawl binary itself). The
# main suite runs last, so its summary is the closing line.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --test
bash scripts/build.sh
bash scripts/fuzz.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j "${JOBS:-$(nproc)}" --timeout 300 "$@"

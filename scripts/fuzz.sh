#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (robots.txt, URLs, sitemaps, the crawl
# service's request parsing, the two HTML parsers compared, plugin answers, extraction rules, packed links) with clang into build-fuzz/ (or $FUZZ_BUILD_DIR)
# and runs each for a bounded time through CTest (label fuzz). FUZZ_SECONDS sets the time per target (20 by default); FUZZ_SEED the
# libFuzzer seed (1 by default, so runs repeat; 0 for a random one).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${FUZZ_BUILD_DIR:-build-fuzz}
CXX=${FUZZ_CXX:-clang++} cmake -S tests/fuzz -B "$BUILD_DIR" \
  -DFUZZ_SECONDS="${FUZZ_SECONDS:-20}" -DFUZZ_SEED="${FUZZ_SEED:-1}" >/dev/null
cmake --build "$BUILD_DIR" -j "${JOBS:-$(nproc)}"
cd "$BUILD_DIR"
ctest -L fuzz --output-on-failure

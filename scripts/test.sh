#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test through CTest:
# unit tests of core/, the message catalogue, and the integration tests
# (in-process test webs on 127.0.0.x, the actorcrawl binary itself).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j "${JOBS:-$(nproc)}" --timeout 300 "$@"
# The fuzz targets (label fuzz), built apart with clang; $OLDPWD is the
# repository root, where the cd above started.
(cd "$OLDPWD" && bash scripts/fuzz.sh)

#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test:
#   1. the fuzz targets for a bounded time (built apart with clang);
#   2. the amd64 Debian package: made and lintian-checked
#      (scripts/package.sh), installed on this machine, used (the demo
#      crawl, a plugin, the manual, completion, the service unit's command)
#      and purged (tests/packaging/installed_package_test.sh);
#   3. arm64: the unit tests and a demo crawl under qemu
#      (scripts/test-arm64.sh), and the arm64 package (ARM64=0 skips both);
#   4. through CTest, the unit tests of core/, the message catalogue and
#      the integration tests (in-process test webs on 127.0.0.x, the
#      actorcrawl binary itself). The main suite runs last, so its summary
#      is the closing line.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --test
bash scripts/build.sh
bash scripts/fuzz.sh
bash scripts/package.sh amd64
bash tests/packaging/installed_package_test.sh "dist/actorcrawl_$("${BUILD_DIR:-build}"/actorcrawl --version | cut -d' ' -f2)_amd64.deb"
if [ "${ARM64:-1}" != 0 ]; then
  bash scripts/test-arm64.sh
  bash scripts/package.sh arm64
fi
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j "${JOBS:-$(nproc)}" --timeout 300 "$@"

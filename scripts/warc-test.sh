#!/usr/bin/env bash
# Runs the WARC tests that need an outside reader (tests/integration/
# warc_test.cc, tagged [warc]): crawls with the warc processor whose files
# warcio.js reads back with every digest checked (tests/warc/read_warc.mjs).
#
# Installs what is missing, idempotently: nodejs and npm through apt-get
# (with `sudo` when not run as root), warcio through `npm ci` from
# tests/warc/package-lock.json.
#
#   scripts/warc-test.sh [INTEGRATION_TESTS_BINARY]   (default build/tests/integration_tests)
#
# Exit codes: 0 passed, 1 failed, 77 skipped (Node.js or warcio cannot be
# installed).
set -euo pipefail
cd "$(dirname "$0")/.."

APT_TIMEOUT=${APT_TIMEOUT:-900}
NPM_TIMEOUT=${NPM_TIMEOUT:-300}
TESTS=${1:-build/tests/integration_tests}

skip() {
  echo "skipped: $*" >&2
  exit 77
}

packages=()
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)
if [ ${#packages[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else skip "not root and no sudo to install ${packages[*]}"; fi
  fi
  echo "installing: ${packages[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  timeout "$APT_TIMEOUT" $SUDO apt-get update -qq &&
    timeout "$APT_TIMEOUT" $SUDO apt-get install -y -qq --no-install-recommends "${packages[@]}" >&2 ||
    echo "warning: apt-get failed; going on with what is installed" >&2
fi
command -v node >/dev/null 2>&1 || skip "node is missing and cannot be installed"
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 18 ] || skip "node $(node --version) is too old (18 or newer needed)"

if [ ! -d tests/warc/node_modules/warcio ]; then
  command -v npm >/dev/null 2>&1 || skip "npm is missing and cannot be installed"
  echo "npm ci in tests/warc" >&2
  (cd tests/warc && timeout "$NPM_TIMEOUT" npm ci --no-audit --no-fund --loglevel=error >&2) ||
    skip "npm ci in tests/warc failed (is the npm registry reachable?)"
fi

if [ ! -x "$TESTS" ]; then
  echo "$TESTS does not exist: build first (scripts/build.sh)" >&2
  exit 1
fi
export ACTORCRAWL_WARC_READER="$PWD/tests/warc/read_warc.mjs"
exec "$TESTS" "[warc]"

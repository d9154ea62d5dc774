#!/usr/bin/env bash
# Runs the WARC tests that need an outside reader (tests/integration/
# warc_test.cc, tagged [warc]): crawls with the warc processor whose files
# warcio.js reads back with every digest checked (tests/warc/read_warc.mjs).
#
# Installs warcio through `npm ci` from tests/warc/package-lock.json when it
# is missing; Node.js (18 or newer) and npm come from
# `scripts/install-deps.sh --test`.
#
#   scripts/warc-test.sh [INTEGRATION_TESTS_BINARY]   (default build/tests/integration_tests)
#
# Exit codes: 0 passed, 1 failed, 77 skipped (no Node.js or npm, or npm ci
# cannot install warcio).
set -euo pipefail
cd "$(dirname "$0")/.."

NPM_TIMEOUT=${NPM_TIMEOUT:-300}
TESTS=${1:-build/tests/integration_tests}

skip() {
  echo "skipped: $*" >&2
  exit 77
}

# Node.js and npm come from scripts/install-deps.sh --test.
command -v node >/dev/null 2>&1 || skip "node is missing (scripts/install-deps.sh --test installs it)"
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 18 ] || skip "node $(node --version) is too old (18 or newer needed)"

if [ ! -d tests/warc/node_modules/warcio ]; then
  command -v npm >/dev/null 2>&1 || skip "npm is missing (scripts/install-deps.sh --test installs it)"
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

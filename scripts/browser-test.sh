#!/usr/bin/env bash
# Runs the dashboard's browser test (tests/browser/dashboard.test.mjs):
# `actorcrawl serve` with the demo web on loopback, a crawl started from the
# page in headless Chromium, the page's counters and graph checked against the
# API, a screenshot saved to $BROWSER_OUT/dashboard.png (build/browser).
#
# Installs what is missing, idempotently: chromium, nodejs, npm and a font
# through apt-get (with `sudo` when not run as root), playwright-core through
# `npm ci` from tests/browser/package-lock.json. Builds actorcrawl first when
# $ACTORCRAWL_BIN (build/actorcrawl) does not exist.
#
# Exit codes: 0 passed, 1 failed, 77 skipped (Chromium or Node.js cannot be
# installed, playwright-core cannot be fetched, or Chromium cannot start).
set -euo pipefail
cd "$(dirname "$0")/.."

APT_TIMEOUT=${APT_TIMEOUT:-900}
NPM_TIMEOUT=${NPM_TIMEOUT:-300}

skip() {
  echo "skipped: $*" >&2
  exit 77
}

packages=()
[ -x /usr/bin/chromium ] || packages+=(chromium)
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)
if ! dpkg-query -W -f='${Status}' fonts-liberation 2>/dev/null | grep -q "install ok installed"; then
  packages+=(fonts-liberation)
fi

if [ ${#packages[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else skip "not root and no sudo to install ${packages[*]}"; fi
  fi
  echo "installing: ${packages[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  if ! timeout "$APT_TIMEOUT" $SUDO apt-get update -qq ||
     ! timeout "$APT_TIMEOUT" $SUDO apt-get install -y -qq --no-install-recommends "${packages[@]}" >&2; then
    [ -x /usr/bin/chromium ] || skip "chromium cannot be installed"
    command -v node >/dev/null 2>&1 || skip "nodejs cannot be installed"
    command -v npm >/dev/null 2>&1 || skip "npm cannot be installed"
    echo "warning: apt-get failed; going on with what is installed" >&2
  fi
fi
[ -x /usr/bin/chromium ] || skip "/usr/bin/chromium is missing"
command -v node >/dev/null 2>&1 || skip "node is missing"

node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 18 ] || skip "node $(node --version) is too old (18 or newer needed)"

if [ ! -d tests/browser/node_modules/playwright-core ]; then
  command -v npm >/dev/null 2>&1 || skip "npm is missing"
  echo "npm ci in tests/browser" >&2
  (cd tests/browser && timeout "$NPM_TIMEOUT" npm ci --no-audit --no-fund --loglevel=error >&2) ||
    skip "npm ci in tests/browser failed (is the npm registry reachable?)"
fi

export ACTORCRAWL_BIN=${ACTORCRAWL_BIN:-$PWD/${BUILD_DIR:-build}/actorcrawl}
export BROWSER_OUT=${BROWSER_OUT:-$PWD/${BUILD_DIR:-build}/browser}
if [ ! -x "$ACTORCRAWL_BIN" ]; then
  bash scripts/build.sh
fi
mkdir -p "$BROWSER_OUT"

# The test bounds itself (60 s for the crawl, 180 s in all); this is a backstop.
exec timeout 300 node tests/browser/dashboard.test.mjs

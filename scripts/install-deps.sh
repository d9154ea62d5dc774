#!/usr/bin/env bash
# Installs every Debian 12 package actorcrawl needs to build, test and run.
# Idempotent: packages already present are left alone, and apt is only asked
# when something is missing.
#
#   scripts/install-deps.sh          what building and running need
#   scripts/install-deps.sh --libraries   prints the library packages alone
#   scripts/install-deps.sh --package  also what packaging needs: dpkg-dev
#                                    (dpkg-shlibdeps), lintian
#   scripts/install-deps.sh --test   also what packaging needs, and what
#                                    the tests drive: clang (the fuzz
#                                    targets' compiler), Chromium and
#                                    Node.js (the dashboard's browser test),
#                                    the openssl tool (TLS between nodes),
#                                    nginx (conditional requests, recrawls),
#                                    networkx, Graphviz (dot, gvpr) and jq
#                                    (the readers the export test checks
#                                    exports with), bash-completion and
#                                    man-db (the completion, the manual)
set -euo pipefail

# The libraries actorcrawl links and the headers it builds against: the
# arm64 sysroot of scripts/test-arm64.sh holds these same packages.
LIBRARIES=(
  libcaf-dev
  libcurl4-openssl-dev libbrotli-dev zlib1g-dev libssl-dev libdeflate-dev
  libgumbo-dev libxml2-dev
  libsqlitecpp-dev libsqlite3-dev
  libyaml-cpp-dev
  catch2
  libboost-url1.81-dev
  libpsl-dev
  libicu-dev
  libre2-dev
  nlohmann-json3-dev
  libcpp-httplib-dev
)
if [ "${1:-}" = "--libraries" ]; then
  printf '%s\n' "${LIBRARIES[@]}"
  exit 0
fi

PACKAGES=(
  build-essential cmake pkg-config ccache
  "${LIBRARIES[@]}"
  sqlite3
  libbenchmark-dev
  python3  # the example plugins (plugins/) and the external processors' unit tests
)

# not_installed PACKAGE...: those of them dpkg does not have installed, one a line.
not_installed() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}

mapfile -t missing < <(not_installed "${PACKAGES[@]}")

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
updated=0
apt_install() {
  if [ "$updated" = 0 ]; then
    $SUDO apt-get update -qq
    updated=1
  fi
  $SUDO apt-get install -y -qq --no-install-recommends "$@" >&2
}

if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  apt_install "${missing[@]}"
fi

# What scripts/package.sh needs (the tests make and install the package).
if [ "${1:-}" = "--package" ] || [ "${1:-}" = "--test" ]; then
  mapfile -t tools < <(not_installed dpkg-dev lintian)
  if [ ${#tools[@]} -gt 0 ]; then
    echo "installing for packaging: ${tools[*]}" >&2
    apt_install "${tools[@]}"
  fi
fi

# What the tests drive. Judged by the commands, not by Debian's package
# names: a machine may have Node.js and npm from elsewhere (npm ships inside
# other nodejs builds, and Debian's npm package then conflicts). Best effort:
# a test whose tool is missing reports itself skipped, with the reason.
if [ "${1:-}" = "--test" ]; then
  extras=()
  [ -x /usr/bin/chromium ] || extras+=(chromium)
  # The fuzz targets' compiler and its sanitizer runtime (scripts/fuzz.sh).
  mapfile -t -O "${#extras[@]}" extras < <(not_installed clang libclang-rt-14-dev)
  command -v node >/dev/null 2>&1 || extras+=(nodejs)
  command -v npm >/dev/null 2>&1 || extras+=(npm)
  command -v openssl >/dev/null 2>&1 || extras+=(openssl)
  # The static-file server of the conditional-request and recrawl tests
  # (ETag, If-Modified-Since, its access log as the judge).
  command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || extras+=(nginx)
  # fonts for the browser test; real documentation sites (HTML pages of
  # every shape) for the HTML parsers' differential test; the outside
  # readers of the exports (networkx, Graphviz: dot and gvpr, jq).
  # bash-completion and man-db: the completion and manual page tests.
  mapfile -t -O "${#extras[@]}" extras < <(not_installed fonts-liberation cppreference-doc-en-html python3-doc \
    python3-networkx graphviz jq bash-completion man-db)
  if [ ${#extras[@]} -gt 0 ]; then
    echo "installing for the tests: ${extras[*]}" >&2
    # Debian's nginx would start a system server on port 80: this policy
    # (when none exists) keeps services from starting during the install.
    policy=/usr/sbin/policy-rc.d
    made_policy=0
    if [ ! -e "$policy" ]; then
      printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null && $SUDO chmod 755 "$policy" && made_policy=1
    fi
    apt_install "${extras[@]}" || echo "warning: could not install ${extras[*]}; tests that need them are skipped" >&2
    if [ "$made_policy" = 1 ]; then $SUDO rm -f "$policy"; fi
  fi
fi

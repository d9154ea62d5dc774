#!/usr/bin/env bash
# Installs every Debian 12 package actorcrawl needs to build, test and run.
# Idempotent: packages already present are left alone, and apt is only asked
# when something is missing.
#
#   scripts/install-deps.sh          what building and running need
#   scripts/install-deps.sh --test   also what the tests drive: Chromium and
#                                    Node.js (the dashboard's browser test),
#                                    the openssl tool (TLS between nodes)
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config ccache
  clang libclang-rt-14-dev
  libcaf-dev
  libcurl4-openssl-dev libbrotli-dev zlib1g-dev
  libgumbo-dev
  libsqlitecpp-dev libsqlite3-dev sqlite3
  libyaml-cpp-dev
  catch2
  libboost-url1.81-dev
  libpsl-dev
  libre2-dev
  nlohmann-json3-dev
  libcpp-httplib-dev
  libbenchmark-dev
)
if [ "${1:-}" = "--test" ]; then
  PACKAGES+=(chromium nodejs npm fonts-liberation openssl)
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2

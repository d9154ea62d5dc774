#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a finished crawl: installs
# what is missing, builds the binary (not the tests: scripts/test.sh builds
# those), and crawls. With no seed (no SEED=..., no --seed)
# it crawls the bundled demo web on loopback. Arguments go to
# `actorcrawl crawl`; SEED=URL is honoured by actorcrawl itself.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh --binary >&2
exec "${BUILD_DIR:-build}/actorcrawl" crawl "$@"

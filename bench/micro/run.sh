#!/usr/bin/env bash
# Builds the micro-benchmarks in build-bench/ (or $BENCH_BUILD_DIR), Release
# with ACTORCRAWL_BENCH=ON, runs them and writes the console table to
# bench/results/micro-latest.txt.
#
#   bench/micro/run.sh                       all benchmarks, 0.2 s each
#   bench/micro/run.sh --benchmark_filter=Url  extra arguments go to the binary
#   MIN_TIME=1 JOBS=4 bench/micro/run.sh     longer runs, parallel build
#
# Numbers from a shared or busy machine are noisy: compare runs made on the
# same machine, back to back, and prefer longer MIN_TIME for decisions.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${BENCH_BUILD_DIR:-build-bench}
MIN_TIME=${MIN_TIME:-0.2}
RESULTS=bench/results/micro-latest.txt

cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DACTORCRAWL_BENCH=ON -DBUILD_TESTING=OFF >/dev/null
cmake --build "$BUILD_DIR" --target micro_benchmarks -j "${JOBS:-1}"

mkdir -p bench/results
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
{
  echo "# actorcrawl micro-benchmarks, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with local changes)'), Release, min_time ${MIN_TIME}s"
  echo "# $(nproc) CPUs; numbers are noisy on a shared machine"
  echo
} >"$tmp"
# The table goes to stdout and the results file; the library's context
# header (CPU, caches, load) goes to stderr, so it is kept too.
# The library's "Running <path>" line names the build directory; the file
# keeps only the binary's name.
"$BUILD_DIR/bench/micro/micro_benchmarks" --benchmark_min_time="$MIN_TIME" "$@" 2>&1 |
  sed 's|^Running .*/micro_benchmarks$|Running micro_benchmarks|' | tee -a "$tmp"
cp "$tmp" "$RESULTS"
echo "wrote $RESULTS" >&2

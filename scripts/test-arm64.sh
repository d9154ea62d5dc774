#!/usr/bin/env bash
# actorcrawl for 64-bit ARM (a Raspberry Pi 3, 4 or 5 under a 64-bit OS),
# built and tested on an amd64 Debian 12 machine, from a bare one:
#
#   1. installs the cross compiler, qemu-user and mmdebstrap (idempotent);
#   2. makes an arm64 sysroot of the project's library packages
#      (scripts/install-deps.sh --libraries) with mmdebstrap, once: it is
#      kept while that list is unchanged (scripts/arm64-sysroot.sh);
#   3. cross-builds actorcrawl and the unit, message and actor protocol
#      tests into build-arm64/ (cmake/arm64-toolchain.cmake);
#   4. runs those tests through CTest, each under qemu-aarch64;
#   5. crawls the bundled demo web with the arm64 binary under qemu and
#      checks it reached every page.
#
# Each step's time is printed at the end. Extra arguments go to ctest
# (e.g. -R "unit: Url"). Environment: ARM64_BUILD_DIR [build-arm64],
# ARM64_SYSROOT [<build dir>/sysroot], JOBS [nproc].
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD_DIR=${ARM64_BUILD_DIR:-build-arm64}
mkdir -p "$BUILD_DIR"
BUILD_DIR=$(cd "$BUILD_DIR" && pwd)
SYSROOT=${ARM64_SYSROOT:-$BUILD_DIR/sysroot}
JOBS=${JOBS:-$(nproc)}

declare -a TIMES=()
stage_start=0
begin() { echo "== arm64: $1" >&2; stage_start=$(date +%s); }
took() { TIMES+=("$1: $(( $(date +%s) - stage_start )) s"); }

# ------------------------------------------------- 1, 2. tools and sysroot
begin "tools and sysroot"
bash scripts/arm64-sysroot.sh "$SYSROOT"
took "tools and sysroot"

# ---------------------------------------------------------------- 3. build
begin "build"
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/arm64-toolchain.cmake" -DACTORCRAWL_SYSROOT="$SYSROOT" >/dev/null
mapfile -t unit_targets < <(cmake --build "$BUILD_DIR" --target help | sed -n 's/^\.\.\. \(unit_[a-z0-9_]*\)$/\1/p')
cmake --build "$BUILD_DIR" -j "$JOBS" --target actorcrawl message_tests actor_protocol_tests "${unit_targets[@]}"
readelf -h "$BUILD_DIR/actorcrawl" | grep -q "AArch64" || { echo "arm64: $BUILD_DIR/actorcrawl is not an arm64 binary" >&2; exit 1; }
took "build"

# ---------------------------------------------------------------- 4. tests
# CTest runs each test binary through CMAKE_CROSSCOMPILING_EMULATOR
# (qemu-aarch64 -L sysroot). Emulation is some ten times slower than the
# machine, hence the longer timeout. Two kinds of test cannot mean under
# user-mode emulation what they mean on a machine, and run natively in
# scripts/test.sh instead:
# - the cost ratios ("... linear ..."): qemu translates code as it first
#   runs it, so the CPU a small input costs is not the CPU a large one
#   costs per byte, and the ratios measure the emulator;
# - a test binary that starts itself again (/proc/self/exe): without
#   binfmt_misc the kernel cannot run an arm64 program that qemu did not
#   start;
# - the two that expect libxml2's operation limit, a count, to stop an
#   XPath before the field's CPU budget, a time, does: ten times slower,
#   the budget may come first (the field is null and reported either way).
SKIPPED_UNDER_EMULATION='linear|one key for the whole process, another in the next'
SKIPPED_UNDER_EMULATION+='|an evaluation past the operation limit is null and reported'
SKIPPED_UNDER_EMULATION+='|threads sharing one rule set get what one thread gets'
begin "unit tests under qemu"
(cd "$BUILD_DIR" && ctest -R '^(unit|messages|actors):' -E "$SKIPPED_UNDER_EMULATION" -j "$JOBS" --timeout 900 \
   --output-on-failure "$@")
took "unit tests under qemu"

# ---------------------------------------------------------------- 5. a crawl
begin "demo crawl under qemu"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && qemu-aarch64 -L "$SYSROOT" "$BUILD_DIR/actorcrawl" crawl --db demo.db --metrics metrics.log \
   >crawl.log 2>&1) || { cat "$work/crawl.log" >&2; echo "arm64: the demo crawl failed" >&2; exit 1; }
cat "$work/crawl.log" >&2
line=$(grep "crawl finished" "$work/crawl.log" || true)
pages=$(echo "$line" | sed -n 's/.*: \([0-9]*\) pages fetched.*/\1/p')
failed=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed to fetch.*/\1/p')
# The demo web's pages (16 today) are all reached and none fails to fetch
# (its dead link is a 404 page, recorded as fetched).
if [ -z "$pages" ] || [ "$pages" -lt 10 ] || [ "${failed:-1}" != 0 ]; then
  echo "arm64: the demo crawl fetched ${pages:-no} pages, ${failed:-?} failed" >&2
  exit 1
fi
echo "arm64: demo crawl: $pages pages fetched, $failed failed to fetch" >&2
took "demo crawl under qemu"

summary=$(printf '%s, ' "${TIMES[@]}")
echo "arm64 done: ${summary%, }" >&2

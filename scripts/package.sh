#!/usr/bin/env bash
# Debian packages of actorcrawl, from a bare Debian 12 machine:
#
#   scripts/package.sh amd64     dist/actorcrawl_<version>_amd64.deb
#   scripts/package.sh arm64     dist/actorcrawl_<version>_arm64.deb (cross-built)
#
# Each builds the binary alone (no tests) with Debian's hardening flags
# (dpkg-buildflags), installs it with the manual page, bash completion,
# systemd unit, documentation and examples (cmake/Packaging.cmake), makes
# the .deb with CPack and checks it with lintian, which must report no error.
#
# Dependencies: the amd64 package's are computed from the binary's shared
# libraries by dpkg-shlibdeps. dpkg-shlibdeps cannot read a cross build's
# libraries (the arm64 sysroot holds no dpkg database), so the arm64 package
# takes the amd64 package's list, after checking that every shared library
# the arm64 binary needs is one the amd64 binary needs (Debian names a library's package the same on every
# architecture, and the sysroot holds bookworm's same versions). Hence
# `arm64` makes the amd64 package first when dist/ has none.
#
# Environment: PACKAGE_BUILD_DIR [build-package], ARM64_SYSROOT
# [build-arm64/sysroot, shared with scripts/test-arm64.sh], JOBS [nproc].
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
ARCH=${1:-amd64}
BUILD_ROOT=${PACKAGE_BUILD_DIR:-build-package}
JOBS=${JOBS:-$(nproc)}
case $ARCH in amd64 | arm64) ;; *) echo "usage: scripts/package.sh amd64|arm64" >&2; exit 2 ;; esac
if [ "$ARCH" = amd64 ] && [ "$(dpkg --print-architecture)" != amd64 ]; then
  echo "package.sh: amd64 packages are built on an amd64 machine" >&2
  exit 2
fi

bash scripts/install-deps.sh --package
VERSION=$(sed -n 's/^project(actorcrawl VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
mkdir -p dist
DEB=dist/actorcrawl_${VERSION}_${ARCH}.deb

# Debian's hardening (stack protector, fortify, full RELRO, bind now), with
# the project's own optimisation (Release) rather than dpkg's -g -O2.
build_flags() {
  local host_arch=$1
  dpkg-architecture -a"$host_arch" -c env DEB_BUILD_MAINT_OPTIONS=hardening=+all \
    DEB_CXXFLAGS_MAINT_STRIP="-g -O2" dpkg-buildflags --get "$2" 2>/dev/null
}

# needed_libraries BINARY: its NEEDED sonames, sorted.
needed_libraries() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort; }

build_package() {
  local arch=$1 build
  mkdir -p "$BUILD_ROOT/$1"
  build=$(cd "$BUILD_ROOT/$1" && pwd)
  shift
  local cxxflags ldflags
  cxxflags="$(build_flags "$arch" CPPFLAGS) $(build_flags "$arch" CXXFLAGS)"
  ldflags=$(build_flags "$arch" LDFLAGS)
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DCMAKE_INSTALL_PREFIX=/usr \
    "-DCMAKE_CXX_FLAGS=$cxxflags" "-DCMAKE_EXE_LINKER_FLAGS=$ldflags" "$@" >/dev/null
  cmake --build "$build" -j "$JOBS" --target actorcrawl man_page changelog
  rm -rf "$build/cpack"
  (cd "$build" && cpack -G DEB -B "$build/cpack" >/dev/null)
  local made
  made=$(find "$build/cpack" -maxdepth 1 -name "actorcrawl_*_$arch.deb" | head -n 1)
  [ -n "$made" ] || { echo "package.sh: cpack made no $arch package" >&2; exit 1; }
  mv "$made" "$DEB"
}

if [ "$ARCH" = amd64 ]; then
  build_package amd64
else
  SYSROOT=${ARM64_SYSROOT:-build-arm64/sysroot}
  mkdir -p "$(dirname "$SYSROOT")"
  SYSROOT=$(cd "$(dirname "$SYSROOT")" && pwd)/$(basename "$SYSROOT")
  bash scripts/arm64-sysroot.sh "$SYSROOT"
  AMD64_DEB=dist/actorcrawl_${VERSION}_amd64.deb
  if [ ! -f "$AMD64_DEB" ] || [ "$(dpkg --print-architecture)" != amd64 ]; then
    [ "$(dpkg --print-architecture)" = amd64 ] || { echo "package.sh: arm64 is cross-built on amd64" >&2; exit 2; }
    bash "$0" amd64
  fi
  depends=$(dpkg-deb -f "$AMD64_DEB" Depends)
  # The same package, libraries and all: the arm64 binary built first, then
  # its NEEDED list checked against the amd64 one before the list is used.
  build_package arm64 -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/arm64-toolchain.cmake" \
    -DACTORCRAWL_SYSROOT="$SYSROOT" "-DACTORCRAWL_DEB_DEPENDS=$depends"
  readelf -h "$BUILD_ROOT/arm64/actorcrawl" | grep -q AArch64 || { echo "package.sh: not an arm64 binary" >&2; exit 1; }
  unpacked=$(mktemp -d)
  trap 'rm -rf "$unpacked"' EXIT
  dpkg-deb -x "$AMD64_DEB" "$unpacked"
  # Every library the arm64 binary needs must be one the amd64 binary needs
  # (the dynamic loader aside, which libc6 holds on both); a library only
  # amd64 needs (the linker kept libz there) is a harmless extra dependency.
  only_arm64=$(comm -13 <(needed_libraries "$unpacked/usr/bin/actorcrawl") \
    <(needed_libraries "$BUILD_ROOT/arm64/actorcrawl" | grep -v '^ld-linux'))
  if [ -n "$only_arm64" ]; then
    echo "package.sh: the arm64 binary needs libraries the amd64 one does not: $only_arm64;" >&2
    echo "its dependencies cannot be taken from the amd64 package" >&2
    rm -f "$DEB"
    exit 1
  fi
fi

if [ "$ARCH" = arm64 ]; then
  # The packaged (stripped) binary runs: its version, under qemu.
  dpkg-deb -x "$DEB" "$unpacked/arm64"
  packaged_version=$(qemu-aarch64 -L "$SYSROOT" "$unpacked/arm64/usr/bin/actorcrawl" --version)
  [ "$packaged_version" = "actorcrawl $VERSION" ] || { echo "package.sh: the packaged arm64 binary says '$packaged_version'" >&2; exit 1; }
fi

echo "== $DEB" >&2
dpkg-deb --field "$DEB" >&2
# Errors fail the build; warnings and notes are shown.
lintian --fail-on error --display-info "$DEB" >&2
echo "package.sh: $DEB ($(du -k "$DEB" | cut -f1) KiB), lintian: no errors" >&2

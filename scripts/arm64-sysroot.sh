#!/usr/bin/env bash
# An arm64 sysroot for cross-building actorcrawl on an amd64 Debian 12
# machine (cmake/arm64-toolchain.cmake), from a bare one:
#
#   1. installs the cross compiler, qemu-user and mmdebstrap (idempotent);
#   2. makes the sysroot of the project's library packages
#      (scripts/install-deps.sh --libraries) with mmdebstrap, once: it is
#      kept while that list is unchanged.
#
#   scripts/arm64-sysroot.sh DIR
#
# scripts/test-arm64.sh and scripts/package.sh arm64 call it.
set -euo pipefail
cd "$(dirname "$0")/.."
SYSROOT=${1:?usage: scripts/arm64-sysroot.sh DIR}
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

bash scripts/install-deps.sh
tools=()
for p in g++-aarch64-linux-gnu qemu-user mmdebstrap; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || tools+=("$p")
done
if [ ${#tools[@]} -gt 0 ]; then
  echo "installing: ${tools[*]}" >&2
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${tools[@]}" >&2
fi

# Extract only: no maintainer script runs, so no emulation is needed (and
# binfmt_misc, which mmdebstrap's other variants would need for a foreign
# architecture, may be missing). Debian's own sources, as apt has them.
mapfile -t libraries < <(bash scripts/install-deps.sh --libraries)
wanted="libc6-dev libstdc++-12-dev ${libraries[*]}"
if [ ! -f "$SYSROOT/.actorcrawl-packages" ] || [ "$(cat "$SYSROOT/.actorcrawl-packages")" != "$wanted" ]; then
  sources=/etc/apt/sources.list.d/debian.sources
  [ -f "$sources" ] || sources=/etc/apt/sources.list
  $SUDO rm -rf "$SYSROOT"
  mkdir -p "$(dirname "$SYSROOT")"
  $SUDO mmdebstrap --quiet --arch=arm64 --variant=extract --mode=root \
    --include="$(echo "$wanted" | tr ' ' ',')" bookworm "$SYSROOT" - <"$sources" >&2
  echo "$wanted" | $SUDO tee "$SYSROOT/.actorcrawl-packages" >/dev/null
fi

# Some -dev packages link their library by an absolute path (libz.so ->
# /lib/aarch64-linux-gnu/libz.so.1.2.13, libm.so, ...): in a sysroot that
# path is the build machine's, the link is broken, and the linker would
# quietly take the static archive instead (lintian: embedded-library).
# Relative links stay inside the sysroot. Idempotent.
find "$SYSROOT/usr/lib" -lname '/*' -print0 | while IFS= read -r -d '' link; do
  target=$(readlink "$link")
  $SUDO ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$SYSROOT$target")" "$link"
done


#!/usr/bin/env bash
# What a clean build costs: builds the given commits (default: HEAD) from
# scratch, one after another or side by side, each in a throwaway worktree
# and build directory, ccache off, and prints wall time, the compilers' CPU
# time (user + system, which a loaded machine stretches much less than the
# wall clock) and the largest compiler process.
#
#   bench/build_time.sh a9e6e10 HEAD      two commits, one after the other
#   PARALLEL=1 JOBS=1 bench/build_time.sh a9e6e10 HEAD
#                                         side by side, one job each: both
#                                         builds meet the same load
#
# Writes bench/results/build-time-latest.md.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
JOBS=${JOBS:-$(nproc)}
PARALLEL=${PARALLEL:-0}
commits=("$@")
[ ${#commits[@]} -gt 0 ] || commits=(HEAD)
scratch=$(mktemp -d)
trap 'for c in "${commits[@]}"; do git -C "$root" worktree remove --force "$scratch/$c" 2>/dev/null || true; done; rm -rf "$scratch"' EXIT

build_one() {
  local commit=$1 dir=$scratch/$1
  git -C "$root" worktree add -q --detach "$dir" "$commit"
  cmake -S "$dir" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER_LAUNCHER= >/dev/null
  CCACHE_DISABLE=1 /usr/bin/time -f "%e %U %S %M" -o "$scratch/$commit.time" \
    cmake --build "$dir/build" -j "$JOBS" >"$scratch/$commit.log" 2>&1
}

if [ "$PARALLEL" = 1 ]; then
  for c in "${commits[@]}"; do build_one "$c" & done
  wait
else
  for c in "${commits[@]}"; do build_one "$c"; done
fi

mkdir -p bench/results
{
  echo "| commit | wall s | CPU s (user + sys) | largest compiler RSS MiB |"
  echo "| --- | ---: | ---: | ---: |"
  for c in "${commits[@]}"; do
    read -r wall user sys rss <"$scratch/$c.time"
    printf '| %s | %.0f | %.0f | %.0f |\n' "$(git rev-parse --short "$c")" "$wall" "$(echo "$user + $sys" | bc)" "$(echo "$rss / 1024" | bc)"
  done
} | tee bench/results/build-time-latest.md

#!/usr/bin/env bash
# A Raspberry Pi's limits: configs/raspberry-pi.yaml measured for memory and
# for what it writes (an SD card wears by the bytes written), on this
# machine and, given an arm64 binary, under qemu-aarch64.
#
#   bench/pi.sh
#   PI_ARM64_BIN=build-package/arm64/actorcrawl PI_SYSROOT=build-arm64/sysroot bench/pi.sh
#
# Three measurements, each with the Pi's configuration file (its site
# profile for these one-host-per-seed webs: --profile site; the benchmarks'
# own --politeness-delay 0, so a run takes seconds, not hours):
#   1. bench/scale.sh: the frontier grows to 1,000,000 discovered URLs
#      (11,000 pages of 100 new links each); the goal is <= 128 MB peak RSS;
#   2. bench/run.sh's synthetic web (50 hosts x 200 pages of 16 KiB, 30
#      links a page), one round, actorcrawl alone;
#   3. storage_batch (writes per SQLite transaction) and frontier_window
#      (queued URLs held in memory) swept on a 3,000-page scale crawl: the
#      settings that trade memory and SD card writes.
# Bytes written are the crawl process's own (/usr/bin/time's "File system
# outputs", 512-byte units: what it dirtied in the page cache, the database,
# its WAL and metrics.log), per page fetched. Under qemu, peak RSS is the
# emulator's, the arm64 crawler's and qemu's translated code together: an
# upper bound of what the Pi's process holds.
#
# Environment: PI_ARM64_BIN [] (an arm64 actorcrawl; with PI_SYSROOT, the
# sysroot scripts/arm64-sysroot.sh made), PI_SWEEP [1] (0 skips step 3),
# RESULTS_DIR [bench/results] (pi-latest.md goes there; raw runs under
# RESULTS_DIR/run-<date>-pi/, ignored by git).
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
cd "$ROOT"
RESULTS_DIR=${RESULTS_DIR:-$BENCH_DIR/results}
STAMP=$(date -u +%Y%m%d-%H%M%S)
STARTED=$(date -u '+%Y-%m-%d %H:%M UTC')
RAW=$RESULTS_DIR/run-$STAMP-pi
mkdir -p "$RAW"
CONFIG=$ROOT/configs/raspberry-pi.yaml
PI_SWEEP=${PI_SWEEP:-1}
# The Pi configuration's own fetch settings, which the benchmarks would
# otherwise replace with theirs.
workers=$(sed -n 's/^concurrent_workers: *//p' "$CONFIG")
transfers=$(sed -n 's/^transfers_per_worker: *//p' "$CONFIG")

binaries=("amd64:${ACTORCRAWL_BIN:-$ROOT/build/actorcrawl}")
if [ -n "${PI_ARM64_BIN:-}" ]; then
  sysroot=$(realpath "${PI_SYSROOT:?PI_SYSROOT: the arm64 sysroot}")
  # The benchmarks copy and run one executable: a wrapper that runs the
  # arm64 binary under qemu (no binfmt_misc needed).
  cp "$PI_ARM64_BIN" "$RAW/actorcrawl-arm64"
  printf '#!/bin/sh\nexec qemu-aarch64 -L %s %s "$@"\n' "$sysroot" "$RAW/actorcrawl-arm64" >"$RAW/actorcrawl-qemu"
  chmod 755 "$RAW/actorcrawl-qemu"
  binaries+=("arm64 (qemu):$RAW/actorcrawl-qemu")
fi

ROWS=()
# row NAME SETTING JSON TIME_TXT: one table row from a run's numbers.
row() {
  ROWS+=("$(python3 - "$@" <<'EOF'
import json, re, sys
name, setting, json_path, time_path = sys.argv[1:5]
d = json.load(open(json_path))
out = int(re.search(r"File system outputs: (\d+)", open(time_path).read()).group(1)) * 512
pages = d["pages"]
db = d.get("db_bytes")
wall = d["wall_s"]
db_per_page = f"{db / pages / 1024:.1f}" if db else "-"
print(f"| {name} | {setting} | {pages:,} | {d['max_rss_kb'] / 1024:.1f} | {out / pages / 1024:.1f} | "
      f"{db_per_page} | {pages / wall:,.0f} |")
EOF
)")
}

for entry in "${binaries[@]}"; do
  name=${entry%%:*}
  bin=${entry#*:}
  tag=$(echo "$name" | tr -cd 'a-z0-9')
  echo "== pi: $name, the 1M-URL frontier" >&2
  ACTORCRAWL_BIN=$bin AC_WORKERS=$workers AC_TRANSFERS=$transfers SCALE_RSS_MB=128 \
    AC_ARGS="--config $CONFIG --profile site" RAW_DIR="$RAW/$tag-scale" SECTION_MD="$RAW/$tag-scale.md" \
    TOOL_TIMEOUT=3600 bash "$BENCH_DIR/scale.sh" >&2
  row "$name" "1M-URL frontier" "$RAW/$tag-scale/scale.json" "$RAW/$tag-scale/time.txt"

  echo "== pi: $name, the synthetic web" >&2
  ACTORCRAWL_BIN=$bin TOOLS=actorcrawl ROUNDS=1 POLITE=0 CPPREF=0 SCALE=0 AC_WORKERS=$workers \
    AC_TRANSFERS=$transfers AC_ARGS="--config $CONFIG --profile site --max-pages 20000" \
    RESULTS_DIR="$RAW/$tag-synth" TOOL_TIMEOUT=3600 bash "$BENCH_DIR/run.sh" >&2
  run=$(find "$RAW/$tag-synth" -path '*actorcrawl-r1/run.json' | head -n 1)
  row "$name" "synthetic web" "$run" "$(dirname "$run")/time.txt"
done

if [ "$PI_SWEEP" = 1 ]; then
  for batch in 50 200 1000 4000; do
    for window in 1000 10000; do
      echo "== pi: storage_batch $batch, frontier_window $window" >&2
      dir=$RAW/sweep-$batch-$window
      ACTORCRAWL_BIN=${ACTORCRAWL_BIN:-$ROOT/build/actorcrawl} AC_WORKERS=$workers AC_TRANSFERS=$transfers \
        SCALE_MAX_PAGES=3000 SCALE_TARGET_URLS=300000 SCALE_RSS_MB=128 RAW_DIR="$dir" SECTION_MD="$dir.md" \
        AC_ARGS="--config $CONFIG --profile site --storage-batch $batch --frontier-window $window" \
        bash "$BENCH_DIR/scale.sh" >&2
      row amd64 "3,000 scale pages, storage_batch $batch, frontier_window $window" "$dir/scale.json" "$dir/time.txt"
    done
  done
fi

{
  echo "## A Raspberry Pi's limits: configs/raspberry-pi.yaml"
  echo
  echo "Run started $STARTED with \`bench/pi.sh\`$([ -n "${PI_ARM64_BIN:-}" ] && echo " (and an arm64 binary under qemu-aarch64)"); $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1 | awk '{print $1, $2}')), shared."
  echo
  echo "| binary | crawl | pages | peak RSS MB | written KiB/page | database KiB/page | pages/s |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
  printf '%s\n' "${ROWS[@]}"
  echo
  echo "Written: the crawl process's file system outputs (the database, its WAL, metrics.log) per page."
  echo "Under qemu, peak RSS includes the emulator and its translated code."
} | tee "$RESULTS_DIR/pi-latest.md"

#!/usr/bin/env bash
# Instructions a page: the synthetic crawl of bench/run.sh (politeness off,
# nginx on loopback) with actorcrawl run under valgrind's callgrind, which
# counts the instructions the process executes in user space. Unlike CPU
# time, the count hardly moves between runs (0.2% here) or with the load of
# a shared machine, so a change of a few percent shows in one run of each
# binary, where CPU time would need many rounds. It leaves out the kernel's
# work (sockets, files) and the cost of cache misses, and valgrind emulates
# a CPU without SHA or AVX-512 extensions (SHA-1 then counts several times
# what it costs with them): compare binaries with it, not against CPU time.
#
#   bench/instructions.sh                                 build/actorcrawl
#   BINS="before=../old/actorcrawl after=build/actorcrawl" bench/instructions.sh
#   HOSTS=10 PAGES=200 ...                                the web (the default)
#
# Prints a Markdown table (binary, pages, instructions, instructions a page)
# and writes it to bench/results/instructions-latest.md.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
LOG_TAG=instructions
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$BENCH_DIR/lib.sh"

BINS=${BINS:-current=$ROOT/build/actorcrawl}
HOSTS=${HOSTS:-10}; PAGES=${PAGES:-200}
RESULTS_DIR=${RESULTS_DIR:-$BENCH_DIR/results}

if ! command -v valgrind >/dev/null 2>&1; then
  log "installing valgrind"
  apt_install valgrind || die "valgrind could not be installed"
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$RESULTS_DIR"
table=$scratch/table.md
{
  echo "# Instructions a page"
  echo
  echo "Run $(date -u '+%Y-%m-%d %H:%M UTC') with \`bench/instructions.sh\`: the synthetic web of bench/run.sh, $HOSTS hosts x $PAGES pages, one crawl a binary under \`valgrind --tool=callgrind\` ($(valgrind --version))."
  echo
  echo "| binary | pages | instructions | instructions a page |"
  echo "| --- | ---: | ---: | ---: |"
} >"$table"

for entry in $BINS; do
  name=${entry%%=*}
  bin=$(cd "$(dirname "${entry#*=}")" && pwd)/$(basename "${entry#*=}")
  [ -x "$bin" ] || die "$bin is not an executable"
  out=$scratch/$name
  mkdir -p "$out"
  # The crawl runs under callgrind; every other use of the binary (its
  # version, its checks) as it is.
  cat >"$out/actorcrawl" <<EOF
#!/usr/bin/env bash
if [ "\${1:-}" = crawl ]; then
  exec valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.out" --log-file="$out/valgrind.log" "$bin" "\$@"
fi
exec "$bin" "\$@"
EOF
  chmod +x "$out/actorcrawl"
  log "$name: $bin"
  HOSTS=$HOSTS PAGES=$PAGES ROUNDS=1 TOOLS=actorcrawl POLITE=0 CPPREF=0 SCALE=0 \
    RESULTS_DIR="$out/results" ACTORCRAWL_BIN="$out/actorcrawl" \
    bash "$BENCH_DIR/run.sh" >"$out/run.log" 2>&1 || die "$name: bench/run.sh failed (log: $out/run.log)"
  collected=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out/valgrind.log" | tail -1)
  run_json=$(find "$out/results" -name run.json | head -1)
  pages=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["pages"])' "$run_json")
  [ -n "$collected" ] && [ "$pages" -gt 0 ] || die "$name: no instruction count or no pages (log: $out/valgrind.log)"
  "$PY" - "$name" "$pages" "$collected" >>"$table" <<'EOF'
import sys
name, pages, collected = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
print(f"| {name} | {pages:,} | {collected:,} | {collected // pages:,} |")
EOF
done

cat "$table"
cp "$table" "$RESULTS_DIR/instructions-latest.md"

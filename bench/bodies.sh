#!/usr/bin/env bash
# What keeping bodies costs (keep_bodies, the default): a crawl of a real
# documentation site (Debian's cppreference HTML, served by nginx on
# 127.0.0.1) with bodies kept and without, in alternating rounds; then
# `actorcrawl extract` with one extraction rule over the kept bodies, the
# loop that keeping them buys. For each: pages, CPU a page (user + system,
# /usr/bin/time -v), the database's size a page (after the crawl's own
# checkpoint), and the kept bodies' bytes a page against the bodies' own.
# Nothing outside 127.0.0.0/8 is contacted.
#
#   bench/bodies.sh                  # 3 rounds, medians (~5 min)
#
# Environment (defaults in brackets): ROUNDS [3] BODIES_PORT [8085]
# CPPREF_DIR [/usr/share/cppreference/doc/html] CPPREF_ENTRY [/en/index.html]
# MAX_PAGES [3000] AC_ARGS [] (extra crawl flags) ACTORCRAWL_BIN [build/actorcrawl]
# KEEP_WORK [0] TOOL_TIMEOUT [600]
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
LOG_TAG=bodies
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$BENCH_DIR/lib.sh"

ROUNDS=${ROUNDS:-3}
PORT=${BODIES_PORT:-8085}
CPPREF_DIR=${CPPREF_DIR:-/usr/share/cppreference/doc/html}
CPPREF_ENTRY=${CPPREF_ENTRY:-/en/index.html}
MAX_PAGES=${MAX_PAGES:-3000}
TOOL_TIMEOUT=${TOOL_TIMEOUT:-600}

need_nginx_and_time
command -v sqlite3 >/dev/null 2>&1 || apt_install sqlite3 || die "sqlite3 (package sqlite3) is needed"
if [ ! -f "$CPPREF_DIR$CPPREF_ENTRY" ]; then
  apt_install cppreference-doc-en-html || die "cppreference-doc-en-html could not be installed"
fi
start_work_dir bodies
resolve_actorcrawl "$WORK"

NGX=$WORK/nginx
mkdir -p "$NGX"
{
  nginx_conf_head "$NGX"
  echo "  types { text/html html; text/css css; application/javascript js; image/png png; image/svg+xml svg; }"
  echo "  charset utf-8;"
  echo "  server { listen 127.0.0.1:$PORT; root $CPPREF_DIR; index index.html; }"
  echo "}"
} >"$NGX/nginx.conf"
SEED=http://127.0.0.1:$PORT$CPPREF_ENTRY
start_nginx "$NGX" wait-url "$SEED" || die "nginx did not start on 127.0.0.1:$PORT"

cat >"$WORK/rules.yaml" <<'YAML'
extract:
  - name: heading
    fields:
      title: {css: 'h1::text'}
      declarations: {css: 'table.t-dcl-begin tr td', all: true}
YAML

# cpu_of TIMEFILE: user + system seconds
cpu_of() { awk -F': ' '/User time|System time/ {s += $2} END {printf "%.3f", s}' "$1"; }

# crawl NAME ROUND FLAGS...: one measured crawl; "pages cpu_ms_a_page db_bytes_a_page kept_a_page body_a_page"
crawl() {
  local name=$1 round=$2; shift 2
  local dir=$WORK/$name-r$round
  mkdir -p "$dir"
  (cd "$dir" && measured "$AC_BIN" crawl --seed "$SEED" --db "$dir/crawl.db" --metrics "$dir/metrics.log" \
      --max-pages "$MAX_PAGES" --politeness-delay-ms 0 --politeness-delay-factor-percent 0 --no-sitemaps \
      --progress-interval-ms 1000000 "$@" ${AC_ARGS:-} >"$dir/out.log" 2>&1) \
    || die "crawl failed: $(tail -n 5 "$dir/out.log")"
  local pages kept body db
  pages=$(sqlite3 "$dir/crawl.db" "SELECT COUNT(*) FROM pages")
  kept=$(sqlite3 "$dir/crawl.db" "SELECT COALESCE(SUM(length(body)), 0) FROM bodies")
  body=$(sqlite3 "$dir/crawl.db" "SELECT COALESCE(SUM(bytes), 0) FROM pages")
  db=$(stat -c %s "$dir/crawl.db")
  awk -v p="$pages" -v c="$(cpu_of "$dir/time.txt")" -v d="$db" -v k="$kept" -v b="$body" \
    'BEGIN { printf "%d %.3f %d %d %d\n", p, 1000 * c / p, d / p, k / p, b / p }'
}

# extract ROUND: the rule run again over the kept round's database; "pages cpu_ms_a_page"
extract() {
  local dir=$WORK/kept-r$1
  (cd "$dir" && measured "$AC_BIN" extract --db "$dir/crawl.db" --config "$WORK/rules.yaml" --json \
      >"$dir/extract.json" 2>"$dir/extract.log") || die "extract failed: $(tail -n 5 "$dir/extract.log")"
  local pages
  pages=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["pages"])' "$dir/extract.json")
  awk -v p="$pages" -v c="$(cpu_of "$dir/time.txt")" 'BEGIN { printf "%d %.3f\n", p, 1000 * c / p }'
}

declare -A rows
for round in $(seq 1 "$ROUNDS"); do
  log "round $round of $ROUNDS"
  if [ $((round % 2)) = 1 ]; then
    rows[kept]+="$(crawl kept "$round")"$'\n'
    rows[not_kept]+="$(crawl not-kept "$round" --no-keep-bodies)"$'\n'
  else
    rows[not_kept]+="$(crawl not-kept "$round" --no-keep-bodies)"$'\n'
    rows[kept]+="$(crawl kept "$round")"$'\n'
  fi
  rows[extract]+="$(extract "$round")"$'\n'
done

median() {  # median COLUMN < rows
  "$PY" -c 'import sys, statistics; c = int(sys.argv[1]); print(statistics.median(float(l.split()[c]) for l in sys.stdin if l.strip()))' "$1"
}
echo
echo "keep_bodies on cppreference ($CPPREF_ENTRY, at most $MAX_PAGES pages), $ROUNDS rounds, medians; $(machine_line)"
echo
echo "| crawl | pages | CPU ms a page | database bytes a page | kept body bytes a page | body bytes a page |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
for kind in kept not_kept; do
  r=${rows[$kind]}
  printf '| %s | %.0f | %.3f | %.0f | %.0f | %.0f |\n' "$kind" "$(median 0 <<<"$r")" "$(median 1 <<<"$r")" \
    "$(median 2 <<<"$r")" "$(median 3 <<<"$r")" "$(median 4 <<<"$r")"
done
r=${rows[extract]}
printf '\n`actorcrawl extract` with one rule over the kept pages: %.0f pages, %.3f ms of CPU a page, no request.\n' \
  "$(median 0 <<<"$r")" "$(median 1 <<<"$r")"

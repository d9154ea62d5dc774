#!/usr/bin/env bash
# Export at scale: a synthetic crawl database of EXPORT_PAGES pages with
# EXPORT_LINKS links each (bench/export_db.py, the crawl's own schema;
# default 1,000,000 pages and 10,000,000 links), exported by actorcrawl in
# every format under /usr/bin/time -v. Prints wall time, peak RSS and
# output size per export as a Markdown table; fails when a peak RSS passes
# EXPORT_RSS_MB (the export must stream, whatever the crawl's size).
#
#   bench/export_scale.sh
#   EXPORT_PAGES=100000 bench/export_scale.sh      # a smaller run
#
# Environment (defaults in brackets):
#   EXPORT_PAGES [1000000] EXPORT_LINKS [10] EXPORT_HOSTS [1000]
#   EXPORT_RSS_MB [64]                 the peak RSS allowed to any export
#   ACTORCRAWL_BIN [build/actorcrawl]  the binary to measure
#   EXPORT_DB []                       an existing database to export instead
#                                      (e.g. bench/scale.sh's, with KEEP_WORK=1)
#   KEEP_WORK [0]                      1: keep the temporary directory
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${ACTORCRAWL_BIN:-build/actorcrawl}
PAGES=${EXPORT_PAGES:-1000000}
LINKS=${EXPORT_LINKS:-10}
HOSTS=${EXPORT_HOSTS:-1000}
RSS_MB=${EXPORT_RSS_MB:-64}
work=$(mktemp -d /tmp/actorcrawl-export-bench.XXXXXX)
[ "${KEEP_WORK:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT

db=${EXPORT_DB:-}
if [ -z "$db" ]; then
  db=$work/crawl.db
  start=$(date +%s)
  python3 bench/export_db.py "$db" "$PAGES" "$LINKS" "$HOSTS"
  echo "generated $PAGES pages x $LINKS links in $(( $(date +%s) - start )) s: $(du -h "$db" | cut -f1)" >&2
fi

failed=0
echo "| export | wall time | peak RSS | output |"
echo "| --- | ---: | ---: | ---: |"
run() {
  local name=$1 out=$work/out; shift
  /usr/bin/time -v "$BIN" export --db "$db" "$@" --output "$out" 2>"$work/time.txt"
  local wall rss size
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
  size=$(du -h "$out" | cut -f1)
  echo "| $name | $wall | $((rss / 1024)) MB | $size |"
  [ $((rss / 1024)) -le "$RSS_MB" ] || { echo "$name: peak RSS $((rss / 1024)) MB > $RSS_MB MB" >&2; failed=1; }
  rm -f "$out"
}
run "jsonl" --format jsonl
run "csv" --format csv
run "graphml (domains)" --format graphml
run "gexf (domains)" --format gexf
run "dot (domains)" --format dot
run "graphml (pages)" --format graphml --graph pages
run "gexf (pages)" --format gexf --graph pages
exit $failed

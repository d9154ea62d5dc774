#!/usr/bin/env bash
# What a recrawl of an unchanged site costs, against a full fetch: a static
# site served by nginx on 127.0.0.1 is crawled once, then three more times
# on copies of that database, with revisit_after elapsed:
#   full        a fresh database: every page fetched in full (the baseline)
#   conditional the first crawl's database: every request carries the stored
#               ETag and Last-Modified, nginx answers 304, nothing is parsed
#   no-validators the same database with its validators removed: every page
#               fetched in full again, found unchanged by its digest
# For each: requests, 200s and 304s and the bytes nginx sent (its access
# log's $bytes_sent: headers and bodies), wall time and actorcrawl's CPU
# time (/usr/bin/time -v). Nothing outside 127.0.0.0/8 is contacted.
#
#   bench/recrawl.sh                 # 2000 pages of 16 KB, 3 rounds, medians
#
# Environment (defaults in brackets): PAGES [2000] PAGE_KB [16] LINKS [10]
# ROUNDS [3] RECRAWL_PORT [8084] ACTORCRAWL_BIN [build/actorcrawl]
# AC_ARGS [] (extra crawl flags) KEEP_WORK [0] TOOL_TIMEOUT [600]
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
LOG_TAG=recrawl
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$BENCH_DIR/lib.sh"

PAGES=${PAGES:-2000}
PAGE_KB=${PAGE_KB:-16}
LINKS=${LINKS:-10}
ROUNDS=${ROUNDS:-3}
PORT=${RECRAWL_PORT:-8084}
TOOL_TIMEOUT=${TOOL_TIMEOUT:-600}

need_nginx_and_time
command -v sqlite3 >/dev/null 2>&1 || apt_install sqlite3 || die "sqlite3 (package sqlite3) is needed"
start_work_dir recrawl
resolve_actorcrawl "$WORK"

# A LINKS-ary tree of PAGES pages, each PAGE_KB of text; every file dated
# the same fixed time, so nginx's validators are stable.
"$PY" - "$WORK/www" "$PAGES" "$PAGE_KB" "$LINKS" <<'PYEOF'
import os, sys
root, pages, kb, links = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
os.makedirs(root, exist_ok=True)
filler = ("lorem ipsum dolor sit amet " * 40)[:1000]
for i in range(pages):
    name = "index.html" if i == 0 else "p%d.html" % i
    kids = [k for k in range(i * links + 1, i * links + links + 1) if k < pages]
    body = "<html><head><title>Page %d</title></head><body>" % i
    body += "".join('<a href="p%d.html">%d</a> ' % (k, k) for k in kids)
    while len(body) < kb * 1024:
        body += "<p>%d %s</p>" % (i, filler)
    body += "</body></html>"
    path = os.path.join(root, name)
    with open(path, "w") as f:
        f.write(body)
    os.utime(path, (1600000000, 1600000000))
PYEOF

{
  # The head turns the access log off; this benchmark reads it.
  nginx_conf_head "$WORK/nginx" | grep -v 'access_log off;'
  echo "  log_format recrawl '\$http_user_agent \$status \$bytes_sent';"
  echo "  access_log $WORK/nginx/access.log recrawl;"
  echo "  etag on; if_modified_since exact;"
  echo "  types { text/html html; }"
  echo "  server { listen 127.0.0.1:$PORT; root $WORK/www; }"
  echo "}"
} >"$WORK/nginx.conf.tmp"
mkdir -p "$WORK/nginx"
mv "$WORK/nginx.conf.tmp" "$WORK/nginx/nginx.conf"
start_nginx "$WORK/nginx" wait-url "http://127.0.0.1:$PORT/index.html" || die "nginx did not start"

SEED="http://127.0.0.1:$PORT/index.html"
# crawl DB AGENT [FLAGS...]: one measured crawl; its row of numbers to stdout
crawl() {
  local db=$1 agent=$2; shift 2
  local dir; dir=$(mktemp -d "$WORK/run.XXXXXX")
  (cd "$dir" && measured "$AC_BIN" crawl --seed "$SEED" --db "$db" --metrics "$dir/metrics.log" \
      --max-pages 1000000 --max-depth 20 --politeness-delay-ms 0 --politeness-delay-factor-percent 0 --no-respect-robots-txt \
      --progress-interval-ms 1000000 --user-agent "$agent" "$@" ${AC_ARGS:-} >"$dir/out.log" 2>&1) \
    || die "crawl failed: $(tail -n 5 "$dir/out.log")"
  "$PY" - "$WORK/nginx/access.log" "$agent" "$dir/time.txt" <<'PYEOF'
import sys
log, agent, timefile = sys.argv[1:4]
n = ok = nm = sent = 0
for line in open(log):
    parts = line.rsplit(" ", 2)
    if len(parts) != 3 or parts[0] != agent:
        continue
    n += 1; sent += int(parts[2])
    ok += parts[1] == "200"; nm += parts[1] == "304"
wall = cpu = 0.0
for line in open(timefile):
    k, _, v = line.strip().partition(": ")
    if k == "Elapsed (wall clock) time (h:mm:ss or m:ss)":
        f = [float(x) for x in v.split(":")]
        wall = sum(x * 60 ** i for i, x in enumerate(reversed(f)))
    elif k in ("User time (seconds)", "System time (seconds)"):
        cpu += float(v)
print(n, ok, nm, sent, "%.2f" % wall, "%.2f" % cpu)
PYEOF
}

declare -A rows
for round in $(seq 1 "$ROUNDS"); do
  log "round $round of $ROUNDS"
  rm -f "$WORK"/first.db* "$WORK"/cond.db* "$WORK"/plain.db*
  rows[full]+="$(crawl "$WORK/first.db" "full-$round")"$'\n'
  for f in "$WORK"/first.db*; do cp "$f" "${f/first.db/cond.db}"; done
  for f in "$WORK"/first.db*; do cp "$f" "${f/first.db/plain.db}"; done
  # revisit_after elapsed: the pages as fetched two hours ago.
  for db in cond plain; do
    sqlite3 "$WORK/$db.db" "UPDATE frontier SET settled_at = settled_at - 7200000 WHERE state = 1;"
  done
  sqlite3 "$WORK/plain.db" "UPDATE pages SET etag = NULL, last_modified = NULL;"
  rows[conditional]+="$(crawl "$WORK/cond.db" "cond-$round" --revisit-after 1h)"$'\n'
  rows[no_validators]+="$(crawl "$WORK/plain.db" "plain-$round" --revisit-after 1h)"$'\n'
done

echo
echo "recrawl of $PAGES pages of ${PAGE_KB} KB ($LINKS links each), $ROUNDS rounds, medians; $(machine_line)"
echo
echo "| run | requests | 200 | 304 | bytes sent by nginx | wall s | actorcrawl CPU s |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for kind in full conditional no_validators; do
  printf '%s' "${rows[$kind]}" | "$PY" -c '
import sys, statistics
kind = sys.argv[1]
runs = [l.split() for l in sys.stdin if l.strip()]
cols = list(zip(*runs))
med = lambda i: statistics.median(float(x) for x in cols[i])
print("| %s | %d | %d | %d | %d | %.2f | %.2f |" % (kind, med(0), med(1), med(2), med(3), med(4), med(5)))
' "$kind"
done

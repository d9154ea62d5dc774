#!/usr/bin/env bash
# Each page requested once: actorcrawl crawls a synthetic web served by nginx
# on loopback with its access log on, ROUNDS times from an empty database,
# and nginx's record of each run is compared with the web and the database:
# requests, pages requested more than once, pages stored, requests per page,
# pages/s. Two webs: the benchmark's own (bench/run.sh's defaults: 50 hosts x
# 200 pages, three workers' worth of transfers, max_depth 1000) and a small
# one (10 x 200). Politeness off, as in bench/run.sh, so shorter paths are
# found late all the time.
#
#   bench/once.sh                  both webs, 5 rounds each
#   ROUNDS=2 WEBS="10x200" bench/once.sh
#
# Writes bench/results/once-latest.md (the per-run JSON under
# bench/results/once-<date>/, which git ignores). Exits 1 when any run
# requested a page twice or left an in-scope page unstored.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
LOG_TAG=once
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$BENCH_DIR/lib.sh"

ROUNDS=${ROUNDS:-5}
WEBS=${WEBS:-50x200 10x200}
PAGE_KB=${PAGE_KB:-16}; LINKS=${LINKS:-30}
AC_WORKERS=${AC_WORKERS:-2}; AC_TRANSFERS=${AC_TRANSFERS:-32}; AC_ARGS=${AC_ARGS:-}
NGINX_WORKERS=${NGINX_WORKERS:-1}
TOOL_TIMEOUT=${TOOL_TIMEOUT:-900}
PORT=${ONCE_PORT:-8084}
RESULTS_DIR=${RESULTS_DIR:-$BENCH_DIR/results}

need_nginx_and_time
start_work_dir once
resolve_actorcrawl "$WORK"
STAMP=$(date -u +%Y%m%d-%H%M%S)
RUN_DIR=$RESULTS_DIR/once-$STAMP
mkdir -p "$RUN_DIR"
MD=$RESULTS_DIR/once-latest.md
failed=0
{
  echo "# Each page requested once ($(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown))"
  echo
  echo "\`bench/once.sh\` with ROUNDS=$ROUNDS, --workers $AC_WORKERS --transfers-per-worker $AC_TRANSFERS${AC_ARGS:+ $AC_ARGS}, politeness off; $(machine_line 2>/dev/null || nproc) "
  echo
  echo "| web | run | requests | pages requested | requested twice | stored (200) | in scope stored | requests/page | wall s | pages/s |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
} >"$MD"

for shape in $WEBS; do
  hosts=${shape%x*}; pages=${shape#*x}
  web=$WORK/web-$shape
  "$PY" "$BENCH_DIR/synthweb.py" --out "$web" --port "$PORT" --hosts "$hosts" --pages "$pages" \
    --page-kb "$PAGE_KB" --links "$LINKS" >/dev/null
  chmod -R a+rX "$web"
  mapfile -t web_hosts < <("$PY" -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["hosts"]))' "$web/web.json")
  allowed=()
  for h in "${web_hosts[@]}"; do allowed+=(--allowed-domains "$h"); done
  for round in $(seq 1 "$ROUNDS"); do
    dir=$WORK/runs/$shape-$round
    prefix=$WORK/nginx-$shape-$round
    mkdir -p "$dir" "$prefix"
    "$PY" "$BENCH_DIR/benchtool.py" nginx-conf "$web" "$prefix" --workers "$NGINX_WORKERS" --access-log
    start_nginx "$prefix" wait-ready "$web" || die "nginx did not start"
    # shellcheck disable=SC2086
    (cd "$dir" && measured env -u ACTORCRAWL_BIN "$AC_BIN" crawl --seed "http://127.0.0.1:$PORT/" "${allowed[@]}" \
        --politeness-delay 0 --politeness-delay-factor-percent 0 --no-respect-robots-txt \
        --max-pages 100000000 --max-depth 1000 \
        --workers "$AC_WORKERS" --transfers-per-worker "$AC_TRANSFERS" \
        --db crawl.db --metrics metrics.log $AC_ARGS >crawl.log 2>&1) || true
    stop_nginx   # flushes the access log
    line=$("$PY" "$BENCH_DIR/benchtool.py" once "$dir/once.json" --web "$web" --access-log "$prefix/access.log" \
             --time "$dir/time.txt" --db "$dir/crawl.db")
    log "$shape round $round: $line"
    cp "$dir/once.json" "$RUN_DIR/$shape-$round.json"
    "$PY" - "$dir/once.json" "$shape" "$round" >>"$MD" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("| %s | %s | %d | %d | %d | %d | %d of %d | %.4f | %.2f | %.0f |" % (
    sys.argv[2], sys.argv[3], r["requests"], r["pages_requested"], r["requested_twice"], r["stored_200"],
    r["in_scope_stored"], r["in_scope"], r["requests_per_page"] or 0, r["wall_s"] or 0, r["pages_per_s_wall"] or 0))
PY
    if ! "$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r["requested_twice"] == 0 and r["in_scope_stored"] == r["in_scope"] else 1)' "$dir/once.json"; then
      failed=1
    fi
    rm -rf "$prefix"
  done
  rm -rf "$web"
done
cp "$MD" "$RUN_DIR/once.md"
cat "$MD"
exit "$failed"

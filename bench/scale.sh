#!/usr/bin/env bash
# Scale: an actorcrawl crawl whose frontier reaches 1,000,000 discovered URLs,
# on an unbounded web served by nginx on loopback addresses (127.0.0.1 ..
# 127.0.0.H). Nothing outside 127.0.0.0/8 is contacted.
#
#   bench/scale.sh
#   SCALE_HOSTS=10 SCALE_MAX_PAGES=5000 bench/scale.sh     # a smaller run
#
# The web: every path /p/<label> of every host answers the same template page
# (nginx's sub_filter writes the label into it) with SCALE_LINKS relative
# links <label>-0 .. <label>-(SCALE_LINKS-1), so each fetched page discovers
# SCALE_LINKS new URLs of its own host and the web never ends. Labels grow by
# at most 3 characters a level and no path segment repeats, so actorcrawl's
# trap defences (max_url_length 1024, max_repeated_path_segments 3) never
# refuse a link; --max-depth 1000 lifts the depth limit (the crawl goes 3
# levels deep). --max-pages stops the crawl once the frontier holds the
# target: SCALE_MAX_PAGES pages x SCALE_LINKS links.
#
# Measured: peak RSS (/usr/bin/time -v), wall time, discovered URLs (rows of
# the frontier table), the database size, and pages/s over the first and the
# last 10% of the fetched pages (pages.fetched_at). Targets: frontier >=
# SCALE_TARGET_URLS, peak RSS <= SCALE_RSS_MB, last-10% pages/s within
# SCALE_TOLERANCE_PCT of the first 10%. Writes a Markdown section to
# bench/results/scale-latest.md (raw numbers under
# bench/results/run-<date>-scale/, ignored by git). bench/run.sh calls it
# (SCALE=1) and appends the section to its latest.md.
#
# Environment (defaults in brackets):
#   SCALE_HOSTS [20] SCALE_LINKS [100]   hosts (one seed each), links a page
#   SCALE_MAX_PAGES [11000]         actorcrawl --max-pages
#   SCALE_PORT [8083]               nginx port on every host
#   SCALE_TARGET_URLS [1000000] SCALE_RSS_MB [256] SCALE_TOLERANCE_PCT [20]   the targets
#   AC_WORKERS [2] AC_TRANSFERS [32] AC_ARGS []   actorcrawl's fetch settings, extra flags
#   ACTORCRAWL_BIN [build/actorcrawl] the binary to measure (copied first, never rebuilt when given)
#   NGINX_WORKERS [1]               nginx worker_processes
#   TOOL_TIMEOUT [1800]             seconds the crawl may take
#   RESULTS_DIR [bench/results]     where scale-latest.md goes
#   RAW_DIR [RESULTS_DIR/run-<date>-scale]  raw numbers (time -v, logs, metrics, RSS samples)
#   SECTION_MD [RESULTS_DIR/scale-latest.md] where the Markdown section goes
#   KEEP_WORK [0]                   1: keep the temporary directory (the database, logs)
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
LOG_TAG=scale
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$BENCH_DIR/lib.sh"

SCALE_HOSTS=${SCALE_HOSTS:-20}; SCALE_LINKS=${SCALE_LINKS:-100}
SCALE_MAX_PAGES=${SCALE_MAX_PAGES:-11000}; SCALE_PORT=${SCALE_PORT:-8083}
SCALE_TARGET_URLS=${SCALE_TARGET_URLS:-1000000}; SCALE_RSS_MB=${SCALE_RSS_MB:-256}
SCALE_TOLERANCE_PCT=${SCALE_TOLERANCE_PCT:-20}
AC_WORKERS=${AC_WORKERS:-2}; AC_TRANSFERS=${AC_TRANSFERS:-32}; AC_ARGS=${AC_ARGS:-}
TOOL_TIMEOUT=${TOOL_TIMEOUT:-1800}
KEEP_WORK=${KEEP_WORK:-0}
RESULTS_DIR=${RESULTS_DIR:-$BENCH_DIR/results}
STAMP=$(date -u +%Y%m%d-%H%M%S)
STARTED=$(date -u '+%Y-%m-%d %H:%M UTC')
RAW_DIR=${RAW_DIR:-$RESULTS_DIR/run-$STAMP-scale}
SECTION_MD=${SECTION_MD:-$RESULTS_DIR/scale-latest.md}
{ [ "$SCALE_HOSTS" -ge 1 ] && [ "$SCALE_HOSTS" -le 250 ]; } || die "SCALE_HOSTS must be 1..250"
{ [ "$SCALE_LINKS" -ge 1 ] && [ "$SCALE_LINKS" -le 1000 ]; } || die "SCALE_LINKS must be 1..1000"

need_nginx_and_time
NGINX_BUILD=$("$NGINX" -V 2>&1 || true)
case $NGINX_BUILD in *--with-http_sub_module*) ;; *) die "this nginx has no http_sub_module (sub_filter)";; esac

SAMPLER_PID=""
CRAWL_PID=""
before_cleanup() {
  if [ -n "$CRAWL_PID" ] && [ -e "/proc/$CRAWL_PID" ]; then
    # Interrupted: TERM to timeout (the child of time), which passes it on to actorcrawl.
    local t=""
    read -r t _ 2>/dev/null <"/proc/$CRAWL_PID/task/$CRAWL_PID/children" || true
    if [ -n "$t" ]; then kill -TERM "$t" 2>/dev/null || true; fi
    wait "$CRAWL_PID" 2>/dev/null || true
  fi
  if [ -n "$SAMPLER_PID" ]; then kill "$SAMPLER_PID" 2>/dev/null || true; wait "$SAMPLER_PID" 2>/dev/null || true; fi
}
start_work_dir scale
resolve_actorcrawl "$WORK"
mkdir -p "$RAW_DIR"

# ------------------------------------------------------------------ the web

WWW=$WORK/www
mkdir -p "$WWW"
"$PY" - "$WWW/template.html" "$SCALE_LINKS" <<'EOF'
import sys
out, n = sys.argv[1], int(sys.argv[2])
text = ("This page is one of an endless family: every path under /p/ answers with it, "
        "and each of its links leads one level further down. ") * 8
items = "\n".join('<li><a href="HERE-%d">Item HERE-%d</a></li>' % (i, i) for i in range(n))
page = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Page HERE</title>
<meta name="description" content="Scale benchmark page HERE with %d links.">
</head>
<body>
<h1>Page HERE</h1>
<p>%s</p>
<ul>
%s
</ul>
</body>
</html>
""" % (n, text, items)
open(out, "w").write(page)
EOF
chmod -R a+rX "$WWW"

NGX=$WORK/nginx
mkdir -p "$NGX"
HOSTS=()
for i in $(seq 1 "$SCALE_HOSTS"); do HOSTS+=("127.0.0.$i"); done
{
  nginx_conf_head "$NGX"
  echo "  types { text/html html; }"
  echo "  charset utf-8;"
  echo "  server {"
  for h in "${HOSTS[@]}"; do echo "    listen $h:$SCALE_PORT;"; done
  echo "    root $WWW;"
  # One template for every /p/<label>; sub_filter puts the label in (links
  # relative to the page, so /p/a-1 links to /p/a-1-0 ...).
  echo '    location ~ "^/p/(?<label>[A-Za-z0-9_-]*)$" {'
  echo "      try_files /template.html =404;"
  echo "      sub_filter HERE \$label;"
  echo "      sub_filter_once off;"
  echo "    }"
  echo "    location / { return 404; }"
  echo "  }"
  echo "}"
} >"$NGX/nginx.conf"
SEEDS=()
for h in "${HOSTS[@]}"; do SEEDS+=("http://$h:$SCALE_PORT/p/s"); done
start_nginx "$NGX" wait-url "${SEEDS[0]}" "${SEEDS[-1]}" || die "nginx could not be started on port $SCALE_PORT"
# The template works: the label is written into the links.
"$PY" -c 'import sys, urllib.request; b = urllib.request.urlopen(sys.argv[1], timeout=5).read().decode(); sys.exit(0 if "href=\"s-7-0\"" in b and "HERE" not in b else 1)' \
  "http://${HOSTS[0]}:$SCALE_PORT/p/s-7" || die "nginx's sub_filter did not rewrite the template"
log "nginx serves $SCALE_HOSTS hosts on 127.0.0.1-$SCALE_HOSTS:$SCALE_PORT (pid $NGINX_PID), $SCALE_LINKS links a page"

# ------------------------------------------------------------------ the crawl

# rss_sampler PID FILE: "milliseconds RSS-KiB" each second for the deepest
# process under PID (time -> timeout -> actorcrawl), read from /proc with
# bash builtins only: on a busy machine a fork per probe is too slow.
rss_sampler() {
  trap - EXIT INT TERM
  local pid=$1 out=$2 t0=${EPOCHREALTIME/./} leaf kids kb line
  while [ -e "/proc/$pid" ]; do
    leaf=$pid
    while :; do
      kids=""
      read -r kids _ 2>/dev/null <"/proc/$leaf/task/$leaf/children" || true   # no newline at its end
      [ -n "$kids" ] || break
      leaf=$kids
    done
    kb=""
    while read -r line; do
      case $line in VmRSS:*) line=${line#VmRSS:}; line=${line% kB}; kb=${line//[[:space:]]/}; break;; esac
    done 2>/dev/null <"/proc/$leaf/status" || true
    if [ "$leaf" != "$pid" ] && [ -n "$kb" ]; then
      echo "$(((${EPOCHREALTIME/./} - t0) / 1000)) $kb" >>"$out"
    fi
    sleep 1
  done
}

RUN=$WORK/run
mkdir -p "$RUN"
ALLOWED=()
SEED_ARGS=()
for h in "${HOSTS[@]}"; do ALLOWED+=(--allowed-domains "$h"); SEED_ARGS+=(--seed "http://$h:$SCALE_PORT/p/s"); done
AC_FLAGS="--politeness-delay 0 --politeness-delay-factor-percent 0 --no-respect-robots-txt --max-pages $SCALE_MAX_PAGES --max-depth 1000 --workers $AC_WORKERS --transfers-per-worker $AC_TRANSFERS${AC_ARGS:+ $AC_ARGS}"
log "crawl: $SCALE_HOSTS seeds, --max-pages $SCALE_MAX_PAGES (load average $(cut -d' ' -f1-3 /proc/loadavg))"
: >"$RUN/rss.txt"
# shellcheck disable=SC2086
(cd "$RUN" && exec /usr/bin/time -v -o time.txt timeout -k 10 "$TOOL_TIMEOUT" \
    env -u ACTORCRAWL_BIN "$AC_BIN" crawl "${SEED_ARGS[@]}" "${ALLOWED[@]}" \
    $AC_FLAGS --db crawl.db --metrics metrics.log >crawl.log 2>&1) &
CRAWL_PID=$!
rss_sampler "$CRAWL_PID" "$RUN/rss.txt" &
SAMPLER_PID=$!
wait "$CRAWL_PID" || true
CRAWL_PID=""
kill "$SAMPLER_PID" 2>/dev/null || true; wait "$SAMPLER_PID" 2>/dev/null || true; SAMPLER_PID=""
NGINX_CPU=$(nginx_cpu_s)
stop_nginx
grep -q '^\s*Exit status: 0$' "$RUN/time.txt" || log "actorcrawl did not exit 0: $(grep -e 'Exit status' -e 'terminated by signal' "$RUN/time.txt" | tr -s ' ')"
[ -f "$RUN/crawl.db" ] || die "no database was written (see $RUN/crawl.log)"

timeout 600 "$PY" "$BENCH_DIR/benchtool.py" scale "$RUN/scale.json" --db "$RUN/crawl.db" --time "$RUN/time.txt" \
  --md "$RUN/scale-table.md" --rss-limit-mb "$SCALE_RSS_MB" --min-discovered "$SCALE_TARGET_URLS" \
  --tolerance-pct "$SCALE_TOLERANCE_PCT" >/dev/null
cp "$RUN/scale.json" "$RUN/time.txt" "$RUN/crawl.log" "$RUN/rss.txt" "$RUN/scale-table.md" "$RAW_DIR/"
cp "$RUN/metrics.log" "$RAW_DIR/" 2>/dev/null || true
cp "$NGX/error.log" "$RAW_DIR/nginx-error.log" 2>/dev/null || true

# ------------------------------------------------------------------ report

rss_line() {  # RSS at a few points of the run, from the samples
  "$PY" - "$RUN/rss.txt" <<'EOF'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
rows = [(int(a) / 1000.0, int(b)) for a, b in rows]
if len(rows) < 3:
    sys.exit(0)
end = rows[-1][0]
pts = []
for frac in (0.1, 0.25, 0.5, 0.75, 0.9, 1.0):
    t, kb = min(rows, key=lambda r: abs(r[0] - frac * end))
    pts.append("%d%%: %.0f MB" % (frac * 100, kb / 1024.0))
print("- resident memory over the run (sampled each second, by elapsed time): " + ", ".join(pts))
EOF
}

{
  echo "## Scale: a frontier of $("$PY" -c 'import sys; print("{:,}".format(int(sys.argv[1])))' "$SCALE_TARGET_URLS") discovered URLs"
  echo
  echo "Run started $STARTED with \`bench/scale.sh\`."
  echo
  echo "- web: $SCALE_HOSTS hosts (127.0.0.1-$SCALE_HOSTS:$SCALE_PORT), one seed each (\`/p/s\`); nginx answers every \`/p/<label>\` with one template page ($(wc -c <"$WWW/template.html") bytes before substitution) whose $SCALE_LINKS relative links \`<label>-0\` .. \`<label>-$((SCALE_LINKS - 1))\` are all new URLs (\`sub_filter\`): an unbounded web"
  echo "- actorcrawl: \`crawl --seed http://127.0.0.N:$SCALE_PORT/p/s --allowed-domains 127.0.0.N\` (N = 1..$SCALE_HOSTS) \`$AC_FLAGS\` ($("$AC_BIN" --version 2>&1 | head -n 1), binary sha256 $(sha256sum "$AC_BIN" | cut -c1-12)); no trap defence is reached (URLs stay short, no segment repeats), \`--max-depth 1000\` lifts the depth limit, \`--max-pages\` ends the crawl"
  echo "- machine: $(machine_line)"
  echo
  cat "$RUN/scale-table.md"
  echo
  rss_line || true
  echo "- nginx (same machine, one worker, sub_filter on every page) used $NGINX_CPU s of CPU during the crawl"
  "$PY" - "$RUN/scale.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
print("- frontier states %s; refused %s; HTTP statuses %s; dead letters %d; run ended: %s; exit status %s" % (
    r["frontier_states"], r["refused"] or "none", r["status_counts"], r["dead_letters"],
    ", ".join(str(x) for x in r["termination_reasons"]), r["exit_status"]))
EOF
} >"$RAW_DIR/scale.md"
mkdir -p "$(dirname "$SECTION_MD")"
cp "$RAW_DIR/scale.md" "$SECTION_MD"
cat "$SECTION_MD"

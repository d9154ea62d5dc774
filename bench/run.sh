#!/usr/bin/env bash
# End-to-end benchmark: actorcrawl against wget and Scrapy on a synthetic web
# served by nginx on loopback addresses (127.0.0.1 .. 127.0.0.H). Nothing
# outside 127.0.0.0/8 is contacted.
#
#   bench/run.sh                 # full suite: 3 alternating rounds + the polite crawl,
#                                # the cppreference site and the scale crawl
#   SMOKE=1 bench/run.sh         # tiny web, actorcrawl (and wget), asserts 100% coverage
#
# It builds actorcrawl when build/actorcrawl is missing, installs nginx,
# wget, python3-scrapy and time from Debian when missing (idempotent),
# generates the web (bench/synthweb.py), starts nginx as a foreground process
# with a generated config from a temporary directory, runs the tools in
# alternating rounds under /usr/bin/time -v, stops nginx and writes the table
# of medians to bench/results/latest.md (raw numbers of each run under
# bench/results/run-<date>/, which git ignores).
#
# Environment (defaults in brackets):
#   HOSTS [50] PAGES [200] PAGE_KB [16] LINKS [30]   the web: hosts x pages per host
#   ROUNDS [3]                      alternating rounds; the table shows medians
#   TOOLS ["actorcrawl wget scrapy"] a subset to run; `curl` adds the fetch-only
#                                   ceiling: curl --parallel fetching the web's every URL
#                                   (urls.txt) with as many transfers as actorcrawl has,
#                                   bodies thrown away, no parsing, no crawl
#                                   (TOOLS="actorcrawl curl" for the ratio)
#   POLITE [1]                      also run the polite-crawl scenario
#   POLITE_HOSTS [200] POLITE_PAGES [150] POLITE_PAGE_KB [2] POLITE_LINKS [10]
#   POLITE_DELAY_MS [100] POLITE_MAX_PAGES [20000]
#   POLITE_ARGS []                  extra actorcrawl flags for the polite crawl only
#   CPPREF [1]                      also run bench/cppreference.sh (actorcrawl and wget on
#                                   Debian's cppreference HTML, ROUNDS rounds; port 8082)
#   SCALE [1]                       also run bench/scale.sh (actorcrawl to a frontier of
#                                   1,000,000 URLs; port 8083; its SCALE_* variables apply)
#                                   Both append their section to latest.md; 0 skips one.
#   AC_WORKERS [2] AC_TRANSFERS [32] AC_ARGS []   actorcrawl's fetch settings, extra flags
#   TOOL_CPUS []                    run every tool under taskset -c TOOL_CPUS (0: one core;
#                                   with AC_ARGS="--parse-lanes 1" the Pi case); cppreference too
#   ACTORCRAWL_BIN [build/actorcrawl] the binary to measure (never rebuilt when given)
#   BENCH_PORT [8080] POLITE_PORT [8081]  nginx ports (SMOKE: a random high port)
#   NGINX_WORKERS [1]               nginx worker_processes
#   TOOL_TIMEOUT [900]              seconds one tool run may take (SMOKE: 25)
#   RESULTS_DIR [bench/results]     where latest.md goes (SMOKE: a temporary directory)
#   KEEP_WORK [0]                   1: keep the temporary directory (web, databases, logs)
#   SMOKE [0]                       1: 3 hosts x 20 pages, 1 round, no Scrapy, no polite,
#                                   cppreference or scale scenario; exits 1 unless
#                                   actorcrawl reached every page,
#                                   77 (skipped) when nginx cannot be installed or started
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
SMOKE=${SMOKE:-0}
SKIP=77

# What a smoke run cannot have makes it skipped (77), not failed.
setup_failed() {
  if [ "$SMOKE" = 1 ]; then printf 'skipped: %s\n' "$*"; exit "$SKIP"; fi
  die "$*"
}
if [ "$SMOKE" = 1 ]; then APT_LIMIT=50; fi   # CTest gives the smoke test 120 s in all
LOG_TAG=bench
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$BENCH_DIR/lib.sh"

if [ "$SMOKE" = 1 ]; then
  HOSTS=${HOSTS:-3}; PAGES=${PAGES:-20}; PAGE_KB=${PAGE_KB:-4}; LINKS=${LINKS:-10}
  ROUNDS=${ROUNDS:-1}; POLITE=${POLITE:-0}; TOOL_TIMEOUT=${TOOL_TIMEOUT:-25}
  TOOLS=${TOOLS:-actorcrawl wget}
else
  HOSTS=${HOSTS:-50}; PAGES=${PAGES:-200}; PAGE_KB=${PAGE_KB:-16}; LINKS=${LINKS:-30}
  ROUNDS=${ROUNDS:-3}; POLITE=${POLITE:-1}; TOOL_TIMEOUT=${TOOL_TIMEOUT:-900}
  TOOLS=${TOOLS:-actorcrawl wget scrapy}
fi
POLITE_HOSTS=${POLITE_HOSTS:-200}; POLITE_PAGES=${POLITE_PAGES:-150}
POLITE_PAGE_KB=${POLITE_PAGE_KB:-2}; POLITE_LINKS=${POLITE_LINKS:-10}
POLITE_DELAY_MS=${POLITE_DELAY_MS:-100}; POLITE_MAX_PAGES=${POLITE_MAX_PAGES:-20000}
POLITE_ARGS=${POLITE_ARGS:-}
AC_WORKERS=${AC_WORKERS:-2}; AC_TRANSFERS=${AC_TRANSFERS:-32}; AC_ARGS=${AC_ARGS:-}
NGINX_WORKERS=${NGINX_WORKERS:-1}
KEEP_WORK=${KEEP_WORK:-0}
TOOLS=${TOOLS//,/ }
for t in $TOOLS; do
  case $t in actorcrawl|wget|scrapy|curl) ;; *) die "unknown tool '$t' in TOOLS (actorcrawl wget scrapy curl)";; esac
done
has_tool() { case " $TOOLS " in *" $1 "*) return 0;; *) return 1;; esac; }

# ------------------------------------------------------------------ packages

need_nginx_and_time
if has_tool wget && ! command -v wget >/dev/null 2>&1; then
  if [ "$SMOKE" = 1 ]; then
    log "wget is not installed: smoke mode runs actorcrawl only"; TOOLS=${TOOLS//wget/}
  else
    log "installing wget"; apt_install wget || { log "wget unavailable: left out"; TOOLS=${TOOLS//wget/}; }
  fi
fi
SCRAPY=${SCRAPY:-/usr/bin/scrapy}
if has_tool scrapy && [ ! -x "$SCRAPY" ]; then
  if [ "$SMOKE" = 1 ]; then
    log "scrapy is not installed: left out"; TOOLS=${TOOLS//scrapy/}
  else
    log "installing python3-scrapy"
    apt_install python3-scrapy || true
    [ -x "$SCRAPY" ] || { log "Scrapy unavailable: left out"; TOOLS=${TOOLS//scrapy/}; }
  fi
fi
if has_tool curl && ! command -v curl >/dev/null 2>&1; then
  log "installing curl"; apt_install curl || { log "curl unavailable: left out"; TOOLS=${TOOLS//curl/}; }
fi
has_tool actorcrawl || has_tool wget || has_tool scrapy || has_tool curl || die "no tool left to run"

# ------------------------------------------------------------------ work dir, nginx

start_work_dir bench
# Measure a snapshot, so a rebuild during the run cannot change the binary.
if has_tool actorcrawl; then resolve_actorcrawl "$WORK"; fi

# start_web_nginx WEB_DIR PREFIX [--access-log]: nginx for a synthetic web
# (config from benchtool.py); returns 1 when nginx did not come up
start_web_nginx() {
  local web=$1 prefix=$2; shift 2
  mkdir -p "$prefix"
  "$PY" "$BENCH_DIR/benchtool.py" nginx-conf "$web" "$prefix" --workers "$NGINX_WORKERS" "$@"
  start_nginx "$prefix" wait-ready "$web"
}

# ------------------------------------------------------------------ the web

if [ "$SMOKE" = 1 ]; then
  RESULTS_DIR=${RESULTS_DIR:-$WORK/results}
else
  RESULTS_DIR=${RESULTS_DIR:-$BENCH_DIR/results}
fi
STAMP=$(date -u +%Y%m%d-%H%M%S)
STARTED=$(date -u '+%Y-%m-%d %H:%M UTC')
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
RUN_DIR=$RESULTS_DIR/run-$STAMP
mkdir -p "$RUN_DIR"

WEB=$WORK/web
gen_web() {  # gen_web DIR PORT HOSTS PAGES PAGE_KB LINKS
  "$PY" "$BENCH_DIR/synthweb.py" --out "$1" --port "$2" --hosts "$3" --pages "$4" \
    --page-kb "$5" --links "$6"
  chmod -R a+rX "$1"
}

started=0
for _ in 1 2 3; do
  if [ "$SMOKE" = 1 ] && [ -z "${BENCH_PORT:-}" ]; then
    PORT=$((20000 + RANDOM % 10000))
  else
    PORT=${BENCH_PORT:-8080}
  fi
  rm -rf "$WEB"
  gen_web "$WEB" "$PORT" "$HOSTS" "$PAGES" "$PAGE_KB" "$LINKS"
  if start_web_nginx "$WEB" "$WORK/nginx"; then started=1; break; fi
  [ "$SMOKE" = 1 ] && [ -z "${BENCH_PORT:-}" ] || break
done
[ "$started" = 1 ] || setup_failed "nginx could not be started (see the messages above)"
log "nginx serves $HOSTS hosts on 127.0.0.1-$HOSTS:$PORT (pid $NGINX_PID)"

SEED_URL="http://127.0.0.1:$PORT/"
mapfile -t BENCH_HOSTS < <("$PY" -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["hosts"]))' "$WEB/web.json")
OFFSITE_LOG=$WORK/nginx/offsite.log

# ------------------------------------------------------------------ one run

run_actorcrawl() {  # run_actorcrawl DIR
  local -a allowed=()
  local h
  for h in "${BENCH_HOSTS[@]}"; do allowed+=(--allowed-domains "$h"); done
  # shellcheck disable=SC2086
  (cd "$1" && measured env -u ACTORCRAWL_BIN "$AC_BIN" crawl --seed "$SEED_URL" "${allowed[@]}" \
      --politeness-delay 0 --politeness-delay-factor-percent 0 --no-respect-robots-txt \
      --max-pages 100000000 --max-depth 1000 \
      --workers "$AC_WORKERS" --transfers-per-worker "$AC_TRANSFERS" \
      --db crawl.db --metrics metrics.log $AC_ARGS >crawl.log 2>&1) || true
  "$PY" "$BENCH_DIR/benchtool.py" measure "$1/run.json" --tool actorcrawl --round "$2" \
    --time "$1/time.txt" --web "$WEB" --db "$1/crawl.db" --offsite-log "$OFFSITE_LOG" --ok-exit 0
}

run_wget() {
  local domains
  domains=$(IFS=,; echo "${BENCH_HOSTS[*]}")
  # Exit 8 means "the server answered an error", here the 404 at the end of the
  # relative-link loop: expected.
  (cd "$1" && measured wget -r -l inf -H -D "$domains" -e robots=off --no-parent \
      --delete-after -nv -o wget.log -P files "$SEED_URL") || true
  "$PY" "$BENCH_DIR/benchtool.py" measure "$1/run.json" --tool wget --round "$2" \
    --time "$1/time.txt" --web "$WEB" --wget-log "$1/wget.log" --offsite-log "$OFFSITE_LOG" --ok-exit 0,8
}

run_scrapy() {
  (cd "$1" && measured "$SCRAPY" runspider "$BENCH_DIR/scrapy_spider.py" -a web="$WEB" -a out="$1" \
      >scrapy.log 2>&1) || true
  "$PY" "$BENCH_DIR/benchtool.py" measure "$1/run.json" --tool scrapy --round "$2" \
    --time "$1/time.txt" --web "$WEB" --scrapy-stats "$1/stats.json" --offsite-log "$OFFSITE_LOG" --ok-exit 0
}

# The fetch-only ceiling: every URL of the web fetched once with as many
# transfers at once as actorcrawl runs (workers x transfers), the bodies
# thrown away. What this machine and nginx can serve; no crawler does less.
run_curl() {
  local u
  while read -r u; do
    if [ -n "$u" ]; then printf 'url = "%s"\noutput = "/dev/null"\n' "$u"; fi
  done <"$WEB/urls.txt" >"$1/urls.cfg"
  (cd "$1" && measured curl --parallel --parallel-max $((AC_WORKERS * AC_TRANSFERS)) -s \
      -w '%{http_code} %{url_effective}\n' -K urls.cfg >curl.log 2>curl.err) || true
  "$PY" "$BENCH_DIR/benchtool.py" measure "$1/run.json" --tool curl --round "$2" \
    --time "$1/time.txt" --web "$WEB" --curl-log "$1/curl.log" --offsite-log "$OFFSITE_LOG" --ok-exit 0
}

# Each run starts with an empty off-site log, so a request there is its own.
before_each_run() { : >"$OFFSITE_LOG"; }
alternating_rounds "$RUN_DIR"
"$PY" "$BENCH_DIR/benchtool.py" table "$RUN_DIR/table.md" "${RUN_JSONS[@]}" >/dev/null
stop_nginx
rm -rf "$WEB"

# ------------------------------------------------------------------ polite crawl

POLITE_MD=""
if [ "$POLITE" = 1 ] && [ "$SMOKE" != 1 ] && has_tool actorcrawl; then
  PWEB=$WORK/polite-web
  PPORT=${POLITE_PORT:-8081}
  gen_web "$PWEB" "$PPORT" "$POLITE_HOSTS" "$POLITE_PAGES" "$POLITE_PAGE_KB" "$POLITE_LINKS"
  start_web_nginx "$PWEB" "$WORK/nginx-polite" --access-log || die "nginx did not start for the polite scenario"
  pdir=$WORK/runs/polite
  mkdir -p "$pdir"
  mapfile -t PHOSTS < <("$PY" -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["hosts"]))' "$PWEB/web.json")
  pallowed=()
  for h in "${PHOSTS[@]}"; do pallowed+=(--allowed-domains "$h"); done
  log "polite crawl: $POLITE_HOSTS hosts, delay ${POLITE_DELAY_MS} ms, max $POLITE_MAX_PAGES pages (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  # Politeness as shipped (robots.txt on, adaptive delay on) with the delay d.
  # shellcheck disable=SC2086
  (cd "$pdir" && measured env -u ACTORCRAWL_BIN "$AC_BIN" crawl --seed "http://127.0.0.1:$PPORT/" "${pallowed[@]}" \
      --politeness-delay "${POLITE_DELAY_MS}ms" --max-pages "$POLITE_MAX_PAGES" --max-depth 1000 \
      --workers "$AC_WORKERS" --transfers-per-worker "$AC_TRANSFERS" \
      --db crawl.db --metrics metrics.log $AC_ARGS $POLITE_ARGS >crawl.log 2>&1) || true
  stop_nginx   # flushes the access log
  "$PY" "$BENCH_DIR/benchtool.py" polite "$pdir/polite.json" --web "$PWEB" \
    --access-log "$WORK/nginx-polite/access.log" --delay-ms "$POLITE_DELAY_MS" \
    --time "$pdir/time.txt" --db "$pdir/crawl.db" --offsite-log "$WORK/nginx-polite/offsite.log" \
    --md "$RUN_DIR/polite.md" >/dev/null
  mkdir -p "$RUN_DIR/polite"
  cp "$pdir/polite.json" "$pdir/time.txt" "$pdir/crawl.log" "$pdir/metrics.log" "$RUN_DIR/polite/" 2>/dev/null || true
  POLITE_MD=$RUN_DIR/polite.md
  rm -rf "$PWEB"
fi

# ------------------------------------------------------------------ cppreference, scale

# Each scenario is a script of its own that writes a Markdown section; run
# here with this run's binary snapshot and settings. A failed scenario is
# reported in latest.md instead of losing the results above.
CPPREF=${CPPREF:-1}; SCALE=${SCALE:-1}
EXTRA_MDS=()
if [ "$SMOKE" != 1 ] && [ "$CPPREF" = 1 ]; then
  cpp_tools=""
  for t in actorcrawl wget; do if has_tool "$t"; then cpp_tools="$cpp_tools $t"; fi; done
  if [ -n "$cpp_tools" ]; then
    log "cppreference scenario:$cpp_tools, $ROUNDS round(s) (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    if env ${AC_BIN:+ACTORCRAWL_BIN="$AC_BIN"} TOOLS="${cpp_tools# }" ROUNDS="$ROUNDS" \
        AC_WORKERS="$AC_WORKERS" AC_TRANSFERS="$AC_TRANSFERS" AC_ARGS="$AC_ARGS" \
        NGINX_WORKERS="$NGINX_WORKERS" TOOL_TIMEOUT="$TOOL_TIMEOUT" PYTHON="$PY" \
        RAW_DIR="$RUN_DIR/cppreference" SECTION_MD="$RUN_DIR/cppreference.md" \
        bash "$BENCH_DIR/cppreference.sh" >/dev/null; then
      EXTRA_MDS+=("$RUN_DIR/cppreference.md")
    else
      log "the cppreference scenario failed"
      printf '## Real documentation site: cppreference\n\nThe scenario failed (bench/cppreference.sh); see the messages of the run.\n' >"$RUN_DIR/cppreference.md"
      EXTRA_MDS+=("$RUN_DIR/cppreference.md")
    fi
  fi
fi
if [ "$SMOKE" != 1 ] && [ "$SCALE" = 1 ] && has_tool actorcrawl; then
  log "scale scenario (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  if env ACTORCRAWL_BIN="$AC_BIN" AC_WORKERS="$AC_WORKERS" AC_TRANSFERS="$AC_TRANSFERS" AC_ARGS="$AC_ARGS" \
      NGINX_WORKERS="$NGINX_WORKERS" PYTHON="$PY" \
      RAW_DIR="$RUN_DIR/scale" SECTION_MD="$RUN_DIR/scale.md" \
      bash "$BENCH_DIR/scale.sh" >/dev/null; then
    EXTRA_MDS+=("$RUN_DIR/scale.md")
  else
    log "the scale scenario failed"
    printf '## Scale\n\nThe scenario failed (bench/scale.sh); see the messages of the run.\n' >"$RUN_DIR/scale.md"
    EXTRA_MDS+=("$RUN_DIR/scale.md")
  fi
fi

# ------------------------------------------------------------------ report

versions() {
  if has_tool actorcrawl; then
    echo "- actorcrawl: $("$AC_BIN" --version 2>&1 | head -n 1) (binary sha256 $(sha256sum "$AC_BIN" | cut -c1-12); the tree was at commit $COMMIT when the run started)"
  fi
  if has_tool wget; then echo "- wget: $(wget --version 2>/dev/null | head -n 1)"; fi
  if has_tool scrapy; then echo "- Scrapy: $("$SCRAPY" version 2>/dev/null | head -n 1)"; fi
  echo "- nginx: $("$NGINX" -v 2>&1 | sed 's/^nginx version: //')"
}
{
  echo "# Benchmark results"
  echo
  echo "Run started $STARTED with \`bench/run.sh\`$( [ "$SMOKE" = 1 ] && echo ' (SMOKE=1)')."
  echo
  echo "- web: $HOSTS hosts x $PAGES pages, ~$PAGE_KB KiB, ~$LINKS links a page, one seed; $ROUNDS alternating round(s), medians shown"
  echo "- tools: $TOOLS"
  echo "- actorcrawl: --workers $AC_WORKERS --transfers-per-worker $AC_TRANSFERS, politeness off (delay 0, adaptive delay off, robots.txt off)${AC_ARGS:+, extra: $AC_ARGS}"
  if [ -n "${TOOL_CPUS:-}" ]; then echo "- every tool pinned to CPU(s) $TOOL_CPUS (taskset -c $TOOL_CPUS); nginx is not"; fi
  echo "- machine: $(machine_line)"
  versions
  echo
  echo "## Throughput (medians of the rounds)"
  echo
  cat "$RUN_DIR/table.md"
  if [ -n "$POLITE_MD" ]; then
    echo
    echo "## Polite crawl (politeness delay $POLITE_DELAY_MS ms, $POLITE_HOSTS hosts, max $POLITE_MAX_PAGES pages)"
    echo
    echo "actorcrawl with --politeness-delay ${POLITE_DELAY_MS}ms, robots.txt and the adaptive delay on (defaults), --workers $AC_WORKERS --transfers-per-worker $AC_TRANSFERS${AC_ARGS:+ $AC_ARGS}${POLITE_ARGS:+ $POLITE_ARGS}; web of $POLITE_HOSTS hosts x $POLITE_PAGES pages of ~$POLITE_PAGE_KB KiB. Request times from nginx's access log."
    echo
    cat "$POLITE_MD"
  fi
  for md in ${EXTRA_MDS[@]+"${EXTRA_MDS[@]}"}; do
    echo
    cat "$md"
  done
} >"$RUN_DIR/latest.md"
cp "$RUN_DIR/latest.md" "$RESULTS_DIR/latest.md"
cat "$RESULTS_DIR/latest.md"

if [ "$SMOKE" = 1 ]; then
  status=0
  if has_tool actorcrawl; then
    "$PY" "$BENCH_DIR/benchtool.py" check-coverage "$WORK/runs/actorcrawl-r1/run.json" 100 || status=1
  fi
  exit $status
fi

#!/usr/bin/env bash
# What extraction rules and external processors cost: actorcrawl crawls the
# synthetic web of bench/run.sh (served by nginx on loopback, 127.0.0.1 ..
# 127.0.0.H; nothing outside 127.0.0.0/8 is contacted), politeness off, in
# three configurations that take turns in each round:
#
#   baseline   --processors html_links
#   extract    the same, plus --extract with one rule of three fields that
#              matches every page (the title by CSS, the first paragraph of
#              <main> by XPath, the number of links by XPath count())
#   python     html_links and plugins/wordcount.py as an external processor,
#              PLUGIN_INSTANCES instances
#
# Each run is timed by /usr/bin/time -v, whose user + system CPU includes the
# plugin processes (the crawler reaps them before it exits); a sampler of
# /proc (benchtool.py proc-watch) splits that CPU between the crawler and the
# plugins and checks that time -v counted them. Every configuration but the
# baseline must store exactly one item per page fetched, with no processor
# failure: otherwise the script exits 1 (after writing the table).
#
#   bench/plugins.sh              3 rounds on 50 hosts x 200 pages of 16 KiB
#   SMOKE=1 bench/plugins.sh      3 hosts x 20 pages, 1 round; exits 1 unless
#                                 items stored == pages fetched (77: no nginx)
#   HOSTS=10 PAGES=200 ROUNDS=2 CONFIGS="baseline python" bench/plugins.sh
#
# Writes bench/results/plugins-latest.md (each run's JSON, /usr/bin/time -v
# output, crawl log and metrics under bench/results/plugins-<date>/, which
# git ignores).
#
# Environment (defaults in brackets):
#   HOSTS [50] PAGES [200] PAGE_KB [16] LINKS [30]   the web, as in bench/run.sh
#   ROUNDS [3]                       alternating rounds; the table shows medians
#   CONFIGS ["baseline extract python"]  a subset, in this order in round 1
#   PLUGIN_INSTANCES [2]             instances of plugins/wordcount.py
#   EXTRACT_RULES [the rule above]   the extract configuration's rules (JSON; items
#                                    of kind "page" have their non-null fields counted)
#   AC_WORKERS [2] AC_TRANSFERS [32] AC_ARGS []   actorcrawl's fetch settings, extra flags
#   ACTORCRAWL_BIN [build/actorcrawl] the binary to measure (never rebuilt when given)
#   PLUGINS_PORT [8085]              nginx's port (SMOKE: a random high port)
#   NGINX_WORKERS [1]  TOOL_TIMEOUT [900] (SMOKE: 60)  RESULTS_DIR [bench/results]
#   KEEP_WORK [0]                    1: keep the temporary directory
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
SMOKE=${SMOKE:-0}
SKIP=77
setup_failed() {
  if [ "$SMOKE" = 1 ]; then printf 'skipped: %s\n' "$*"; exit "$SKIP"; fi
  die "$*"
}
if [ "$SMOKE" = 1 ]; then APT_LIMIT=50; fi
LOG_TAG=plugins
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$BENCH_DIR/lib.sh"

if [ "$SMOKE" = 1 ]; then
  HOSTS=${HOSTS:-3}; PAGES=${PAGES:-20}; PAGE_KB=${PAGE_KB:-4}; LINKS=${LINKS:-10}
  ROUNDS=${ROUNDS:-1}; TOOL_TIMEOUT=${TOOL_TIMEOUT:-60}
else
  HOSTS=${HOSTS:-50}; PAGES=${PAGES:-200}; PAGE_KB=${PAGE_KB:-16}; LINKS=${LINKS:-30}
  ROUNDS=${ROUNDS:-3}; TOOL_TIMEOUT=${TOOL_TIMEOUT:-900}
fi
CONFIGS=${CONFIGS:-baseline extract python}
CONFIGS=${CONFIGS//,/ }
PLUGIN_INSTANCES=${PLUGIN_INSTANCES:-2}
AC_WORKERS=${AC_WORKERS:-2}; AC_TRANSFERS=${AC_TRANSFERS:-32}; AC_ARGS=${AC_ARGS:-}
NGINX_WORKERS=${NGINX_WORKERS:-1}
KEEP_WORK=${KEEP_WORK:-0}
for c in $CONFIGS; do
  case $c in baseline|extract|python) ;; *) die "unknown configuration '$c' in CONFIGS (baseline extract python)";; esac
done

# The extraction rule: three fields every page of the synthetic web has
# (the calendar and loop trap pages have no <main>: their first_paragraph is null).
EXTRACT_RULES=${EXTRACT_RULES:-'[{"name": "page", "fields": {"title": {"css": "title::text"}, "first_paragraph": {"xpath": "//main/p[1]"}, "links": {"xpath": "count(//a[@href])"}}}]'}

need_nginx_and_time
start_work_dir plugins
resolve_actorcrawl "$WORK"
# The plugins are measured from a snapshot too.
cp -r "$ROOT/plugins" "$WORK/plugins"
rm -rf "$WORK/plugins/__pycache__"
PLUGIN_ENTRY=$("$PY" -c 'import json,sys; print(json.dumps({"name": "wordcount", "exec": [sys.argv[1], sys.argv[2]], "instances": int(sys.argv[3])}))' \
  "$PY" "$WORK/plugins/wordcount.py" "$PLUGIN_INSTANCES")

if [ "$SMOKE" = 1 ]; then
  RESULTS_DIR=${RESULTS_DIR:-$WORK/results}
else
  RESULTS_DIR=${RESULTS_DIR:-$BENCH_DIR/results}
fi
STAMP=$(date -u +%Y%m%d-%H%M%S)
STARTED=$(date -u '+%Y-%m-%d %H:%M UTC')
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
RUN_DIR=$RESULTS_DIR/plugins-$STAMP
mkdir -p "$RUN_DIR"

# ------------------------------------------------------------------ the web and nginx

WEB=$WORK/web
started=0
for _ in 1 2 3; do
  if [ "$SMOKE" = 1 ] && [ -z "${PLUGINS_PORT:-}" ]; then
    PORT=$((20000 + RANDOM % 10000))
  else
    PORT=${PLUGINS_PORT:-8085}
  fi
  rm -rf "$WEB"
  "$PY" "$BENCH_DIR/synthweb.py" --out "$WEB" --port "$PORT" --hosts "$HOSTS" --pages "$PAGES" \
    --page-kb "$PAGE_KB" --links "$LINKS" >&2
  chmod -R a+rX "$WEB"
  mkdir -p "$WORK/nginx"
  "$PY" "$BENCH_DIR/benchtool.py" nginx-conf "$WEB" "$WORK/nginx" --workers "$NGINX_WORKERS"
  if start_nginx "$WORK/nginx" wait-ready "$WEB"; then started=1; break; fi
  # Only a random port is worth another try.
  if [ "$SMOKE" != 1 ] || [ -n "${PLUGINS_PORT:-}" ]; then break; fi
done
[ "$started" = 1 ] || setup_failed "nginx could not be started (see the messages above)"
log "nginx serves $HOSTS hosts on 127.0.0.1-$HOSTS:$PORT (pid $NGINX_PID)"
SEED_URL="http://127.0.0.1:$PORT/"
mapfile -t BENCH_HOSTS < <("$PY" -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["hosts"]))' "$WEB/web.json")
ALLOWED=()
for h in "${BENCH_HOSTS[@]}"; do ALLOWED+=(--allowed-domains "$h"); done

# ------------------------------------------------------------------ one run

# crawl DIR ROUND CONFIG PROCESSOR_FLAGS...: one measured crawl, as bench/run.sh
# runs actorcrawl, with the configuration's processor flags.
crawl() {
  local dir=$1 round=$2 config=$3; shift 3
  local before after watcher
  before=$(nginx_cpu_s)
  "$PY" "$BENCH_DIR/benchtool.py" proc-watch "$dir/proc.json" --exe "$AC_BIN" &
  watcher=$!
  # shellcheck disable=SC2086
  (cd "$dir" && measured env -u ACTORCRAWL_BIN "$AC_BIN" crawl --seed "$SEED_URL" "${ALLOWED[@]}" \
      --politeness-delay 0 --politeness-delay-factor-percent 0 --no-respect-robots-txt \
      --max-pages 100000000 --max-depth 1000 \
      --workers "$AC_WORKERS" --transfers-per-worker "$AC_TRANSFERS" \
      --db crawl.db --metrics metrics.log "$@" $AC_ARGS >crawl.log 2>&1) || true
  wait "$watcher" || true
  after=$(nginx_cpu_s)
  "$PY" "$BENCH_DIR/benchtool.py" measure "$dir/run.json" --tool "$config" --round "$round" \
    --time "$dir/time.txt" --web "$WEB" --db "$dir/crawl.db" --ok-exit 0 >&2
  "$PY" "$BENCH_DIR/benchtool.py" plugin-run "$dir/run.json" --metrics "$dir/metrics.log" --db "$dir/crawl.db" \
    --proc "$dir/proc.json" --fields-kind page --nginx-cpu-before "$before" --nginx-cpu-after "$after" >&2
  cp "$dir/proc.json" "$RUN_DIR/$config-r$round/" 2>/dev/null || true
}
run_baseline() { crawl "$1" "$2" baseline --processors html_links; }
run_extract()  { crawl "$1" "$2" extract --processors html_links --extract "$EXTRACT_RULES"; }
run_python()   { crawl "$1" "$2" python --processors html_links --processors "$PLUGIN_ENTRY"; }

TOOLS=$CONFIGS
alternating_rounds "$RUN_DIR"
stop_nginx
"$PY" "$BENCH_DIR/benchtool.py" plugins-table "$RUN_DIR/table.md" "${RUN_JSONS[@]}" --baseline baseline >/dev/null

# Every configuration with a processor that makes items: one item a page.
CHECK_JSONS=()
for f in "${RUN_JSONS[@]}"; do
  case $f in */baseline-r*) ;; *) CHECK_JSONS+=("$f");; esac
done
status=0
check_out=""
if [ ${#CHECK_JSONS[@]} -gt 0 ]; then
  check_out=$("$PY" "$BENCH_DIR/benchtool.py" check-items "${CHECK_JSONS[@]}") || status=1
fi

# ------------------------------------------------------------------ report

{
  echo "# Extraction rules and external processors"
  echo
  echo "Run started $STARTED with \`bench/plugins.sh\`$( [ "$SMOKE" = 1 ] && echo ' (SMOKE=1)')."
  echo
  echo "- web: $HOSTS hosts x $PAGES pages, ~$PAGE_KB KiB, ~$LINKS links a page (bench/synthweb.py), one seed; $ROUNDS alternating round(s) of: $CONFIGS; medians shown"
  echo "- actorcrawl: --workers $AC_WORKERS --transfers-per-worker $AC_TRANSFERS, politeness off (delay 0, adaptive delay off, robots.txt off)${AC_ARGS:+, extra: $AC_ARGS}; $("$AC_BIN" --version 2>&1 | head -n 1), binary sha256 $(sha256sum "$AC_BIN" | cut -c1-12), the tree at commit $COMMIT when the run started"
  echo "- baseline: \`--processors html_links\`"
  echo "- extract: \`--processors html_links --extract '$EXTRACT_RULES'\`"
  echo "- python: \`--processors html_links --processors '{\"name\": \"wordcount\", \"exec\": [\"python3\", \"plugins/wordcount.py\"], \"instances\": $PLUGIN_INSTANCES}'\` ($("$PY" --version 2>&1))"
  echo "- CPU: user + system of /usr/bin/time -v (the crawler and the plugin processes it reaped); the crawler's own and the plugins' share sampled from /proc every 0.2 s; nginx's CPU apart"
  echo "- machine: $(machine_line); nginx $("$NGINX" -v 2>&1 | sed 's/^nginx version: nginx\///')"
  echo
  cat "$RUN_DIR/table.md"
  if [ -n "$check_out" ]; then
    echo
    echo "One item a page (items stored against pages fetched, processor failures):"
    echo
    printf '%s\n' "$check_out" | sed 's/^/- /'
  fi
} >"$RUN_DIR/plugins.md"
cp "$RUN_DIR/plugins.md" "$RESULTS_DIR/plugins-latest.md"
cat "$RESULTS_DIR/plugins-latest.md"
if [ "$status" != 0 ]; then
  printf '%s\n' "$check_out" | grep '^FAIL' >&2 || true
  die "a configuration did not store one item per page (see above)"
fi

#!/usr/bin/env bash
# Real documentation site: actorcrawl against wget on the C/C++ reference of
# Debian's cppreference-doc-en-html (~4,400 HTML pages, relative links),
# served by nginx on 127.0.0.1. Nothing outside 127.0.0.0/8 is contacted.
#
#   bench/cppreference.sh                 # 3 alternating rounds, medians
#   ROUNDS=1 bench/cppreference.sh
#
# It installs cppreference-doc-en-html, nginx, wget and time from Debian when
# missing (idempotent), lists the site's .html files and the ones reachable by
# links from the entry page (bench/benchtool.py site-urls), serves the
# directory with nginx (a generated config in a temporary directory, in the
# foreground), crawls it from the entry page with each tool in alternating
# rounds under /usr/bin/time -v, and writes a Markdown section (a table of
# medians) to bench/results/cppreference-latest.md; the raw numbers of each
# run go under bench/results/run-<date>-cppreference/ (ignored by git).
# bench/run.sh calls it (CPPREF=1) and appends the section to its latest.md.
#
# One link of the 20170409 package, href="ftp%3A//www.sourceware.org/..." on
# a C page, is relative (its colon is encoded) and rel="nofollow": wget
# requests it and gets a 404 (robots=off also turns nofollow off), actorcrawl
# records it and does not follow it.
#
# The entry page /en/index.html reaches the most pages: checked against every
# .html file of the 20170409 package as a start, none reaches more (4,389 of
# 4,424; the rest are not linked from any reachable page).
#
# Environment (defaults in brackets):
#   ROUNDS [3]                       alternating rounds; the table shows medians
#   TOOLS ["actorcrawl wget"]        a subset to run
#   CPPREF_DIR [/usr/share/cppreference/doc/html]  the site's files
#   CPPREF_ENTRY [/en/index.html]    where both crawls start
#   CPPREF_PORT [8082]               nginx listens on 127.0.0.1:CPPREF_PORT
#   AC_WORKERS [2] AC_TRANSFERS [32] AC_ARGS []   actorcrawl's fetch settings, extra flags
#   ACTORCRAWL_BIN [build/actorcrawl] the binary to measure (copied first, never rebuilt when given)
#   NGINX_WORKERS [1]                nginx worker_processes
#   TOOL_TIMEOUT [600]               seconds one tool run may take
#   RESULTS_DIR [bench/results]      where cppreference-latest.md goes
#   RAW_DIR [RESULTS_DIR/run-<date>-cppreference]  raw numbers of each run
#   SECTION_MD [RESULTS_DIR/cppreference-latest.md] where the Markdown section goes
#   KEEP_WORK [0]                    1: keep the temporary directory (databases, logs)
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
LOG_TAG=cppref
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$BENCH_DIR/lib.sh"

ROUNDS=${ROUNDS:-3}
TOOLS=${TOOLS:-actorcrawl wget}
TOOLS=${TOOLS//,/ }
CPPREF_DIR=${CPPREF_DIR:-/usr/share/cppreference/doc/html}
CPPREF_ENTRY=${CPPREF_ENTRY:-/en/index.html}
CPPREF_PORT=${CPPREF_PORT:-8082}
CPPREF_HOST=127.0.0.1
AC_WORKERS=${AC_WORKERS:-2}; AC_TRANSFERS=${AC_TRANSFERS:-32}; AC_ARGS=${AC_ARGS:-}
TOOL_TIMEOUT=${TOOL_TIMEOUT:-600}
KEEP_WORK=${KEEP_WORK:-0}
RESULTS_DIR=${RESULTS_DIR:-$BENCH_DIR/results}
STAMP=$(date -u +%Y%m%d-%H%M%S)
STARTED=$(date -u '+%Y-%m-%d %H:%M UTC')
RAW_DIR=${RAW_DIR:-$RESULTS_DIR/run-$STAMP-cppreference}
SECTION_MD=${SECTION_MD:-$RESULTS_DIR/cppreference-latest.md}
for t in $TOOLS; do
  case $t in actorcrawl|wget) ;; *) die "unknown tool '$t' in TOOLS (actorcrawl wget)";; esac
done
has_tool() { case " $TOOLS " in *" $1 "*) return 0;; *) return 1;; esac; }
case $CPPREF_ENTRY in /*) ;; *) CPPREF_ENTRY=/$CPPREF_ENTRY;; esac

# ------------------------------------------------------------------ packages

need_nginx_and_time
if [ ! -f "$CPPREF_DIR$CPPREF_ENTRY" ]; then
  log "installing cppreference-doc-en-html"
  apt_install cppreference-doc-en-html || die "cppreference-doc-en-html could not be installed"
  [ -f "$CPPREF_DIR$CPPREF_ENTRY" ] || die "no $CPPREF_ENTRY under $CPPREF_DIR"
fi
if has_tool wget && ! command -v wget >/dev/null 2>&1; then
  log "installing wget"; apt_install wget || { log "wget unavailable: left out"; TOOLS=${TOOLS//wget/}; }
fi
has_tool actorcrawl || has_tool wget || die "no tool left to run"
PKG_VERSION=$(dpkg-query -W -f '${Version}' cppreference-doc-en-html 2>/dev/null || echo unknown)

# ------------------------------------------------------------------ work dir, site, nginx

start_work_dir cppref
if has_tool actorcrawl; then resolve_actorcrawl "$WORK"; fi
mkdir -p "$RAW_DIR"

BASE_URL="http://$CPPREF_HOST:$CPPREF_PORT"
SEED_URL=$BASE_URL$CPPREF_ENTRY
SITE=$WORK/site
timeout 300 "$PY" "$BENCH_DIR/benchtool.py" site-urls "$CPPREF_DIR" "$BASE_URL" "$SITE" --entry "$CPPREF_ENTRY" >&2
cp "$SITE/site.json" "$RAW_DIR/"
read -r HTML_FILES REACHABLE < <("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print("{:,} {:,}".format(d["html_files"], d["reachable"]))' "$SITE/site.json")
SITE_MB=$(du -sm "$CPPREF_DIR" | cut -f1)

NGX=$WORK/nginx
mkdir -p "$NGX"
{
  nginx_conf_head "$NGX"
  echo "  include /etc/nginx/mime.types;"
  echo "  charset utf-8;"
  echo "  server {"
  echo "    listen $CPPREF_HOST:$CPPREF_PORT;"
  echo "    root $CPPREF_DIR;"
  echo "    index index.html;"
  echo "  }"
  echo "}"
} >"$NGX/nginx.conf"
[ -f /etc/nginx/mime.types ] || sed -i 's|^  include /etc/nginx/mime.types;|  types { text/html html; text/css css; application/javascript js; image/png png; image/svg+xml svg; image/gif gif; }|' "$NGX/nginx.conf"
start_nginx "$NGX" wait-url "$SEED_URL" || die "nginx could not be started on $CPPREF_HOST:$CPPREF_PORT"
log "nginx serves $CPPREF_DIR on $BASE_URL (pid $NGINX_PID); $HTML_FILES .html files, $REACHABLE reachable from $CPPREF_ENTRY"

# ------------------------------------------------------------------ one run

MEASURE_ARGS=(--web "$SITE" --unquote-paths --reachable "$SITE/reachable.txt")

run_actorcrawl() {  # run_actorcrawl DIR ROUND
  # shellcheck disable=SC2086
  (cd "$1" && measured env -u ACTORCRAWL_BIN "$AC_BIN" crawl --seed "$SEED_URL" --allowed-domains "$CPPREF_HOST" \
      --politeness-delay 0 --politeness-delay-factor-percent 0 --no-respect-robots-txt \
      --max-pages 100000000 --max-depth 1000 \
      --workers "$AC_WORKERS" --transfers-per-worker "$AC_TRANSFERS" \
      --db crawl.db --metrics metrics.log $AC_ARGS >crawl.log 2>&1) || true
  "$PY" "$BENCH_DIR/benchtool.py" measure "$1/run.json" --tool actorcrawl --round "$2" \
    --time "$1/time.txt" "${MEASURE_ARGS[@]}" --db "$1/crawl.db" --ok-exit 0 >&2
}

run_wget() {  # run_wget DIR ROUND
  # Same host (no -H), HTML files only (-A html). Exit 8 means "the server
  # answered an error": the site has a few broken links, expected.
  (cd "$1" && measured wget -r -l inf -A html -e robots=off --no-parent \
      --delete-after -nv -o wget.log -P files "$SEED_URL") || true
  "$PY" "$BENCH_DIR/benchtool.py" measure "$1/run.json" --tool wget --round "$2" \
    --time "$1/time.txt" "${MEASURE_ARGS[@]}" --wget-log "$1/wget.log" --ok-exit 0,8 >&2
}

alternating_rounds "$RAW_DIR"
stop_nginx
"$PY" "$BENCH_DIR/benchtool.py" table "$RAW_DIR/table.md" --no-offsite "${RUN_JSONS[@]}" >/dev/null

# ------------------------------------------------------------------ report

# Per tool: the other responses and refusals of its first round.
details() {
  "$PY" - "$@" <<'EOF'
import json, sys
for path in sys.argv[1:]:
    r = json.load(open(path))
    if r["round"] != 1:
        continue
    bits = []
    if "status_counts" in r:
        bits.append("HTTP statuses %s" % ", ".join("%s: %s" % kv for kv in sorted(r["status_counts"].items())))
    if r.get("refused"):
        bits.append("refused %s" % ", ".join("%s: %s" % kv for kv in sorted(r["refused"].items())))
    if r.get("dead_letters"):
        bits.append("dead letters %d" % r["dead_letters"])
    if "error_lines" in r:
        bits.append("error lines in the log %d" % r["error_lines"])
    bits.append("reachable pages not fetched: %d" % (r.get("reachable_total", 0) - r.get("reachable_fetched", 0)))
    if r.get("error_urls"):
        bits.append("failed: %s" % ", ".join("`%s`" % u for u in r["error_urls"][:5]))
    print("- %s, round 1: %s; exit status %s" % (r["tool"], "; ".join(bits), r.get("exit_status")))
EOF
}

{
  echo "## Real documentation site: cppreference ($ROUNDS alternating round(s), medians)"
  echo
  echo "Run started $STARTED with \`bench/cppreference.sh\`."
  echo
  echo "- site: Debian's \`cppreference-doc-en-html\` $PKG_VERSION, $HTML_FILES \`.html\` files ($SITE_MB MiB with images and styles) served by nginx from \`$CPPREF_DIR\` on $CPPREF_HOST:$CPPREF_PORT; relative links, some percent-encoded (\`operator%3D.html\`)"
  echo "- both tools start at \`$CPPREF_ENTRY\`, from which $REACHABLE of the $HTML_FILES pages are reachable by \`<a href>\` links (the others are linked from no reachable page); coverage compares URLs with percent-decoded paths"
  if has_tool actorcrawl; then
    echo "- actorcrawl: \`crawl --seed $SEED_URL --allowed-domains $CPPREF_HOST --politeness-delay 0 --politeness-delay-factor-percent 0 --no-respect-robots-txt --max-pages 100000000 --max-depth 1000 --workers $AC_WORKERS --transfers-per-worker $AC_TRANSFERS${AC_ARGS:+ $AC_ARGS}\` ($("$AC_BIN" --version 2>&1 | head -n 1), binary sha256 $(sha256sum "$AC_BIN" | cut -c1-12))"
  fi
  if has_tool wget; then
    echo "- wget: \`wget -r -l inf -A html -e robots=off --no-parent --delete-after -nv $SEED_URL\` ($(wget --version 2>/dev/null | head -n 1 | cut -d' ' -f1-3))"
  fi
  echo "- machine: $(machine_line)"
  echo
  cat "$RAW_DIR/table.md"
  echo
  details "${RUN_JSONS[@]}"
} >"$RAW_DIR/cppreference.md"
mkdir -p "$(dirname "$SECTION_MD")"
cp "$RAW_DIR/cppreference.md" "$SECTION_MD"
cat "$SECTION_MD"

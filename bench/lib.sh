# shellcheck shell=bash
# Shared by bench/run.sh, bench/cppreference.sh and bench/scale.sh (sourced,
# not run): logging, bounded Debian installs, the actorcrawl snapshot, nginx
# as a foreground process from a generated config, and /usr/bin/time -v runs.
#
# The sourcing script sets BENCH_DIR, ROOT and LOG_TAG first. It may define
# setup_failed MESSAGE before sourcing to change what happens when something
# the benchmark needs (python3, nginx, time) is missing: by default, die.

log() { printf '[%s] %s\n' "$LOG_TAG" "$*" >&2; }
die() { printf '[%s] error: %s\n' "$LOG_TAG" "$*" >&2; exit 1; }

declare -F setup_failed >/dev/null || setup_failed() { die "$@"; }

# Debian's python3 first: it starts fastest and is the one Scrapy is installed for.
if [ -n "${PYTHON:-}" ]; then PY=$PYTHON
elif [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3
else PY=python3; fi
command -v "$PY" >/dev/null 2>&1 || setup_failed "python3 is not installed"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
APT_UPDATED=0
apt_install() {  # apt_install PACKAGE...: bounded by APT_LIMIT s a step [600], never fatal by itself
  command -v apt-get >/dev/null 2>&1 || return 1
  local limit=${APT_LIMIT:-600}
  export DEBIAN_FRONTEND=noninteractive
  if [ "$APT_UPDATED" = 0 ]; then
    timeout "$limit" $SUDO apt-get update -qq >&2 || return 1
    APT_UPDATED=1
  fi
  # Debian's nginx package would start a system nginx on port 80; this
  # policy (when none exists) keeps services from starting during the install.
  local policy=/usr/sbin/policy-rc.d made_policy=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null && $SUDO chmod 755 "$policy" && made_policy=1
  fi
  local rc=0
  timeout "$limit" $SUDO apt-get install -y -qq --no-install-recommends "$@" >&2 || rc=$?
  if [ "$made_policy" = 1 ]; then $SUDO rm -f "$policy"; fi
  return $rc
}

need_nginx_and_time() {  # sets NGINX
  NGINX=$(command -v nginx 2>/dev/null || true)
  [ -z "$NGINX" ] && [ -x /usr/sbin/nginx ] && NGINX=/usr/sbin/nginx
  if [ -z "$NGINX" ]; then
    log "installing nginx"
    apt_install nginx || setup_failed "nginx could not be installed"
    NGINX=$(command -v nginx 2>/dev/null || echo /usr/sbin/nginx)
    [ -x "$NGINX" ] || setup_failed "nginx could not be installed"
  fi
  if [ ! -x /usr/bin/time ]; then
    log "installing time"
    apt_install time || setup_failed "/usr/bin/time (package time) could not be installed"
  fi
}

# resolve_actorcrawl WORK: AC_BIN becomes a copy in WORK of ACTORCRAWL_BIN
# (or build/actorcrawl, built when missing), so a rebuild cannot change it.
resolve_actorcrawl() {
  local bin
  if [ -n "${ACTORCRAWL_BIN:-}" ]; then
    bin=$ACTORCRAWL_BIN
    [ -x "$bin" ] || die "ACTORCRAWL_BIN=$bin is not an executable"
  else
    bin=$ROOT/build/actorcrawl
    if [ ! -x "$bin" ]; then
      log "building actorcrawl (scripts/build.sh)"
      bash "$ROOT/scripts/build.sh" >&2
    fi
    [ -x "$bin" ] || die "no actorcrawl binary at build/actorcrawl after the build"
  fi
  cp "$bin" "$1/actorcrawl"
  AC_BIN=$1/actorcrawl
}

NGINX_PID=""
stop_nginx() {
  [ -n "$NGINX_PID" ] || return 0
  kill -QUIT "$NGINX_PID" 2>/dev/null || true
  local i
  for i in $(seq 1 50); do
    kill -0 "$NGINX_PID" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$NGINX_PID" 2>/dev/null; then kill -TERM "$NGINX_PID" 2>/dev/null || true; sleep 0.5; fi
  wait "$NGINX_PID" 2>/dev/null || true
  NGINX_PID=""
}

# start_work_dir NAME: WORK becomes a fresh temporary directory (nginx's
# workers may run as an unprivileged user, so it is world-readable). On exit
# the script's before_cleanup (when it defines one) runs, nginx stops, and
# WORK is removed unless KEEP_WORK=1.
start_work_dir() {
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/actorcrawl-$1.XXXXXX")
  chmod 755 "$WORK"
  trap cleanup_work_dir EXIT
  trap 'exit 130' INT TERM
}
cleanup_work_dir() {
  if declare -F before_cleanup >/dev/null; then before_cleanup; fi
  stop_nginx
  if [ "${KEEP_WORK:-0}" = 1 ]; then log "work directory kept: $WORK"; else rm -rf "$WORK"; fi
}

# nginx_conf_head PREFIX: the common top of a config (pid, logs, temp paths),
# up to and including "http {"; the caller adds server blocks and "}".
nginx_conf_head() {
  local prefix=$1 t
  mkdir -p "$prefix/tmp"
  echo "worker_processes ${NGINX_WORKERS:-1};"
  echo "pid $prefix/nginx.pid;"
  echo "error_log $prefix/error.log warn;"
  echo "worker_rlimit_nofile 16384;"
  echo "events { worker_connections 8192; }"
  echo "http {"
  echo "  default_type application/octet-stream;"
  echo "  sendfile on; tcp_nopush on; tcp_nodelay on;"
  echo "  keepalive_timeout 65s; keepalive_requests 1000000;"
  echo "  server_tokens off;"
  echo "  access_log off;"
  for t in client_body proxy fastcgi uwsgi scgi; do echo "  ${t}_temp_path $prefix/tmp/$t;"; done
}

# start_nginx PREFIX READY...: PREFIX/nginx.conf in the foreground; returns 1
# unless `benchtool.py READY...` (wait-url URL..., wait-ready WEB_DIR) sees it
# serve within 10 s.
start_nginx() {
  local prefix=$1; shift
  chmod 755 "$prefix"
  "$NGINX" -p "$prefix" -c "$prefix/nginx.conf" -e "$prefix/error.log" -g 'daemon off;' \
    >"$prefix/stdout.log" 2>&1 &
  NGINX_PID=$!
  if "$PY" "$BENCH_DIR/benchtool.py" "$@" --timeout 10 \
      && kill -0 "$NGINX_PID" 2>/dev/null \
      && ! grep -q -e '\[emerg\]' -e 'bind() failed' "$prefix/error.log" 2>/dev/null; then
    return 0
  fi
  log "nginx did not come up: $(tail -n 3 "$prefix/error.log" "$prefix/stdout.log" 2>/dev/null | tr '\n' ' ')"
  stop_nginx
  return 1
}

# nginx_cpu_s: CPU seconds (user + system) nginx's master and workers used so far
nginx_cpu_s() {
  [ -n "$NGINX_PID" ] || { echo "-"; return 0; }
  "$PY" - "$NGINX_PID" <<'EOF' || echo "-"
import os, sys
tick = os.sysconf("SC_CLK_TCK")
pids = [sys.argv[1]]
try:
    pids += open("/proc/%s/task/%s/children" % (pids[0], pids[0])).read().split()
except OSError:
    pass
total = 0
for p in pids:
    try:
        f = open("/proc/%s/stat" % p).read().rsplit(")", 1)[1].split()
        total += int(f[11]) + int(f[12])   # utime, stime
    except (OSError, IndexError, ValueError):
        pass
print("%.2f" % (total / tick))
EOF
}

# measured CMD...: /usr/bin/time -v (into time.txt) around a command bounded by
# TOOL_TIMEOUT seconds, in the current directory
# With TOOL_CPUS set (a taskset CPU list, e.g. 0), every measured tool runs
# on those CPUs only: TOOL_CPUS=0 is the one-core case (a Raspberry Pi's
# budget), with nginx left the other core.
measured() {
  local rc=0
  local -a pin=()
  if [ -n "${TOOL_CPUS:-}" ]; then pin=(taskset -c "$TOOL_CPUS"); fi
  /usr/bin/time -v -o time.txt timeout -k 10 "$TOOL_TIMEOUT" "${pin[@]}" "$@" || rc=$?
  return $rc
}

machine_line() {
  echo "$(nproc) cores ($(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)), $(free -g | awk '/^Mem:/{print $2}') GiB, Linux $(uname -r); shared, so numbers are noisy"
}

# alternating_rounds RAW_DIR: ROUNDS rounds of every tool in TOOLS, each round
# starting with the next tool so none always runs first. For each run it
# calls the script's run_<tool> DIR ROUND (and before_each_run, when the
# script defines one), keeps what a run leaves worth reading (run.json,
# time.txt, actorcrawl's logs, Scrapy's stats and log tail, wget's error
# lines) in RAW_DIR/<tool>-r<round>, then deletes the bulky rest. The
# run.json files are collected in RUN_JSONS.
alternating_rounds() {
  local raw=$1 round i n tool dir keep f
  local -a tools
  read -r -a tools <<<"$TOOLS"
  n=${#tools[@]}
  RUN_JSONS=()
  for round in $(seq 1 "$ROUNDS"); do
    for i in $(seq 0 $((n - 1))); do
      tool=${tools[$(((i + round - 1) % n))]}
      dir=$WORK/runs/$tool-r$round
      keep=$raw/$tool-r$round
      mkdir -p "$dir" "$keep"
      if declare -F before_each_run >/dev/null; then before_each_run; fi
      log "round $round/$ROUNDS: $tool (load average $(cut -d' ' -f1-3 /proc/loadavg))"
      "run_$tool" "$dir" "$round"
      cp "$dir/run.json" "$dir/time.txt" "$keep/" 2>/dev/null || true
      for f in crawl.log metrics.log stats.json; do
        if [ -f "$dir/$f" ]; then cp "$dir/$f" "$keep/"; fi
      done
      if [ -f "$dir/scrapy.log" ]; then tail -n 80 "$dir/scrapy.log" >"$keep/scrapy.log.tail"; fi
      if [ -f "$dir/wget.log" ]; then
        grep -v ' -> "' "$dir/wget.log" | tail -n 200 >"$keep/wget.log.errors" || true
      fi
      RUN_JSONS+=("$dir/run.json")
      # The crawl database and downloaded files are not needed any more.
      rm -rf "$dir/files" "$dir/crawl.db" "$dir/crawl.db-wal" "$dir/crawl.db-shm"
    done
  done
}

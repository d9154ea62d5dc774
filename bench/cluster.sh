#!/usr/bin/env bash
# Cluster scaling: a coordinator and 1, 2 and 4 worker processes crawl the
# synthetic web of bench/run.sh (nginx on loopback, 127.0.0.1 .. 127.0.0.H;
# nothing outside 127.0.0.0/8 is contacted), each worker in a cgroup of its
# own capped at CORE_SHARE of a core (standing in for small machines: a
# Raspberry Pi's core is about a third of this machine's), the coordinator
# uncapped and fetching nothing itself. Three configurations:
#
#   baseline   --processors html_links
#   extract    the same plus one extraction rule of three fields on every page
#   python     html_links and plugins/wordcount.py (PLUGIN_INSTANCES instances
#              a node; the plugin runs in its node's cgroup)
#
# and, for each, one `actorcrawl crawl` process (uncapped) on the same web:
# the CPU a page one process spends, against which the cluster's total is
# read. Recorded per run: pages/s, the coordinator's CPU a page, each node's
# CPU a page (user + system from /usr/bin/time -v, the plugins it reaped
# included), and the bytes a page over the links (the coordinator's side of
# every connection to a node, sampled from `ss -tin`).
#
#   bench/cluster.sh                      1, 2, 4 nodes x 3 configurations, 1 round
#   NODES="1 4" CONFIGS=extract ROUNDS=3 bench/cluster.sh
#   OTHER_BIN=path/to/older/actorcrawl OTHER_NAME=bodies-cross bench/cluster.sh
#                                         the same runs with another build too
#   OTHER_BIN=build/actorcrawl OTHER_NAME=shipped OTHER_NODE_BODIES=coordinator bench/cluster.sh
#                                         kept bodies on the nodes against sent to the coordinator
#
# Capping needs root and a writable cgroup CPU controller: cgroup v1's
# cpu.cfs_quota_us or v2's cpu.max. Without one the script says so and exits
# 77 (skipped). Writes bench/results/cluster-latest.md (each run's JSON,
# logs and /usr/bin/time -v files under bench/results/cluster-<date>/).
#
# Environment (defaults in brackets):
#   HOSTS [50] PAGES [200] PAGE_KB [16] LINKS [30]   the web, as in bench/run.sh
#   MAX_PAGES [4000]                 each crawl's --max-pages (a slow configuration
#                                    on one capped node still ends in minutes)
#   NODES ["1 2 4"]  CONFIGS ["baseline extract python"]  ROUNDS [1]
#   CORE_SHARE [0.1]                 each node's CPU cap, in cores
#   NODE_WORKERS [2] NODE_TRANSFERS [32] NODE_LANES [1]   each node's fetch and parse settings
#   PLUGIN_INSTANCES [1]             wordcount.py instances a node
#   NODE_BODIES [node]               where the bodies a crawl keeps (keep_bodies, on with
#                                    the extract and python configurations) go: node (each
#                                    node's bodies_dir) or coordinator (bodies_dir "": sent
#                                    with the pages' rows); OTHER_NODE_BODIES [NODE_BODIES]
#                                    the same for OTHER_BIN's runs
#   ACTORCRAWL_BIN [build/actorcrawl]  OTHER_BIN [] OTHER_NAME [other]
#   CLUSTER_PORT [8086]              nginx's port
#   NGINX_WORKERS [1] TOOL_TIMEOUT [900] RESULTS_DIR [bench/results] KEEP_WORK [0]
#   COORDINATOR_TOOL []              callgrind: the coordinator runs under valgrind's
#                                    callgrind, and a second table gives the instructions
#                                    it executed a page (user space only). Its CPU time is
#                                    then valgrind's; the count is what to compare: it
#                                    moves under 1% between runs, where the coordinator's
#                                    CPU time moves 20% on this shared machine.
#
#   NODES=1 CONFIGS=baseline ROUNDS=2 MAX_PAGES=3000 COORDINATOR_TOOL=callgrind \
#     OTHER_BIN=path/to/older/actorcrawl OTHER_NAME=before bench/cluster.sh
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
LOG_TAG=cluster
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$BENCH_DIR/lib.sh"

HOSTS=${HOSTS:-50}; PAGES=${PAGES:-200}; PAGE_KB=${PAGE_KB:-16}; LINKS=${LINKS:-30}
MAX_PAGES=${MAX_PAGES:-4000}
NODES=${NODES:-1 2 4}
CONFIGS=${CONFIGS:-baseline extract python}
ROUNDS=${ROUNDS:-1}
CORE_SHARE=${CORE_SHARE:-0.1}
NODE_WORKERS=${NODE_WORKERS:-2}; NODE_TRANSFERS=${NODE_TRANSFERS:-32}; NODE_LANES=${NODE_LANES:-1}
PLUGIN_INSTANCES=${PLUGIN_INSTANCES:-1}
OTHER_BIN=${OTHER_BIN:-}; OTHER_NAME=${OTHER_NAME:-other}
NODE_BODIES=${NODE_BODIES:-node}; OTHER_NODE_BODIES=${OTHER_NODE_BODIES:-$NODE_BODIES}
for where in "$NODE_BODIES" "$OTHER_NODE_BODIES"; do
  case $where in node|coordinator) ;; *) echo "NODE_BODIES: node or coordinator, not '$where'" >&2; exit 2 ;; esac
done
TOOL_TIMEOUT=${TOOL_TIMEOUT:-900}
NGINX_WORKERS=${NGINX_WORKERS:-1}
KEEP_WORK=${KEEP_WORK:-0}
COORDINATOR_TOOL=${COORDINATOR_TOOL:-}
case $COORDINATOR_TOOL in "" | callgrind) ;; *) echo "COORDINATOR_TOOL: callgrind or empty, not '$COORDINATOR_TOOL'" >&2; exit 2 ;; esac
if [ -n "$COORDINATOR_TOOL" ] && ! command -v valgrind >/dev/null 2>&1; then
  echo "skipped: COORDINATOR_TOOL=callgrind needs valgrind"
  exit 77
fi
EXTRACT_RULES='[{"name": "page", "fields": {"title": {"css": "title::text"}, "first_paragraph": {"xpath": "//main/p[1]"}, "links": {"xpath": "count(//a[@href])"}}}]'

# ------------------------------------------------------------------ the CPU cap

# A cgroup per node: v1's cpu controller (cfs quota) or v2's cpu.max.
CG_KIND=""
CG_ROOT=""
if [ -w /sys/fs/cgroup/cpu ] && [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
  CG_KIND=v1; CG_ROOT=/sys/fs/cgroup/cpu/actorcrawl-bench-$$
elif [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers \
    && [ -w /sys/fs/cgroup/cgroup.subtree_control ]; then
  CG_KIND=v2; CG_ROOT=/sys/fs/cgroup/actorcrawl-bench-$$
fi
if [ -z "$CG_KIND" ] || ! mkdir -p "$CG_ROOT" 2>/dev/null; then
  echo "skipped: no writable cgroup CPU controller (cgroup v1 cpu.cfs_quota_us or v2 cpu.max; run as root)"
  exit 77
fi
if [ "$CG_KIND" = v2 ]; then echo +cpu >"$(dirname "$CG_ROOT")/cgroup.subtree_control" 2>/dev/null || true; fi
QUOTA_US=$("$PY" -c 'import sys; print(int(float(sys.argv[1]) * 100000))' "$CORE_SHARE")
log "capping each node at $CORE_SHARE core: cgroup $CG_KIND, quota ${QUOTA_US} us per 100000 us"

# make_cgroup NAME: a capped group; prints its directory
make_cgroup() {
  local dir=$CG_ROOT/$1
  mkdir -p "$dir"
  if [ "$CG_KIND" = v1 ]; then
    echo 100000 >"$dir/cpu.cfs_period_us"
    echo "$QUOTA_US" >"$dir/cpu.cfs_quota_us"
  else
    echo "$QUOTA_US 100000" >"$dir/cpu.max"
  fi
  echo "$dir"
}
remove_cgroups() {
  [ -n "$CG_ROOT" ] && [ -d "$CG_ROOT" ] || return 0
  local d
  for d in "$CG_ROOT"/*/; do
    if [ -d "$d" ]; then rmdir "$d" 2>/dev/null || true; fi
  done
  rmdir "$CG_ROOT" 2>/dev/null || true
}
before_cleanup() { remove_cgroups; }

# ------------------------------------------------------------------ the web

need_nginx_and_time
start_work_dir cluster
resolve_actorcrawl "$WORK"
cp -r "$ROOT/plugins" "$WORK/plugins"
rm -rf "$WORK/plugins/__pycache__"
PLUGIN_ENTRY=$("$PY" -c 'import json,sys; print(json.dumps({"name": "wordcount", "exec": [sys.argv[1], sys.argv[2]], "instances": int(sys.argv[3])}))' \
  "$PY" "$WORK/plugins/wordcount.py" "$PLUGIN_INSTANCES")
BINS=("current:$AC_BIN")
if [ -n "$OTHER_BIN" ]; then BINS+=("$OTHER_NAME:$(realpath "$OTHER_BIN")"); fi

RESULTS_DIR=${RESULTS_DIR:-$BENCH_DIR/results}
STAMP=$(date -u +%Y%m%d-%H%M%S)
STARTED=$(date -u '+%Y-%m-%d %H:%M UTC')
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
RUN_DIR=$RESULTS_DIR/cluster-$STAMP
mkdir -p "$RUN_DIR"

PORT=${CLUSTER_PORT:-8086}
WEB=$WORK/web
"$PY" "$BENCH_DIR/synthweb.py" --out "$WEB" --port "$PORT" --hosts "$HOSTS" --pages "$PAGES" \
  --page-kb "$PAGE_KB" --links "$LINKS" >&2
chmod -R a+rX "$WEB"
mkdir -p "$WORK/nginx"
"$PY" "$BENCH_DIR/benchtool.py" nginx-conf "$WEB" "$WORK/nginx" --workers "$NGINX_WORKERS"
start_nginx "$WORK/nginx" wait-ready "$WEB" || die "nginx could not be started (see the messages above)"
SEED_URL="http://127.0.0.1:$PORT/"
mapfile -t WEB_HOSTS < <("$PY" -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["hosts"]))' "$WEB/web.json")
CRAWL_FLAGS=(--seed "$SEED_URL" --politeness-delay 0 --politeness-delay-factor-percent 0 --no-respect-robots-txt
             --no-sitemaps --max-pages "$MAX_PAGES" --max-depth 1000 --progress-interval-ms 1000000)
for h in "${WEB_HOSTS[@]}"; do CRAWL_FLAGS+=(--allowed-domains "$h"); done

config_flags() {
  case $1 in
    baseline) echo --processors; echo html_links;;
    extract) echo --processors; echo html_links; echo --extract; echo "$EXTRACT_RULES";;
    python) echo --processors; echo html_links; echo --processors; echo "$PLUGIN_ENTRY";;
    *) die "unknown configuration '$1' (baseline extract python)";;
  esac
}

# ------------------------------------------------------------------ runs

RUN_JSONS=()
INSTRUCTION_ROWS=()

# one_process NAME BIN CONFIG: `actorcrawl crawl`, uncapped, same flags
one_process() {
  local name=$1 bin=$2 config=$3 dir
  dir=$RUN_DIR/$name-$config-process
  mkdir -p "$dir"
  mapfile -t flags < <(config_flags "$config")
  log "$name $config: one process"
  (cd "$dir" && /usr/bin/time -v -o time.txt timeout -k 10 "$TOOL_TIMEOUT" "$bin" crawl "${CRAWL_FLAGS[@]}" \
     --workers "$NODE_WORKERS" --transfers-per-worker "$NODE_TRANSFERS" --db crawl.db --metrics metrics.log \
     "${flags[@]}" >crawl.log 2>&1) || log "the crawl exited non-zero (see $dir/crawl.log)"
  "$PY" "$BENCH_DIR/benchtool.py" cluster-run "$dir/run.json" --config "$config" --binary "$name" \
    --db "$dir/crawl.db" --metrics "$dir/metrics.log" --coordinator-time "$dir/time.txt"
  "$PY" - "$dir/run.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
r["nodes"] = 0
json.dump(r, open(sys.argv[1], "w"), indent=1)
EOF
  RUN_JSONS+=("$dir/run.json")
  rm -f "$dir/crawl.db" "$dir/crawl.db-wal" "$dir/crawl.db-shm"
}

# cluster NAME BIN CONFIG NODES ROUND
cluster() {
  local name=$1 bin=$2 config=$3 n=$4 round=$5 dir port i cg watcher coord
  dir=$RUN_DIR/$name-$config-n$n-r$round
  mkdir -p "$dir"
  mapfile -t flags < <(config_flags "$config")
  log "$name $config: coordinator + $n node(s), round $round"
  local -a coordinator=("$bin")
  [ -z "$COORDINATOR_TOOL" ] || coordinator=(valgrind --tool=callgrind --callgrind-out-file="$dir/coordinator.callgrind" "$bin")
  (cd "$dir" && exec /usr/bin/time -v -o coordinator-time.txt timeout -k 10 "$TOOL_TIMEOUT" "${coordinator[@]}" coordinator \
     --listen 127.0.0.1:0 --workers 0 "${CRAWL_FLAGS[@]}" --db crawl.db --metrics metrics.log "${flags[@]}" \
     >coordinator.log 2>&1) &
  coord=$!
  port=""
  for _ in $(seq 1 200); do
    port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$dir/coordinator.log" 2>/dev/null | head -n 1)
    [ -n "$port" ] && break
    sleep 0.05
  done
  [ -n "$port" ] || die "the coordinator did not listen (see $dir/coordinator.log)"
  local cpid
  cpid=$(pgrep -n -f "coordinator --listen 127.0.0.1:0 --workers 0" || true)
  "$PY" "$BENCH_DIR/benchtool.py" link-watch "$dir/link.json" --port "$port" --pid "${cpid:-$coord}" &
  watcher=$!
  local -a nodes=() node_times=()
  local where=$NODE_BODIES
  [ "$name" = current ] || where=$OTHER_NODE_BODIES
  local -a bodies=(--bodies-dir "$dir/bodies")
  [ "$where" = node ] || bodies=(--bodies-dir "")
  for i in $(seq 1 "$n"); do
    cg=$(make_cgroup "$name-$config-n$n-r$round-w$i")
    (cd "$dir" && echo $BASHPID >"$cg/cgroup.procs" && exec /usr/bin/time -v -o "w$i-time.txt" \
       timeout -k 10 "$TOOL_TIMEOUT" "$bin" worker --connect "127.0.0.1:$port" --node-id "w$i" \
       --workers "$NODE_WORKERS" --transfers-per-worker "$NODE_TRANSFERS" --parse-lanes "$NODE_LANES" \
       --warc-dir "$dir/warc-w$i" "${bodies[@]}" >"w$i.log" 2>&1) &
    nodes+=($!)
    node_times+=(--node-time "$dir/w$i-time.txt")
  done
  wait "$coord" || log "the coordinator exited non-zero (see $dir/coordinator.log)"
  for i in "${nodes[@]}"; do wait "$i" || true; done
  wait "$watcher" || true
  "$PY" "$BENCH_DIR/benchtool.py" cluster-run "$dir/run.json" --config "$config" --round "$round" --binary "$name" \
    --db "$dir/crawl.db" --metrics "$dir/metrics.log" --coordinator-time "$dir/coordinator-time.txt" \
    "${node_times[@]}" --link "$dir/link.json"
  RUN_JSONS+=("$dir/run.json")
  if [ -n "$COORDINATOR_TOOL" ]; then
    local instructions pages
    instructions=$(sed -n 's/^totals: *//p' "$dir/coordinator.callgrind")
    pages=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["pages"])' "$dir/run.json")
    INSTRUCTION_ROWS+=("$(printf '| %s | %s | %s | %s | %s | %s |' "$name" "$config" "$n" "$round" "$pages" \
      "$("$PY" -c 'import sys; i, p = int(sys.argv[1]), max(1, int(sys.argv[2])); print(f"{i:,} | {i // p:,}")' \
         "$instructions" "$pages")")")
  fi
  rm -rf "$dir/crawl.db" "$dir/crawl.db-wal" "$dir/crawl.db-shm" "$dir/bodies"
  remove_cgroups
  mkdir -p "$CG_ROOT"
}

# Rounds outermost, the binaries taking turns within each: a machine that
# slows down for a minute (this one is shared) slows both alike, where
# all of one binary's rounds and then all of the other's would put the
# slowdown on one side.
for round in $(seq 1 "$ROUNDS"); do
  for config in $CONFIGS; do
    for entry in "${BINS[@]}"; do
      name=${entry%%:*}; bin=${entry#*:}
      [ "$round" != 1 ] || one_process "$name" "$bin" "$config"
      for n in $NODES; do cluster "$name" "$bin" "$config" "$n" "$round"; done
    done
  done
done
stop_nginx

# ------------------------------------------------------------------ report

"$PY" "$BENCH_DIR/benchtool.py" cluster-table "$RUN_DIR/table.md" "${RUN_JSONS[@]}" >/dev/null
{
  echo "# Cluster scaling"
  echo
  echo "Run started $STARTED with \`bench/cluster.sh\` (NODES=\"$NODES\", CONFIGS=\"$CONFIGS\", ROUNDS=$ROUNDS, CORE_SHARE=$CORE_SHARE)."
  echo
  echo "- web: $HOSTS hosts x $PAGES pages, ~$PAGE_KB KiB, ~$LINKS links a page (bench/synthweb.py), one seed; each crawl stops at --max-pages $MAX_PAGES"
  echo "- coordinator: \`actorcrawl coordinator --workers 0\` (fetches and processes nothing itself), uncapped; each worker node: \`actorcrawl worker --workers $NODE_WORKERS --transfers-per-worker $NODE_TRANSFERS --parse-lanes $NODE_LANES\` (kept bodies: current $NODE_BODIES$([ -z "$OTHER_BIN" ] || echo ", $OTHER_NAME $OTHER_NODE_BODIES")) in a cgroup ($CG_KIND) capped at $CORE_SHARE core; politeness off (delay 0, adaptive delay off, robots.txt off), sitemaps off"
  echo "- extract: \`--extract '$EXTRACT_RULES'\`; python: plugins/wordcount.py, $PLUGIN_INSTANCES instance(s) a node ($("$PY" --version 2>&1))"
  echo "- one process: \`actorcrawl crawl --workers $NODE_WORKERS --transfers-per-worker $NODE_TRANSFERS\`, uncapped, the same flags"
  echo "- binaries: $(for e in "${BINS[@]}"; do printf '%s = %s (sha256 %s); ' "${e%%:*}" "$("${e#*:}" --version 2>&1 | head -n 1)" "$(sha256sum "${e#*:}" | cut -c1-12)"; done)the tree at commit $COMMIT"
  echo "- CPU: user + system of /usr/bin/time -v per process (a node's reaped plugins included); bytes: the coordinator's side of each link, from \`ss -tin\` sampled every 0.2 s"
  echo "- machine: $(machine_line)"
  echo
  cat "$RUN_DIR/table.md"
  if [ -n "$COORDINATOR_TOOL" ]; then
    echo
    echo "The coordinator under callgrind (its CPU time above is valgrind's): instructions it executed, user space."
    echo
    echo "| binary | config | nodes | round | pages | coordinator instructions | a page |"
    echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
    printf '%s\n' "${INSTRUCTION_ROWS[@]}"
  fi
} >"$RUN_DIR/cluster.md"
cp "$RUN_DIR/cluster.md" "$RESULTS_DIR/cluster-latest.md"
cat "$RESULTS_DIR/cluster-latest.md"

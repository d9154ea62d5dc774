#!/usr/bin/env bash
# The amd64 package, installed on this machine as a user would install it
# (apt-get install ./actorcrawl_*.deb), does what the README promises:
#   - `actorcrawl crawl` with no arguments crawls the bundled demo web;
#   - an example plugin from /usr/share/doc/actorcrawl/examples runs;
#   - `man actorcrawl` opens; bash completes `actorcrawl`;
#   - the systemd unit is valid (systemctl cat where systemd runs, else
#     systemd-analyze verify), and its command, run as the unit runs it (the
#     actorcrawl user, /var/lib/actorcrawl, /etc/default/actorcrawl), serves a
#     crawl job to the end;
#   - a purge removes it all, the service's state included.
# It changes the machine (a package, a system user), so scripts/test.sh runs
# it, not CTest. Root or sudo.
#
#   tests/packaging/installed_package_test.sh dist/actorcrawl_<version>_amd64.deb
set -euo pipefail
DEB=$(realpath "${1:?usage: installed_package_test.sh DEB}")
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
work=$(mktemp -d)
chmod 755 "$work"
server=""
cleanup() {
  if [ -n "$server" ]; then $SUDO kill "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
step() { echo "== installed package: $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

step "install $(basename "$DEB")"
if dpkg-query -W -f='${Status}' actorcrawl 2>/dev/null | grep -q "installed"; then
  $SUDO apt-get purge -y -qq actorcrawl >/dev/null
fi
# A service would start at install on a machine whose policy lets it; this
# package enables none, but keep the machine's policy as it is.
$SUDO apt-get install -y -qq "$DEB" >/dev/null
[ "$(command -v actorcrawl)" = /usr/bin/actorcrawl ] || fail "actorcrawl is not /usr/bin/actorcrawl"
actorcrawl --version

step "actorcrawl crawl, no arguments: the demo web"
(cd "$work" && timeout 300 actorcrawl crawl --quiet) || fail "actorcrawl crawl exited $?"
pages=$(sqlite3 "$work/actorcrawl.db" "SELECT count(*) FROM pages WHERE status_code = 200")
[ "$pages" -ge 10 ] || fail "the demo crawl stored $pages pages (200)"
[ -s "$work/metrics.log" ] || fail "no metrics.log"
echo "demo crawl: $pages pages"

step "an example plugin from the documentation's examples"
cat >"$work/plugin.yaml" <<'EOF'
processors:
  - html_links
  - {name: wordcount, exec: [python3, /usr/share/doc/actorcrawl/examples/plugins/wordcount.py]}
EOF
(cd "$work" && timeout 300 actorcrawl crawl --quiet --config plugin.yaml --db plugin.db --metrics plugin.log) ||
  fail "the plugin crawl exited $?"
items=$(sqlite3 "$work/plugin.db" "SELECT count(*) FROM items WHERE kind = 'wordcount'")
[ "$items" -ge 10 ] || fail "the wordcount plugin gave $items items"
echo "plugin crawl: $items wordcount items"

step "man actorcrawl"
[ "$(man -w actorcrawl)" = /usr/share/man/man1/actorcrawl.1.gz ] || fail "man -w actorcrawl: $(man -w actorcrawl 2>&1)"
MANWIDTH=80 man actorcrawl 2>/dev/null | grep -q "max_pages" || fail "man actorcrawl does not show the options"

step "bash completion"
if [ -f /usr/share/bash-completion/bash_completion ]; then
  # shellcheck disable=SC2016
  offered=$(bash -c 'source /usr/share/bash-completion/bash_completion
    _completion_loader actorcrawl
    COMP_WORDS=(actorcrawl cr); COMP_CWORD=1; COMP_LINE="actorcrawl cr"; COMP_POINT=13
    _actorcrawl actorcrawl cr actorcrawl; echo "${COMPREPLY[*]}"')
  [ "$offered" = crawl ] || fail "completing 'actorcrawl cr' offers '$offered'"
else
  echo "SKIP: bash-completion is not installed"
fi

step "the systemd unit"
if [ -d /run/systemd/system ]; then
  systemctl cat actorcrawl.service
else
  systemd-analyze verify /lib/systemd/system/actorcrawl.service || fail "systemd-analyze verify"
  echo "systemd is not running here: the unit file verified with systemd-analyze"
fi
getent passwd actorcrawl >/dev/null || fail "no actorcrawl user"
[ "$(stat -c %U /var/lib/actorcrawl)" = actorcrawl ] || fail "/var/lib/actorcrawl is not the actorcrawl user's"

step "the unit's command, as the unit runs it"
exec_start=$(sed -n 's/^ExecStart=//p' /lib/systemd/system/actorcrawl.service)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# /etc/default/actorcrawl as the unit reads it, with this test's port.
env_args=()
while IFS= read -r line; do env_args+=("$line"); done < <(grep -E '^[A-Z_]+=' /etc/default/actorcrawl || true)
# shellcheck disable=SC2086
(cd /var/lib/actorcrawl && $SUDO runuser -u actorcrawl -- env "${env_args[@]}" ACTORCRAWL_SERVICE_LISTEN="127.0.0.1:$port" \
  $exec_start --demo-web --allow-private-networks >"$work/serve.log" 2>&1) &
server=$!
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$port/api/info" >"$work/info.json" 2>/dev/null && break
  sleep 0.1
done
[ -s "$work/info.json" ] || { cat "$work/serve.log" >&2; fail "the service did not answer on port $port"; }
demo=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["demo_url"])' "$work/info.json")
job=$(curl -sf -H 'Content-Type: application/json' -d "{\"url\": \"$demo\", \"max_pages\": 10}" "http://127.0.0.1:$port/crawl" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["job_id"])')
state=""
for _ in $(seq 1 600); do
  state=$(curl -sf "http://127.0.0.1:$port/crawl/$job" | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d.get("job", d)["status"])')
  case $state in completed | cancelled | failed) break ;; esac
  sleep 0.2
done
[ "$state" = completed ] || { cat "$work/serve.log" >&2; fail "job $job ended '$state'"; }
owner=$(find /var/lib/actorcrawl -name '*.db' -printf '%u\n' | sort -u)
[ "$owner" = actorcrawl ] || fail "the job's database is owned by '$owner', not actorcrawl"
$SUDO kill -TERM "$server" 2>/dev/null || true
wait "$server" 2>/dev/null || true
server=""
echo "service: job $job completed, its database in /var/lib/actorcrawl"

step "purge"
$SUDO apt-get purge -y -qq actorcrawl >/dev/null
[ ! -e /usr/bin/actorcrawl ] || fail "/usr/bin/actorcrawl is still there"
[ ! -e /var/lib/actorcrawl ] || fail "/var/lib/actorcrawl is still there after a purge"
echo "installed package: all checks passed"

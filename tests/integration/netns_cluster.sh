#!/usr/bin/env bash
# The cluster tests across network namespaces: a coordinator and two workers,
# each in a namespace of its own, joined by veth pairs to a bridge in the
# test's namespace, where the test web runs. Every address is in
# 127.0.0.0/8 (route_localnet lets loopback-range addresses travel over the
# veths), so nothing here can reach outside the machine.
#
#   tests/integration/netns_cluster.sh INTEGRATION_TESTS_BINARY
#
# Exits 77 (skipped) with the reason when namespaces cannot be made here (not
# root, no iproute2, a container that forbids them); otherwise the test
# binary's exit code. Everything it creates is removed on exit.
set -uo pipefail

TESTS=${1:?usage: netns_cluster.sh INTEGRATION_TESTS_BINARY}
skip() { printf 'skipped: %s\n' "$*"; exit 77; }

[ "$(id -u)" = 0 ] || skip "network namespaces need root (running as uid $(id -u))"
IP=$(command -v ip 2>/dev/null) || skip "the ip tool (iproute2) is not installed"

# Names unique to this run, short enough for interface names (15 characters).
tag=$(( $$ % 100000 ))
NET=127.201.$(( $$ % 200 + 1 )).
BRIDGE=acbr$tag
NS_COORD=actorcrawl-$tag-coordinator
NS_W1=actorcrawl-$tag-w1
NS_W2=actorcrawl-$tag-w2
created_ns=()
created_links=()

cleanup() {
  local ns link
  for ns in "${created_ns[@]}"; do "$IP" netns del "$ns" 2>/dev/null; done
  for link in "${created_links[@]}"; do "$IP" link del "$link" 2>/dev/null; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

errors=$(mktemp)
# The first namespace tells whether this machine allows them at all.
"$IP" netns add "$NS_COORD" 2>"$errors" || skip "ip netns is not permitted here: $(tr '\n' ' ' <"$errors")"
created_ns+=("$NS_COORD")
setup() {  # setup: the bridge, two more namespaces, a veth pair into each
  "$IP" link add "$BRIDGE" type bridge || return 1
  created_links+=("$BRIDGE")
  "$IP" link set "$BRIDGE" up || return 1
  sysctl -qw "net.ipv4.conf.$BRIDGE.route_localnet=1" || return 1
  "$IP" addr add "${NET}254/24" dev "$BRIDGE" || return 1
  local i
  for i in 101 102 103 104; do "$IP" addr add "$NET$i/32" dev "$BRIDGE" || return 1; done

  local n ns host
  for n in 1 2 3; do
    case $n in 1) ns=$NS_COORD;; 2) ns=$NS_W1;; 3) ns=$NS_W2;; esac
    if [ "$n" != 1 ]; then "$IP" netns add "$ns" || return 1; created_ns+=("$ns"); fi
    host=acv$tag-$n   # the bridge's end; "eth0" is the namespace's end
    "$IP" link add "$host" type veth peer name "p$host" || return 1
    created_links+=("$host")
    "$IP" link set "p$host" netns "$ns" || return 1
    "$IP" -n "$ns" link set "p$host" name eth0 || return 1
    "$IP" link set "$host" master "$BRIDGE" up || return 1
    "$IP" netns exec "$ns" sysctl -qw net.ipv4.conf.all.route_localnet=1 net.ipv4.conf.eth0.route_localnet=1 \
      || return 1
    "$IP" -n "$ns" link set lo up || return 1
    "$IP" -n "$ns" addr add "$NET$n/24" dev eth0 || return 1
    "$IP" -n "$ns" link set eth0 up || return 1
  done
}
setup 2>"$errors" || skip "the namespaces could not be joined: $(tr '\n' ' ' <"$errors")"
rm -f "$errors"

# Can a namespace reach the bridge? (Kernels without route_localnet for
# veths drop loopback-range packets on them.)
if command -v python3 >/dev/null 2>&1; then
  portfile=$(mktemp)
  python3 - "${NET}254" "$portfile" <<'PY' &
import socket, sys
s = socket.socket(); s.bind((sys.argv[1], 0)); s.listen(1)
with open(sys.argv[2], "w") as f:
    f.write("%d" % s.getsockname()[1])
s.settimeout(5)
try:
    s.accept()
except OSError:
    pass
PY
  listener=$!
  for _ in $(seq 1 50); do [ -s "$portfile" ] && break; sleep 0.1; done
  port=$(cat "$portfile"); rm -f "$portfile"
  if [ -n "$port" ] && ! "$IP" netns exec "$NS_W1" timeout 3 bash -c "exec 3<>/dev/tcp/${NET}254/$port" 2>/dev/null; then
    kill "$listener" 2>/dev/null
    skip "this kernel does not carry 127.0.0.0/8 addresses over veth pairs"
  fi
  wait "$listener" 2>/dev/null
fi

echo "namespaces $NS_COORD ($NET""1), $NS_W1 ($NET""2), $NS_W2 ($NET""3); web on $BRIDGE (${NET}101-104)"
ACTORCRAWL_NETNS_IP_TOOL=$IP ACTORCRAWL_NETNS_NET=$NET ACTORCRAWL_NETNS_COORDINATOR=$NS_COORD \
ACTORCRAWL_NETNS_W1=$NS_W1 ACTORCRAWL_NETNS_W2=$NS_W2 ACTORCRAWL_NETNS_W1_LINK=acv$tag-2 \
  "$TESTS" "[netns]"

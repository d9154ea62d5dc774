#!/usr/bin/env bash
# Memory of `actorcrawl serve` around large reads of a job's pages: a job of
# 100 pages with 1,000 links of ~950 bytes each (~95 MB of links) is crawled
# from a loopback web, then read whole — GET /crawl/:id?limit=100&links_limit=1000,
# following `next` — by 4 clients at once, for ROUNDS rounds. Prints the
# service's resident memory (VmRSS) idle, its peak during each round (VmHWM)
# and after each round, in MiB. docs/service.md records the numbers.
#
#   bash bench/service_rss.sh [path/to/actorcrawl]      (ROUNDS=3 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build/actorcrawl}
ROUNDS=${ROUNDS:-3}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT

# The web: / links to /p0 .. /p99, each of which links to 1,000 long URLs
# of another site (out of scope: stored as links, never fetched).
python3 - "$work/web.port" <<'EOF' &
import http.server, socketserver, sys
class Web(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/":
            body = "".join(f'<a href="/p{i}">p{i}</a>\n' for i in range(100))
        elif self.path.startswith("/p"):
            n = self.path[2:]
            body = "".join(f'<a href="http://links.example/{n}/{l}/{"x" * 920}">l</a>\n' for l in range(1000))
        else:
            self.send_response(404); self.end_headers(); return
        data = f"<html><head><title>{self.path}</title></head><body>{body}</body></html>".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def log_message(self, *args):
        pass
class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
server = Server(("127.0.0.1", 0), Web)
open(sys.argv[1], "w").write(str(server.server_address[1]))
server.serve_forever()
EOF
for _ in $(seq 100); do [ -s "$work/web.port" ] && break; sleep 0.1; done
web_port=$(cat "$work/web.port")

"$BIN" serve --listen 127.0.0.1:0 --db-dir "$work/service" --allow-private-networks \
  --politeness-delay-ms 0 >"$work/serve.log" 2>&1 &
serve_pid=$!
for _ in $(seq 200); do grep -q "service listening on" "$work/serve.log" && break; sleep 0.1; done
port=$(sed -n 's/.*service listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/serve.log")

python3 - "$port" "$web_port" "$serve_pid" "$ROUNDS" <<'EOF'
import json, sys, threading, time, urllib.request
port, web_port, pid, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
base = f"http://127.0.0.1:{port}"

def status_kib(field):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])

def mib(kib):
    return f"{kib / 1024:.0f}"

def reset_peak():
    # Writing 5 to clear_refs resets VmHWM to the current RSS (Linux 4.0+).
    with open(f"/proc/{pid}/clear_refs", "w") as f:
        f.write("5")

request = urllib.request.Request(base + "/crawl", method="POST", headers={"Content-Type": "application/json"},
                                 data=json.dumps({"url": f"http://127.0.0.1:{web_port}/", "max_pages": 101}).encode())
job = json.load(urllib.request.urlopen(request))["job_id"]
while json.load(urllib.request.urlopen(f"{base}/crawl/{job}?limit=1&links_limit=0"))["job"]["status"] != "completed":
    time.sleep(0.2)
time.sleep(2)

def read_all(out):
    target, links, answers, largest = f"/crawl/{job}?limit=100&links_limit=1000", 0, 0, 0
    while target:
        body = urllib.request.urlopen(base + target).read()
        largest = max(largest, len(body))
        answer = json.loads(body)["job"]
        links += sum(len(p["links"]) for p in answer["pages"])
        answers += 1
        target = answer.get("next")  # none before answers had it: one answer
    out.append((links, answers, largest))

print(f"idle: VmRSS {mib(status_kib('VmRSS'))} MiB")
for r in range(1, rounds + 1):
    reset_peak()
    results = []
    readers = [threading.Thread(target=read_all, args=(results,)) for _ in range(4)]
    for t in readers:
        t.start()
    for t in readers:
        t.join()
    during = status_kib("VmHWM")
    time.sleep(2)
    links, answers, largest = results[0]
    print(f"round {r}: 4 readers x {links} links in {answers} answers (largest body {largest} bytes): "
          f"peak VmHWM {mib(during)} MiB, after VmRSS {mib(status_kib('VmRSS'))} MiB")
EOF
kill -INT "$serve_pid"
wait "$serve_pid" || true

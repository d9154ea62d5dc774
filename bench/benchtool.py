#!/usr/bin/env python3
"""The measuring half of bench/run.sh: nginx configuration, run measurement, tables (standard library only).

  nginx-conf  WEB PREFIX [--access-log] [--workers N]   nginx config for a synthweb tree
  wait-ready  WEB [--timeout S]                          every host answers (nginx is up)
  measure     OUT.json --tool T --time FILE --web WEB [--db F | --wget-log F | --scrapy-stats F | --curl-log F]
              [--offsite-log F] [--unquote-paths] [--reachable F]
                                                         one run's numbers (time -v, pages, coverage)
  table       OUT.md RUN.json... [--no-offsite]          the Markdown table of medians
  polite      OUT.json --web WEB --access-log F --delay-ms D --time FILE --db F
              pages/s against H/d, and the smallest gap between two requests to one host
  check-coverage RUN.json MIN_PERCENT                    exit 1 when coverage is lower
  wait-url    URL... [--timeout S]                       every URL answers 200 (nginx is up)
  site-urls   ROOT BASE_URL OUT_DIR --entry PATH         a static site's .html files as URLs, and
                                                         which of them the entry page's links reach
  scale       OUT.json --db F --time FILE [--md F]       the scale scenario's numbers and targets
  proc-watch  OUT.json --exe PATH                        CPU of a crawler and of its child processes
                                                         (plugins), sampled from /proc until it exits
  plugin-run  RUN.json --metrics F --db F [--proc F]     adds items, failures and the CPU split to a
                                                         `measure` result (bench/plugins.sh)
  plugins-table OUT.md RUN.json... [--baseline NAME]     bench/plugins.sh's table of medians
  check-items RUN.json...                                exit 1 unless items stored == pages fetched
"""
import argparse
import json
import os
import re
import sqlite3
import statistics
import sys
from urllib.parse import unquote, urljoin, urlsplit, urlunsplit


# ---------------------------------------------------------------- nginx

def nginx_conf(args):
    web = json.load(open(os.path.join(args.web, "web.json")))
    prefix = os.path.abspath(args.prefix)
    root = os.path.abspath(os.path.join(args.web, "hosts"))
    port = web["port"]
    out = []
    w = out.append
    w("worker_processes %s;" % args.workers)
    w("pid %s/nginx.pid;" % prefix)
    w("error_log %s/error.log warn;" % prefix)
    w("worker_rlimit_nofile 16384;")
    w("events { worker_connections 8192; }")
    w("http {")
    w("  types { text/html html; text/plain txt; }")
    w("  default_type application/octet-stream;")
    w("  charset utf-8;")
    w("  sendfile on; tcp_nopush on; tcp_nodelay on;")
    w("  keepalive_timeout 65s; keepalive_requests 1000000;")
    w("  server_tokens off;")
    for t in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        w("  %s_temp_path %s/tmp/%s;" % (t, prefix, t))
    # $msec is when the response was sent; $request_time how long it took, so
    # the request arrived at $msec - $request_time (both in milliseconds).
    w("  log_format bench '$msec $request_time $server_addr $status \"$request_uri\"';")
    if args.access_log:
        w("  access_log %s/access.log bench buffer=256k flush=1s;" % prefix)
    else:
        w("  access_log off;")
    for host in web["hosts"]:
        w("  server {")
        w("    listen %s:%d;" % (host, port))
        w("    root %s/%s;" % (root, host))
        w("    index index.html;")
        if host == web["calendar"]["host"]:
            w("    location = /calendar/ {")
            w('      if ($arg_date ~ "^(?<caldate>[0-9]{4}-[0-9]{2}-[0-9]{2})$") {')
            w("        rewrite ^ /calendar/$caldate.html break;")
            w("      }")
            w("      return 404;")
            w("    }")
        if host == web["loop"]["host"]:
            w('    location ~ "^/loop/(more/){0,%d}$" { try_files /loop/index.html =404; }'
              % max(0, web["loop"]["depth"] - 1))
        w("  }")
    # Off-site hosts: out of scope for every crawler. Logged, so a fetch shows.
    for host in web["offsite_hosts"]:
        w("  server {")
        w("    listen %s:%d;" % (host, port))
        w("    access_log %s/offsite.log bench;" % prefix)
        w("    root %s/%s;" % (root, host))
        w("    location / { try_files /index.html =404; }")
        w("  }")
    w("}")
    os.makedirs(os.path.join(prefix, "tmp"), exist_ok=True)
    with open(os.path.join(prefix, "nginx.conf"), "w") as f:
        f.write("\n".join(out) + "\n")


# The readiness probe's request, which the polite analysis leaves out.
READY_PROBE = "/robots.txt?bench-ready"


def wait_ready(args):
    """Every bench host answers its own robots.txt (so a foreign listener on a
    port does not pass for nginx). Exit 1 when not within the deadline."""
    import time
    import urllib.request
    web = json.load(open(os.path.join(args.web, "web.json")))
    expected = open(os.path.join(args.web, "hosts", web["hosts"][0], "robots.txt"), "rb").read()
    pending = list(web["hosts"])
    deadline = time.monotonic() + args.timeout
    last_error = ""
    while pending and time.monotonic() < deadline:
        host = pending[0]
        url = "http://%s:%d%s" % (host, web["port"], READY_PROBE)
        try:
            with urllib.request.urlopen(url, timeout=1.0) as r:
                if r.status == 200 and r.read() == expected:
                    pending.pop(0)
                    continue
                last_error = "%s: unexpected answer" % url
        except Exception as e:  # noqa: BLE001 - any failure means "not yet"
            last_error = "%s: %s" % (url, e)
        time.sleep(0.1)
    if pending:
        print("nginx not ready: %s" % last_error, file=sys.stderr)
        sys.exit(1)


# ---------------------------------------------------------------- measuring

def parse_time_v(path):
    """/usr/bin/time -v output: wall s, user s, sys s, max RSS KiB, exit status,
    voluntary context switches (the times a thread waited: hand-offs)."""
    r = {"wall_s": None, "user_s": None, "sys_s": None, "max_rss_kb": None, "exit_status": None,
         "voluntary_switches": None}
    try:
        text = open(path).read()
    except OSError:
        return r
    for line in text.splitlines():
        line = line.strip()
        k, _, v = line.rpartition(": ")
        if k.startswith("Elapsed (wall clock) time"):
            secs = 0.0
            for part in v.split(":"):
                secs = secs * 60 + float(part)
            r["wall_s"] = secs
        elif k == "User time (seconds)":
            r["user_s"] = float(v)
        elif k == "System time (seconds)":
            r["sys_s"] = float(v)
        elif k == "Maximum resident set size (kbytes)":
            r["max_rss_kb"] = int(v)
        elif k == "Exit status":
            r["exit_status"] = int(v)
        elif k == "Voluntary context switches":
            r["voluntary_switches"] = int(v)
        elif line.startswith("Command terminated by signal"):
            r["exit_status"] = 128 + int(line.split()[-1])
    return r


def norm_url(u):
    """Scheme and host in lower case, no fragment, no default port, '' path -> '/'."""
    try:
        p = urlsplit(u.strip())
    except ValueError:
        return u.strip()
    netloc = (p.hostname or "").lower()
    try:
        port = p.port
    except ValueError:
        port = None
    if port and not (p.scheme == "http" and port == 80):
        netloc += ":%d" % port
    return urlunsplit((p.scheme.lower(), netloc, p.path or "/", p.query, ""))


def norm_url_unquoted(u):
    """norm_url, then the path percent-decoded: operator%3D.html and operator=.html
    name the same file of a static site, whichever spelling a tool logs."""
    n = norm_url(u)
    p = urlsplit(n)
    return urlunsplit((p.scheme, p.netloc, unquote(p.path), p.query, ""))


def fetched_actorcrawl(db):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        ok = [r[0] for r in con.execute("SELECT url FROM pages WHERE status_code = 200")]
        statuses = dict(con.execute("SELECT COALESCE(status_code, 0), COUNT(*) FROM pages GROUP BY 1"))
        extra = {"status_counts": statuses}
        try:
            extra["dead_letters"] = con.execute("SELECT COUNT(*) FROM dead_letters").fetchone()[0]
            extra["refused"] = dict(con.execute(
                "SELECT refusal, COUNT(*) FROM frontier WHERE refusal IS NOT NULL GROUP BY 1"))
            extra["frontier_states"] = dict(con.execute("SELECT state, COUNT(*) FROM frontier GROUP BY 1"))
        except sqlite3.Error as e:
            extra["db_note"] = str(e)
    finally:
        con.close()
    return ok, extra


WGET_OK = re.compile(r"URL:\s*(\S+) \[[^\]]*\] -> ")


def fetched_wget(log):
    """wget -nv: one 'URL:<url> [n/n] -> "file" [1]' line per file it got (2xx)."""
    ok = []
    errors = 0
    error_urls = []   # -nv writes "URL:" on one line, "... ERROR 404: Not Found." on the next
    prev = ""
    with open(log, errors="replace") as f:
        for line in f:
            m = WGET_OK.search(line)
            if m:
                ok.append(m.group(1))
            elif "ERROR" in line:
                errors += 1
                if prev.startswith(("http://", "https://")) and len(error_urls) < 20:
                    error_urls.append(prev.rstrip().rstrip(":"))
            prev = line
    return ok, {"error_lines": errors, "error_urls": error_urls}


def fetched_curl(log):
    """curl -w '%{http_code} %{url_effective}\\n': one line a transfer."""
    ok = []
    statuses = {}
    with open(log, errors="replace") as f:
        for line in f:
            parts = line.split(None, 1)
            if len(parts) != 2:
                continue
            statuses[parts[0]] = statuses.get(parts[0], 0) + 1
            if parts[0] == "200":
                ok.append(parts[1].strip())
    return ok, {"status_counts": statuses}


def fetched_scrapy(stats_path):
    st = json.load(open(stats_path))
    ok = []
    urls_file = st.get("urls_file")
    if urls_file and os.path.exists(urls_file):
        ok = [l.strip() for l in open(urls_file) if l.strip()]
    keep = {k: v for k, v in st.get("stats", {}).items()
            if k.startswith(("downloader/response_status_count", "downloader/request_count",
                             "offsite/", "item_scraped_count", "log_count/ERROR", "retry/",
                             "downloader/exception_count", "dupefilter/"))}
    return ok, {"scrapy_stats": keep}


def count_lines(path):
    try:
        with open(path) as f:
            return sum(1 for _ in f)
    except OSError:
        return 0


def loadavg():
    try:
        return [float(x) for x in open("/proc/loadavg").read().split()[:3]]
    except (OSError, ValueError):
        return None


def measure(args):
    t = parse_time_v(args.time)
    norm = norm_url_unquoted if args.unquote_paths else norm_url
    universe = [norm(u) for u in open(os.path.join(args.web, "urls.txt")) if u.strip()]
    uset = set(universe)
    ok, extra = [], {}
    try:
        if args.db:
            ok, extra = fetched_actorcrawl(args.db)
        elif args.wget_log:
            ok, extra = fetched_wget(args.wget_log)
        elif args.scrapy_stats:
            ok, extra = fetched_scrapy(args.scrapy_stats)
        elif args.curl_log:
            ok, extra = fetched_curl(args.curl_log)
    except (OSError, ValueError, sqlite3.Error) as e:
        extra = {"error": "could not count pages: %s" % e}
    got = set(norm(u) for u in ok)
    covered = len(got & uset)
    pages = len(ok)
    cpu = (t["user_s"] or 0) + (t["sys_s"] or 0)
    r = {
        "tool": args.tool, "round": args.round, **t,
        "pages": pages, "distinct_pages": len(got),
        "in_scope_total": len(uset), "in_scope_fetched": covered,
        "coverage_pct": 100.0 * covered / len(uset) if uset else 0.0,
        "cpu_s": cpu,
        "pages_per_s": pages / t["wall_s"] if t["wall_s"] else None,
        "cpu_ms_per_page": 1000.0 * cpu / pages if pages else None,
        "offsite_requests": count_lines(args.offsite_log) if args.offsite_log else None,
        "ok": t["exit_status"] is not None and str(t["exit_status"]) in args.ok_exit.split(","),
        "loadavg_after": loadavg(),
        **extra,
    }
    if args.reachable:
        # The pages the entry page's links lead to (site-urls): the most a crawler can get.
        rset = set(norm(u) for u in open(args.reachable) if u.strip())
        r["reachable_total"] = len(rset)
        r["reachable_fetched"] = len(got & rset)
        r["reachable_coverage_pct"] = 100.0 * len(got & rset) / len(rset) if rset else 0.0
        r["reachable_missing_sample"] = sorted(rset - got)[:10]
    missing = sorted(uset - got)
    r["missing_sample"] = missing[:10]
    with open(args.out, "w") as f:
        json.dump(r, f, indent=1)
    print("%-10s round %s: %d pages (%d distinct), %.2f s wall, %.2f s CPU, %.1f MB RSS, "
          "coverage %.2f%%, off-site requests %s, exit %s" % (
              args.tool, args.round, pages, len(got), t["wall_s"] or 0, cpu,
              (t["max_rss_kb"] or 0) / 1024.0, r["coverage_pct"], r["offsite_requests"], t["exit_status"]))


# ---------------------------------------------------------------- table

def fmt(v, nd=1):
    if v is None:
        return "-"
    return ("{:,.%df}" % nd).format(v)


def median_of(runs, key):
    """The median of `key` over the runs that have a value for it, or None."""
    vals = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(vals) if vals else None


def table(args):
    runs = [json.load(open(p)) for p in args.runs]
    tools = []
    for r in runs:
        if r["tool"] not in tools:
            tools.append(r["tool"])
    # Optional columns: coverage of the reachable pages (runs measured with
    # --reachable), and the off-site requests unless --no-offsite.
    reach = all(r.get("reachable_coverage_pct") is not None for r in runs)
    offsite = not getattr(args, "no_offsite", False)
    cov_head = "coverage of all pages % | coverage of reachable pages %" if reach else "coverage %"
    head = "| tool | runs ok | pages | wall s | pages/s | CPU ms/page | peak RSS MB | %s |" % cov_head
    rule = "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |" + (" ---: |" if reach else "")
    if offsite:
        head += " off-site requests |"
        rule += " ---: |"
    lines = [head, rule]
    med = {}
    for tool in tools:
        rs = [r for r in runs if r["tool"] == tool]
        med[tool] = {k: median_of(rs, k) for k in ("pages", "wall_s", "pages_per_s", "cpu_ms_per_page", "max_rss_kb",
                                        "coverage_pct", "offsite_requests", "reachable_coverage_pct")}
        d = med[tool]
        cells = [tool, "%d/%d" % (sum(1 for r in rs if r.get("ok")), len(rs)), fmt(d["pages"], 0), fmt(d["wall_s"], 2), fmt(d["pages_per_s"], 0),
                 fmt(d["cpu_ms_per_page"], 2), fmt(d["max_rss_kb"] / 1024.0 if d["max_rss_kb"] else None, 1),
                 fmt(d["coverage_pct"], 2)]
        if reach:
            cells.append(fmt(d["reachable_coverage_pct"], 2))
        if offsite:
            cells.append(fmt(sum(r.get("offsite_requests") or 0 for r in rs), 0))
        lines.append("| " + " | ".join(cells) + " |")
    ratios = []
    a = med.get("actorcrawl")
    if a and a["pages_per_s"]:
        for other in ("wget", "scrapy"):
            o = med.get(other)
            if o and o["pages_per_s"]:
                # Ratio of medians, and the range of per-round ratios (rounds alternate tools).
                per_round = []
                for r in runs:
                    if r["tool"] != "actorcrawl" or not r.get("pages_per_s"):
                        continue
                    same = [x for x in runs if x["tool"] == other and x["round"] == r["round"] and x.get("pages_per_s")]
                    if same:
                        per_round.append(r["pages_per_s"] / same[0]["pages_per_s"])
                rng = ""
                if len(per_round) > 1:
                    rng = " (per round %.2f-%.2f)" % (min(per_round), max(per_round))
                ratios.append("actorcrawl / %s pages/s: %.2fx%s" % (other, a["pages_per_s"] / o["pages_per_s"], rng))
    loads = [r["loadavg_after"][0] for r in runs if r.get("loadavg_after")]
    if loads:
        ratios.append("load average (1 min) right after each run: %.1f-%.1f on %d cores" % (
            min(loads), max(loads), os.cpu_count() or 0))
    text = "\n".join(lines) + "\n"
    if ratios:
        text += "\n" + "\n".join("- " + x for x in ratios) + "\n"
    with open(args.out, "w") as f:
        f.write(text)
    sys.stdout.write(text)


def check_coverage(args):
    r = json.load(open(args.run))
    if r.get("coverage_pct", 0) + 1e-9 < args.min_percent:
        print("FAIL: %s coverage %.2f%% < %.2f%% (%d of %d in-scope pages); missing e.g. %s" % (
            r["tool"], r.get("coverage_pct", 0), args.min_percent, r.get("in_scope_fetched", 0),
            r.get("in_scope_total", 0), ", ".join(r.get("missing_sample", [])[:5])))
        sys.exit(1)
    if r.get("offsite_requests"):
        print("FAIL: %s made %d off-site requests" % (r["tool"], r["offsite_requests"]))
        sys.exit(1)
    print("ok: %s coverage %.2f%% (%d of %d), no off-site request" % (
        r["tool"], r["coverage_pct"], r["in_scope_fetched"], r["in_scope_total"]))


# ---------------------------------------------------------------- static sites

def wait_url(args):
    """Every URL answers 200. Exit 1 when not within the deadline."""
    import time
    import urllib.request
    pending = list(args.urls)
    deadline = time.monotonic() + args.timeout
    last_error = ""
    while pending and time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(pending[0], timeout=1.0) as r:
                r.read()
                if r.status == 200:
                    pending.pop(0)
                    continue
                last_error = "%s: status %d" % (pending[0], r.status)
        except Exception as e:  # noqa: BLE001 - any failure means "not yet"
            last_error = "%s: %s" % (pending[0], e)
        time.sleep(0.1)
    if pending:
        print("not ready: %s" % last_error, file=sys.stderr)
        sys.exit(1)


# <a href> and <area href>, the links both crawlers follow; quoted or not.
HREF = re.compile(r"""<(?:a|area)\b[^>]*?\shref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))""", re.I)
BASE = re.compile(r"""<base\b[^>]*?\shref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))""", re.I)


def site_urls(args):
    """A static site's .html files as URLs under BASE_URL (urls.txt), and the
    ones reachable from the entry page by following <a>/<area> links the way a
    crawler does, resolved against the page (reachable.txt). site.json has the
    counts and the unreachable files."""
    import html
    from urllib.parse import quote
    root = os.path.abspath(args.root)
    base = args.base_url.rstrip("/")
    files = set()
    for d, _, names in os.walk(root):
        for n in names:
            if n.endswith(".html"):
                files.add("/" + os.path.relpath(os.path.join(d, n), root).replace(os.sep, "/"))
    host = urlsplit(base).netloc

    def url_of(path):
        return base + quote(path, safe="/")

    def file_of(url):
        p = urlsplit(url)
        if p.netloc != host or p.scheme != "http":
            return None
        path = unquote(p.path)
        if path.endswith("/"):
            path += "index.html"   # nginx's index
        return path

    entry = args.entry if args.entry.startswith("/") else "/" + args.entry
    if entry not in files:
        print("entry %s is not a .html file under %s" % (entry, root), file=sys.stderr)
        sys.exit(1)
    seen = {entry}
    stack = [entry]
    links = 0
    while stack:
        path = stack.pop()
        text = open(root + path, encoding="utf-8", errors="replace").read()
        page = url_of(path)
        m = BASE.search(text)
        if m:
            page = urljoin(page, html.unescape(next(g for g in m.groups() if g is not None)).strip())
        for m in HREF.finditer(text):
            href = html.unescape(next(g for g in m.groups() if g is not None)).strip()
            if not href or href.startswith(("#", "javascript:", "mailto:")):
                continue
            links += 1
            target = file_of(urljoin(page, href))
            if target in files and target not in seen:
                seen.add(target)
                stack.append(target)
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "urls.txt"), "w") as f:
        f.write("".join(url_of(p) + "\n" for p in sorted(files)))
    with open(os.path.join(args.out_dir, "reachable.txt"), "w") as f:
        f.write("".join(url_of(p) + "\n" for p in sorted(seen)))
    info = {"root": root, "base_url": base, "entry": entry, "html_files": len(files),
            "reachable": len(seen), "links_followed_from_reachable_pages": links,
            "unreachable": sorted(files - seen)}
    with open(os.path.join(args.out_dir, "site.json"), "w") as f:
        json.dump(info, f, indent=1)
    print("%d .html files, %d reachable from %s" % (len(files), len(seen), entry))


# ---------------------------------------------------------------- scale

def scale(args):
    """Peak RSS, discovered URLs (frontier rows), database size, and pages/s
    over the first and the last 10% of the fetched pages (pages.fetched_at)."""
    t = parse_time_v(args.time)
    con = sqlite3.connect("file:%s?mode=ro" % args.db, uri=True)
    try:
        frontier = con.execute("SELECT COUNT(*) FROM frontier").fetchone()[0]
        states = dict(con.execute("SELECT state, COUNT(*) FROM frontier GROUP BY 1"))
        refused = dict(con.execute(
            "SELECT refusal, COUNT(*) FROM frontier WHERE refusal IS NOT NULL GROUP BY 1"))
        stamps = [r[0] for r in con.execute(
            "SELECT fetched_at FROM pages WHERE fetched_at IS NOT NULL ORDER BY fetched_at")]
        statuses = dict(con.execute("SELECT COALESCE(status_code, 0), COUNT(*) FROM pages GROUP BY 1"))
        links = con.execute("SELECT COUNT(*) FROM links").fetchone()[0]
        max_depth = con.execute("SELECT MAX(depth) FROM frontier").fetchone()[0]
        max_len = con.execute("SELECT MAX(LENGTH(url)) FROM frontier").fetchone()[0]
        dead = con.execute("SELECT COUNT(*) FROM dead_letters").fetchone()[0]
        runs = con.execute("SELECT termination_reason FROM crawl_runs ORDER BY run_id").fetchall()
    finally:
        con.close()
    db_bytes = sum(os.path.getsize(args.db + ext) for ext in ("", "-wal", "-shm")
                   if os.path.exists(args.db + ext))
    n = len(stamps)
    k = n // 10

    def rate(a, b):   # pages fetched_at index a .. b inclusive: (b - a) intervals
        span = (stamps[b] - stamps[a]) / 1000.0
        return (b - a) / span if span > 0 else None
    first = rate(0, k) if k >= 2 else None
    last = rate(n - 1 - k, n - 1) if k >= 2 else None
    middle = rate(k, n - 1 - k) if k >= 2 and n - 1 - 2 * k > 0 else None
    # Also per tenth, to show a trend rather than two points.
    tenths = []
    if k >= 2:
        for i in range(10):
            a, b = i * n // 10, min(n - 1, (i + 1) * n // 10)
            tenths.append(rate(a, b))
    ratio = last / first if first and last else None
    rss_mb = t["max_rss_kb"] / 1024.0 if t["max_rss_kb"] else None
    r = {
        **t, "cpu_s": (t["user_s"] or 0) + (t["sys_s"] or 0),
        "pages": n, "status_counts": statuses, "frontier_rows": frontier, "frontier_states": states,
        "refused": refused, "links_rows": links, "dead_letters": dead, "max_depth": max_depth,
        "max_url_length": max_len, "db_bytes": db_bytes,
        "termination_reasons": [x[0] for x in runs],
        "pages_per_s_wall": n / t["wall_s"] if t["wall_s"] else None,
        "pages_per_s_first10": first, "pages_per_s_last10": last, "pages_per_s_middle80": middle,
        "pages_per_s_tenths": tenths, "last_over_first": ratio,
        "target_rss_mb": args.rss_limit_mb, "target_discovered": args.min_discovered,
        "target_tolerance_pct": args.tolerance_pct,
        "rss_ok": rss_mb is not None and rss_mb <= args.rss_limit_mb,
        "discovered_ok": frontier >= args.min_discovered,
        "rate_ok": ratio is not None and abs(ratio - 1.0) * 100.0 <= args.tolerance_pct,
    }
    with open(args.out, "w") as f:
        json.dump(r, f, indent=1)

    def yes(ok):
        return "**met**" if ok else "**not met**"
    md = [
        "| pages fetched | discovered URLs (frontier rows) | links rows | database MB | wall s | pages/s (wall) | CPU s | peak RSS MB |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        "| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            fmt(n, 0), fmt(frontier, 0), fmt(links, 0), fmt(db_bytes / 1048576.0, 1), fmt(t["wall_s"], 2),
            fmt(r["pages_per_s_wall"], 0), fmt(r["cpu_s"], 2), fmt(rss_mb, 1)),
        "",
        "pages/s by tenth of the fetched pages (by `pages.fetched_at`): %s" % (
            ", ".join(fmt(x, 0) for x in tenths) if tenths else "-"),
        "",
        "| target | measured | |",
        "| --- | --- | --- |",
        "| frontier reaches %s discovered URLs | %s rows in `frontier` (max depth %s, longest URL %s characters) | %s |" % (
            fmt(args.min_discovered, 0), fmt(frontier, 0), max_depth, max_len, yes(r["discovered_ok"])),
        "| peak RSS <= %d MB | %s MB | %s |" % (args.rss_limit_mb, fmt(rss_mb, 1), yes(r["rss_ok"])),
        "| pages/s over the last 10%% within %d%% of the first 10%% | first %s, last %s pages/s (last/first %s; middle 80%%: %s) | %s |" % (
            args.tolerance_pct, fmt(first, 0), fmt(last, 0), fmt(ratio, 2), fmt(middle, 0), yes(r["rate_ok"])),
    ]
    text = "\n".join(md) + "\n"
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)
    sys.stdout.write(text)


# ---------------------------------------------------------------- polite crawl

def polite(args):
    web = json.load(open(os.path.join(args.web, "web.json")))
    hosts = web["hosts"]
    d_ms = args.delay_ms
    t = parse_time_v(args.time)
    per_host = {}
    statuses = {}
    with open(args.access_log) as f:
        for line in f:
            parts = line.split(" ", 4)
            if len(parts) < 5 or parts[4].strip().strip('"') == READY_PROBE:
                continue
            end = float(parts[0])
            start = end - float(parts[1])
            per_host.setdefault(parts[2], []).append((start, end))
            statuses[parts[3]] = statuses.get(parts[3], 0) + 1
    n_req = sum(len(v) for v in per_host.values())
    starts = sorted(s for v in per_host.values() for s, _ in v)
    min_start_gap = None      # arrival to arrival
    min_idle_gap = None       # previous response sent to next arrival
    violations = 0
    worst = None
    tol = args.tolerance_ms / 1000.0
    for host, reqs in per_host.items():
        reqs.sort()
        for (s0, e0), (s1, e1) in zip(reqs, reqs[1:]):
            g = s1 - s0
            if min_start_gap is None or g < min_start_gap:
                min_start_gap = g
                worst = host
            ig = s1 - e0
            if min_idle_gap is None or ig < min_idle_gap:
                min_idle_gap = ig
            if g < d_ms / 1000.0 - tol:
                violations += 1
    pages = 0
    if args.db:
        con = sqlite3.connect("file:%s?mode=ro" % args.db, uri=True)
        pages = con.execute("SELECT COUNT(*) FROM pages WHERE status_code = 200").fetchone()[0]
        con.close()
    span = (starts[-1] - starts[0]) if len(starts) > 1 else 0.0
    # Steady state: the middle 80% of the requests (ramp-up and tail cut off).
    steady = None
    if len(starts) >= 20:
        a, b = starts[len(starts) // 10], starts[(len(starts) * 9) // 10]
        if b > a:
            steady = ((len(starts) * 9) // 10 - len(starts) // 10) / (b - a)
    ideal = len(hosts) / (d_ms / 1000.0)
    r = {
        "hosts": len(hosts), "delay_ms": d_ms, "ideal_per_s": ideal,
        "requests": n_req, "pages_200": pages, "statuses": statuses,
        "hosts_hit": len(per_host),
        "wall_s": t["wall_s"], "cpu_s": (t["user_s"] or 0) + (t["sys_s"] or 0), "max_rss_kb": t["max_rss_kb"],
        "exit_status": t["exit_status"],
        "pages_per_s_wall": pages / t["wall_s"] if t["wall_s"] else None,
        "requests_per_s_span": n_req / span if span else None,
        "requests_per_s_steady": steady,
        "min_gap_ms": None if min_start_gap is None else 1000 * min_start_gap,
        "min_idle_gap_ms": None if min_idle_gap is None else 1000 * min_idle_gap,
        "host_of_min_gap": worst,
        "violations": violations, "tolerance_ms": args.tolerance_ms,
        "offsite_requests": count_lines(args.offsite_log) if args.offsite_log else None,
    }
    for k in ("pages_per_s_wall", "requests_per_s_span", "requests_per_s_steady"):
        r[k.replace("_per_s", "_pct_of_ideal")] = 100.0 * r[k] / ideal if r[k] else None
    with open(args.out, "w") as f:
        json.dump(r, f, indent=1)
    md = [
        "| hosts H | delay d | ideal H/d | pages (200) | wall s | pages/s (wall) | requests/s (first to last) | requests/s (steady, middle 80%) | smallest gap between two requests to one host | hosts hit faster than d | peak RSS MB | CPU s |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        "| %d | %d ms | %s/s | %s | %s | %s (%s%%) | %s (%s%%) | %s (%s%%) | %s ms | %d | %s | %s |" % (
            len(hosts), d_ms, fmt(ideal, 0), fmt(pages, 0), fmt(t["wall_s"], 2),
            fmt(r["pages_per_s_wall"], 0), fmt(r["pages_pct_of_ideal_wall"], 1),
            fmt(r["requests_per_s_span"], 0), fmt(r["requests_pct_of_ideal_span"], 1),
            fmt(r["requests_per_s_steady"], 0), fmt(r["requests_pct_of_ideal_steady"], 1),
            fmt(r["min_gap_ms"], 1), violations,
            fmt((t["max_rss_kb"] or 0) / 1024.0, 1), fmt(r["cpu_s"], 2)),
    ]
    text = "\n".join(md) + "\n"
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)
    sys.stdout.write(text)


def once(args):
    """Each page requested once: nginx's access log of one crawl against the
    web's in-scope URLs and the crawl database."""
    web = json.load(open(os.path.join(args.web, "web.json")))
    port = web["port"]
    t = parse_time_v(args.time)
    asked = {}
    with open(args.access_log) as f:
        for line in f:
            parts = line.split(" ", 4)
            if len(parts) < 5:
                continue
            uri = parts[4].strip().strip('"')
            if uri == READY_PROBE or uri == "/robots.txt":
                continue
            key = "http://%s:%d%s" % (parts[2], port, uri)
            asked[key] = asked.get(key, 0) + 1
    in_scope = {norm_url(u) for u in open(os.path.join(args.web, "urls.txt")) if u.strip()}
    stored, _ = fetched_actorcrawl(args.db)
    stored = {norm_url(u) for u in stored}
    twice = sorted(u for u, n in asked.items() if n > 1)
    requests = sum(asked.values())
    r = {
        "requests": requests, "pages_requested": len(asked), "requested_twice": len(twice),
        "twice_examples": twice[:10], "stored_200": len(stored),
        "in_scope": len(in_scope), "in_scope_stored": len(in_scope & stored),
        "requests_per_page": requests / len(stored) if stored else None,
        "wall_s": t["wall_s"], "pages_per_s_wall": len(stored) / t["wall_s"] if t["wall_s"] else None,
        "exit_status": t["exit_status"],
    }
    with open(args.out, "w") as f:
        json.dump(r, f, indent=1)
    print("%(requests)d requests, %(pages_requested)d pages requested, %(requested_twice)d twice; "
          "%(stored_200)d stored (%(in_scope_stored)d of %(in_scope)d in scope); "
          "%(requests_per_page).4f requests a page" % r)


# ---------------------------------------------------------------- processors (bench/plugins.sh)

def _proc_stat(pid):
    """utime + stime and cutime + cstime of a process, in clock ticks, and its state."""
    with open("/proc/%s/stat" % pid) as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return int(rest[11]) + int(rest[12]), int(rest[13]) + int(rest[14]), rest[0]


def _children(pid):
    out = []
    try:
        tasks = os.listdir("/proc/%s/task" % pid)
    except OSError:
        return out
    for t in tasks:
        try:
            with open("/proc/%s/task/%s/children" % (pid, t)) as f:
                out += f.read().split()
        except OSError:
            pass
    return out


def proc_watch(args):
    """Samples /proc while a process runs whose executable is --exe: its own
    CPU, the CPU of its children it has reaped (cutime), and each descendant's
    CPU as last seen (a plugin's last sample is at most --interval before it
    exits). /usr/bin/time -v counts a descendant only when every parent on the
    way waited for it; comparing its total with these parts shows whether it did."""
    import time
    tick = float(os.sysconf("SC_CLK_TCK"))
    exe = os.path.realpath(args.exe)
    deadline = time.monotonic() + args.find_timeout
    pid = None
    while pid is None and time.monotonic() < deadline:
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    if os.readlink("/proc/%s/exe" % d) == exe:
                        pid = d
                        break
                except OSError:
                    pass
        if pid is None:
            time.sleep(0.02)
    r = {"exe": args.exe, "crawler_pid": None, "samples": 0, "crawler_cpu_s": None,
         "crawler_reaped_children_cpu_s": None, "descendants": [], "descendants_cpu_s": 0.0}
    if pid is None:
        r["error"] = "no process of %s appeared within %.0f s" % (args.exe, args.find_timeout)
    else:
        r["crawler_pid"] = int(pid)
        start = time.monotonic()
        seen = {}   # pid -> {cmd, cpu_ticks, first_s, last_s}
        own = reaped = None
        end = start + args.timeout
        while time.monotonic() < end:
            try:
                o, c, state = _proc_stat(pid)
            except (OSError, IndexError, ValueError):
                break
            own, reaped = o, c
            now = time.monotonic() - start
            stack = _children(pid)
            while stack:
                child = stack.pop()
                try:
                    cpu, _, _ = _proc_stat(child)
                except (OSError, IndexError, ValueError):
                    continue
                d = seen.get(child)
                if d is None:
                    try:
                        with open("/proc/%s/cmdline" % child, "rb") as f:
                            cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
                    except OSError:
                        cmd = "?"
                    d = seen[child] = {"pid": int(child), "cmd": cmd, "cpu_ticks": cpu,
                                       "first_s": round(now, 2), "last_s": round(now, 2)}
                d["cpu_ticks"] = max(d["cpu_ticks"], cpu)
                d["last_s"] = round(now, 2)
                stack += _children(child)
            r["samples"] += 1
            if state == "Z":
                break
            time.sleep(args.interval)
        r["crawler_cpu_s"] = own / tick if own is not None else None
        r["crawler_reaped_children_cpu_s"] = reaped / tick if reaped is not None else None
        for d in seen.values():
            d["cpu_s"] = d.pop("cpu_ticks") / tick
            r["descendants"].append(d)
        r["descendants_cpu_s"] = sum(d["cpu_s"] for d in r["descendants"])
    with open(args.out, "w") as f:
        json.dump(r, f, indent=1)


def plugin_run(args):
    """Adds to a `measure` result (RUN.json, rewritten): the crawl's metrics.log
    (pages_fetched, items_stored, processor_failures), the items by kind and,
    for items of --fields-kind, how many have each field non-null; from
    proc-watch, the CPU split between the crawler and its child processes and
    whether /usr/bin/time -v counted the children; nginx's CPU for the run."""
    r = json.load(open(args.run))
    try:
        m = json.load(open(args.metrics))
    except (OSError, ValueError) as e:
        m = {}
        r["metrics_error"] = str(e)
    r["pages_fetched"] = m.get("pages_fetched")
    r["items_stored"] = m.get("items_stored")
    r["processor_failures"] = m.get("processor_failures")
    r["termination_reason"] = m.get("termination_reason")
    r["processor_failure_count"] = sum(n for reasons in (m.get("processor_failures") or {}).values()
                                       for n in reasons.values())
    kinds, fields = {}, {}
    try:
        con = sqlite3.connect("file:%s?mode=ro" % args.db, uri=True)
        try:
            kinds = dict(con.execute("SELECT kind, COUNT(*) FROM items GROUP BY kind"))
            if args.fields_kind:
                for (text,) in con.execute("SELECT item FROM items WHERE kind = ?", (args.fields_kind,)):
                    for k, v in json.loads(text).items():
                        fields[k] = fields.get(k, 0) + (v is not None)
        finally:
            con.close()
    except (sqlite3.Error, ValueError) as e:
        r["items_error"] = str(e)
    r["items_by_kind"] = kinds
    r["non_null_fields"] = fields
    pages = r.get("pages") or 0
    if args.proc:
        try:
            p = json.load(open(args.proc))
        except (OSError, ValueError) as e:
            p = {"error": str(e)}
        r["proc"] = {k: p.get(k) for k in ("crawler_cpu_s", "crawler_reaped_children_cpu_s",
                                           "descendants_cpu_s", "samples", "error")}
        r["proc"]["descendants"] = [{k: d[k] for k in ("pid", "cmd", "cpu_s", "first_s", "last_s")}
                                    for d in p.get("descendants", [])]
        own, kids = p.get("crawler_cpu_s"), p.get("descendants_cpu_s") or 0.0
        r["plugin_processes"] = len(p.get("descendants", []))
        r["plugin_cpu_s"] = kids
        # The crawler's own CPU: time -v's total less the plugins' (the last
        # sample of the crawler itself misses up to --interval of its end).
        r["crawler_own_cpu_s"] = r["cpu_s"] - kids
        if pages:
            r["crawler_own_cpu_ms_per_page"] = 1000.0 * r["crawler_own_cpu_s"] / pages
            r["plugin_cpu_ms_per_page"] = 1000.0 * kids / pages
        # time -v counted the children when its total holds them beside what
        # the crawler was seen to use itself (each last sample may miss up to
        # --interval of CPU: half the plugins' CPU is the threshold, which is
        # meaningful for runs of seconds, not for a smoke run's tenths).
        if own is not None and kids > 0:
            r["time_counts_children"] = r["cpu_s"] >= own + 0.5 * kids
            r["time_minus_parts_s"] = r["cpu_s"] - own - kids
    if args.nginx_cpu_before not in (None, "-") and args.nginx_cpu_after not in (None, "-"):
        r["nginx_cpu_s"] = float(args.nginx_cpu_after) - float(args.nginx_cpu_before)
        if pages:
            r["nginx_cpu_ms_per_page"] = 1000.0 * r["nginx_cpu_s"] / pages
    if r.get("wall_s"):
        # The crawler, its plugins and nginx: how much of the machine the run kept busy.
        r["cores_busy"] = (r["cpu_s"] + (r.get("nginx_cpu_s") or 0.0)) / r["wall_s"]
    with open(args.run, "w") as f:
        json.dump(r, f, indent=1)
    extra = ""
    if "plugin_cpu_s" in r and r["plugin_cpu_s"]:
        extra = ", plugins %.2f s CPU in %d process(es), crawler itself %.2f s%s" % (
            r["plugin_cpu_s"], r["plugin_processes"], r["crawler_own_cpu_s"] or 0,
            "" if r.get("time_counts_children") else " (NOT in time -v's total)")
    print("%-10s round %s: items stored %s, pages fetched %s, failures %d%s" % (
        r["tool"], r["round"], r["items_stored"], r["pages_fetched"], r["processor_failure_count"], extra))


def plugins_table(args):
    runs = [json.load(open(p)) for p in args.runs]
    configs = []
    for r in runs:
        if r["tool"] not in configs:
            configs.append(r["tool"])
    base = {r["round"]: r for r in runs if r["tool"] == args.baseline}

    def med(vals):
        vals = [v for v in vals if v is not None]
        return statistics.median(vals) if vals else None

    def rng(vals, nd):
        vals = [v for v in vals if v is not None]
        return "%s–%s" % (fmt(min(vals), nd), fmt(max(vals), nd)) if len(vals) > 1 else ""

    lines = [
        "| configuration | runs ok | pages | items stored | wall s | pages/s | user+sys CPU s | CPU ms/page "
        "| extra CPU ms/page vs %s (per round) | crawler's own CPU ms/page | plugins' CPU ms/page "
        "| nginx CPU ms/page | cores busy (with nginx) | peak RSS MB | processor failures |" % args.baseline,
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    notes = []
    for c in configs:
        rs = [r for r in runs if r["tool"] == c]

        def m(key):
            return med([r.get(key) for r in rs])
        deltas = []
        for r in rs:
            b = base.get(r["round"])
            if c != args.baseline and b and r.get("cpu_ms_per_page") is not None and b.get("cpu_ms_per_page") is not None:
                deltas.append(r["cpu_ms_per_page"] - b["cpu_ms_per_page"])
        d = med(deltas)
        delta_cell = "" if c == args.baseline else (
            "%s (%s)" % (fmt(d, 3), rng(deltas, 3)) if len(deltas) > 1 else fmt(d, 3))
        ok = sum(1 for r in rs if r.get("ok") and r.get("items_ok", True))
        rss = m("max_rss_kb")
        cells = [c, "%d/%d" % (ok, len(rs)), fmt(m("pages"), 0), fmt(m("items_stored"), 0), fmt(m("wall_s"), 2),
                 fmt(m("pages_per_s"), 0), fmt(m("cpu_s"), 2), fmt(m("cpu_ms_per_page"), 3), delta_cell,
                 fmt(m("crawler_own_cpu_ms_per_page"), 3),
                 fmt(m("plugin_cpu_ms_per_page"), 3) if any(r.get("plugin_cpu_s") for r in rs) else "—",
                 fmt(m("nginx_cpu_ms_per_page"), 3), fmt(m("cores_busy"), 2),
                 fmt(rss / 1024.0 if rss else None, 1),
                 fmt(sum(r.get("processor_failure_count") or 0 for r in rs), 0)]
        lines.append("| " + " | ".join(cells) + " |")
        per_round = ", ".join("r%d %s pages/s %s ms" % (r["round"], fmt(r.get("pages_per_s"), 0),
                                                        fmt(r.get("cpu_ms_per_page"), 3))
                              for r in sorted(rs, key=lambda x: x["round"]))
        notes.append("%s per round: %s" % (c, per_round))
        nn = [r for r in rs if r.get("non_null_fields")]
        if nn:
            keys = list(nn[0]["non_null_fields"])
            notes.append("%s: fields not null, of %s items (median): %s" % (
                c, fmt(med([sum((r.get("items_by_kind") or {}).values()) for r in nn]), 0),
                ", ".join("%s %s" % (k, fmt(med([r["non_null_fields"].get(k) for r in nn]), 0)) for k in keys)))
        plug = [r for r in rs if r.get("plugin_cpu_s")]
        if plug:
            counted = sum(1 for r in plug if r.get("time_counts_children"))
            procs = med([r.get("plugin_processes") for r in plug])
            busy = med([r["plugin_cpu_s"] / r["wall_s"] / (r.get("plugin_processes") or 1)
                        for r in plug if r.get("wall_s")])
            notes.append("%s: /usr/bin/time -v's CPU includes the plugin processes in %d of %d runs "
                         "(its total minus the crawler's and the plugins' CPU sampled from /proc: %s s); "
                         "%s plugin process(es) a run, each busy %s%% of the wall time" % (
                             c, counted, len(plug), rng([r.get("time_minus_parts_s") for r in plug], 2)
                             or fmt(plug[0].get("time_minus_parts_s"), 2),
                             fmt(procs, 0), fmt(100.0 * busy if busy is not None else None, 0)))
    loads = [r["loadavg_after"][0] for r in runs if r.get("loadavg_after")]
    if loads:
        notes.append("load average (1 min) right after each run: %.1f-%.1f on %d cores" % (
            min(loads), max(loads), os.cpu_count() or 0))
    text = "\n".join(lines) + "\n\n" + "\n".join("- " + x for x in notes) + "\n"
    with open(args.out, "w") as f:
        f.write(text)
    sys.stdout.write(text)


def check_items(args):
    """Every page fetched gave exactly one item (items stored == pages), no
    processor failed, and the crawl exited as it should."""
    bad = 0
    for path in args.runs:
        r = json.load(open(path))
        problems = []
        if not r.get("ok"):
            problems.append("exit status %s" % r.get("exit_status"))
        if r.get("items_stored") is None or r.get("pages_fetched") is None:
            problems.append("no metrics (%s)" % r.get("metrics_error", "metrics.log missing"))
        else:
            if r["items_stored"] != r["pages_fetched"]:
                problems.append("items stored %d != pages fetched %d" % (r["items_stored"], r["pages_fetched"]))
            if r["items_stored"] != r.get("pages"):
                problems.append("items stored %d != pages in the database (status 200) %s" % (
                    r["items_stored"], r.get("pages")))
        if r.get("processor_failure_count"):
            problems.append("processor failures %s" % json.dumps(r.get("processor_failures")))
        if problems:
            bad += 1
            print("FAIL: %s round %s: %s" % (r["tool"], r["round"], "; ".join(problems)))
        else:
            print("ok: %s round %s: %d items for %d pages, no processor failure" % (
                r["tool"], r["round"], r["items_stored"], r["pages_fetched"]))
    sys.exit(1 if bad else 0)


# ---------------------------------------------------------------- cluster

def link_watch(args):
    """Samples `ss -tin` every --interval s while --pid lives: for each TCP
    connection whose local port is --port (the coordinator's side of every
    link to a worker node), the most bytes it has sent (bytes_acked) and
    received (bytes_received). A connection's last sample is at most one
    interval before it closes, so the totals fall short by at most that much
    of the traffic."""
    import subprocess
    import time
    conns = {}
    samples = 0
    while True:
        alive = os.path.exists("/proc/%d" % args.pid)
        try:
            out = subprocess.run(["ss", "-tinH", "state", "established", "( sport = :%d )" % args.port],
                                 capture_output=True, text=True, timeout=5).stdout
        except (OSError, subprocess.SubprocessError):
            out = ""
        key = None
        for line in out.splitlines():
            if not line.startswith((" ", "\t")):
                f = line.split()
                key = " ".join(f[-2:]) if len(f) >= 2 else None
                continue
            if key is None:
                continue
            d = conns.setdefault(key, {"sent": 0, "received": 0})
            for tok in line.split():
                name, _, v = tok.partition(":")
                if name == "bytes_acked" and v.isdigit():
                    d["sent"] = max(d["sent"], int(v))
                elif name == "bytes_received" and v.isdigit():
                    d["received"] = max(d["received"], int(v))
        samples += 1
        if not alive:
            break
        time.sleep(args.interval)
    r = {"port": args.port, "samples": samples, "connections": len(conns),
         "coordinator_sent_bytes": sum(d["sent"] for d in conns.values()),
         "coordinator_received_bytes": sum(d["received"] for d in conns.values())}
    with open(args.out, "w") as f:
        json.dump(r, f, indent=1)


def cluster_run(args):
    """One run of bench/cluster.sh as JSON: pages and items from the
    database, wall time from metrics.log, each process's CPU from its
    /usr/bin/time -v file, the link's bytes from link-watch."""
    metrics = json.load(open(args.metrics))
    db = sqlite3.connect(args.db)
    pages = db.execute("SELECT COUNT(*) FROM pages WHERE error IS NULL OR error = ''").fetchone()[0]
    items = db.execute("SELECT COUNT(*) FROM items").fetchone()[0]
    failures = db.execute("SELECT COUNT(*) FROM processor_failures").fetchone()[0]
    db.close()
    wall_s = metrics["duration_ms"] / 1000.0 if "duration_ms" in metrics else None
    def cpu(t):
        return None if t["user_s"] is None else t["user_s"] + t["sys_s"]
    coord_time = parse_time_v(args.coordinator_time)
    coord_cpu, coord_exit, coord_waits = cpu(coord_time), coord_time["exit_status"], coord_time["voluntary_switches"]
    nodes = []
    for path in args.node_time:
        t = parse_time_v(path)
        nodes.append({"cpu_s": cpu(t), "exit_status": t["exit_status"]})
    link = json.load(open(args.link)) if args.link else {}
    per_page = (lambda x: None if x is None or pages == 0 else 1000.0 * x / pages)
    node_cpu = [n["cpu_s"] for n in nodes if n["cpu_s"] is not None]
    total = (coord_cpu or 0.0) + sum(node_cpu)
    r = {"config": args.config, "nodes": len(nodes), "round": args.round, "binary": args.binary,
         "pages": pages, "items": items, "processor_failures": failures, "wall_s": wall_s,
         "pages_per_s": None if not wall_s else pages / wall_s,
         "coordinator_cpu_s": coord_cpu, "coordinator_exit": coord_exit,
         "coordinator_ms_per_page": per_page(coord_cpu),
         # Hand-offs: its threads' waits (voluntary context switches) a page,
         # a count that CPU contention on the machine does not move as much
         # as it moves CPU time.
         "coordinator_waits_per_page": None if coord_waits is None or not pages else coord_waits / pages,
         "node_cpu_s": node_cpu, "node_exits": [n["exit_status"] for n in nodes],
         "node_ms_per_page": [per_page(c) for c in node_cpu],
         "total_ms_per_page": per_page(total),
         "bytes_to_coordinator_per_page": None if not pages else link.get("coordinator_received_bytes", 0) / pages,
         "bytes_from_coordinator_per_page": None if not pages else link.get("coordinator_sent_bytes", 0) / pages}
    with open(args.out, "w") as f:
        json.dump(r, f, indent=1)


def cluster_table(args):
    """The runs of bench/cluster.sh as a Markdown table: medians over rounds
    of each (binary, config, nodes); speedups against 1 node; one process's
    CPU a page beside the cluster's."""
    runs = [json.load(open(p)) for p in args.runs]
    groups = {}
    for r in runs:
        groups.setdefault((r["binary"], r["config"], r["nodes"]), []).append(r)
    lines = ["| binary | config | nodes | pages | pages/s | × 1 node | coordinator ms/page | coordinator waits/page | node ms/page (each) | cluster ms/page | × one process | bytes/page to coordinator | bytes/page from it |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    single = {(r["binary"], r["config"]): r for r in runs if r["nodes"] == 0}
    for (binary, config, nodes), rs in sorted(groups.items()):
        if nodes == 0:
            continue
        pps = median_of(rs, "pages_per_s")
        base = groups.get((binary, config, 1))
        base_pps = median_of(base, "pages_per_s") if base else None
        node_ms = [statistics.median(v) for v in zip(*[r["node_ms_per_page"] for r in rs if r["node_ms_per_page"]])]
        total = median_of(rs, "total_ms_per_page")
        one = single.get((binary, config))
        one_ms = one["total_ms_per_page"] if one else None
        lines.append("| %s | %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            binary, config, nodes, int(median_of(rs, "pages") or 0), fmt(pps, 0),
            fmt(None if not (pps and base_pps) else pps / base_pps, 2), fmt(median_of(rs, "coordinator_ms_per_page"), 3),
            fmt(median_of(rs, "coordinator_waits_per_page"), 2),
            " ".join(fmt(x, 3) for x in node_ms) or "-", fmt(total, 3),
            fmt(None if not (total and one_ms) else total / one_ms, 2), fmt(median_of(rs, "bytes_to_coordinator_per_page"), 0),
            fmt(median_of(rs, "bytes_from_coordinator_per_page"), 0)))
    for (binary, config), r in sorted(single.items()):
        lines.append("| %s | %s | one process | %d | %s | | | | | %s | 1.00 | | |" % (
            binary, config, r["pages"], fmt(r["pages_per_s"], 0), fmt(r["total_ms_per_page"], 3)))
    text = "\n".join(lines) + "\n"
    with open(args.out, "w") as f:
        f.write(text)
    print(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("nginx-conf")
    p.add_argument("web")
    p.add_argument("prefix")
    p.add_argument("--access-log", action="store_true")
    p.add_argument("--workers", default="1")
    p.set_defaults(fn=nginx_conf)
    p = sub.add_parser("wait-ready")
    p.add_argument("web")
    p.add_argument("--timeout", type=float, default=10.0)
    p.set_defaults(fn=wait_ready)
    p = sub.add_parser("measure")
    p.add_argument("out")
    p.add_argument("--tool", required=True)
    p.add_argument("--round", type=int, default=1)
    p.add_argument("--time", required=True)
    p.add_argument("--web", required=True)
    p.add_argument("--db")
    p.add_argument("--wget-log")
    p.add_argument("--scrapy-stats")
    p.add_argument("--curl-log")
    p.add_argument("--offsite-log")
    p.add_argument("--ok-exit", default="0", help="exit statuses that count as a finished run")
    p.add_argument("--unquote-paths", action="store_true",
                   help="compare URLs with their paths percent-decoded (static sites)")
    p.add_argument("--reachable", help="file of the URLs reachable from the entry page: adds their coverage")
    p.set_defaults(fn=measure)
    p = sub.add_parser("table")
    p.add_argument("out")
    p.add_argument("runs", nargs="+")
    p.add_argument("--no-offsite", action="store_true", help="leave out the off-site requests column")
    p.set_defaults(fn=table)
    p = sub.add_parser("check-coverage")
    p.add_argument("run")
    p.add_argument("min_percent", type=float)
    p.set_defaults(fn=check_coverage)
    p = sub.add_parser("polite")
    p.add_argument("out")
    p.add_argument("--web", required=True)
    p.add_argument("--access-log", required=True)
    p.add_argument("--delay-ms", type=float, required=True)
    p.add_argument("--time", required=True)
    p.add_argument("--db")
    p.add_argument("--offsite-log")
    p.add_argument("--md")
    p.add_argument("--tolerance-ms", type=float, default=1.0,
                   help="nginx logs in whole milliseconds: gaps this much under d still pass")
    p.set_defaults(fn=polite)
    p = sub.add_parser("once")
    p.add_argument("out")
    p.add_argument("--web", required=True)
    p.add_argument("--access-log", required=True)
    p.add_argument("--time", required=True)
    p.add_argument("--db", required=True)
    p.set_defaults(fn=once)
    p = sub.add_parser("wait-url")
    p.add_argument("urls", nargs="+")
    p.add_argument("--timeout", type=float, default=10.0)
    p.set_defaults(fn=wait_url)
    p = sub.add_parser("site-urls")
    p.add_argument("root")
    p.add_argument("base_url")
    p.add_argument("out_dir")
    p.add_argument("--entry", required=True, help="the entry page's path under ROOT, e.g. /en/index.html")
    p.set_defaults(fn=site_urls)
    p = sub.add_parser("scale")
    p.add_argument("out")
    p.add_argument("--db", required=True)
    p.add_argument("--time", required=True)
    p.add_argument("--md")
    p.add_argument("--rss-limit-mb", type=float, default=256)
    p.add_argument("--min-discovered", type=int, default=1000000)
    p.add_argument("--tolerance-pct", type=float, default=20)
    p.set_defaults(fn=scale)
    p = sub.add_parser("link-watch")
    p.add_argument("out")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--interval", type=float, default=0.2)
    p.set_defaults(fn=link_watch)
    p = sub.add_parser("cluster-run")
    p.add_argument("out")
    p.add_argument("--config", required=True)
    p.add_argument("--round", type=int, default=1)
    p.add_argument("--binary", default="current")
    p.add_argument("--db", required=True)
    p.add_argument("--metrics", required=True)
    p.add_argument("--coordinator-time", required=True)
    p.add_argument("--node-time", action="append", default=[])
    p.add_argument("--link")
    p.set_defaults(fn=cluster_run)
    p = sub.add_parser("cluster-table")
    p.add_argument("out")
    p.add_argument("runs", nargs="+")
    p.set_defaults(fn=cluster_table)
    p = sub.add_parser("proc-watch")
    p.add_argument("out")
    p.add_argument("--exe", required=True, help="the crawler's executable (its /proc/PID/exe)")
    p.add_argument("--interval", type=float, default=0.2)
    p.add_argument("--find-timeout", type=float, default=30.0)
    p.add_argument("--timeout", type=float, default=3600.0)
    p.set_defaults(fn=proc_watch)
    p = sub.add_parser("plugin-run")
    p.add_argument("run")
    p.add_argument("--metrics", required=True)
    p.add_argument("--db", required=True)
    p.add_argument("--proc")
    p.add_argument("--fields-kind", help="count the non-null fields of this kind's items")
    p.add_argument("--nginx-cpu-before")
    p.add_argument("--nginx-cpu-after")
    p.set_defaults(fn=plugin_run)
    p = sub.add_parser("plugins-table")
    p.add_argument("out")
    p.add_argument("runs", nargs="+")
    p.add_argument("--baseline", default="baseline")
    p.set_defaults(fn=plugins_table)
    p = sub.add_parser("check-items")
    p.add_argument("runs", nargs="+")
    p.set_defaults(fn=check_items)
    a = ap.parse_args()
    a.fn(a)


if __name__ == "__main__":
    main()

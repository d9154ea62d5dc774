#!/usr/bin/env python3
"""The measuring half of bench/run.sh: nginx configuration, run measurement, tables (standard library only).

  nginx-conf  WEB PREFIX [--access-log] [--workers N]   nginx config for a synthweb tree
  wait-ready  WEB [--timeout S]                          every host answers (nginx is up)
  measure     OUT.json --tool T --time FILE --web WEB [--db F | --wget-log F | --scrapy-stats F]
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
    """/usr/bin/time -v output: wall s, user s, sys s, max RSS KiB, exit status."""
    r = {"wall_s": None, "user_s": None, "sys_s": None, "max_rss_kb": None, "exit_status": None}
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

        def m(key):
            vals = [r[key] for r in rs if r.get(key) is not None]
            return statistics.median(vals) if vals else None
        med[tool] = {k: m(k) for k in ("pages", "wall_s", "pages_per_s", "cpu_ms_per_page", "max_rss_kb",
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
    a = ap.parse_args()
    a.fn(a)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes a synthetic crawl database for the export benchmark: PAGES pages
(default 1,000,000) on HOSTS hosts, each with LINKS links (default 10:
10,000,000 links), in the crawl database's own schema
(core/store/crawl_schema.sql, applied as it is). Half of each page's links
go to other pages of the crawl, half to URLs never fetched; each page links
2 other hosts, so the domain graph has HOSTS nodes and up to 2 x HOSTS
edges. Titles hold quotes, commas and `<&>` so the writers' escaping is in
the measurement.

usage: bench/export_db.py OUT.db [PAGES] [LINKS] [HOSTS]"""
import json
import os
import sqlite3
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    out = sys.argv[1]
    pages = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    links = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    hosts = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    if os.path.exists(out):
        os.remove(out)
    db = sqlite3.connect(out)
    db.executescript(open(os.path.join(root, "core/store/crawl_schema.sql")).read())
    db.execute("PRAGMA user_version = 10")
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = OFF")

    def host(i):
        return "h%d.example" % (i % hosts)

    def url(i):
        return "http://%s/p/%d" % (host(i), i)

    db.executemany("INSERT INTO nodes(node_id, domain_name, description, crawl_count) VALUES (?, ?, ?, ?)",
                   ((h + 1, "h%d.example" % h, 'Host %d, "the <&> one"' % h, pages // hosts) for h in range(hosts)))
    db.executemany("INSERT INTO edges(from_node_id, to_node_id, weight) VALUES (?, ?, ?)",
                   ((h + 1, (h + k) % hosts + 1, pages // hosts) for h in range(hosts) for k in (1, 2)))
    db.executemany(
        "INSERT INTO pages(page_id, url, node_id, depth, status_code, content_type, title, description, bytes,"
        " fetch_ms, fetched_at, final_url, truncated, attempts) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,0,1)",
        ((i + 1, url(i), i % hosts + 1, 3, 200, "text/html", 'Page %d: "quoted", <b>&amp;</b>' % i,
          "A synthetic page, number %d, of the export benchmark" % i, 16000, 5, 1700000000000 + i, url(i))
         for i in range(pages)))

    # A page's links are one row of page_links (schema 10): the targets as a
    # JSON array, one flag digit a link (1: nofollow, 2: followed).
    def page_links():
        for i in range(pages):
            targets = []
            for k in range(links):
                if k % 2 == 0:
                    targets.append(url((i * 7 + k * 131 + 1) % pages))
                else:
                    targets.append("http://%s/never/%d/%d" % (host(i + k), i, k))
            flags = "".join("1" if k == links - 1 else "0" for k in range(links))
            yield (i + 1, json.dumps(targets), flags)

    db.executemany("INSERT INTO page_links(page_id, urls, flags) VALUES (?,?,?)", page_links())
    db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


if __name__ == "__main__":
    main()

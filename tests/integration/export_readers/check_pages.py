"""Reads the page exports with tools of their own: every JSON Lines line
through jq, the CSV through Python's csv module; checks both against the
crawl database (pages in page_id order, titles, links in document order).

usage: check_pages.py DB FILE.jsonl FILE.csv"""
import csv
import json
import subprocess
import sys

import crawl_db

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def main():
    db, jsonl, csv_path = sys.argv[1:4]
    expected = crawl_db.pages(db)
    problems = []

    # jq parses each line on its own (-c: one output line per input line).
    run = subprocess.run(["jq", "-c", "[.url, .title, [.links[].url]]", jsonl], capture_output=True, text=True)
    if run.returncode != 0:
        problems.append("jq exited %d: %s" % (run.returncode, run.stderr))
    else:
        got = [tuple(json.loads(line)) for line in run.stdout.splitlines()]
        got = [(u, t, l) for u, t, l in got]
        if got != expected:
            problems.append("jsonl: %r\n  database: %r" % (got, expected))

    with open(csv_path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    if len(body) != len(expected):
        problems.append("csv: %d rows, database has %d pages" % (len(body), len(expected)))
    url_at, title_at, links_at = header.index("url"), header.index("title"), header.index("links")
    for row, (url, title, links) in zip(body, expected):
        if len(row) != len(header):
            problems.append("csv: row of %d fields under a header of %d: %r" % (len(row), len(header), row))
            continue
        want_title = title or ""
        if want_title.startswith(FORMULA_STARTS):
            want_title = "'" + want_title
        if row[url_at] != url or row[title_at] != want_title or int(row[links_at]) != len(links):
            problems.append("csv: %r, database (%r, %r, %d links)" % (row, url, want_title, len(links)))
    for p in problems:
        print(p)
    if not problems:
        print("%d pages in %s and %s, as in the database" % (len(expected), jsonl, csv_path))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

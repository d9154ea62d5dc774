"""Reads the page exports with tools of their own: every JSON Lines line
through jq, the CSV through Python's csv module; checks both against the
crawl database (pages in page_id order, titles, links in document order).
The CSV's text fields are read back by the rule docs/exports.md gives
readers (drop one leading ' from a field that has one) and must equal the
database byte for byte, but for what the docs say is replaced.

usage: check_pages.py DB FILE.jsonl FILE.csv"""
import csv
import json
import subprocess
import sys

import crawl_db


def csv_text(stored):
    """What docs/exports.md says a CSV text field holds for these stored
    bytes: UTF-8 with U+FFFD for what is not, and for every control
    character (C0, DEL, C1) but tab, LF and CR; NULL is empty."""
    if stored is None:
        return ""
    return "".join("\ufffd" if (ord(c) < 0x20 and c not in "\t\n\r") or 0x7F <= ord(c) <= 0x9F else c
                   for c in crawl_db.as_utf8(stored))


def unguarded(field):
    """docs/exports.md's reader rule: a text field that begins with ' had
    one put there by the formula guard."""
    return field[1:] if field.startswith("'") else field


def main():
    db, jsonl, csv_path = sys.argv[1:4]
    expected = crawl_db.pages(db)
    problems = []

    # jq parses each line on its own (-c: one output line per input line;
    # jq writes U+0085 and U+2028 as they are, so lines split at \n only).
    run = subprocess.run(["jq", "-c", "[.url, .title, [.links[].url]]", jsonl], capture_output=True)
    if run.returncode != 0:
        problems.append("jq exited %d: %s" % (run.returncode, run.stderr.decode(errors="replace")))
    else:
        got = [tuple(json.loads(line)) for line in run.stdout.decode("utf-8").split("\n") if line]
        if got != expected:
            problems.append("jsonl: %r\n  database: %r" % (got, expected))

    with open(csv_path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    stored = crawl_db.page_texts(db)
    if len(body) != len(expected):
        problems.append("csv: %d rows, database has %d pages" % (len(body), len(expected)))
    links_at = header.index("links")
    for row, texts, (_, _, links) in zip(body, stored, expected):
        if len(row) != len(header):
            problems.append("csv: row of %d fields under a header of %d: %r" % (len(row), len(header), row))
            continue
        for column, value in texts.items():
            got = unguarded(row[header.index(column)]).encode("utf-8")
            want = csv_text(value).encode("utf-8")
            if got != want:
                problems.append("csv: %s %r, database %r (exported as %r)" % (column, got, value, want))
        if int(row[links_at]) != len(links):
            problems.append("csv: %d links, database %d: %r" % (int(row[links_at]), len(links), row))
    for p in problems:
        print(p)
    if not problems:
        print("%d pages in %s and %s, as in the database" % (len(expected), jsonl, csv_path))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

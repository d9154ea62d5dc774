"""Reads the item exports with Python's own json and csv modules and checks
them against the crawl database's items table: every item of every kind in
item_id order (items), the items of one kind (items --kind), and that
kind's CSV (items-csv --kind), its columns and cells read back by the rules
docs/exports.md gives readers.

usage: check_items.py DB ALL.jsonl KIND KIND.jsonl KIND.csv"""
import csv
import json
import sys

import crawl_db


def stored_items(db_path, kind=None):
    """[(url as stored, kind, item text)] in item_id order, for items whose
    page has a row (the export skips the others)."""
    db = crawl_db.connect_raw(db_path)
    sql = ("SELECT p.url, i.kind, i.item FROM items i JOIN pages p ON p.page_id = i.page_id" +
           (" WHERE i.kind = ?" if kind is not None else "") + " ORDER BY i.item_id")
    return [(u, k.decode("utf-8"), t.decode("utf-8", "replace"))
            for u, k, t in db.execute(sql, () if kind is None else (kind,))]


def as_json(text):
    """The item as docs/exports.md says `items` embeds it: the JSON it
    holds, or its text as a string when it is not JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def same(a, b):
    """Equal values with their keys in the same order (== on dicts ignores
    the order; their serializations do not)."""
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


def check_jsonl(path, expected, problems):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines[-1] != "":
        problems.append("%s: does not end in a line feed" % path)
    got = [json.loads(line) for line in lines[:-1]]
    if len(got) != len(expected):
        problems.append("%s: %d lines, database %d items" % (path, len(got), len(expected)))
    for line, (url, kind, text) in zip(got, expected):
        if list(line) != ["url", "kind", "item"]:
            problems.append("%s: fields %r" % (path, list(line)))
        want = {"url": crawl_db.as_json_text(url), "kind": kind, "item": as_json(text)}
        if not same(line, want):
            problems.append("%s: %r\n  database: %r" % (path, line, want))


def csv_text(text):
    """What docs/exports.md says a CSV text field holds: every control
    character (C0, DEL, C1) but tab, LF and CR as U+FFFD."""
    return "".join("\ufffd" if (ord(c) < 0x20 and c not in "\t\n\r") or 0x7F <= ord(c) <= 0x9F else c
                   for c in text)


def unguarded(field):
    """docs/exports.md's reader rule: a field that begins with ' had one put
    there by the formula guard."""
    return field[1:] if field.startswith("'") else field


def columns_of(items):
    """docs/exports.md's column rule: the union of the items' top-level keys
    in first-seen order; `url` is the page's, so an item's own `url` is
    headed item.url (item. put before it while the name is taken)."""
    keys = []
    for _, _, text in items:
        item = as_json(text)
        if isinstance(item, dict):
            keys += [k for k in item if k not in keys]
    headers = []
    for key in keys:
        header = key
        if key == "url":
            header = "item.url"
            while header in keys or header == "url":
                header = "item." + header
        headers.append(header)
    return keys, headers


def cell(value):
    """A top-level value as docs/exports.md says items-csv writes it (the
    text after the guard is dropped)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return csv_text(value)
    if isinstance(value, (int, float)):
        return value  # compared as a number
    return csv_text(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def check_csv(path, items, problems):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    keys, headers = columns_of(items)
    header = [unguarded(h) for h in rows[0]]
    if header != ["url"] + [csv_text(h) for h in headers]:
        problems.append("%s: header %r, expected url and %r" % (path, header, headers))
        return
    body = rows[1:]
    if len(body) != len(items):
        problems.append("%s: %d rows, database %d items" % (path, len(body), len(items)))
    for row, (url, _, text) in zip(body, items):
        if len(row) != len(header):
            problems.append("%s: a row of %d fields under %d columns: %r" % (path, len(row), len(header), row))
            continue
        if unguarded(row[0]) != csv_text(crawl_db.as_utf8(url)):
            problems.append("%s: url %r, database %r" % (path, row[0], url))
        item = as_json(text)
        values = item if isinstance(item, dict) else {}
        for key, field in zip(keys, row[1:]):
            want = cell(values.get(key))
            if isinstance(want, (int, float)) and not isinstance(want, bool):
                if field.startswith("'") or float(field) != want:
                    problems.append("%s: %s = %r, database %r" % (path, key, field, want))
            elif unguarded(field) != want:
                problems.append("%s: %s = %r, database %r" % (path, key, field, want))


def main():
    db, all_jsonl, kind, kind_jsonl, kind_csv = sys.argv[1:6]
    problems = []
    everything = stored_items(db)
    of_kind = stored_items(db, kind)
    if not of_kind or len(of_kind) == len(everything):
        problems.append("the database should hold items of %r and of other kinds" % kind)
    check_jsonl(all_jsonl, everything, problems)
    check_jsonl(kind_jsonl, of_kind, problems)
    check_csv(kind_csv, of_kind, problems)
    for p in problems:
        print(p)
    if not problems:
        print("%d items (%d of %s) in %s, %s and %s, as in the database" %
              (len(everything), len(of_kind), kind, all_jsonl, kind_jsonl, kind_csv))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# A plugin for the external processor's tests, speaking the protocol by hand
# (no helper): it answers each page as its URL's path asks, including every
# way a plugin can go wrong.
#   /links          items, and links relative to the page
#   /echo           an item echoing the page line (body, headers, ...)
#   /crash          writes to stderr, then exits with status 3
#   /hang           never answers
#   /garbage        a line that is not JSON (its own output), then an answer
#   /unknown-id     answers an id it was not sent
#   /twice          answers twice
#   /huge           an answer over 1 MiB that starts with its id
#   /huge-no-id     an answer over 1 MiB whose beginning names no id
#   /error          {"id", "error"}
#   /bad-items      items that are not objects
#   /stderr         a line on stderr, then a normal answer
#   /chatty         5,000 lines on stderr, then a normal answer
#   /many           310,000 items and 4,000 links (written by hand: fast)
#   /deep           an answer whose item nests 60,000 deep
#   anything else   one item with the URL and the plugin's pid
import json
import os
import sys
import time
from urllib.parse import urlsplit


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    for raw in sys.stdin:
        line = json.loads(raw)
        if "hello" in line:
            continue
        page_id = line["id"]
        path = urlsplit(line["final_url"]).path
        item = {"url": line["url"], "pid": os.getpid()}
        if path == "/links":
            send({"id": page_id, "items": [item],
                  "links": ["other.html", "../up.html", "https://other.example/x", "mailto:me@example.com"]})
        elif path == "/echo":
            send({"id": page_id, "items": [dict(line, pid=os.getpid())]})
        elif path == "/crash":
            sys.stderr.write("dying on /crash\n")
            sys.stderr.flush()
            os._exit(3)
        elif path == "/hang":
            time.sleep(3600)
        elif path == "/garbage":
            sys.stdout.write("this is not json\n")
            sys.stdout.flush()
            send({"id": page_id, "items": [item]})
        elif path == "/unknown-id":
            send({"id": page_id + 1000000, "items": [item]})
        elif path == "/twice":
            send({"id": page_id, "items": [item]})
            send({"id": page_id, "items": [item]})
        elif path == "/huge":
            send({"id": page_id, "items": [{"blob": "x" * (2 << 20)}]})
        elif path == "/huge-no-id":
            send({"items": [{"blob": "x" * (2 << 20)}], "id": page_id})
        elif path == "/error":
            send({"id": page_id, "error": "no luck"})
        elif path == "/bad-items":
            send({"id": page_id, "items": [1, 2]})
        elif path == "/chatty":
            sys.stderr.write("".join("chatter %d\n" % i for i in range(5000)))
            sys.stderr.flush()
            send({"id": page_id, "items": [item]})
        elif path == "/many":
            sys.stdout.write('{"id": %d, "items": [%s], "links": [%s]}\n' % (
                page_id, ",".join(['{"n": 1}'] * 310000), ",".join(['"/x"'] * 4000)))
            sys.stdout.flush()
        elif path == "/deep":
            sys.stdout.write('{"id": %d, "items": [{"x": %s%s}]}\n' % (page_id, "[" * 60000, "]" * 60000))
            sys.stdout.flush()
        elif path == "/stderr":
            sys.stderr.write("hello from the plugin\n")
            sys.stderr.flush()
            send({"id": page_id, "items": [item]})
        else:
            send({"id": page_id, "items": [item]})


main()

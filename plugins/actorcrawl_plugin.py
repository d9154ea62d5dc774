"""Helper for actorcrawl external processors written in Python (stdlib only).

An external processor is a program the crawler starts and keeps running: it
reads one JSON line per page on stdin and answers each with one JSON line on
stdout (docs/plugins.md). This module does the protocol, so a plugin
is one function:

    import actorcrawl_plugin

    def process(page):
        if "text/html" not in page.content_type:
            return None                      # nothing to say about this page
        return {"items": [{"length": len(page.body)}],
                "links": ["/sitemap.html"]}  # relative to page.final_url

    actorcrawl_plugin.run(process)

What `process` returns: None (no items, no links), a dict with "items" (a
list of JSON objects) and/or "links" (a list of URLs, absolute or relative
to the page's final URL), or a list (items alone). An exception it raises
answers that page with {"id", "error"} and writes the traceback to stderr,
which the crawler logs; the next page is processed as usual.

While `process` runs, sys.stdout is stderr: a stray print() lands in the
crawler's log instead of breaking the answers. (A print() before run(), at
import time, goes to stdout; the crawler logs such a line as the plugin's
output.) Log with log() or to stderr.

The crawler puts this module's directory first on every plugin's
PYTHONPATH, so `import actorcrawl_plugin` works from a plugin anywhere.
"""

import json
import sys
import traceback

PROTOCOL = 1

__all__ = ["Page", "run", "log", "PROTOCOL"]


class Page:
    """One page the crawler fetched, as the protocol's page line says."""

    __slots__ = ("id", "url", "final_url", "status", "depth", "content_type",
                 "truncated", "headers", "body", "raw")

    def __init__(self, line):
        self.raw = line
        self.id = line["id"]
        self.url = line.get("url", "")
        self.final_url = line.get("final_url", self.url)
        self.status = line.get("status", 0)
        self.depth = line.get("depth", 0)
        self.content_type = line.get("content_type", "")
        self.truncated = line.get("truncated", False)
        self.headers = line.get("headers", {})
        self.body = line.get("body", "")

    def header(self, name, default=None):
        """A response header's value (names are lowercase; repeated ones
        joined with ", ")."""
        return self.headers.get(name.lower(), default)


def log(*words):
    """A line for the crawler's log (it prefixes the plugin's name)."""
    print(*words, file=sys.__stderr__, flush=True)


def _answer(page_id, result):
    if result is None:
        return {"id": page_id, "items": [], "links": []}
    if isinstance(result, list):
        return {"id": page_id, "items": result, "links": []}
    if isinstance(result, dict):
        unknown = set(result) - {"items", "links"}
        if unknown:
            raise ValueError("a result has only items and links, not %s" % ", ".join(sorted(unknown)))
        items = list(result.get("items") or [])
        links = [str(link) for link in (result.get("links") or [])]
        for item in items:
            if not isinstance(item, dict):
                raise ValueError("an item must be a dict (a JSON object), not %s" % type(item).__name__)
        return {"id": page_id, "items": items, "links": links}
    raise ValueError("process() returned %s; expected None, a dict or a list" % type(result).__name__)


def run(process, stdin=None, stdout=None):
    """Reads the hello and the pages from stdin until it ends, answering each
    page with what process(page) returns. Returns when the crawler closes
    stdin (its way of saying it is done)."""
    stdin = stdin if stdin is not None else sys.stdin.buffer
    out = stdout if stdout is not None else sys.stdout.buffer
    # User code's print() goes to the log, never into the answers.
    sys.stdout = sys.stderr

    for raw in stdin:
        raw = raw.strip()
        if not raw:
            continue
        try:
            line = json.loads(raw.decode("utf-8", errors="replace"))
        except ValueError as e:
            log("actorcrawl_plugin: skipping a line that is not JSON: %s" % e)
            continue
        if not isinstance(line, dict):
            continue
        if "hello" in line:
            hello = line["hello"] or {}
            if hello.get("protocol", PROTOCOL) > PROTOCOL:
                log("actorcrawl_plugin: the crawler speaks protocol %s; this helper knows %d"
                    % (hello.get("protocol"), PROTOCOL))
            continue
        if "id" not in line:
            continue
        page_id = line["id"]
        try:
            # Encoded whole before anything is written, so a value JSON
            # cannot hold fails this page, not the stream. ensure_ascii
            # keeps the line ASCII: a lone surrogate in user data cannot
            # make it invalid UTF-8.
            text = json.dumps(_answer(page_id, process(Page(line))), ensure_ascii=True)
        except Exception as e:  # one page's failure is that page's answer
            traceback.print_exc(file=sys.__stderr__)
            sys.__stderr__.flush()
            text = json.dumps({"id": page_id, "error": "%s: %s" % (type(e).__name__, e)}, ensure_ascii=True)
        out.write(text.encode("ascii") + b"\n")
        out.flush()

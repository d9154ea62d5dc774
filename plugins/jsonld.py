#!/usr/bin/env python3
"""actorcrawl external processor: structured data a page declares.

Items, kind "jsonld" (or the name the config gives the processor):
  {"source": "json-ld", "type": "Article", "data": {...}}
      one per object in each <script type="application/ld+json"> (a list or
      an "@graph" gives one item per member); a script that is not JSON gives
      {"source": "json-ld", "error": "..."} rather than failing the page.
  {"source": "open-graph", "properties": {"og:title": "...", "og:image": [...]}}
      the page's <meta property="og:..."> (and article:, book:, profile:,
      music:, video:, twitter:) tags; a property given twice keeps both
      values, as a list.
Links: the og:url the page declares, so it goes through the crawl's scope.

Config:
  processors:
    - html_links
    - {name: jsonld, exec: [python3, plugins/jsonld.py], urls: '', timeout: 5s}
"""

import json
from html.parser import HTMLParser

import actorcrawl_plugin

OPEN_GRAPH_PREFIXES = ("og:", "article:", "book:", "profile:", "music:", "video:", "twitter:")
MAX_SCRIPT_CHARS = 1_000_000  # a page cannot make one item unbounded


class StructuredDataParser(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.scripts = []
        self.properties = {}
        self._in_json_ld = False
        self._text = []

    def handle_starttag(self, tag, attrs):
        a = {k.lower(): (v or "") for k, v in attrs}
        if tag == "script" and a.get("type", "").split(";")[0].strip().lower() == "application/ld+json":
            self._in_json_ld = True
            self._text = []
        elif tag == "meta":
            name = (a.get("property") or a.get("name") or "").strip()
            if name.lower().startswith(OPEN_GRAPH_PREFIXES) and "content" in a:
                key = name.lower()
                value = a["content"].strip()
                if key in self.properties:
                    previous = self.properties[key]
                    self.properties[key] = (previous if isinstance(previous, list) else [previous]) + [value]
                else:
                    self.properties[key] = value

    def handle_data(self, data):
        if self._in_json_ld:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == "script" and self._in_json_ld:
            self._in_json_ld = False
            self.scripts.append("".join(self._text)[:MAX_SCRIPT_CHARS])


def json_ld_items(text):
    try:
        data = json.loads(text)
    except ValueError as e:
        return [{"source": "json-ld", "error": "not JSON: %s" % e}]
    members = data if isinstance(data, list) else [data]
    items = []
    for member in members:
        if isinstance(member, dict) and isinstance(member.get("@graph"), list):
            members_of_graph = [m for m in member["@graph"] if isinstance(m, dict)]
        else:
            members_of_graph = [member] if isinstance(member, dict) else []
        for obj in members_of_graph:
            items.append({"source": "json-ld", "type": obj.get("@type"), "data": obj})
    return items


def process(page):
    if page.content_type not in ("text/html", "application/xhtml+xml") or not page.body:
        return None
    parser = StructuredDataParser()
    parser.feed(page.body)
    parser.close()
    items = []
    for script in parser.scripts:
        items.extend(json_ld_items(script))
    links = []
    if parser.properties:
        items.append({"source": "open-graph", "properties": parser.properties})
        og_url = parser.properties.get("og:url")
        if isinstance(og_url, str) and og_url:
            links.append(og_url)
    return {"items": items, "links": links}


if __name__ == "__main__":
    actorcrawl_plugin.run(process)

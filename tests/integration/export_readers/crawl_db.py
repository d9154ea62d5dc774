"""What a crawl database holds, read with Python's own sqlite3: the truth
the export readers compare each exported file against."""
import sqlite3


def connect(path):
    return sqlite3.connect("file:" + path + "?mode=ro", uri=True)


def connect_raw(path):
    """Text columns as the bytes stored, valid UTF-8 or not."""
    db = connect(path)
    db.text_factory = bytes
    return db


def as_utf8(raw):
    """Stored bytes as every export writes them (docs/exports.md): each byte
    that does not begin a well-formed UTF-8 sequence (RFC 3629: no overlong
    forms, no surrogates, nothing past U+10FFFF) becomes U+FFFD."""
    out = []
    i = 0
    while i < len(raw):
        lead = raw[i]
        size = (1 if lead < 0x80 else 2 if 0xC2 <= lead <= 0xDF else 3 if 0xE0 <= lead <= 0xEF
                else 4 if 0xF0 <= lead <= 0xF4 else 0)
        try:
            # Python's strict decoder refuses what RFC 3629 refuses.
            out.append(raw[i:i + size].decode("utf-8") if size else None)
        except UnicodeDecodeError:
            out.append(None)
        if out[-1] is None:
            out[-1] = "\ufffd"
            i += 1
        else:
            i += size
    return "".join(out)


def domain_graph(path):
    """({host: (crawl_count, description)}, {(from, to): weight})"""
    db = connect(path)
    nodes = {name: (count, desc) for name, count, desc in
             db.execute("SELECT domain_name, crawl_count, description FROM nodes")}
    edges = {(f, t): w for f, t, w in db.execute(
        "SELECT f.domain_name, t.domain_name, e.weight FROM edges e "
        "JOIN nodes f ON f.node_id = e.from_node_id JOIN nodes t ON t.node_id = e.to_node_id")}
    return nodes, edges


def page_graph(path):
    """({url: crawled}, {(from_url, to_url): nofollow})"""
    db = connect(path)
    nodes = {url: True for (url,) in db.execute("SELECT url FROM pages")}
    for (url,) in db.execute("SELECT DISTINCT to_url FROM links"):
        nodes.setdefault(url, False)
    edges = {(f, t): bool(n) for f, t, n in db.execute(
        "SELECT p.url, l.to_url, l.nofollow FROM links l JOIN pages p ON p.page_id = l.from_page_id")}
    return nodes, edges


def graph_rows(path, graph):
    """Every node and edge of the graph an export writes, with the values of
    its attributes as the stored bytes (None where NULL):
    ({node id: {attribute: value}}, {(from, to): {attribute: value}}).
    Integers and booleans are given as the export writes them."""
    db = connect_raw(path)
    number = lambda v: None if v is None else str(v).encode()
    nodes, edges = {}, {}
    if graph == "domains":
        for name, count, desc in db.execute("SELECT domain_name, crawl_count, description FROM nodes"):
            nodes[name] = {"crawl_count": number(count), "description": desc}
        for f, t, w in db.execute(
                "SELECT f.domain_name, t.domain_name, e.weight FROM edges e "
                "JOIN nodes f ON f.node_id = e.from_node_id JOIN nodes t ON t.node_id = e.to_node_id"):
            # Graphviz takes weights from 0 to 2^31 - 1: the export clamps.
            edges[(f, t)] = {"weight": number(None if w is None else min(max(w, 0), 2**31 - 1))}
        return nodes, edges
    for url, status, depth, title in db.execute("SELECT url, status_code, depth, title FROM pages"):
        nodes[url] = {"crawled": b"true", "status_code": number(status), "depth": number(depth), "title": title}
    for (url,) in db.execute("SELECT DISTINCT to_url FROM links"):
        nodes.setdefault(url, {"crawled": b"false", "status_code": None, "depth": None, "title": None})
    for f, t, nofollow, position in db.execute(
            "SELECT p.url, l.to_url, l.nofollow, l.position FROM links l JOIN pages p ON p.page_id = l.from_page_id"):
        edges[(f, t)] = {"nofollow": b"true" if nofollow else b"false", "position": number(position)}
    return nodes, edges


def as_json_text(raw):
    """Stored bytes as JSON Lines writes them (docs/exports.md): each
    maximal ill-formed subsequence becomes one U+FFFD (nlohmann's
    serializer, like Python's "replace" and the WHATWG decoder)."""
    return raw.decode("utf-8", "replace")


def pages(path):
    """[(url, title, [link urls in document order])] in page_id order, text
    as JSON Lines writes it (as_json_text)."""
    db = connect_raw(path)
    out = []
    for page_id, url, title in db.execute("SELECT page_id, url, title FROM pages ORDER BY page_id"):
        links = [as_json_text(u) for (u,) in db.execute(
            "SELECT to_url FROM links WHERE from_page_id = ? ORDER BY position", (page_id,))]
        out.append((as_json_text(url), None if title is None else as_json_text(title), links))
    return out


# The text columns of the CSV, in the pages table's names.
CSV_TEXT_COLUMNS = ("url", "final_url", "content_type", "title", "description", "error", "canonical_url",
                    "robots_directives", "redirect_chain")


def page_texts(path):
    """[{column: stored bytes or None}] of CSV_TEXT_COLUMNS, in page_id order."""
    db = connect_raw(path)
    rows = db.execute("SELECT %s FROM pages ORDER BY page_id" % ", ".join(CSV_TEXT_COLUMNS))
    return [dict(zip(CSV_TEXT_COLUMNS, row)) for row in rows]

"""What a crawl database holds, read with Python's own sqlite3: the truth
the export readers compare each exported file against."""
import sqlite3


def connect(path):
    return sqlite3.connect("file:" + path + "?mode=ro", uri=True)


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


def pages(path):
    """[(url, title, [link urls in document order])] in page_id order."""
    db = connect(path)
    out = []
    for page_id, url, title in db.execute("SELECT page_id, url, title FROM pages ORDER BY page_id"):
        links = [u for (u,) in db.execute(
            "SELECT to_url FROM links WHERE from_page_id = ? ORDER BY position", (page_id,))]
        out.append((url, title, links))
    return out

"""Reads an exported DOT file back with Graphviz's own parser and checks it
holds exactly the crawl database's graph: gvpr prints every node's name and
attributes and every edge's ends and attributes, each prefixed by its
length in bytes, so any byte comes through; each must equal the database's
value under the rule docs/exports.md gives for DOT strings. With SVG_OUT,
the file is also rendered (dot -Tsvg) with one node and one edge drawn per
row of the database.

usage: check_dot.py DB FILE.dot domains|pages [SVG_OUT]"""
import re
import subprocess
import sys

import crawl_db

ATTRIBUTES = {
    "domains": (("crawl_count", "description"), ("weight",)),
    "pages": (("crawled", "status_code", "depth", "title"), ("nofollow", "position")),
}


def dot_text(stored):
    """What docs/exports.md says Graphviz reads back from a DOT string for
    these stored bytes: UTF-8 with U+FFFD for what is not; U+FFFD also for
    NUL, for the last backslash of an odd run before a quote, a line feed
    or the end, and for a line feed alone between the string's start or
    end, a quote or a backslash. NULL (an attribute left out) is empty."""
    if stored is None:
        return b""
    text = crawl_db.as_utf8(stored)
    out = []
    token_start = True  # where Graphviz's scanner starts a token
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            end = i
            while end < len(text) and text[end] == "\\":
                end += 1
            lost = (end - i) % 2 == 1 and (end == len(text) or text[end] in '"\n')
            out.append("\\" * (end - i - lost) + ("\ufffd" if lost else ""))
            token_start = not lost
            i = end
            continue
        before_edge = i + 1 == len(text) or text[i + 1] in '"\\'
        if c == "\0" or (c == "\n" and token_start and before_edge):
            out.append("\ufffd")
        else:
            out.append(c)
        token_start = c == '"'
        i += 1
    return "".join(out).encode("utf-8")


def gvpr_program(node_attributes, edge_attributes):
    def fields(names):
        return "".join('printf("%%d:%%s", length(aget($, "%s")), aget($, "%s"));' % (n, n) for n in names)
    return ('N { printf("N%%d:%%s", length($.name), $.name); %s printf("\\n"); }\n'
            'E { printf("E%%d:%%s%%d:%%s", length($.tail.name), $.tail.name, length($.head.name), $.head.name);'
            ' %s printf("\\n"); }\n' % (fields(node_attributes), fields(edge_attributes)))


def read_back(path, node_attributes, edge_attributes):
    """({name: {attribute: bytes}}, {(tail, head): {attribute: bytes}}) as
    Graphviz parsed the file; a name read twice is reported."""
    run = subprocess.run(["gvpr", gvpr_program(node_attributes, edge_attributes), path], capture_output=True)
    if run.returncode != 0:
        raise RuntimeError("gvpr exited %d: %s" % (run.returncode, run.stderr.decode(errors="replace")))
    out, pos = run.stdout, 0

    def field():
        nonlocal pos
        colon = out.index(b":", pos)
        size = int(out[pos:colon])
        pos = colon + 1 + size
        return out[colon + 1:pos]

    nodes, edges, twice = {}, {}, []
    while pos < len(out):
        kind = out[pos:pos + 1]
        pos += 1
        if kind == b"N":
            name = field()
            twice += [name] if name in nodes else []
            nodes[name] = {a: field() for a in node_attributes}
        else:
            key = (field(), field())
            twice += [key] if key in edges else []
            edges[key] = {a: field() for a in edge_attributes}
        assert out[pos:pos + 1] == b"\n", "gvpr output out of step at byte %d" % pos
        pos += 1
    return nodes, edges, twice


def main():
    db, path, graph = sys.argv[1:4]
    svg = sys.argv[4] if len(sys.argv) > 4 else None
    node_attributes, edge_attributes = ATTRIBUTES[graph]
    stored_nodes, stored_edges = crawl_db.graph_rows(db, graph)
    want_nodes = {dot_text(n): {a: dot_text(v) for a, v in values.items()} for n, values in stored_nodes.items()}
    want_edges = {(dot_text(f), dot_text(t)): {a: dot_text(v) for a, v in values.items()}
                  for (f, t), values in stored_edges.items()}
    problems = []
    if len(want_nodes) != len(stored_nodes) or len(want_edges) != len(stored_edges):
        problems.append("two stored ids are written as one: the test's data cannot tell them apart")
    nodes, edges, twice = read_back(path, node_attributes, edge_attributes)
    problems += ["read twice: %r" % (t,) for t in twice]
    for name in sorted(set(nodes) | set(want_nodes)):
        if nodes.get(name) != want_nodes.get(name):
            problems.append("node %r: read %r, database %r" % (name, nodes.get(name), want_nodes.get(name)))
    for key in sorted(set(edges) | set(want_edges)):
        if edges.get(key) != want_edges.get(key):
            problems.append("edge %r: read %r, database %r" % (key, edges.get(key), want_edges.get(key)))

    if svg is not None and not problems:
        run = subprocess.run(["dot", "-Tsvg", path, "-o", svg], capture_output=True, text=True)
        if run.returncode != 0:
            problems.append("dot exited %d: %s" % (run.returncode, run.stderr))
        else:
            drawing = open(svg, encoding="utf-8").read()
            drawn = len(re.findall(r'<g id="node\d+" class="node">', drawing))
            edges_drawn = len(re.findall(r'<g id="edge\d+" class="edge">', drawing))
            if drawn != len(nodes) or edges_drawn != len(edges):
                problems.append("%d nodes and %d edges drawn, database has %d and %d"
                                % (drawn, edges_drawn, len(nodes), len(edges)))
    for p in problems:
        print(path + ": " + p)
    if not problems:
        print("%s: %d nodes, %d edges, read by Graphviz as in the database" % (path, len(nodes), len(edges)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

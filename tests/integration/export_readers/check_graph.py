"""Reads an exported GraphML or GEXF file with networkx and checks it holds
exactly the crawl database's graph.

usage: check_graph.py DB FILE graphml|gexf domains|pages
Exit 0 when it matches; 1 with the differences otherwise."""
import sys

import networkx as nx

import crawl_db


def main():
    db, path, fmt, graph = sys.argv[1:5]
    g = nx.read_graphml(path) if fmt == "graphml" else nx.read_gexf(path)
    problems = []
    if not g.is_directed():
        problems.append("the graph is not directed")
    if graph == "domains":
        nodes, edges = crawl_db.domain_graph(db)
        for name, (count, desc) in nodes.items():
            if name not in g.nodes:
                problems.append("node %r missing" % name)
                continue
            data = g.nodes[name]
            if data.get("crawl_count") != count:
                problems.append("node %r: crawl_count %r, database %r" % (name, data.get("crawl_count"), count))
            if desc is not None and data.get("description") != desc:
                problems.append("node %r: description %r, database %r" % (name, data.get("description"), desc))
        got = {(f, t): d.get("weight") for f, t, d in g.edges(data=True)}
        if got != {k: (float(w) if fmt == "gexf" else w) for k, w in edges.items()}:
            problems.append("edges %r, database %r" % (sorted(got.items()), sorted(edges.items())))
    else:
        nodes, edges = crawl_db.page_graph(db)
        got_nodes = {n: d.get("crawled") for n, d in g.nodes(data=True)}
        if got_nodes != nodes:
            problems.append("nodes %r, database %r" % (sorted(got_nodes.items()), sorted(nodes.items())))
        got = {(f, t): d.get("nofollow") for f, t, d in g.edges(data=True)}
        if got != edges:
            problems.append("edges %r, database %r" % (sorted(got.items()), sorted(edges.items())))
    if set(g.nodes) != set(nodes):
        problems.append("node set differs: extra %r, missing %r" % (set(g.nodes) - set(nodes), set(nodes) - set(g.nodes)))
    for p in problems:
        print(path + ": " + p)
    if not problems:
        print("%s: %d nodes, %d edges, as in the database" % (path, g.number_of_nodes(), g.number_of_edges()))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

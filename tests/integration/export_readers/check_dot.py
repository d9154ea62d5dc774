"""Renders an exported DOT file with Graphviz (dot -Tsvg) and checks that
it renders, and that the drawing has one node per host of the database.

usage: check_dot.py DB FILE.dot SVG_OUT"""
import re
import subprocess
import sys

import crawl_db


def main():
    db, path, svg = sys.argv[1:4]
    run = subprocess.run(["dot", "-Tsvg", path, "-o", svg], capture_output=True, text=True)
    if run.returncode != 0:
        print("%s: dot exited %d: %s" % (path, run.returncode, run.stderr))
        return 1
    drawing = open(svg, encoding="utf-8").read()
    drawn = len(re.findall(r'<g id="node\d+" class="node">', drawing))
    edges_drawn = len(re.findall(r'<g id="edge\d+" class="edge">', drawing))
    nodes, edges = crawl_db.domain_graph(db)
    if drawn != len(nodes) or edges_drawn != len(edges):
        print("%s: %d nodes and %d edges drawn, database has %d and %d"
              % (path, drawn, edges_drawn, len(nodes), len(edges)))
        return 1
    print("%s: rendered, %d nodes, %d edges" % (path, drawn, edges_drawn))
    return 0


if __name__ == "__main__":
    sys.exit(main())

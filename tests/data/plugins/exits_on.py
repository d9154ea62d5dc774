#!/usr/bin/env python3
# A plugin for the crawl's tests, written as docs/plugins.md says (the helper
# module, imported from wherever the crawler put it): one item per page,
# {"path": ...}; it exits with status 3 on the page whose path is argv[1],
# or on every page when argv[1] is "*", each time it is given it.
import os
import sys
from urllib.parse import urlsplit

import actorcrawl_plugin

fatal = sys.argv[1]


def process(page):
    path = urlsplit(page.final_url).path
    if fatal == "*" or path == fatal:
        actorcrawl_plugin.log("dying on %s" % path)
        os._exit(3)
    return [{"path": path}]


actorcrawl_plugin.run(process)

#!/usr/bin/env python3
# A plugin for the external processor's tests, written with the helper
# module plugin authors use (plugins/actorcrawl_plugin.py): a page whose
# path is /raise makes process() raise; a stray print() must not reach the
# answers.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "plugins"))
import actorcrawl_plugin  # noqa: E402


def process(page):
    print("a stray print from", page.url)
    if page.final_url.endswith("/raise"):
        raise RuntimeError("asked to fail")
    return {"items": [{"url": page.url, "server": page.header("server")}], "links": ["next.html"]}


actorcrawl_plugin.run(process)

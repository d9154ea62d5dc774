#!/usr/bin/env python3
# A plugin for the external processor's tests that reads ahead, as a
# batching plugin does: it holds the pages it is sent until it has N of them
# (argv[1]) or none has come for 300 ms, then answers them in order. A held
# page whose path is /die makes it exit with status 3 before it answers any:
# every page it held dies with it, and only one of them is to blame.
import json
import os
import select
import sys
from urllib.parse import urlsplit

batch = int(sys.argv[1])
held = []
stdin = sys.stdin.buffer
buffered = b""


def read_line(timeout):
    """A line of stdin, None after `timeout` seconds without one, b"" at its end."""
    global buffered
    while b"\n" not in buffered:
        ready, _, _ = select.select([stdin], [], [], timeout)
        if not ready:
            return None
        chunk = os.read(stdin.fileno(), 65536)
        if not chunk:
            return b""
        buffered += chunk
    line, buffered = buffered.split(b"\n", 1)
    return line


def answer_held():
    global held
    if any(urlsplit(page["final_url"]).path == "/die" for page in held):
        sys.stderr.write("dying on /die with %d pages held\n" % len(held))
        sys.stderr.flush()
        os._exit(3)
    for page in held:
        sys.stdout.write(json.dumps({"id": page["id"], "items": [{"url": page["final_url"], "pid": os.getpid()}]}) + "\n")
    sys.stdout.flush()
    held = []


while True:
    raw = read_line(0.3 if held else None)
    if raw is None:
        answer_held()
        continue
    if raw == b"":
        break
    line = json.loads(raw)
    if "hello" in line:
        continue
    held.append(line)
    if len(held) == batch:
        answer_held()

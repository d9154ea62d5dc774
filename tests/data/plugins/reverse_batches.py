#!/usr/bin/env python3
# A plugin for the external processor's tests: it holds pages until it has
# N of them (argv[1]) and answers them last first, so answers come back in
# another order than the pages went out.
import json
import sys

batch = int(sys.argv[1])
held = []
for raw in sys.stdin:
    line = json.loads(raw)
    if "hello" in line:
        continue
    held.append(line)
    if len(held) == batch:
        for page in reversed(held):
            sys.stdout.write(json.dumps({"id": page["id"], "items": [{"url": page["url"]}]}) + "\n")
        sys.stdout.flush()
        held = []

#!/usr/bin/env python3
# A plugin for the tests of what outlives what: it starts a child in a
# session of its own (setsid, as a daemon does), and writes its own pid
# and the child's to the file argv[1]; then it answers pages like any
# plugin, and ignores the end of its input (it must be killed).
import json
import os
import subprocess
import sys
import time

child = subprocess.Popen(["sleep", "3600"], start_new_session=True)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d %d\n" % (os.getpid(), child.pid))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
for raw in sys.stdin:
    line = json.loads(raw)
    if "id" in line:
        sys.stdout.write(json.dumps({"id": line["id"], "items": [{"pid": os.getpid()}]}) + "\n")
        sys.stdout.flush()
while True:
    time.sleep(1)

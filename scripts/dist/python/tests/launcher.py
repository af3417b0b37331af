"""A launcher for the tests of the launch API: it launches an Engine that
leaves a sleep behind, prints "ready PID" once the Engine runs, and waits
to be killed."""

import sys

import session_starter

with session_starter.launch(["sh", "-c", "sleep 300 & echo ready; exec sleep 300"]) as s:
    if s.stdout.readline() != b"ready\n":
        sys.exit("the Engine did not say ready")
    print("ready", s.pid, flush=True)
    s.wait()

#!/usr/bin/env python3
"""A Python launcher, as an SDK would write it: it starts an Engine under
session-starter, checks the ack line, and talks JSON-RPC (MCP-style) to the
Engine over the same pipes. Standard library only.

usage: launcher.py SCENARIO -- ENGINE [ARG...]

  clean    initialize, list the tools, call "spawn", report "ready" and
           wait for a line on our own stdin; then close the Engine's stdin
           and report the Engine's exit status
  hang     as clean up to "ready", then wait for the end of our own stdin
           (the test SIGKILLs us meanwhile)
  control  as clean, but with a control pipe, which is closed instead of
           the Engine's stdin

Reports go to stdout, one JSON object per line:
  {"event": "ready", "pid": ..., "mode": ..., "tools": [...], "spawned": [...]}
  {"event": "exit", "code": N or null, "signal": "SIGKILL" or null}
"""

import json
import os
import signal
import subprocess
import sys


def report(**fields):
    print(json.dumps(fields), flush=True)


class Session:
    """An Engine under session-starter, after the ack."""

    def __init__(self, engine, control=False):
        args = ["session-starter", "--ack", "--parent-pid", str(os.getpid())]
        pass_fds = ()
        self.control = None
        if control:
            # os.pipe() descriptors are not inheritable: only the read end,
            # named in pass_fds, reaches session-starter.
            read_end, self.control = os.pipe()
            pass_fds = (read_end,)
            args += ["--control-fd", str(read_end)]
        self.proc = subprocess.Popen(
            args + ["--"] + engine,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, pass_fds=pass_fds,
        )
        if control:
            os.close(read_end)
        first = self.proc.stdout.readline()  # the ack line, or no containment
        try:
            ack = json.loads(first)
        except ValueError:
            ack = None
        if not isinstance(ack, dict) or ack.get("session_containment") != 1:
            self.proc.stdin.close()
            sys.exit(f"no containment ({first!r}); session-starter exited {self.proc.wait()}")
        self.pid, self.mode = ack["pid"], ack["mode"]
        self.last_id = 0

    def send(self, message):
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method, params=None):
        self.last_id += 1
        message = {"jsonrpc": "2.0", "id": self.last_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        line = self.proc.stdout.readline()
        if not line:
            sys.exit(f"the Engine closed its stdout; session-starter exited {self.proc.wait()}")
        reply = json.loads(line)
        if reply.get("id") != self.last_id or "error" in reply:
            sys.exit(f"{method}: unexpected reply {reply!r}")
        return reply["result"]

    def notify(self, method):
        self.send({"jsonrpc": "2.0", "method": method})

    def wait(self):
        status = self.proc.wait()  # the Engine's, as session-starter mirrored it
        if status < 0:
            return {"code": None, "signal": signal.Signals(-status).name}
        return {"code": status, "signal": None}


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit(__doc__)
    scenario, engine = sys.argv[1], sys.argv[3:]
    session = Session(engine, control=(scenario == "control"))
    session.request("initialize", {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "launcher.py", "version": "1"},
    })
    session.notify("notifications/initialized")
    tools = [t["name"] for t in session.request("tools/list")["tools"]]
    result = session.request("tools/call", {"name": "spawn", "arguments": {"count": 3}})
    report(event="ready", pid=session.pid, mode=session.mode, tools=tools,
           spawned=result["structuredContent"]["pids"])

    if scenario == "hang":
        sys.stdin.read()
        return
    sys.stdin.readline()
    if scenario == "clean":
        session.proc.stdin.close()  # the Engine's end of input: it exits
    elif scenario == "control":
        os.close(session.control)  # ends the session
    else:
        sys.exit(f"unknown scenario {scenario!r}")
    report(event="exit", **session.wait())


if __name__ == "__main__":
    main()

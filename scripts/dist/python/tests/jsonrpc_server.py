"""A small MCP-style server, standing in for one on the MCP Python SDK (PyPI
is not reachable here): JSON-RPC 2.0 over stdio, one message a line,
standard library only.

It answers initialize, tools/list and tools/call; the tool "spawn" starts
COUNT processes that run until they are killed (a sleep, a shell with a
sleep of its own, and one in a session of its own, which left the Engine's
group) and returns their PIDs. At the end of its input it exits, leaving
them running: ending them is the session's job. With --stubborn it
ignores SIGTERM, and at the end of its input it runs on instead.
"""

import json
import os
import signal
import subprocess
import sys
import time

PROTOCOL_VERSION = "2025-06-18"

TOOLS = [
    {
        "name": "spawn",
        "description": "Start COUNT processes that run until killed; returns their PIDs.",
        "inputSchema": {"type": "object", "properties": {"count": {"type": "integer", "minimum": 1}}, "required": ["count"]},
    }
]

spawned = []  # kept, so that the Popen objects are never collected


def spawn(count):
    pids = []
    for i in range(count):
        argv = [["sleep", "600"], ["sh", "-c", "sleep 600 & wait"], ["sleep", "600"]][i % 3]
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=i % 3 == 2)
        spawned.append(p)
        pids.append(p.pid)
    return pids


def handle(method, params):
    if method == "initialize":
        return {"protocolVersion": PROTOCOL_VERSION, "capabilities": {"tools": {}}, "serverInfo": {"name": "jsonrpc-test-server", "version": "1"}}
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call" and params.get("name") == "spawn":
        pids = spawn(int(params["arguments"]["count"]))
        return {"content": [{"type": "text", "text": json.dumps(pids)}]}
    raise LookupError(method)


def main():
    stubborn = sys.argv[1:] == ["--stubborn"]
    if stubborn:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        if "id" not in msg:
            continue  # a notification
        reply = {"jsonrpc": "2.0", "id": msg["id"]}
        try:
            reply["result"] = handle(msg.get("method"), msg.get("params") or {})
        except LookupError as e:
            reply["error"] = {"code": -32601, "message": f"unknown: {e}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    while stubborn:
        time.sleep(600)
    os._exit(0)  # without waiting for what it spawned


if __name__ == "__main__":
    main()

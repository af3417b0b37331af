#!/usr/bin/env python3
"""A small MCP-style Engine: JSON-RPC 2.0 over stdio, one message per line.

It answers initialize, tools/list and tools/call. The tool "spawn" starts
subprocesses that run until they are killed (sleep, and a shell with a
sleep of its own), and returns their PIDs; "echo" returns its text. At the
end of its input it exits with the status given by --exit-code (default
0), leaving the spawned processes running: ending them is the session's
job. Standard library only.
"""

import argparse
import json
import subprocess
import sys

PROTOCOL_VERSION = "2025-06-18"

TOOLS = [
    {
        "name": "spawn",
        "description": "Start COUNT processes that run until killed; returns their PIDs.",
        "inputSchema": {
            "type": "object",
            "properties": {"count": {"type": "integer", "minimum": 1}},
            "required": ["count"],
        },
    },
    {
        "name": "echo",
        "description": "Return the text.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    },
]

# Kept so that the Popen objects are never collected: the processes are
# left running on purpose.
spawned = []


def spawn(count):
    pids = []
    for i in range(count):
        if i % 2 == 0:
            argv = ["sleep", "600"]
        else:  # a shell whose own child is a grandchild of the Engine
            argv = ["sh", "-c", "sleep 600 & wait"]
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        spawned.append(p)
        pids.append(p.pid)
    return pids


def call_tool(name, arguments):
    if name == "spawn":
        pids = spawn(int(arguments["count"]))
        return {
            "content": [{"type": "text", "text": " ".join(map(str, pids))}],
            "structuredContent": {"pids": pids},
        }
    if name == "echo":
        return {"content": [{"type": "text", "text": arguments["text"]}]}
    raise KeyError(name)


def handle(msg):
    method = msg.get("method")
    params = msg.get("params") or {}
    if method == "initialize":
        return {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "mcp-test-engine", "version": "1"},
        }
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        return call_tool(params["name"], params.get("arguments") or {})
    raise LookupError(method)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--exit-code", type=int, default=0)
    args = parser.parse_args()
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        if "id" not in msg:
            continue  # a notification, such as notifications/initialized
        reply = {"jsonrpc": "2.0", "id": msg["id"]}
        try:
            reply["result"] = handle(msg)
        except LookupError as e:
            reply["error"] = {"code": -32601, "message": f"unknown: {e}"}
        except (TypeError, ValueError) as e:
            reply["error"] = {"code": -32602, "message": str(e)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    sys.exit(args.exit_code)


if __name__ == "__main__":
    main()

"""The lifetime suite's client on the fake MCP Python SDK (the SDK itself
cannot be installed here: scripts/dist/python/tests/fake_sdk reproduces
its stdio_client, the direct child's end included), run as a process of
its own so that the suite can end it with SIGTERM or SIGKILL.

usage: python3 py-client.py INTEGRATION MARK COMMAND [ARG...]
INTEGRATION is "bare" (the SDK's stdio_client), "wrap-stdio-parameters"
(the SDK's stdio_client of wrap_stdio_parameters()) or "stdio-client"
(session_starter.stdio_client()); the grace is LIFETIME_GRACE_MS. MARK is
set as LIFETIME_MARK in the server's environment only. It initializes,
calls the tool "start", prints {"event": "ready", "pids": [...]} and waits
for a line on its stdin. Then it prints {"event": "closing", "t0": ms}
(t0 when the context's exit begins, in ms since the epoch), leaves the
context (the SDK's close) and prints {"event": "closed"}.

PYTHONPATH must hold scripts/dist/python and scripts/dist/python/tests.
"""

import json
import os
import sys
import time

import support

support.use_fake_sdk()

import anyio  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client as sdk_stdio_client  # noqa: E402
from mcp.shared.message import SessionMessage  # noqa: E402
from mcp.types import JSONRPCMessage  # noqa: E402

import session_starter  # noqa: E402


def report(**fields):
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


async def request(read, write, rid, method, params):
    await write.send(SessionMessage(JSONRPCMessage({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})))
    got = await read.receive()
    if isinstance(got, Exception):
        raise got
    reply = got.message.root
    if reply.get("id") != rid or "error" in reply:
        raise RuntimeError(f"{method}: {reply!r}")
    return reply["result"]


async def main(integration, mark, argv):
    grace = int(os.environ["LIFETIME_GRACE_MS"]) / 1000
    params = StdioServerParameters(command=argv[0], args=argv[1:], env={"NODE_PATH": os.environ.get("NODE_PATH", ""), "LIFETIME_MARK": mark})
    if integration == "bare":
        cm = sdk_stdio_client(params)
    elif integration == "wrap-stdio-parameters":
        cm = sdk_stdio_client(session_starter.wrap_stdio_parameters(params, grace=grace))
    elif integration == "stdio-client":
        cm = session_starter.stdio_client(params, grace=grace)
    else:
        sys.exit(f"py-client.py: unknown integration {integration!r}")
    async with cm as (read, write):
        await request(read, write, 1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "lifetime-py-client", "version": "1"}})
        await write.send(SessionMessage(JSONRPCMessage({"jsonrpc": "2.0", "method": "notifications/initialized"})))
        result = await request(read, write, 2, "tools/call", {"name": "start", "arguments": {}})
        report(event="ready", pids=json.loads(result["content"][0]["text"]))
        await anyio.to_thread.run_sync(sys.stdin.readline)
        report(event="closing", t0=int(time.time() * 1000))
    report(event="closed")


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit("usage: python3 py-client.py INTEGRATION MARK COMMAND [ARG...]")
    anyio.run(main, sys.argv[1], sys.argv[2], sys.argv[3:])

"""An MCP client on the fake MCP Python SDK (fake_sdk/mcp: PyPI is not
reachable here), whose server runs through one of session_starter's
helpers, or bare.

usage: python mcp_client.py MODE MARK GRACE -- SERVER [ARG...]
MODE is "wrap" (the SDK's stdio_client with wrap_stdio_parameters()),
"context" (session_starter.stdio_client()) or "bare" (the SDK's
stdio_client as it is). The server's env (the SDK's StdioServerParameters
env, on top of its default environment) carries the tests' mark MARK;
GRACE is the helpers' grace, in seconds. The client initializes, calls
the tool "spawn" with count 3, prints {"event": "ready", ...} and waits for
a line on its stdin; then it leaves the context (the SDK's close) and
prints {"event": "exit", ...}. The tests end it there, or with SIGTERM or
SIGKILL while it waits.
"""

import json
import sys

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


class Client:
    def __init__(self, read, write):
        self.read, self.write, self.last_id = read, write, 0

    async def request(self, method, params=None):
        self.last_id += 1
        msg = {"jsonrpc": "2.0", "id": self.last_id, "method": method, "params": params}
        await self.write.send(SessionMessage(JSONRPCMessage(msg)))
        got = await self.read.receive()
        if isinstance(got, Exception):
            raise got
        reply = got.message.root
        if reply.get("id") != self.last_id or "error" in reply:
            raise RuntimeError(f"{method}: {reply!r}")
        return reply["result"]

    async def session(self):
        await self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "mcp_client.py", "version": "1"}})
        await self.write.send(SessionMessage(JSONRPCMessage({"jsonrpc": "2.0", "method": "notifications/initialized"})))
        result = await self.request("tools/call", {"name": "spawn", "arguments": {"count": 3}})
        return json.loads(result["content"][0]["text"])


async def main(mode, mark, grace, server):
    params = StdioServerParameters(command=server[0], args=server[1:], env={support.MARK_VAR: mark})
    if mode == "context":
        cm = session_starter.stdio_client(params, grace=grace)
    elif mode == "wrap":
        cm = sdk_stdio_client(session_starter.wrap_stdio_parameters(params, grace=grace))
    elif mode == "bare":
        cm = sdk_stdio_client(params)
    else:
        sys.exit(f"mcp_client.py: unknown mode {mode!r}")
    async with cm as streams:
        read, write = streams
        spawned = await Client(read, write).session()
        report(event="ready", spawned=spawned, pid=getattr(streams, "pid", None))
        await anyio.to_thread.run_sync(sys.stdin.readline)
        report(event="closing")
    ended = getattr(streams, "ended", None)
    report(event="exit", reason=ended.reason if ended else None)


if __name__ == "__main__":
    if len(sys.argv) < 6 or sys.argv[4] != "--":
        sys.exit("usage: python mcp_client.py MODE MARK GRACE -- SERVER [ARG...]")
    anyio.run(main, sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[5:])

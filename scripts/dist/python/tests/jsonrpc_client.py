"""An MCP-style client on asyncio, standing in for the MCP Python SDK's stdio
client (PyPI is not reachable here), whose server is launched through
session_starter.launch_async(): JSON-RPC 2.0 over the session's stdin and
stdout, standard library only.

usage: python jsonrpc_client.py -- SERVER [ARG...]
It initializes, lists the tools, calls "spawn" with count 3, prints
{"event": "ready", ...} and waits for a line on its stdin; then it closes
the session (the server's end of input, then stop() if it is still there
after 2 s, as the SDK's client does) and prints {"event": "exit", ...}.
The tests end it there, or with SIGTERM or SIGKILL while it waits.
"""

import asyncio
import json
import sys

import session_starter


class Client:
    def __init__(self, session):
        self.session = session
        self.last_id = 0

    async def request(self, method, params=None):
        self.last_id += 1
        msg = {"jsonrpc": "2.0", "id": self.last_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.session.stdin.write((json.dumps(msg) + "\n").encode())
        await self.session.stdin.drain()
        line = await self.session.stdout.readline()
        if not line:
            raise EOFError(f"{method}: the server closed its stdout")
        reply = json.loads(line)
        if reply.get("id") != self.last_id or "error" in reply:
            raise RuntimeError(f"{method}: {line!r}")
        return reply["result"]

    async def notify(self, method):
        self.session.stdin.write((json.dumps({"jsonrpc": "2.0", "method": method}) + "\n").encode())
        await self.session.stdin.drain()

    async def close(self):
        self.session.stdin.close()
        try:
            return await asyncio.wait_for(self.session.wait(), 2)
        except asyncio.TimeoutError:
            return await self.session.stop()


def report(**fields):
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


async def main(argv):
    if len(argv) < 2 or argv[0] != "--":
        sys.exit("usage: python jsonrpc_client.py -- SERVER [ARG...]")
    session = await session_starter.launch_async(argv[1:], grace=2)
    client = Client(session)
    await client.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "jsonrpc_client.py", "version": "1"}})
    await client.notify("notifications/initialized")
    tools = [t["name"] for t in (await client.request("tools/list"))["tools"]]
    result = await client.request("tools/call", {"name": "spawn", "arguments": {"count": 3}})
    report(event="ready", pid=session.pid, mode=session.mode, tools=tools, spawned=json.loads(result["content"][0]["text"]))
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    status = await client.close()
    ended = await session.ended()
    await session.close()
    report(event="exit", status=status, reason=ended.reason, executed=ended.executed)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))

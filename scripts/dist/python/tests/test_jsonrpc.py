"""A JSON-RPC stdio client and server on the standard library, standing in
for the MCP Python SDK (PyPI is not reachable here): the client launches the
server through launch_async() and is ended by its close, by SIGTERM and by
SIGKILL; nothing of the session (the server, the processes it started,
session-starter, its guard) may be left."""

import json
import os
import signal
import subprocess
import sys

from support import HERE, TOO_LONG, SessionTest, eventually, marked


class JSONRPCTest(SessionTest):
    def run_client(self, end):
        client = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "jsonrpc_client.py"), "--", sys.executable, os.path.join(HERE, "jsonrpc_server.py")],
            env=self.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self.addCleanup(client.stdout.close)
        self.addCleanup(client.stdin.close)
        ready = json.loads(client.stdout.readline())
        self.assertEqual((ready["event"], ready["tools"], len(ready["spawned"])), ("ready", ["spawn"], 3))
        # An environment read in the middle of an exec comes back empty.
        for pid in [ready["pid"], *ready["spawned"]]:
            eventually(f"pid {pid} of the session runs", lambda: pid in marked(self.mark))
        end(client)
        last = client.stdout.readline()
        return client.wait(TOO_LONG), json.loads(last) if last else None

    def test_the_clients_close_ends_the_session_and_its_status_is_mirrored(self):
        def close(client):
            client.stdin.write(b"close\n")
            client.stdin.flush()

        code, last = self.run_client(close)
        self.assertEqual(code, 0)
        # The server exited at its end of input; what it spawned was ended.
        self.assertEqual(last, {"event": "exit", "status": 0, "reason": "engine-exit", "executed": True})

    def test_sigterm_of_the_client_ends_the_session(self):
        code, last = self.run_client(lambda c: c.send_signal(signal.SIGTERM))
        self.assertEqual((code, last), (-signal.SIGTERM, None))

    def test_sigkill_of_the_client_ends_the_session(self):
        code, last = self.run_client(lambda c: c.kill())
        self.assertEqual((code, last), (-signal.SIGKILL, None))

"""The MCP helpers (wrap_stdio_parameters(), stdio_client()) against a fake of the MCP Python SDK and the real binary.

The SDK cannot be installed here (PyPI is not reachable): fake_sdk/mcp
reproduces what the helpers touch, as the SDK has it — a pydantic-like
StdioServerParameters, get_default_environment() (HOME, LOGNAME, PATH,
SHELL, TERM, USER only) and a stdio_client() that ends only its direct
child (stdin closed, 2 s, SIGTERM, 2 s, SIGKILL). The clients run as
processes of their own (mcp_client.py), so that they can be SIGKILLed.
"""

import json
import os
import signal
import subprocess
import sys
import time
import unittest
from unittest import mock

import session_starter as ss
from support import HERE, TOO_LONG, SessionTest, marked, use_fake_sdk

use_fake_sdk()

import anyio  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

SERVER = [sys.executable, os.path.join(HERE, "jsonrpc_server.py")]
CLIENT = os.path.join(HERE, "mcp_client.py")

# The helpers' grace in these tests, and session-starter's default stdin grace.
GRACE = 2.0
STDIN_GRACE = 2.0


class Plain:
    """An object with StdioServerParameters' attributes and no model_copy."""

    def __init__(self, command, args=(), env=None, cwd=None, encoding="utf-8", encoding_error_handler="strict"):
        self.command, self.args, self.env, self.cwd = command, list(args), env, cwd
        self.encoding, self.encoding_error_handler = encoding, encoding_error_handler


class WrapStdioParametersTest(unittest.TestCase):
    def test_the_copy_has_the_same_type_and_runs_the_server_under_the_binary_with_the_watch_flags(self):
        p = StdioServerParameters(command="srv", args=["a", "--b"], cwd="/", encoding="latin-1")
        w = ss.wrap_stdio_parameters(p, grace=3, kill_budget=0.5)
        self.assertIs(type(w), StdioServerParameters)
        self.assertEqual(w.command, ss.binary_path())
        self.assertEqual(w.args, ["--stdio", "--grace", "3s", "--kill-budget", "500000000ns", "--", "srv", "a", "--b"])
        self.assertEqual((w.cwd, w.encoding, w.encoding_error_handler), ("/", "latin-1", "strict"))
        self.assertEqual((p.command, p.args), ("srv", ["a", "--b"]), "the parameters given were changed")

    def test_a_stdin_grace_is_passed_to_the_binary(self):
        w = ss.wrap_stdio_parameters(Plain("srv"), stdin_grace=0.25)
        self.assertEqual(w.args[:3], ["--stdio", "--stdin-grace", "250000000ns"])

    def test_an_object_without_model_copy_is_copied_through_its_constructor(self):
        w = ss.wrap_stdio_parameters(Plain("srv", ["x"], cwd="/tmp", encoding_error_handler="replace"))
        self.assertIs(type(w), Plain)
        self.assertEqual((w.args[-2:], w.cwd, w.encoding_error_handler), (["srv", "x"], "/tmp", "replace"))

    def test_the_variables_the_sdks_default_environment_drops_are_carried_and_the_servers_own_win(self):
        carried = {"XDG_RUNTIME_DIR": "/run/user/1000", "SESSION_STARTER_LEDGER_DIR": "/ledger", "SESSION_STARTER_SESSION": "0" * 32}
        with mock.patch.dict(os.environ, carried):
            w = ss.wrap_stdio_parameters(Plain("srv", env={"A": "1", "XDG_RUNTIME_DIR": "/own"}))
            self.assertEqual(w.env, {**carried, "A": "1", "XDG_RUNTIME_DIR": "/own"})
            self.assertEqual(ss.wrap_stdio_parameters(Plain("srv")).env, carried)
        with mock.patch.dict(os.environ):
            for k in carried:
                os.environ.pop(k, None)
            self.assertIsNone(ss.wrap_stdio_parameters(Plain("srv")).env, "an env was made where the SDK's default would do")

    def test_neither_the_import_nor_wrap_stdio_parameters_imports_anyio_or_the_sdk(self):
        """Both are importable here (fake_sdk, anyio): the module must not load them until stdio_client() runs."""
        code = (
            "import sys\n"
            f"sys.path[:0] = [{os.path.join(HERE, 'fake_sdk')!r}]\n"
            f"sys.path += {[os.path.dirname(os.path.dirname(anyio.__file__))]!r}\n"
            "import session_starter as ss\n"
            "ss.wrap_stdio_parameters(type('P', (), {'command': 'srv', 'args': [], 'env': None, 'cwd': None, 'model_copy': lambda self, update: update})())\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('anyio', 'mcp', 'sniffio')))\n"
            "import anyio, mcp.client.stdio\n"
        )
        out = subprocess.run([sys.executable, "-c", code], cwd=HERE, capture_output=True, text=True, timeout=TOO_LONG)
        self.assertEqual((out.returncode, out.stdout.strip()), (0, "[]"), out.stderr)

    def test_bad_parameters_and_options_are_refused_saying_what_to_fix(self):
        cases = [
            (object(), {}, "want the MCP SDK's StdioServerParameters"),
            (Plain(""), {}, "params.command=''"),
            (Plain("srv", [1]), {}, "params.args=[1]"),
            (Plain("srv"), {"extra_flags": ["--watch-stdin"]}, "--watch-stdin is set by launch()"),
            (Plain("srv"), {"stdin_grace": -1}, "stdin_grace=-1"),
        ]
        for params, options, want in cases:
            with self.subTest(want=want):
                with self.assertRaises(ss.LaunchError) as cm:
                    ss.wrap_stdio_parameters(params, **options)
                self.assertEqual(cm.exception.code, "invalid-option")
                self.assertIn(want, str(cm.exception))


class Client:
    """mcp_client.py in a process of its own; its server's processes carry the mark."""

    def __init__(self, test, mode, env=None, server=SERVER):
        self.proc = subprocess.Popen(
            [sys.executable, CLIENT, mode, test.mark, str(GRACE), "--", *server],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            cwd=HERE,
        )
        test.addCleanup(self.reap)
        self.test = test
        self.ready = self.event("ready")
        for pid in self.ready["spawned"]:
            test.assertTrue(test.alive(pid), f"the server's process {pid} is not running")

    def event(self, want):
        line = self.test.bounded(self.proc.stdout.readline)
        self.test.assertTrue(line, f"the client exited before {want!r} (status {self.proc.poll()})")
        ev = json.loads(line)
        self.test.assertEqual(ev["event"], want, ev)
        return ev

    def close(self):
        self.proc.stdin.write(b"\n")
        self.proc.stdin.flush()

    def reap(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.proc.stdin.close()
        self.proc.stdout.close()


class EndingTest(SessionTest):
    """The three ends of an MCP client — its close, SIGTERM, SIGKILL — leave nothing of the server within stdin grace + grace + 1 s."""

    def gone_within(self, t0, bound):
        while marked(self.mark):
            self.assertLess(time.monotonic() - t0, TOO_LONG, "processes of the session are left")
            time.sleep(0.02)
        took = time.monotonic() - t0
        self.assertLessEqual(took, bound, f"the last process of the session ended {took:.2f} s after the client's end")

    def end(self, mode, ending, server=SERVER):
        c = Client(self, mode, server=server)
        t0 = time.monotonic()
        if ending == "close":
            c.close()
            c.event("closing")
        else:
            c.proc.send_signal(ending)
        self.gone_within(t0, STDIN_GRACE + GRACE + 1)
        return c

    def test_the_sdks_stdio_client_with_wrapped_parameters_leaves_nothing_on_close_sigterm_and_sigkill(self):
        for ending in ("close", signal.SIGTERM, signal.SIGKILL):
            with self.subTest(ending=str(ending)):
                self.end("wrap", ending)

    def test_stdio_client_leaves_nothing_on_close_sigterm_and_sigkill(self):
        for ending in ("close", signal.SIGTERM, signal.SIGKILL):
            with self.subTest(ending=str(ending)):
                self.end("context", ending)

    def test_a_server_that_ignores_its_stdins_end_and_sigterm_is_ended_when_the_client_is_sigkilled(self):
        """The SDK cannot end it (the fake's own SIGTERM, 2 s apart, never comes): the watch flags do."""
        for mode in ("wrap", "context"):
            with self.subTest(mode=mode):
                self.end(mode, signal.SIGKILL, server=SERVER + ["--stubborn"])

    def test_stdio_client_gives_the_engines_pid_and_on_close_the_ended_record(self):
        c = Client(self, "context")
        self.assertEqual(c.ready["pid"], _engine(self.mark))
        c.close()
        c.event("closing")
        self.assertEqual(c.event("exit")["reason"], "engine-exit")

    def test_the_sdks_own_stdio_client_leaves_what_the_server_started(self):
        """The fixture proves something: bare, the SDK's close ends the server and leaves its processes."""
        self.addCleanup(self.kill_marked)
        c = Client(self, "bare")
        c.close()
        c.event("closing")
        c.event("exit")
        self.assertEqual(c.proc.wait(TOO_LONG), 0)
        left = [pid for pid in c.ready["spawned"] if self.alive(pid)]
        self.assertTrue(left, "the bare SDK client left nothing: the fixture leaks nothing")

    def kill_marked(self):
        for pid in marked(self.mark):  # this test's, by its mark
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _session_id(pid):
    with open(f"/proc/{pid}/environ", "rb") as f:
        env = dict(kv.split(b"=", 1) for kv in f.read().split(b"\0") if b"=" in kv)
    return env.get(b"SESSION_STARTER_SESSION", b"").decode().split(":")[-1]


def _engine(mark):
    for pid in marked(mark):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if argv[:2] == [a.encode() for a in SERVER]:
            return pid
    raise AssertionError("the server is not running")


class LedgerTest(SessionTest):
    def test_a_session_through_the_sdks_default_environment_is_in_the_ledger_the_users_reclaim_reads(self):
        """The SDK passes the server HOME, LOGNAME, PATH, SHELL, TERM, USER only: the ledger's variable is carried, or the record is elsewhere."""
        names = ["SESSION_STARTER_LEDGER_DIR"] + (["XDG_RUNTIME_DIR"] if os.getuid() != 0 else [])  # root's ledger ignores XDG_RUNTIME_DIR
        for name in names:
            with self.subTest(variable=name):
                runtime = os.path.join(self.tmp.name, name)
                os.mkdir(runtime, 0o700)
                login = {k: os.environ[k] for k in ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER") if k in os.environ}
                login[name] = runtime
                own = {k: os.environ[k] for k in ("PYTHONPATH", "SESSION_STARTER_BINARY", "SESSION_STARTER_EXPECT_INSTALLED") if k in os.environ}
                c = Client(self, "wrap", env={**login, **own})
                sid = _session_id(_engine(self.mark))
                self.assertRegex(sid, "^[0-9a-f]{32}$")
                rec = ss.reclaim(dry_run=True, env={**login, **own})
                sessions = {s["session"]: s["action"] for s in rec["sessions"]}
                self.assertEqual(sessions.get(sid), "live", f"the user's reclaim (of {rec['dir']}) does not list the session: {rec}")
                c.close()
                c.event("closing")
                c.event("exit")
                self.assertEqual(c.proc.wait(TOO_LONG), 0)


if __name__ == "__main__":
    unittest.main()

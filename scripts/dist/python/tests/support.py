"""Shared by the tests of the Python module's launch API.

They run against the module as installed (scripts/dist/launchers.sh runs
them with the venv's python, or with PYTHONPATH at the source tree) and the
real binary it resolves (binary_path(), or SESSION_STARTER_BINARY).

Every process of a test's sessions carries a mark in its environment that
nothing else on the machine has; a test ends by checking that none is left
(none_left). Processes found are SIGKILLed by PID, each after its mark is
read again, and the test fails. Nothing is killed by name.
"""

import json
import os
import secrets
import signal
import tempfile
import threading
import time
import unittest

import session_starter

# SESSION_STARTER_EXPECT_INSTALLED, when set, is where session_starter must
# have been imported from: the check runs the installed module, not the
# source tree's.
_expect = os.environ.get("SESSION_STARTER_EXPECT_INSTALLED")
if _expect and not os.path.abspath(session_starter.__file__).startswith(os.path.abspath(_expect)):
    raise ImportError(f"session_starter was imported from {session_starter.__file__}, not from {_expect}")

# Names the mark in the environment of the tests' sessions.
MARK_VAR = "SESSION_STARTER_PY_TEST_MARK"

# Bounds every "eventually": sessions end in milliseconds, and two loaded
# cores can stretch that a hundredfold.
TOO_LONG = 30.0

HERE = os.path.dirname(os.path.abspath(__file__))

# The fixtures every launcher's tests parse.
RECORDS_DIR = os.environ.get("SESSION_STARTER_RECORDS") or os.path.join(
    HERE, os.pardir, os.pardir, os.pardir, os.pardir, "starter", "launch", "testdata", "records"
)


def new_mark():
    return f"{os.getpid()}-{secrets.token_hex(8)}"


def marked_env(mark, **extra):
    env = dict(os.environ)
    env.update(extra)
    env[MARK_VAR] = mark
    return env


def live_where(pred):
    """The live processes (not zombies) whose environment, a list of NAME=value byte strings, satisfies pred."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                env = f.read().split(b"\0")
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        i = stat.rfind(b")")
        if pred(env) and stat[i + 2 : i + 3] != b"Z":
            out.append(int(name))
    return out


def marked(mark):
    """The live processes whose environment carries the mark."""
    return live_where(lambda env: f"{MARK_VAR}={mark}".encode() in env)


def carrying(session):
    """The live processes whose SESSION_STARTER_SESSION lists session: those of a call, and what they started."""

    def lists(env):
        ids = next((kv.split(b"=", 1)[1].split(b":") for kv in env if kv.startswith(b"SESSION_STARTER_SESSION=")), [])
        return session.encode() in ids

    return live_where(lists)


def kill_with_its_guard(s, ledger):
    """SIGKILLs session s's session-starter and its guard together, as an OOM kill of the tree does: the guard is named by the session's one record in ledger; session-starter is stopped first, so that it cannot end the session when its guard dies. What the session started is left running."""
    record = {}

    def recorded():
        files = [f for f in os.listdir(ledger) if f.endswith(".json")]
        if len(files) != 1:
            return False
        with open(os.path.join(ledger, files[0]), encoding="utf-8") as f:
            record.update(json.load(f))
        return True

    eventually("the session must have its ledger record", recorded)
    if record["starter"]["pid"] != s.starter_pid:
        raise AssertionError(f"the ledger record names starter {record['starter']['pid']}, want {s.starter_pid}")
    os.kill(s.starter_pid, signal.SIGSTOP)
    # The guard is the stopped session-starter's child: nobody reaps it
    # until session-starter is killed, so its PID is its own.
    os.kill(record["guard"]["pid"], signal.SIGKILL)
    os.kill(s.starter_pid, signal.SIGKILL)
    s.wait()
    s.close()


def eventually(what, cond):
    deadline = time.monotonic() + TOO_LONG
    pause = 0.005
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"after {TOO_LONG} s: {what}")
        time.sleep(pause)
        pause = min(2 * pause, 0.1)


def none_left(mark):
    """Fails unless every process carrying the mark is gone within TOO_LONG; SIGKILLs any left, by PID."""
    left = []

    def gone():
        left[:] = marked(mark)
        return not left

    try:
        eventually("no process of the session may be left", gone)
    except AssertionError as err:
        names = []
        for pid in left:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
                names.append(f"{pid} {cmdline}")
            except OSError:
                names.append(str(pid))
            if pid in marked(mark):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        raise AssertionError(f"{err}: left and killed: {'; '.join(names)}") from None


class SessionTest(unittest.TestCase):
    """A test whose sessions carry self.mark, checked at its end."""

    def setUp(self):
        self.mark = new_mark()
        self.env = marked_env(self.mark)
        self.tmp = tempfile.TemporaryDirectory(prefix="session-starter-py-test-")
        self.addCleanup(self.tmp.cleanup)
        self.addCleanup(none_left, self.mark)

    def bounded(self, fn):
        """fn(), run in a thread; fails if it has not returned within TOO_LONG."""
        out, errs = [], []

        def run():
            try:
                out.append(fn())
            except BaseException as e:  # re-raised in the test's thread
                errs.append(e)

        t = threading.Thread(target=run, daemon=True)
        t.start()
        t.join(TOO_LONG)
        if t.is_alive():
            self.fail(f"not returned within {TOO_LONG} s")
        if errs:
            raise errs[0]
        return out[0]

    @staticmethod
    def alive(pid):
        """Whether process pid runs (is not a zombie), by its /proc/PID/stat."""
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            return False
        i = stat.rfind(b")")
        return stat[i + 2 : i + 3] != b"Z"

    def fake_starter(self, script):
        """An executable shell script standing in for a binary that is not session-starter; its last command is exec'd."""
        path = os.path.join(self.tmp.name, "fake-starter")
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + script + "\n")
        os.chmod(path, 0o755)
        return path


def fixture(name):
    with open(os.path.join(RECORDS_DIR, name), encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f if line.strip()]
    assert lines, f"{name}: no line"
    return lines


def json_line(line):
    return json.loads(line)


# Where Debian's python3-anyio is, for an interpreter of its own (pyenv's,
# say) that has no anyio: the package is pure Python.
_DEBIAN_DIST_PACKAGES = "/usr/lib/python3/dist-packages"


def use_fake_sdk():
    """Puts the fake MCP SDK (fake_sdk/mcp) first on sys.path and makes anyio importable; SkipTest without anyio, but under CI."""
    import sys

    path = os.path.join(HERE, "fake_sdk")
    if path not in sys.path:
        sys.path.insert(0, path)
    try:
        import anyio  # noqa: F401
    except ImportError:
        if os.path.isdir(os.path.join(_DEBIAN_DIST_PACKAGES, "anyio")):
            sys.path.append(_DEBIAN_DIST_PACKAGES)
    try:
        import anyio  # noqa: F401,F811
    except ImportError:
        msg = "the MCP helpers' tests need anyio, as the MCP SDK does (apt-get install python3-anyio)"
        if os.environ.get("CI") == "true":
            raise ImportError(msg) from None
        raise unittest.SkipTest(msg) from None

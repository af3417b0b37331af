"""call() against the real binary: one command as a session of its own."""

import asyncio
import json
import math
import os
import sys
import tempfile
import time
import unittest

import session_starter as ss
from support import SessionTest, carrying, eventually, marked


class CallTest(SessionTest):
    """call(); AsyncCallTest runs the same tests through call_async()."""

    call_expr = "ss.call({})"

    def call(self, *args, **kwargs):
        return ss.call(*args, **kwargs)

    def test_output_status_and_the_end_of_what_the_command_left(self):
        """A background job and a setsid daemon hold stdout: call() returns once they are ended with the command, not when they would exit."""
        t0 = time.monotonic()
        r = self.call(["sh", "-c", "sleep 300 & setsid sleep 300 & echo out; echo err >&2; exit 3"], env=self.env)
        self.assertLess(time.monotonic() - t0, 60, "call() waited for what the command left")
        self.assertEqual((r.outcome, r.returncode, r.stdout, r.stderr), (ss.STARTED, 3, b"out\n", b"err\n"))
        self.assertEqual(r.ended.reason, "engine-exit")

    def test_input_reaches_the_command(self):
        r = self.call(["cat"], input=b"hello\n", env=self.env)
        self.assertEqual((r.outcome, r.returncode, r.stdout), (ss.STARTED, 0, b"hello\n"))

    def test_a_timeout_ends_the_whole_tree(self):
        r = self.call(["sh", "-c", "sleep 300 & exec sleep 300"], timeout=0.2, env=self.env)
        self.assertTrue(r.timed_out)
        self.assertEqual((r.outcome, r.returncode), (ss.STARTED, 124))

    def test_a_program_not_found_is_not_started_and_ran_nothing(self):
        r = self.call(["no-such-program-anywhere"], env=self.env)
        self.assertEqual((r.outcome, r.returncode), (ss.NOT_STARTED, 127))
        self.assertIsNotNone(r.error)

    def test_a_refused_session_is_not_started_and_ran_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            marker = os.path.join(d, "ran")
            r = self.call(["touch", marker], env=self.env, extra_flags=["--parent-pid", "1"])
            self.assertEqual(r.outcome, ss.NOT_STARTED)
            self.assertFalse(os.path.exists(marker))

    def test_release_on_exit_without_an_enclosing_session_is_not_started(self):
        env = {k: v for k, v in self.env.items() if k != "SESSION_STARTER_SESSION"}
        with tempfile.TemporaryDirectory() as d:
            marker = os.path.join(d, "ran")
            r = self.call(["touch", marker], env=env, release_on_exit=True)
            self.assertEqual((r.outcome, r.returncode), (ss.NOT_STARTED, 2))
            self.assertIn("enclosing session", r.error.stderr)
            self.assertFalse(os.path.exists(marker))

    def test_a_starter_sigkilled_before_its_ack_is_unclear(self):
        """No ack, no record: whether it ran cannot be known, so it is never retried."""
        bin = self.fake_starter("kill -9 $$")
        r = self.call(["true"], binary=bin, env=self.env)
        self.assertEqual(r.outcome, ss.UNCLEAR)

    def test_a_session_without_an_ended_record_is_unclear(self):
        bin = self.fake_starter("printf '%s\\n' '{\"session_containment\":1,\"pid\":4242,\"mode\":\"group\"}'; exit 0")
        r = self.call(["true"], binary=bin, env=self.env)
        self.assertEqual(r.outcome, ss.UNCLEAR)

    def test_release_on_exit_returns_at_the_exit_plus_the_drain_bound_while_what_it_released_holds_the_output(self):
        """The released sleep holds stdout and stderr for 300 s: call() returns after the drain bound, not when the sleep would exit."""
        script = (
            "import asyncio, json, sys, time\n"
            "import session_starter as ss\n"
            "t0 = time.monotonic()\n"
            "r = " + self.call_expr.format("['sh', '-c', 'sleep 300 & echo out; echo err >&2'], release_on_exit=True") + "\n"
            "print(json.dumps({'s': time.monotonic() - t0, 'stdout': r.stdout.decode(), 'stderr': r.stderr.decode(),"
            " 'outcome': r.outcome, 'returncode': r.returncode, 'held': r.output_held,"
            " 'released': r.ended.released if r.ended else None}), flush=True)\n"
            "time.sleep(300)  # the enclosing session ends it\n"
        )
        with ss.launch([sys.executable, "-c", script], env=self.env) as s:
            line = self.bounded(s.stdout.readline)
            self.assertTrue(line, "the enclosing Engine wrote nothing")
            r = json.loads(line)
            self.assertEqual((r["outcome"], r["returncode"], r["stdout"], r["stderr"], r["held"]), (ss.STARTED, 0, "out\n", "err\n", True))
            self.assertGreaterEqual(r["s"], ss.DEFAULT_DRAIN, "returned before the drain bound")
            self.assertEqual(len(r["released"]), 1)
            self.assertTrue(self.alive(r["released"][0]), "the released sleep was ended by the call")

    def test_end_released_ends_what_a_released_call_left_and_what_it_started_since(self):
        """Inside an enclosing session: a released loop keeps starting sleeps; after end_released() nothing carries the call's id, and the enclosing Engine lives."""
        script = (
            "import asyncio, json, sys\n"
            "import session_starter as ss\n"
            "r = " + self.call_expr.format("['sh', '-c', 'sleep 300 & setsid sh -c \"while :; do sleep 0.05; done\" & echo ok'], release_on_exit=True") + "\n"
            "print(json.dumps({'session': r.session, 'released': r.ended.released}), flush=True)\n"
            "sys.stdin.readline()\n"
            "print(json.dumps(r.end_released(grace=0.5)), flush=True)\n"
            "sys.stdin.read()  # the enclosing session ends it\n"
        )
        with ss.launch([sys.executable, "-c", script], env=self.env) as s:
            line = self.bounded(s.stdout.readline)
            self.assertTrue(line, "the enclosing Engine wrote nothing")
            r = json.loads(line)
            # The sleep 300 and the loop; a sleep 0.05 of the loop may be listed too.
            self.assertGreaterEqual(sum(self.alive(p) for p in r["released"]), 2, f"the call ended what it released: {r}")
            eventually("the released loop starts a sleep after the call", lambda: set(carrying(r["session"])) - set(r["released"]))
            s.stdin.write(b"end\n")
            s.stdin.flush()
            self.assertEqual(json.loads(self.bounded(s.stdout.readline)), [])
            self.assertEqual(carrying(r["session"]), [], "a process of the call lives on")
            self.assertIsNone(s.poll(), "the enclosing session ended")

    def test_end_released_with_a_grace_sends_sigterm_first(self):
        with tempfile.TemporaryDirectory() as d:
            termed = os.path.join(d, "termed")
            leader = "setsid sh -c 'trap \"touch " + termed + "; exit 0\" TERM; sleep 300 & wait' & echo ok"
            script = (
                "import asyncio, json, sys\n"
                "import session_starter as ss\n"
                "r = " + self.call_expr.format(repr(["sh", "-c", leader]) + ", release_on_exit=True") + "\n"
                "print(json.dumps({'left': r.end_released(grace=10)}), flush=True)\n"
                "sys.stdin.read()\n"
            )
            with ss.launch([sys.executable, "-c", script], env=self.env) as s:
                line = self.bounded(s.stdout.readline)
                self.assertEqual(json.loads(line), {"left": []})
                self.assertTrue(os.path.exists(termed), "the released shell got no SIGTERM")

    def test_end_released_leaves_another_users_copy_of_the_session_id(self):
        """A process of another user that carries the call's id (an imported environment) is not ended."""
        if os.getuid() != 0:
            self.skipTest("needs root to start a process as another user")
        script = (
            "import asyncio, json, os, subprocess, sys\n"
            "import session_starter as ss\n"
            "r = " + self.call_expr.format("['sh', '-c', 'sleep 300 & echo ok'], release_on_exit=True") + "\n"
            "env = {'PATH': os.environ['PATH'], 'SESSION_STARTER_SESSION': r.session}\n"
            "stranger = subprocess.Popen(['sleep', '300'], env=env, user=65534, group=65534)\n"
            "left = r.end_released()\n"
            "print(json.dumps({'left': left, 'stranger': stranger.poll() is None}), flush=True)\n"
            "sys.stdin.read()  # the enclosing session ends the stranger\n"
        )
        with ss.launch([sys.executable, "-c", script], env=self.env) as s:
            line = self.bounded(s.stdout.readline)
            self.assertTrue(line, "the enclosing Engine wrote nothing")
            self.assertEqual(json.loads(line), {"left": [], "stranger": True}, "another user's process was ended")

    def test_end_released_returns_the_pids_that_outlived_the_kill_budget(self):
        """A released sleep frozen by a cgroup v1 freezer outlives SIGKILL: end_released() returns its PID, and the SIGKILL lands on the thaw."""
        freezer = "/sys/fs/cgroup/freezer"
        if os.getuid() != 0 or not os.path.isfile(os.path.join(freezer, "cgroup.procs")):
            self.skipTest("needs root and a cgroup v1 freezer to make a process that SIGKILL cannot end")
        script = (
            "import asyncio, json, sys\n"
            "import session_starter as ss\n"
            "r = " + self.call_expr.format("['sh', '-c', 'sleep 300 & echo ok'], release_on_exit=True") + "\n"
            "print(json.dumps(r.ended.released), flush=True)\n"
            "sys.stdin.readline()  # the test froze it\n"
            "print(json.dumps(r.end_released(kill_budget=0.5)), flush=True)\n"
            "sys.stdin.read()  # the enclosing session ends it\n"
        )
        cg = os.path.join(freezer, "session-starter-py-test-" + self.mark)
        try:
            os.mkdir(cg)
        except OSError as err:
            self.skipTest(f"cannot make a freezer cgroup: {err}")

        def procs():
            with open(os.path.join(cg, "cgroup.procs")) as f:
                return f.read().split()

        def state(s=None):
            with open(os.path.join(cg, "freezer.state"), "r+") as f:
                if s:
                    f.write(s)
                return f.read().strip()

        def remove():
            state("THAWED")
            eventually("the freezer cgroup empties", lambda: not procs())
            os.rmdir(cg)

        self.addCleanup(remove)
        with ss.launch([sys.executable, "-c", script], env=self.env) as s:
            released = json.loads(self.bounded(s.stdout.readline))
            self.assertEqual(len(released), 1, released)
            with open(os.path.join(cg, "cgroup.procs"), "w") as f:
                f.write(str(released[0]))
            try:
                state("FROZEN")
                eventually("the released sleep is frozen", lambda: state() == "FROZEN")
                s.stdin.write(b"frozen\n")
                s.stdin.flush()
                left = json.loads(self.bounded(s.stdout.readline))
                self.assertEqual(left, released, "end_released() did not return the frozen sleep")
                self.assertTrue(self.alive(released[0]))
            finally:
                state("THAWED")
            eventually("the thawed sleep dies of the SIGKILL end_released() sent", lambda: not self.alive(released[0]))

    def test_end_released_runs_the_binary_the_call_ran(self):
        wrapper, log = os.path.join(self.tmp.name, "wrapper"), os.path.join(self.tmp.name, "log")
        with open(wrapper, "w") as f:
            f.write(f'#!/bin/sh\necho "$1" >> {log}\nexec {ss.binary_path()} "$@"\n')
        os.chmod(wrapper, 0o755)
        script = (
            "import asyncio, json, sys\n"
            "import session_starter as ss\n"
            "r = " + self.call_expr.format(f"['sh', '-c', 'sleep 300 & echo ok'], release_on_exit=True, binary={wrapper!r}") + "\n"
            "print(json.dumps(r.end_released()), flush=True)\n"
            "sys.stdin.read()\n"
        )
        with ss.launch([sys.executable, "-c", script], env=self.env) as s:
            self.assertEqual(json.loads(self.bounded(s.stdout.readline)), [])
        with open(log) as f:
            self.assertEqual(f.read().split(), ["--ack", "--end-released"])

    def test_end_released_of_a_call_that_was_not_released_says_so(self):
        r = self.call(["sh", "-c", "sleep 300 & exit 0"], env=self.env)
        with self.assertRaisesRegex(ValueError, "not released"):
            r.end_released()

    def test_output_past_max_buffer_ends_the_call_and_keeps_the_first_bytes(self):
        for stream in ("stdout", "stderr"):
            with self.subTest(stream=stream):
                to = " >&2" if stream == "stderr" else ""
                r = self.bounded(lambda: self.call(["sh", "-c", f"head -c 3000000 /dev/zero{to}; exec sleep 300"], max_buffer=1000000, env=self.env))
                self.assertIsInstance(r.error, ss.MaxBufferError)
                self.assertEqual(r.error.stream, stream)
                self.assertIn("went past max_buffer (1000000 bytes)", str(r.error))
                self.assertEqual(len(getattr(r, stream)), 1000000)
                self.assertEqual((r.outcome, r.ended.reason), (ss.STARTED, "control-closed"))

    def test_a_bad_drain_or_max_buffer_is_refused_and_runs_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            marker = os.path.join(d, "ran")
            for bad in ({"drain": -1}, {"drain": math.inf}, {"max_buffer": 0}, {"max_buffer": 1.5}, {"max_buffer": "1"}):
                r = self.call(["touch", marker], env=self.env, **bad)
                self.assertEqual((r.outcome, r.error.code), (ss.NOT_STARTED, "invalid-option"), bad)
            self.assertFalse(os.path.exists(marker))


class AsyncCallTest(CallTest):
    call_expr = "asyncio.run(ss.call_async({}))"

    def call(self, *args, **kwargs):
        return asyncio.run(ss.call_async(*args, **kwargs))

    def test_a_cancelled_call_raises_the_cancellation_and_leaves_nothing(self):
        """Cancelled at each step: before the spawn, before the ack, with the Engine running.

        Before the ack session-starter is SIGKILLed and its guard ends the
        rest a moment later; past it the cancellation returns once the
        session has ended.
        """

        async def run(seen):
            task = asyncio.ensure_future(ss.call_async(["sh", "-c", "sleep 300 & setsid sleep 300 & exec sleep 300"], env=self.env))
            while len(marked(self.mark)) < seen:
                self.assertFalse(task.done(), task)
                await asyncio.sleep(0.002)
            task.cancel()
            with self.assertRaises(asyncio.CancelledError):
                await task
            eventually("no process of the cancelled call may be left", lambda: not marked(self.mark))

        # The marked processes: session-starter, its guard, the Engine, its two sleeps.
        for seen in (0, 1, 2, 3, 4, 5) * 3:
            with self.subTest(seen=seen):
                self.bounded(lambda: asyncio.run(run(seen)))


if __name__ == "__main__":
    unittest.main()

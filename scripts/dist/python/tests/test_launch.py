"""launch() and launch_async() against the real binary: each test runs
sessions whose processes carry a mark, and fails if any of them is left."""

import asyncio
import io
import os
import signal
import subprocess
import sys
import time
import unittest

import session_starter as ss
from support import HERE, TOO_LONG, SessionTest, eventually, marked

# The Engine's sleep left behind: ended with the session.
LEAK = "sleep 300 & "

# LEAK, once the sleep runs: a stop signal that reached the forked shell
# before its exec would be lost with the shell's trap.
LEAK_RUNNING = 'sleep 300 & until [ "$(cat /proc/$!/comm 2>/dev/null)" = sleep ]; do :; done; '

ACK = '{"session_containment":1,"pid":4242,"mode":"group"}'


class LaunchTest(SessionTest):
    def test_the_engine_gets_the_stdio_and_its_status_is_mirrored(self):
        with ss.launch(["sh", "-c", LEAK + 'echo "first $$"; read l; echo "got $l"; exit 3'], env=self.env) as s:
            self.assertGreater(s.pid, 1)
            self.assertIn(s.mode, ("group", "cgroup"))
            self.assertEqual(s.stdout.readline(), f"first {s.pid}\n".encode(), "the Engine's first line, right after the ack")
            s.stdin.write(b"hello\n")
            s.stdin.flush()
            self.assertEqual(s.stdout.readline(), b"got hello\n")
            self.assertEqual(s.wait(TOO_LONG), 3)
            self.assertEqual(s.returncode, 3)

    def test_the_status_records_arrive_parsed(self):
        with ss.launch(["sh", "-c", LEAK + "exit 5"], env=self.env) as s:
            started = s.started(TOO_LONG)
            self.assertEqual((started.pid, started.pgid, started.mode), (s.pid, s.pid, s.mode))
            ended = s.ended(TOO_LONG)
            self.assertEqual((ended.reason, ended.exit_code, ended.starter.exit_status, ended.outcome), ("engine-exit", 5, 5, "empty"))
            self.assertEqual([r.event for r in s.records], ["started", "ended"])

    def test_without_a_status_pipe_started_and_ended_are_none(self):
        with ss.launch(["true"], env=self.env, status=False) as s:
            self.assertIsNone(s.started(TOO_LONG))
            self.assertIsNone(s.ended(TOO_LONG))
            self.assertEqual(s.wait(TOO_LONG), 0)
            self.assertNotIn("--status-fd", s.process.args)

    def test_the_bytes_after_the_ack_are_the_engines_even_in_one_read(self):
        bin = self.fake_starter(f"printf '%s\\nfirst\\nsecond\\n' '{ACK}'; exec sleep 300")
        with ss.launch(["true"], binary=bin, env=self.env, stop_timeout=0.1) as s:
            self.assertEqual(s.stdout.readline(), b"first\n")
            self.assertEqual(s.stdout.readline(), b"second\n")

    def test_stop_sigkills_a_starter_that_outlives_the_stop_timeout(self):
        """The fake reads no control pipe and ignores SIGTERM: stop() SIGKILLs it after the stop timeout, and says so."""
        bin = self.fake_starter(f"printf '%s\\n' '{ACK}'; trap '' TERM; exec sleep 300")
        s = ss.launch(["true"], binary=bin, env=self.env, stop_timeout=0.2)
        t0 = time.monotonic()
        self.assertEqual(s.stop(), -signal.SIGKILL)
        self.assertGreaterEqual(time.monotonic() - t0, 0.19)
        self.assertTrue(s.killed)
        self.assertIsNone(s.ended(TOO_LONG), "killed, it wrote no ended record")

    def test_stop_closes_the_control_pipe(self):
        with ss.launch(["sh", "-c", LEAK + "exec sleep 300"], env=self.env) as s:
            s.started(TOO_LONG)  # a stop before it is a stop before the Engine ran: 125
            self.assertEqual(s.stop(), -signal.SIGKILL)
            self.assertFalse(s.killed)
            ended = s.ended(TOO_LONG)
            self.assertEqual((ended.reason, ended.signal), ("control-closed", "KILL"))

    def test_stop_without_a_control_pipe_sends_sigterm(self):
        with ss.launch(["sh", "-c", LEAK + "exec sleep 300"], env=self.env, control=False) as s:
            s.started(TOO_LONG)
            self.assertEqual(s.stop(), -signal.SIGKILL)
            self.assertEqual(s.ended(TOO_LONG).reason, "signal TERM")

    def test_with_a_grace_the_engine_ends_itself(self):
        with ss.launch(["sh", "-c", "trap 'exit 7' TERM; " + LEAK_RUNNING + "echo ready; wait"], env=self.env, grace=5) as s:
            self.assertEqual(s.stdout.readline(), b"ready\n")
            self.assertEqual(s.stop(), 7)
            ended = s.ended(TOO_LONG)
            self.assertEqual((ended.exit_code, ended.graceful), (7, True))

    def test_watch_stdin_ends_the_session_when_this_processs_end_closes(self):
        with ss.launch(["sh", "-c", LEAK_RUNNING + "echo ready; exec sleep 300"], env=self.env, watch_stdin=True, stdin_grace=0.1) as s:
            self.assertEqual(s.stdout.readline(), b"ready\n")
            s.stdin.close()
            self.assertEqual(s.wait(TOO_LONG), -signal.SIGKILL)
            self.assertEqual(s.ended(TOO_LONG).reason, "stdin-closed")

    def test_each_option_reaches_session_starter_as_its_flag(self):
        with ss.launch(
            ["sleep", "300"],
            env=self.env,
            grace=1.5,
            timeout=60,
            kill_budget=2,
            stop_signal="INT",
            containment="group",
            extra_flags=["--log-level", "debug"],
            stderr=subprocess.DEVNULL,
        ) as s:
            with open(f"/proc/{s.starter_pid}/cmdline", "rb") as f:
                argv = f.read().decode().split("\0")[1:-1]
            ctl, stat = argv[4], argv[6]
            self.assertEqual(
                argv,
                ["--ack", "--parent-pid", str(os.getpid()), "--control-fd", ctl, "--status-fd", stat,
                 "--grace", "1500000000ns", "--timeout", "60s", "--kill-budget", "2s", "--stop-signal", "INT",
                 "--containment", "group", "--log-level", "debug", "--", "sleep", "300"],
            )
            self.assertEqual(s.mode, "group")

    def test_the_timeout_ends_the_session(self):
        with ss.launch(["sh", "-c", LEAK + "exec sleep 300"], env=self.env, timeout=0.1, stderr=subprocess.DEVNULL) as s:
            self.assertEqual(s.wait(TOO_LONG), 124)
            self.assertEqual(s.ended(TOO_LONG).reason, "timeout")

    def test_the_stop_timeout_covers_the_ends_bound(self):
        self.assertEqual(ss.end_bound(), 10.25)
        self.assertEqual(ss.end_bound(2, 3), 5.25)

    def test_a_starter_that_exits_before_its_ack_says_why(self):
        not_executable = os.path.join(self.tmp.name, "engine")
        with open(not_executable, "w") as f:
            f.write("data")
        for name, argv, kw, code, kind, said in (
            ("PROGRAM not found", ["no-such-engine-7f3a"], {}, 127, "not-found", "no-such-engine-7f3a"),
            ("PROGRAM not executable", [not_executable], {}, 126, "cannot-execute", not_executable),
            ("a usage error", ["true"], {"extra_flags": ["--log-level", "bogus"]}, 2, "usage", "bogus"),
            ("containment refused", ["true"], {"binary": self.fake_starter('echo "session-starter: no cgroup" >&2; exit 125')}, 125, "containment", "no cgroup"),
        ):
            with self.subTest(name):
                with self.assertRaises(ss.LaunchError) as cm:
                    ss.launch(argv, env=self.env, stderr=subprocess.DEVNULL, **kw)
                err = cm.exception
                self.assertEqual((err.code, err.returncode, err.kind), ("no-ack", code, kind))
                self.assertIn(said, err.stderr)
                self.assertIn(f"exited {code}", str(err))

    def test_a_first_line_that_is_not_an_ack_kills_session_starter(self):
        for line in ("hello", '{"pid":1234,"mode":"group"}', '{"session_containment":2,"pid":1234,"mode":"group"}'):
            with self.subTest(line):
                bin = self.fake_starter(f"printf '%s\\n' '{line}'; exec sleep 300")
                with self.assertRaises(ss.LaunchError) as cm:
                    ss.launch(["true"], binary=bin, env=self.env)
                self.assertEqual((cm.exception.code, cm.exception.line, cm.exception.returncode), ("malformed-ack", line, -signal.SIGKILL))

    def test_no_ack_within_the_ack_timeout_kills_session_starter(self):
        t0 = time.monotonic()
        with self.assertRaises(ss.LaunchError) as cm:
            ss.launch(["true"], binary=self.fake_starter("exec sleep 300"), env=self.env, ack_timeout=0.15)
        self.assertEqual((cm.exception.code, cm.exception.returncode), ("ack-timeout", -signal.SIGKILL))
        self.assertGreaterEqual(time.monotonic() - t0, 0.14)

    def test_a_missing_binary_is_one_clear_error(self):
        none = os.path.join(self.tmp.name, "none")
        with self.assertRaises(ss.BinaryNotFoundError) as cm:
            ss.launch(["true"], binary=none)
        self.assertIsInstance(cm.exception, ss.LaunchError)
        self.assertIsInstance(cm.exception, FileNotFoundError)
        self.assertEqual((str(cm.exception), cm.exception.code), (f"session-starter: {none}: no such file", "binary-missing"))
        saved = os.environ.get("SESSION_STARTER_BINARY")
        os.environ["SESSION_STARTER_BINARY"] = none
        try:
            with self.assertRaises(ss.BinaryNotFoundError) as cm:
                ss.launch(["true"])
            self.assertEqual(str(cm.exception), f"session-starter: SESSION_STARTER_BINARY={none}: no such file")
        finally:
            if saved is None:
                del os.environ["SESSION_STARTER_BINARY"]
            else:
                os.environ["SESSION_STARTER_BINARY"] = saved

    def test_bad_options_are_refused_before_anything_starts(self):
        ran = os.path.join(self.tmp.name, "ran")
        bin = self.fake_starter(f"touch '{ran}'")
        for kw in (
            {"grace": -1},
            {"timeout": float("nan")},
            {"kill_budget": "10s"},
            {"grace": True},
            {"grace": 4e9},
            {"stop_signal": 1.5},
            {"containment": ""},
            {"extra_flags": ["--grace", "2s"]},
            {"extra_flags": ["--status-fd=3"]},
            {"extra_flags": ["--"]},
            {"extra_flags": "--log-level"},
            {"ack_timeout": -5},
            {"stop_timeout": "soon"},
            {"stdin_grace": 1},
            {"stderr": "pipe"},
            {"cwd": os.path.join(self.tmp.name, "none")},
        ):
            with self.subTest(kw):
                with self.assertRaises(ss.LaunchError) as cm:
                    ss.launch(["true"], binary=bin, **kw)
                self.assertEqual(cm.exception.code, "invalid-option")
        for argv in ([], "true", ["true", 1]):
            with self.assertRaises(ss.LaunchError):
                ss.launch(argv, binary=bin)
        self.assertFalse(os.path.exists(ran), "session-starter ran")

    def test_a_launcher_with_its_standard_descriptors_closed_passes_the_pipes_above_them(self):
        """os.pipe() then returns 0, 1 and 2, which --control-fd and --status-fd refuse (exit 2)."""
        code = (
            "import os, sys, session_starter\n"
            "os.close(0); os.close(1)\n"
            "with session_starter.launch(['true']) as s:\n"
            "    sys.exit(s.wait())\n"
        )
        launcher = subprocess.run([sys.executable, "-c", code], env=self.env, stderr=subprocess.PIPE, timeout=TOO_LONG)
        self.assertEqual(launcher.returncode, 0, launcher.stderr)

    def test_the_request_for_a_go_engines_own_containment_does_not_reach_the_engine(self):
        env = dict(self.env, SESSION_STARTER_CONTAIN="1")
        with ss.launch(["sh", "-c", 'echo "${SESSION_STARTER_CONTAIN-unset}"'], env=env) as s:
            self.assertEqual(s.stdout.readline(), b"unset\n")

    def test_stderr_goes_where_asked_and_its_tail_is_kept(self):
        sink = io.BytesIO()
        with ss.launch(["sh", "-c", "echo oops >&2; exit 4"], env=self.env, stderr=sink) as s:
            self.assertEqual(s.wait(TOO_LONG), 4)
        self.assertIn(b"oops", sink.getvalue())
        self.assertIn("oops", s.stderr_tail())

    def test_the_context_manager_ends_the_session_on_an_exception(self):
        with self.assertRaises(RuntimeError):
            with ss.launch(["sh", "-c", LEAK + "exec sleep 300"], env=self.env) as s:
                s.started(TOO_LONG)
                raise RuntimeError("the launcher failed")
        self.assertEqual(s.returncode, -signal.SIGKILL)
        self.assertTrue(s.stdin.closed and s.stdout.closed)

    def test_sigkill_of_the_launcher_ends_the_session(self):
        """--parent-pid watches the launcher, and the control pipe reaches its end with it."""
        launcher = subprocess.Popen([sys.executable, os.path.join(HERE, "launcher.py")], env=self.env, stdout=subprocess.PIPE)
        self.addCleanup(launcher.stdout.close)
        ready = launcher.stdout.readline().split()
        self.assertEqual(ready[0], b"ready", ready)
        # An environment read in the middle of an exec comes back empty.
        eventually("the Engine runs", lambda: int(ready[1]) in marked(self.mark))
        launcher.kill()
        launcher.wait(TOO_LONG)


class LaunchAsyncTest(SessionTest):
    def run_async(self, coro):
        return asyncio.run(asyncio.wait_for(coro, TOO_LONG))

    def test_the_engine_gets_the_stdio_and_its_status_is_mirrored(self):
        async def main():
            async with await ss.launch_async(["sh", "-c", LEAK + 'echo "first $$"; read l; echo "got $l"; exit 3'], env=self.env) as s:
                self.assertEqual(await s.stdout.readline(), f"first {s.pid}\n".encode())
                s.stdin.write(b"hello\n")
                await s.stdin.drain()
                self.assertEqual(await s.stdout.readline(), b"got hello\n")
                self.assertEqual(await s.wait(), 3)
                ended = await s.ended()
                self.assertEqual((ended.reason, ended.exit_code), ("engine-exit", 3))
                self.assertEqual((await s.started()).pid, s.pid)

        self.run_async(main())

    def test_the_bytes_after_the_ack_are_the_engines_even_in_one_read(self):
        bin = self.fake_starter(f"printf '%s\\nfirst\\n' '{ACK}'; exec sleep 300")

        async def main():
            async with await ss.launch_async(["true"], binary=bin, env=self.env, stop_timeout=0.1) as s:
                self.assertEqual(await s.stdout.readline(), b"first\n")
            self.assertTrue(s.killed)

        self.run_async(main())

    def test_stop_closes_the_control_pipe_or_sends_sigterm(self):
        async def main():
            for control, reason in ((True, "control-closed"), (False, "signal TERM")):
                s = await ss.launch_async(["sh", "-c", LEAK + "exec sleep 300"], env=self.env, control=control)
                await s.started()
                self.assertEqual(await s.stop(), -signal.SIGKILL)
                self.assertEqual((await s.ended()).reason, reason)
                await s.close()

        self.run_async(main())

    def test_no_session_is_a_launch_error(self):
        async def main():
            with self.assertRaises(ss.LaunchError) as cm:
                await ss.launch_async(["no-such-engine-7f3a"], env=self.env, stderr=subprocess.DEVNULL)
            self.assertEqual((cm.exception.code, cm.exception.returncode, cm.exception.kind), ("no-ack", 127, "not-found"))
            with self.assertRaises(ss.LaunchError) as cm:
                await ss.launch_async(["true"], binary=self.fake_starter("printf 'hello\\n'; exec sleep 300"), env=self.env)
            self.assertEqual((cm.exception.code, cm.exception.line, cm.exception.returncode), ("malformed-ack", "hello", -signal.SIGKILL))
            with self.assertRaises(ss.LaunchError) as cm:
                await ss.launch_async(["true"], binary=self.fake_starter("exec sleep 300"), env=self.env, ack_timeout=0.15)
            self.assertEqual((cm.exception.code, cm.exception.returncode), ("ack-timeout", -signal.SIGKILL))
            with self.assertRaises(ss.BinaryNotFoundError):
                await ss.launch_async(["true"], binary=os.path.join(self.tmp.name, "none"))

        self.run_async(main())

    def test_a_cancelled_launch_kills_session_starter(self):
        async def main():
            task = asyncio.ensure_future(ss.launch_async(["true"], binary=self.fake_starter("exec sleep 300"), env=self.env))
            await asyncio.sleep(0.2)
            task.cancel()
            with self.assertRaises(asyncio.CancelledError):
                await task

        self.run_async(main())


if __name__ == "__main__":
    unittest.main()

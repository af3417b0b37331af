"""call() against the real binary: one command as a session of its own."""

import os
import tempfile
import time
import unittest

import session_starter as ss
from support import SessionTest


class CallTest(SessionTest):
    def test_output_status_and_the_end_of_what_the_command_left(self):
        """A background job and a setsid daemon hold stdout: call() returns once they are ended with the command, not when they would exit."""
        t0 = time.monotonic()
        r = ss.call(["sh", "-c", "sleep 300 & setsid sleep 300 & echo out; echo err >&2; exit 3"], env=self.env)
        self.assertLess(time.monotonic() - t0, 60, "call() waited for what the command left")
        self.assertEqual((r.outcome, r.returncode, r.stdout, r.stderr), (ss.STARTED, 3, b"out\n", b"err\n"))
        self.assertEqual(r.ended.reason, "engine-exit")

    def test_input_reaches_the_command(self):
        r = ss.call(["cat"], input=b"hello\n", env=self.env)
        self.assertEqual((r.outcome, r.returncode, r.stdout), (ss.STARTED, 0, b"hello\n"))

    def test_a_timeout_ends_the_whole_tree(self):
        r = ss.call(["sh", "-c", "sleep 300 & exec sleep 300"], timeout=0.2, env=self.env)
        self.assertTrue(r.timed_out)
        self.assertEqual((r.outcome, r.returncode), (ss.STARTED, 124))

    def test_a_program_not_found_is_not_started_and_ran_nothing(self):
        r = ss.call(["no-such-program-anywhere"], env=self.env)
        self.assertEqual((r.outcome, r.returncode), (ss.NOT_STARTED, 127))
        self.assertIsNotNone(r.error)

    def test_a_refused_session_is_not_started_and_ran_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            marker = os.path.join(d, "ran")
            r = ss.call(["touch", marker], env=self.env, extra_flags=["--parent-pid", "1"])
            self.assertEqual(r.outcome, ss.NOT_STARTED)
            self.assertFalse(os.path.exists(marker))

    def test_release_on_exit_without_an_enclosing_session_is_not_started(self):
        env = {k: v for k, v in self.env.items() if k != "SESSION_STARTER_SESSION"}
        with tempfile.TemporaryDirectory() as d:
            marker = os.path.join(d, "ran")
            r = ss.call(["touch", marker], env=env, release_on_exit=True)
            self.assertEqual((r.outcome, r.returncode), (ss.NOT_STARTED, 2))
            self.assertIn("enclosing session", r.error.stderr)
            self.assertFalse(os.path.exists(marker))

    def test_a_starter_sigkilled_before_its_ack_is_unclear(self):
        """No ack, no record: whether it ran cannot be known, so it is never retried."""
        bin = self.fake_starter("kill -9 $$")
        r = ss.call(["true"], binary=bin, env=self.env)
        self.assertEqual(r.outcome, ss.UNCLEAR)

    def test_a_session_without_an_ended_record_is_unclear(self):
        bin = self.fake_starter("printf '%s\\n' '{\"session_containment\":1,\"pid\":4242,\"mode\":\"group\"}'; exit 0")
        r = ss.call(["true"], binary=bin, env=self.env)
        self.assertEqual(r.outcome, ss.UNCLEAR)


if __name__ == "__main__":
    unittest.main()

"""reclaim() against the real binary: what a session left when its
session-starter and its guard were SIGKILLed together is ended, and
reported. Each test has a ledger of its own (SESSION_STARTER_LEDGER_DIR)."""

import os
import tempfile

import session_starter as ss
from support import SessionTest, eventually, kill_with_its_guard, marked


class ReclaimTest(SessionTest):
    def setUp(self):
        super().setUp()
        self.ledger = tempfile.mkdtemp(prefix="ledger-", dir=self.tmp.name)  # 0700, as the ledger's must be
        self.env = dict(self.env, SESSION_STARTER_LEDGER_DIR=self.ledger)

    def dead_session(self):
        """A session with a setsid escapee whose session-starter and guard are SIGKILLed together."""
        s = ss.launch(["sh", "-c", "setsid sleep 300 & echo ready; exec sleep 300"], env=self.env)
        self.assertEqual(s.stdout.readline(), b"ready\n")

        def sleeping():
            # Both execs done: a process reads no environment, so no mark,
            # while it execs.
            n = 0
            for pid in marked(self.mark):
                try:
                    with open(f"/proc/{pid}/comm", encoding="utf-8") as f:
                        n += f.read().strip() == "sleep"
                except OSError:
                    pass
            return n == 2

        eventually("the Engine and its escapee must be sleeping", sleeping)
        kill_with_its_guard(s, self.ledger)

    def test_reclaim_ends_what_a_session_left_when_its_starter_and_guard_died_together(self):
        self.dead_session()
        left = sorted(marked(self.mark))
        self.assertGreaterEqual(len(left), 2, "the Engine and its escapee must be left running")

        dry = ss.reclaim(dry_run=True, env=self.env)
        self.assertEqual((dry["event"], dry["dry_run"], len(dry["sessions"])), ("reclaimed", True, 1))
        self.assertEqual(dry["sessions"][0]["action"], "would-reclaim")
        self.assertEqual(sorted(e["pid"] for e in dry["sessions"][0]["ended"]), left)
        self.assertEqual(sorted(marked(self.mark)), left, "a dry run ended something")

        done = ss.reclaim(env=self.env)
        self.assertEqual(len(done["sessions"]), 1)
        self.assertEqual((done["sessions"][0]["action"], done["sessions"][0]["left"]), ("reclaimed", []))
        self.assertEqual(sorted(e["pid"] for e in done["sessions"][0]["ended"]), left)
        eventually("what the session left must be gone", lambda: not marked(self.mark))

        again = ss.reclaim(env=self.env)
        self.assertEqual((again["sessions"], again["problems"]), ([], []))

    def test_no_ledger_is_a_launch_error(self):
        open_dir = tempfile.mkdtemp(dir=self.tmp.name)
        os.chmod(open_dir, 0o777)  # open to others: refused, the ledger is off
        with self.assertRaises(ss.LaunchError) as cm:
            ss.reclaim(env=dict(self.env, SESSION_STARTER_LEDGER_DIR=open_dir))
        self.assertEqual((cm.exception.code, cm.exception.returncode), ("reclaim", 125))
        self.assertIn("ledger: off", cm.exception.stderr)

    def test_a_missing_binary_is_a_launch_error(self):
        with self.assertRaises(ss.LaunchError) as cm:
            ss.reclaim(binary=os.path.join(self.tmp.name, "no-such-binary"))
        self.assertEqual(cm.exception.code, "binary-missing")

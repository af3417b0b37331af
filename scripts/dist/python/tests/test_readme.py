"""The module README's examples, run as printed against the real binary, offline.

Each fenced block runs in a directory of its own, with a ledger of its
own: the shell blocks with sh, the binary's directory first on PATH (as a
venv's bin/ is); the Python blocks with this Python. Their processes carry
the test's mark, so none may be left. The install line is not run: it
needs PyPI. The MCP client example needs the MCP Python SDK, which is not
installable here (PyPI is not reachable): it is only compiled, and the
names it takes from session_starter checked.
"""

import ast
import os
import re
import subprocess
import sys
import tempfile

import session_starter as ss
from support import HERE, TOO_LONG, SessionTest, eventually, kill_with_its_guard

README = os.path.join(os.path.dirname(HERE), "README.md")

# The blocks as the README prints them, each with what it must print: None
# for the install line, which is not run; "compile" for the MCP example.
EXAMPLES = [
    ("sh", "the install line", None),
    ("sh", "the command", r"exit status 3\n"),
    ("python", "launch()", r"got hello\nengine-exit 0\n"),
    ("python", "call()", r"started 0 hello\n"),
    ("python", "reclaim()", r""),
    ("python", "the MCP client", "compile"),
]


def blocks():
    """The README's fenced blocks, in order: (language, text)."""
    with open(README, encoding="utf-8") as f:
        return re.findall(r"^```(\w*)\n(.*?)^```$", f.read(), re.S | re.M)


class ReadmeTest(SessionTest):
    def setUp(self):
        super().setUp()
        self.ledger = tempfile.mkdtemp(prefix="ledger-", dir=self.tmp.name)  # 0700, as the ledger's must be
        self.env = dict(self.env, SESSION_STARTER_LEDGER_DIR=self.ledger)

    def run_example(self, lang, text):
        """Runs one block in its directory and returns its stdout; fails when it fails."""
        cwd = tempfile.mkdtemp(prefix="example-", dir=self.tmp.name)
        env = dict(self.env, PATH=os.path.dirname(ss.binary_path()) + os.pathsep + self.env.get("PATH", ""))
        argv = ["sh", "-c", text] if lang == "sh" else [sys.executable, "-c", text]
        p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, timeout=TOO_LONG)
        self.assertEqual(p.returncode, 0, f"the example exited {p.returncode}:\n{text}\nstdout: {p.stdout!r}\nstderr: {p.stderr!r}")
        return p.stdout.decode()

    def test_the_readme_has_the_examples_this_test_runs_in_order(self):
        self.assertEqual([lang for lang, _ in blocks()], [lang for lang, _, _ in EXAMPLES])
        self.assertEqual(blocks()[0][1], "pip install session-starter\n")

    def test_each_example_runs_as_printed(self):
        for (lang, text), (want_lang, what, out) in zip(blocks(), EXAMPLES):
            if out is None or out == "compile":
                continue
            with self.subTest(what):
                self.assertEqual(lang, want_lang)
                self.assertRegex(self.run_example(lang, text), "^" + out + "$")

    def test_the_mcp_example_compiles_and_names_only_what_session_starter_has(self):
        # Compiled only: it needs the MCP Python SDK, not installable here.
        lang, text = blocks()[5]
        self.assertEqual(lang, "python")
        tree = compile(text, "README.md", "exec", ast.PyCF_ONLY_AST)
        used = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "session_starter"}
        self.assertIn("wrap_stdio_parameters", used)
        for name in used:
            self.assertTrue(hasattr(ss, name), f"session_starter has no {name}")
        compile(tree, "README.md", "exec")

    def test_the_reclaim_example_ends_what_a_dead_session_left(self):
        # On an empty ledger the example prints nothing: here it has a record.
        lang, text = blocks()[4]
        self.assertIn("reclaim()", text)
        s = ss.launch(["sleep", "300"], env=self.env)
        started = s.started()
        kill_with_its_guard(s, self.ledger)
        self.assertTrue(self.alive(started.pid), "the Engine must be left running")
        self.assertEqual(self.run_example(lang, text), f"{started.session} reclaimed [{started.pid}]\n")
        eventually("the dead session's Engine must be gone", lambda: not self.alive(started.pid))

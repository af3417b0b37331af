"""call(): one command as a session of its own, for an Engine's per-call commands.

An MCP server written in Python runs each tool call's command through
call() instead of subprocess.run(): the command runs under session-starter
(launch()), so that when it exits, times out or is cancelled, every
process it started ends too — a background job, a setsid daemon — and the
output pipes reach end of file. The result says whether the command may
be retried: only "not-started" may.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, List, Mapping, Optional, Sequence

from ._records import Ended
from ._session import LaunchError, end_bound, launch

NOT_STARTED = "not-started"
STARTED = "started"
UNCLEAR = "unclear"

# The LaunchError codes and kinds after which provably nothing was
# executed: session-starter refused or exited before its ack (which comes
# before the go-ahead), or never started.
_NOTHING_RAN_CODES = frozenset(["invalid-option", "binary-missing", "spawn"])
_NOTHING_RAN_KINDS = frozenset(["usage", "containment", "cannot-execute", "not-found"])


@dataclass
class CallResult:
    """What call() came to.

    ``outcome`` is "not-started" (provably nothing was executed: the only
    outcome after which the call may be started again), "started", or
    "unclear" (session-starter ended without its ended record, or without
    an ack: whether the command ran cannot be known). ``returncode`` is the
    command's status as session-starter mirrored it (-N: died of signal
    N), None when there was no session; ``ended`` the ended record;
    ``error`` the LaunchError when there was no session.
    """

    outcome: str
    returncode: Optional[int]
    stdout: bytes
    stderr: bytes
    ended: Optional[Ended]
    error: Optional[LaunchError] = None

    @property
    def timed_out(self) -> bool:
        """True when the session was ended by its timeout (status 124)."""
        return self.ended is not None and self.ended.reason == "timeout"


class _Sink:
    def __init__(self) -> None:
        self.parts: List[bytes] = []
        self.lock = threading.Lock()

    def write(self, b: bytes) -> int:
        with self.lock:
            self.parts.append(bytes(b))
        return len(b)

    def value(self) -> bytes:
        with self.lock:
            return b"".join(self.parts)


def call(
    argv: Sequence[str],
    *,
    input: Optional[bytes] = None,
    timeout: float = 0,
    grace: float = 0,
    stop_signal: Any = None,
    kill_budget: float = 0,
    containment: Optional[str] = None,
    env: Optional[Mapping[str, str]] = None,
    cwd: Optional[str] = None,
    binary: Optional[str] = None,
    release_on_exit: bool = False,
    extra_flags: Sequence[str] = (),
) -> CallResult:
    """Run argv as a session of its own and return its CallResult once every process of it has ended.

    ``input`` is written to the command's stdin, which is then closed;
    stdout and stderr are captured whole. ``timeout`` (seconds; 0: none)
    ends the whole tree after that long (returncode 124), with ``grace``
    and ``stop_signal`` first. ``release_on_exit`` keeps what the command
    left running when it exits on its own (a dev server it started), for
    the enclosing session to end (--release-on-exit: it needs one, else
    the result is not-started with a usage error). It never raises for the
    command's failure: a session that could not be made comes back as a
    result with ``error`` set.
    """
    if release_on_exit:
        extra_flags = ["--release-on-exit", *extra_flags]
    err = _Sink()
    try:
        s = launch(
            argv,
            binary=binary,
            env=env,
            cwd=cwd,
            stderr=err,
            grace=grace,
            stop_signal=stop_signal,
            timeout=timeout,
            kill_budget=kill_budget,
            containment=containment,
            status=True,
            extra_flags=extra_flags,
        )
    except LaunchError as e:
        nothing = e.code in _NOTHING_RAN_CODES or e.kind in _NOTHING_RAN_KINDS
        return CallResult(NOT_STARTED if nothing else UNCLEAR, e.returncode, b"", err.value(), None, e)

    def feed() -> None:
        try:
            if input:
                s.stdin.write(input)
            s.stdin.close()
        except (BrokenPipeError, OSError, ValueError):
            pass  # the command stopped reading

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    with s:
        out = s.stdout.read()  # end of file once every holder of the pipe has ended
        code = s.wait()
        try:
            ended = s.ended(timeout=end_bound(grace, kill_budget))
        except Exception:  # a bad record, or none in time: not known
            ended = None
    feeder.join(1)
    if ended is None:
        outcome = UNCLEAR
    elif ended.executed:
        outcome = STARTED
    else:
        outcome = NOT_STARTED
    return CallResult(outcome, code, out, err.value(), ended)

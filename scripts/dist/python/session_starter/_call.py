"""call() and call_async(): one command as a session of its own, for an Engine's per-call commands.

An MCP server written in Python runs each tool call's command through
call() instead of subprocess.run(): the command runs under session-starter
(launch()), so that when it exits, times out or is cancelled, every
process it started ends too — a background job, a setsid daemon — and the
output pipes reach end of file. The result says whether the command may
be retried: only "not-started" may.
"""

from __future__ import annotations

import asyncio
import math
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, List, Mapping, Optional, Sequence, Union

from ._aio import AsyncSession, launch_async
from ._reclaim import run_for_record
from ._records import Ended, Record, RecordError, Started
from ._session import DEFAULT_DRAIN, LaunchError, Session, _duration, _Feed, _invalid, _Pump, end_bound, launch

NOT_STARTED = "not-started"
STARTED = "started"
UNCLEAR = "unclear"

# Bounds what call() keeps of stdout and of stderr, each, in bytes: 100 MiB,
# about execa's default.
DEFAULT_MAX_BUFFER = 100 * 1024 * 1024

# The LaunchError codes and kinds after which provably nothing was
# executed: session-starter refused or exited before its ack (which comes
# before the go-ahead), or never started.
_NOTHING_RAN_CODES = frozenset(["invalid-option", "binary-missing", "spawn"])
_NOTHING_RAN_KINDS = frozenset(["usage", "containment", "cannot-execute", "not-found"])


class MaxBufferError(Exception):
    """The error of a call whose stdout or stderr went past max_buffer.

    That output holds its first ``max_buffer`` bytes, and the call was
    ended. ``stream`` is "stdout" or "stderr".
    """

    def __init__(self, stream: str, max_buffer: float) -> None:
        super().__init__(
            f"session-starter: call(): {stream} went past max_buffer ({max_buffer} bytes): "
            f"it holds the first {max_buffer} bytes, and the call was ended"
        )
        self.stream = stream
        self.max_buffer = max_buffer


@dataclass
class CallResult:
    """What call() came to.

    ``outcome`` is "not-started" (provably nothing was executed: the only
    outcome after which the call may be started again), "started", or
    "unclear" (session-starter ended without its ended record, or without
    an ack: whether the command ran cannot be known). ``returncode`` is the
    command's status as session-starter mirrored it (-N: died of signal
    N), None when there was no session; ``ended`` the ended record;
    ``error`` the LaunchError when there was no session, a MaxBufferError
    when the output went past max_buffer. ``output_held`` is True when an
    output pipe was still held open at the drain bound (by what a released
    call left running) and was closed: stdout and stderr hold what was read
    until then, and that process's later writes to them fail (EPIPE).
    ``session`` is the call's session id (its mark, from the started
    record), by which end_released() finds what a released call left.
    """

    outcome: str
    returncode: Optional[int]
    stdout: bytes
    stderr: bytes
    ended: Optional[Ended]
    error: Optional[Union[LaunchError, MaxBufferError]] = None
    output_held: bool = False
    session: Optional[str] = None
    # The binary the call ran, which end_released() runs too.
    _binary: Optional[str] = field(default=None, repr=False, compare=False)

    @property
    def timed_out(self) -> bool:
        """True when the session was ended by its timeout (status 124)."""
        return self.ended is not None and self.ended.reason == "timeout"

    def end_released(self, *, grace: float = 0, kill_budget: float = 0) -> List[int]:
        """Ends what this released call left running (the model's "stop my dev server"), and returns once it has ended.

        It runs ``session-starter --end-released`` with the call's session
        id, on the binary the call ran. That ends every process of this
        user that carries the id in SESSION_STARTER_SESSION — the processes
        the ended record lists as released, and what they started since —
        each checked again once a pidfd holds it, and signalled through
        that pidfd. With ``grace`` (seconds; 0: none) they get SIGTERM
        first and that long to exit; then SIGKILL, in rounds (which find
        what forked meanwhile) for up to ``kill_budget`` (0: 10 s).
        Returns the PIDs left alive past it: [] when all ended. A process
        that scrubbed its environment is not found: the enclosing session
        still ends it. Linux only (NotImplementedError elsewhere);
        ValueError for a call that was not released, or has no session id;
        LaunchError for a bad grace or kill_budget ("invalid-option"), or
        when session-starter wrote no record ("end-released").
        """
        if self.ended is None or self.ended.outcome != "released":
            raise ValueError("session-starter: end_released(): the call was not released: it left nothing running")
        if not self.session:
            raise ValueError("session-starter: end_released(): the call has no session id (its started record is missing)")
        if not sys.platform.startswith("linux"):
            raise NotImplementedError("session-starter: end_released(): Linux only (pidfds); the enclosing session ends what the call left")
        flags = ["--end-released", self.session]
        flags += _duration("grace", "--grace", grace)
        flags += _duration("kill_budget", "--kill-budget", kill_budget)
        binary = self._binary
        if binary is None:  # a result not made by call()
            from . import binary_path  # raises BinaryNotFoundError

            binary = binary_path()
        record = run_for_record(binary, flags, "ended-released", "end-released")
        return sorted(int(pid) for pid in record.get("left") or [])


class _Capture:
    """Keeps at most limit bytes of one output; past them it calls over once and drops the rest, so that the writer is never blocked."""

    def __init__(self, limit: float, over: Callable[[], None]) -> None:
        self.parts: List[bytes] = []
        self.size = 0
        self.limit = limit
        self.exceeded = False
        self._over = over
        self._lock = threading.Lock()

    def write(self, b: bytes) -> int:
        with self._lock:
            room = self.limit - self.size
            first = len(b) > room and not self.exceeded
            if len(b) > room:
                self.exceeded = True
                b = b[: int(room)]
            self.parts.append(bytes(b))
            self.size += len(b)
        if first:
            self._over()
        return len(b)

    def value(self) -> bytes:
        with self._lock:
            return b"".join(self.parts)


def _drain(drain: Any) -> float:
    if isinstance(drain, bool) or not isinstance(drain, (int, float)) or not (0 <= drain < math.inf):
        raise _invalid(f"drain={drain!r}: want a number of seconds, 0 or more")
    return float(drain) if drain > 0 else DEFAULT_DRAIN


def _max_buffer(max_buffer: Any) -> float:
    if max_buffer is None:
        return DEFAULT_MAX_BUFFER
    if max_buffer == math.inf and isinstance(max_buffer, float):
        return max_buffer
    if type(max_buffer) is not int or max_buffer <= 0:
        raise _invalid(f"max_buffer={max_buffer!r}: want a number of bytes, more than 0, or math.inf")
    return max_buffer


class _Call:
    """What call() and call_async() share: the checked options, the captures, and the result.

    An output past max_buffer ends the session; started() ends it if that
    came before the ack.
    """

    def __init__(self, drain: Any, max_buffer: Any, release_on_exit: bool, extra_flags: Sequence[str]) -> None:
        self.exceeded: List[MaxBufferError] = []
        self.session: Optional[Union[Session, AsyncSession]] = None
        self.drain = _drain(drain)
        self.limit = _max_buffer(max_buffer)
        self.err = _Capture(self.limit, self._over("stderr"))
        self.out = _Capture(self.limit, self._over("stdout"))
        self.extra_flags = ["--release-on-exit", *extra_flags] if release_on_exit else list(extra_flags)

    def _over(self, stream: str) -> Callable[[], None]:
        def end() -> None:
            if not self.exceeded:
                self.exceeded.append(MaxBufferError(stream, self.limit))
            if self.session is not None:
                self.session._end()

        return end

    def started(self, s: Union[Session, AsyncSession]) -> None:
        self.session = s
        if self.exceeded:
            s._end()  # stderr went past max_buffer before the ack

    @staticmethod
    def not_run(e: LaunchError, err: bytes) -> CallResult:
        nothing = e.code in _NOTHING_RAN_CODES or e.kind in _NOTHING_RAN_KINDS
        return CallResult(NOT_STARTED if nothing else UNCLEAR, e.returncode, b"", err, None, e)

    def result(self, code: int, ended: Optional[Ended], records: List[Record], held: bool, binary: str) -> CallResult:
        if ended is None:
            outcome = UNCLEAR
        elif ended.executed:
            outcome = STARTED
        else:
            outcome = NOT_STARTED
        error = self.exceeded[0] if self.exceeded else None
        sid = next((r.session for r in records if isinstance(r, Started)), None)
        return CallResult(outcome, code, self.out.value(), self.err.value(), ended, error, held, sid, _binary=binary)


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
    drain: float = 0,
    max_buffer: Optional[float] = None,
    extra_flags: Sequence[str] = (),
) -> CallResult:
    """Run argv as a session of its own and return its CallResult once session-starter has exited and the output is read.

    ``input`` is written to the command's stdin, which is then closed;
    stdout and stderr are captured, up to ``max_buffer`` bytes each
    (default DEFAULT_MAX_BUFFER, 100 MiB; math.inf: no bound): past it the
    call is ended, the rest is dropped and ``error`` is a MaxBufferError.
    ``timeout`` (seconds; 0: none) ends the whole tree after that long
    (returncode 124), with ``grace`` and ``stop_signal`` first. What the
    command left running is ended with it, so the output reaches end of
    file. ``release_on_exit`` keeps it instead when the command exits on
    its own (a dev server it started), for the enclosing session to end
    (--release-on-exit: it needs one, else the result is not-started with
    a usage error), or for end_released() to end earlier; it may hold the
    output pipes, so they are read for at most ``drain`` seconds after
    session-starter's exit (0: DEFAULT_DRAIN, 0.5 s), then closed
    (``output_held``). It never raises for the command's failure: a
    session that could not be made comes back as a result with ``error``
    set.
    """
    try:
        c = _Call(drain, max_buffer, release_on_exit, extra_flags)
    except LaunchError as e:
        return _Call.not_run(e, b"")
    try:
        s = launch(
            argv,
            binary=binary,
            env=env,
            cwd=cwd,
            stderr=c.err,
            grace=grace,
            stop_signal=stop_signal,
            timeout=timeout,
            kill_budget=kill_budget,
            containment=containment,
            status=True,
            extra_flags=c.extra_flags,
        )
    except LaunchError as e:
        return _Call.not_run(e, c.err.value())
    c.started(s)
    with s:
        feed = _Feed(s.stdin, input or b"")
        pump = _Pump(s.stdout, c.out.write)
        code = s.wait()
        # The call is over: what it left running (released) may hold the
        # pipes, so they are read for at most the drain bound, then closed.
        feed.finish()
        deadline = time.monotonic() + c.drain
        held = not pump.finish(deadline)
        held = not s._stderr.finish(deadline) or held
        try:
            ended = s.ended(timeout=end_bound(grace, kill_budget))
        except Exception:  # a bad record, or none in time: not known
            ended = None
    return c.result(code, ended, s.records, held, s._binary)


async def call_async(
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
    drain: float = 0,
    max_buffer: Optional[float] = None,
    extra_flags: Sequence[str] = (),
) -> CallResult:
    """call() for asyncio, on launch_async(): the same arguments, the same result.

    Cancelled, it ends the call and raises CancelledError: once the
    session has ended, or, before the ack, once session-starter was
    SIGKILLed and reaped (its guard ends what it started).
    """
    try:
        c = _Call(drain, max_buffer, release_on_exit, extra_flags)
    except LaunchError as e:
        return _Call.not_run(e, b"")
    try:
        s = await launch_async(
            argv,
            binary=binary,
            env=env,
            cwd=cwd,
            stderr=c.err,
            grace=grace,
            stop_signal=stop_signal,
            timeout=timeout,
            kill_budget=kill_budget,
            containment=containment,
            status=True,
            extra_flags=c.extra_flags,
        )
    except LaunchError as e:
        return _Call.not_run(e, c.err.value())
    c.started(s)
    loop = asyncio.get_running_loop()
    feed = loop.create_task(_feed(s.stdin, input or b""))
    pump = loop.create_task(_pump(s.stdout, c.out.write))
    try:
        # The status pipe's end is session-starter's exit: asyncio's
        # wait() would also wait for the output pipes, which what a
        # released call left may hold.
        await asyncio.shield(s._tasks[1])
        feed.cancel()
        # As in call(): the pipes are read for at most the drain bound.
        _, pending = await asyncio.wait([pump, s._tasks[0]], timeout=c.drain)
        held = bool(pending)
        s._close_pipes()
        code = await s.wait()
        try:
            ended = await s.ended()
        except RecordError:  # a bad record: not known
            ended = None
    finally:
        feed.cancel()
        pump.cancel()
        s._close_pipes()
        await s.close()
    return c.result(code, ended, s.records, held, s._binary)


async def _feed(w: asyncio.StreamWriter, data: bytes) -> None:
    try:
        if data:
            w.write(data)
            await w.drain()
    except (ConnectionError, OSError):
        pass  # the command stopped reading
    finally:
        w.close()


async def _pump(r: asyncio.StreamReader, take: Callable[[bytes], Any]) -> None:
    while True:
        b = await r.read(65536)
        if not b:
            return
        take(b)

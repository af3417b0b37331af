"""launch(): an Engine under session-starter, as the Go package starter/launch starts one.

The binary is spawned directly, with no Python process between the launcher
and session-starter, with "--ack --parent-pid <this process's PID>" (which
implies --watch-parent), a control pipe and a status pipe, and the flags of
the typed keyword arguments; the ack line is read within a bound.

Guarantees. An exception from launch() is a LaunchError and means there is
no session: session-starter exited before its ack (nothing was executed:
the exit status says why, 2 usage, 125 containment, 126 and 127 PROGRAM),
or it was SIGKILLed because its first line was not an ack or none came
within the ack timeout (its guard then ends anything it had started), or it
never started (BinaryNotFoundError, a LaunchError too); in every case it has
been reaped. Session.stop() ends the session and returns session-starter's
status, which mirrors the Engine's, within the stop timeout; past it
session-starter is SIGKILLed (its guard ends the Engine's group) and
Session.killed says so.
"""

from __future__ import annotations

import math
import os
import select
import signal as _signal
import subprocess
import sys
import threading
import time
from typing import IO, Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ._records import MAX_ACK_LINE, Ended, Record, RecordError, Started, parse_ack, parse_record

# session-starter's --kill-budget default (launch.DefaultKillBudget), seconds.
DEFAULT_KILL_BUDGET = 10.0

# What the end of a session may take past its deadline, the grace plus the
# kill budget (launch.EndSlack), seconds.
END_SLACK = 0.25

# How long past the end's bound stop() waits before it SIGKILLs
# session-starter, as launch.DefaultWaitDelay adds it: a session-starter
# still ending a large group is not interrupted.
STOP_SLACK = 5.0

# How long output is still read after session-starter has exited, seconds:
# call()'s default drain and Session.close()'s (contain.DefaultDrain). Past
# it a pipe still held open (by what a released call left running) is
# closed.
DEFAULT_DRAIN = 0.5

# Bounds the wait for the ack line (launch.DefaultAckTimeout), seconds.
# session-starter acknowledges within milliseconds; its gate and its guard
# each give up after 30 s (a stuck fork, a machine out of memory), so one
# that has said nothing after both is not going to. At the limit it is
# SIGKILLed and launch() raises LaunchError with code "ack-timeout".
DEFAULT_ACK_TIMEOUT = 60.0

# Bounds every duration session-starter reads: 100 years (launch.MaxDuration).
MAX_DURATION = 100 * 365 * 24 * 3600.0

# How much of session-starter's stderr a session keeps for error reports:
# its own reports are one line each, and the Engine's last words before an
# early exit fit too.
STDERR_TAIL = 4096

# The variable by which a launcher asks a Go Engine to contain itself
# (launch.RequestEnv); removed from the Engine's environment, or a Go
# Engine would write a second ack.
REQUEST_ENV = "SESSION_STARTER_CONTAIN"

# The exit statuses by which session-starter says why there is no session,
# before its ack.
_WHY_NO_ACK = {
    2: ("usage", "a usage error (a bad flag, duration or descriptor): nothing was started"),
    125: ("containment", "containment could not be established, or the launcher was gone: nothing was executed"),
    126: ("cannot-execute", "PROGRAM was found but cannot be executed"),
    127: ("not-found", "PROGRAM was not found"),
}

# The flags launch() sets itself or from a keyword argument: not accepted
# among extra_flags, so that each is said once and the stop timeout is
# derived from what session-starter gets.
_OWN_FLAGS = frozenset(
    [
        "--ack",
        "--parent-pid",
        "--watch-parent",
        "--control-fd",
        "--status-fd",
        "--grace",
        "-k",
        "--stop-signal",
        "-s",
        "--timeout",
        "--kill-budget",
        "--containment",
        "--watch-stdin",
        "--stdin-grace",
        "--",
    ]
)

_WINDOWS = os.name == "nt"


class LaunchError(Exception):
    """The error of launch(): there is no session, and nothing it started is left running.

    ``code`` says what happened: "invalid-option", "binary-missing",
    "spawn", "no-ack", "malformed-ack", "ack-timeout"; of reclaim(),
    "reclaim", and of CallResult.end_released(), "end-released", when
    session-starter wrote no record. ``returncode`` is how
    session-starter ended, as Popen.returncode has it (None if it never
    started), ``kind`` why it exited before its ack ("usage",
    "containment", "cannot-execute", "not-found"), ``line`` what was read
    in the ack's place, ``stderr`` the last 4 KiB of its stderr.
    """

    def __init__(
        self,
        message: str,
        code: str,
        *,
        returncode: Optional[int] = None,
        kind: Optional[str] = None,
        line: str = "",
        stderr: str = "",
    ) -> None:
        super().__init__(message)
        self.code = code
        self.returncode = returncode
        self.kind = kind
        self.line = line
        self.stderr = stderr


def _invalid(message: str) -> LaunchError:
    return LaunchError(f"session-starter: {message}", "invalid-option")


def end_bound(grace: float = 0, kill_budget: float = 0) -> float:
    """The longest a session's end takes, in seconds: grace + kill budget (0: 10 s) + 0.25 s (launch.Ending.EndBound)."""
    return max(grace, 0) + (kill_budget if kill_budget > 0 else DEFAULT_KILL_BUDGET) + END_SLACK


def _duration_arg(seconds: float) -> str:
    """session-starter's spelling of a duration: whole seconds as they are, else whole nanoseconds (at least 1)."""
    if float(seconds).is_integer():
        return f"{int(seconds)}s"
    return f"{max(1, round(seconds * 1e9))}ns"


def _duration(name: str, flag: str, seconds: Any) -> List[str]:
    if seconds is None or (not isinstance(seconds, bool) and isinstance(seconds, (int, float)) and seconds == 0):
        return []
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or math.isnan(seconds) or seconds < 0:
        raise _invalid(f"{name}={seconds!r}: want a number of seconds, 0 or more")
    if seconds > MAX_DURATION:
        raise _invalid(f"{name}={seconds!r}: out of range (at most 100 years)")
    return [flag, _duration_arg(seconds)]


def _positive(name: str, value: Any, default: float) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 or math.isinf(value):
        raise _invalid(f"{name}={value!r}: want a number of seconds, more than 0")
    return float(value)


def _flags(
    grace: float,
    timeout: float,
    kill_budget: float,
    stop_signal: Union[str, int, None],
    containment: Optional[str],
    extra_flags: Sequence[str],
) -> List[str]:
    flags = _duration("grace", "--grace", grace)
    flags += _duration("timeout", "--timeout", timeout)
    flags += _duration("kill_budget", "--kill-budget", kill_budget)
    if stop_signal is not None:
        if isinstance(stop_signal, _signal.Signals):
            stop_signal = int(stop_signal)
        if not (isinstance(stop_signal, str) and stop_signal) and not (
            type(stop_signal) is int and stop_signal > 0
        ):
            raise _invalid(f"stop_signal={stop_signal!r}: want a signal name (TERM, SIGINT) or number")
        flags += ["--stop-signal", str(stop_signal)]
    if containment is not None:
        if not isinstance(containment, str) or not containment:
            raise _invalid(f"containment={containment!r}: want auto, group or cgroup")
        flags += ["--containment", containment]
    if isinstance(extra_flags, (str, bytes)) or not all(isinstance(f, str) for f in extra_flags):
        raise _invalid("extra_flags: want a sequence of strings")
    for f in extra_flags:
        name = f.split("=", 1)[0]
        if name in _OWN_FLAGS:
            raise _invalid(f"extra_flags: {name} is set by launch() or by one of its arguments")
    return flags + list(extra_flags)


def _describe_exit(returncode: int) -> str:
    if returncode < 0:
        try:
            name = _signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"session-starter was killed by {name}"
    why = _WHY_NO_ACK.get(returncode)
    return f"session-starter exited {returncode}" + (f" ({why[1]})" if why else "")


class _Tail:
    """Keeps the last STDERR_TAIL bytes written to it."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._lock = threading.Lock()

    def write(self, b: bytes) -> None:
        with self._lock:
            self._buf += b
            if len(self._buf) > 2 * STDERR_TAIL:
                del self._buf[:-STDERR_TAIL]

    def text(self) -> str:
        with self._lock:
            return bytes(self._buf[-STDERR_TAIL:]).decode("utf-8", "replace")


class _Cut:
    """Stops a thread that waits on a pipe before the pipe's end.

    On POSIX the thread polls a wake-up pipe beside its own, and cut()
    writes to it. On Windows pipes cannot be polled: cut() only stops the
    thread at its next chunk, never in a blocked read or write.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cut = False
        self._r = self._w = -1
        if not _WINDOWS:
            self._r, self._w = os.pipe()

    def wait(self, fd: int, event: int) -> bool:
        """Waits until fd is ready for event (POLLIN, POLLOUT) or at its end; False once cut."""
        if self._cut:
            return False
        if _WINDOWS:
            return True
        p = select.poll()
        p.register(fd, event)
        p.register(self._r, select.POLLIN)
        while True:
            ready = {f for f, _ in p.poll()}
            if self._r in ready:
                return False
            if ready:
                return True

    def __call__(self) -> None:
        with self._lock:
            if not self._cut:
                self._cut = True
                if self._w >= 0:
                    os.write(self._w, b"x")

    def close(self) -> None:
        """Called by the waiting thread at its end."""
        with self._lock:
            self._cut = True
            for fd in (self._r, self._w):
                if fd >= 0:
                    os.close(fd)
            self._r = self._w = -1


_POLLIN = getattr(select, "POLLIN", 1)
_POLLOUT = getattr(select, "POLLOUT", 4)


class _Pump:
    """Reads a pipe in a thread of its own, handing each chunk to take, until its end of file or finish()'s bound; then closes it."""

    def __init__(self, f: IO[bytes], take: Callable[[bytes], None]) -> None:
        self._f = f
        self._take = take
        self._cut = _Cut()
        self.eof = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            fd = self._f.fileno()
            while self._cut.wait(fd, _POLLIN):
                b = os.read(fd, 65536)
                if not b:
                    self.eof = True
                    break
                self._take(b)
        except (OSError, ValueError):
            pass  # closed under it
        finally:
            self._cut.close()
            try:
                self._f.close()
            except OSError:
                pass

    def finish(self, deadline: float) -> bool:
        """Waits for the end of file until deadline (time.monotonic()), then stops the reading and closes the pipe; True if the end of file came."""
        self._thread.join(max(0.0, deadline - time.monotonic()))
        if self._thread.is_alive():
            self._cut()
            self._thread.join(0 if _WINDOWS else 1)
        return self.eof


class _Feed:
    """Writes data to a pipe in a thread of its own, then closes it; finish() stops it first."""

    def __init__(self, f: IO[bytes], data: bytes) -> None:
        self._f = f
        self._data = data
        self._cut = _Cut()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            fd = self._f.fileno()
            view = memoryview(self._data)
            if not _WINDOWS:
                os.set_blocking(fd, False)
            while view and self._cut.wait(fd, _POLLOUT):
                try:
                    view = view[os.write(fd, view) :]
                except BlockingIOError:
                    continue
        except (OSError, ValueError):
            pass  # the command stopped reading
        finally:
            self._cut.close()
            try:
                self._f.close()
            except OSError:
                pass

    def finish(self) -> None:
        """Stops the writing (the command is over) and closes the pipe."""
        self._cut()
        self._thread.join(0 if _WINDOWS else 1)


def _stderr_writer(stderr: Any) -> Optional[Callable[[bytes], None]]:
    """Where the stderr copier writes: None to discard."""
    if stderr is None:

        def forward(b: bytes) -> None:
            out = getattr(sys.stderr, "buffer", None)
            if out is not None:
                out.write(b)
                out.flush()
            elif sys.stderr is not None:
                sys.stderr.write(b.decode("utf-8", "replace"))
                sys.stderr.flush()

        return forward
    if stderr is subprocess.DEVNULL:
        return None
    if callable(getattr(stderr, "write", None)):
        return stderr.write
    raise _invalid("stderr: want None (this process's stderr), subprocess.DEVNULL or a binary file")


class _Prepared:
    """What launch() and launch_async() share: the checked arguments and the command line."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        binary: Optional[str],
        env: Optional[Mapping[str, str]],
        cwd: Optional[str],
        stderr: Any,
        grace: float,
        stop_signal: Union[str, int, None],
        timeout: float,
        kill_budget: float,
        containment: Optional[str],
        watch_stdin: bool,
        stdin_grace: float,
        control: Optional[bool],
        status: Optional[bool],
        extra_flags: Sequence[str],
        ack_timeout: Optional[float],
        stop_timeout: Optional[float],
    ) -> None:
        if isinstance(argv, (str, bytes)) or not argv or not all(isinstance(a, str) for a in argv):
            raise _invalid("argv: want the Engine's command line, a non-empty sequence of strings")
        flags = _flags(grace, timeout, kill_budget, stop_signal, containment, extra_flags)
        if not isinstance(watch_stdin, bool):
            raise _invalid(f"watch_stdin={watch_stdin!r}: want True or False")
        if watch_stdin:
            flags = ["--watch-stdin"] + flags
        grace_flags = _duration("stdin_grace", "--stdin-grace", stdin_grace)
        if grace_flags and not watch_stdin:
            raise _invalid("stdin_grace needs watch_stdin, as --stdin-grace needs --watch-stdin")
        flags = grace_flags + flags
        self.ack_timeout = _positive("ack_timeout", ack_timeout, DEFAULT_ACK_TIMEOUT)
        self.stop_timeout = _positive(
            "stop_timeout",
            stop_timeout,
            end_bound(grace or 0, kill_budget or 0) + STOP_SLACK,
        )
        # On Windows --control-fd and --status-fd take handle values,
        # which this module does not pass: there stop() terminates
        # session-starter, whose kill-on-close job ends the Engine's tree.
        self.want_control = (not _WINDOWS) if control is None else bool(control)
        self.want_status = (not _WINDOWS) if status is None else bool(status)
        if _WINDOWS and (self.want_control or self.want_status):
            raise _invalid("control and status pipes: not supported on Windows by this module")
        self.write_stderr = _stderr_writer(stderr)
        if cwd is not None and not os.path.isdir(cwd):
            raise _invalid(f"cwd={cwd!r}: no such directory")
        if binary is None:
            from . import binary_path  # raises BinaryNotFoundError

            binary = binary_path()
        elif not isinstance(binary, str) or not binary:
            raise _invalid("binary: want the path of session-starter")
        self.binary = binary
        self.cwd = cwd
        base = os.environ if env is None else env
        self.env: Dict[str, str] = {k: v for k, v in base.items() if k != REQUEST_ENV}
        self.flags = flags
        self.argv = list(argv)

    def open_pipes(self) -> None:
        """The control and status pipes: the read end of one and the write end of the other are passed at their own numbers."""
        self.ctl_r = self.ctl_w = self.stat_r = self.stat_w = -1
        if self.want_control:
            self.ctl_r, self.ctl_w = os.pipe()
            self.ctl_r = _above_stdio(self.ctl_r)
        if self.want_status:
            self.stat_r, self.stat_w = os.pipe()
            self.stat_w = _above_stdio(self.stat_w)

    def args(self) -> List[str]:
        args = [self.binary, "--ack", "--parent-pid", str(os.getpid())]
        if self.ctl_r >= 0:
            args += ["--control-fd", str(self.ctl_r)]
        if self.stat_w >= 0:
            args += ["--status-fd", str(self.stat_w)]
        return args + self.flags + ["--"] + self.argv

    def pass_fds(self) -> Tuple[int, ...]:
        return tuple(fd for fd in (self.ctl_r, self.stat_w) if fd >= 0)

    def close_passed(self) -> None:
        """Closes the ends the child holds now; ours would keep the ends of input from coming."""
        for fd in (self.ctl_r, self.stat_w):
            if fd >= 0:
                os.close(fd)

    def close_all(self) -> None:
        for fd in (self.ctl_r, self.ctl_w, self.stat_r, self.stat_w):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass

    def spawn_error(self, err: OSError) -> LaunchError:
        from . import BinaryNotFoundError

        if isinstance(err, FileNotFoundError) and not os.path.exists(self.binary):
            return BinaryNotFoundError(f"session-starter: {self.binary}: no such file")
        return LaunchError(f"session-starter: {self.binary}: {err}", "spawn")

    def no_session(self, code: str, why: str, line: str, returncode: int, stderr: str) -> LaunchError:
        what = {"no-ack": "no ack line", "malformed-ack": f"first line is not an ack: {why}"}.get(code, why)
        read = f" (read {line[:120]!r})" if line and code != "malformed-ack" else ""
        said = f"; stderr: {stderr.strip()}" if stderr.strip() else ""
        kind = _WHY_NO_ACK.get(returncode, (None,))[0] if code == "no-ack" else None
        return LaunchError(
            f"session-starter: {what}{read}; {_describe_exit(returncode)}{said}",
            code,
            returncode=returncode,
            kind=kind,
            line=line,
            stderr=stderr,
        )


def _above_stdio(fd: int) -> int:
    """fd, or a copy of it above 2 if it is one of the standard numbers (a launcher started with one closed).

    --control-fd and --status-fd must be greater than 2, and pass_fds
    passes a descriptor at its own number.
    """
    if fd > 2:
        return fd
    import fcntl

    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    os.close(fd)
    return high


class _Records:
    """The status records of a session, as they arrive, and the waits for started and ended."""

    def __init__(self) -> None:
        self.records: List[Record] = []
        self.started: Optional[Started] = None
        self.ended: Optional[Ended] = None
        self.error: Optional[RecordError] = None
        self._started = threading.Event()
        self._ended = threading.Event()

    def take(self, line: bytes) -> bool:
        """Takes one line; False once a bad record stopped the reading."""
        if not line.strip():
            return True
        try:
            rec = parse_record(line)
        except RecordError as err:
            self.error = err
            self.close()
            return False
        self.records.append(rec)
        if isinstance(rec, Started):
            self.started = rec
            self._started.set()
        elif isinstance(rec, Ended):
            self.ended = rec
            self._ended.set()
        return True

    def close(self) -> None:
        self._started.set()
        self._ended.set()

    def wait_started(self, timeout: Optional[float]) -> Optional[Started]:
        if not self._started.wait(timeout):
            raise subprocess.TimeoutExpired("session-starter started record", timeout or 0)
        if self.started is None and self.error is not None:
            raise self.error
        return self.started

    def wait_ended(self, timeout: Optional[float]) -> Optional[Ended]:
        if not self._ended.wait(timeout):
            raise subprocess.TimeoutExpired("session-starter ended record", timeout or 0)
        if self.ended is None and self.error is not None:
            raise self.error
        return self.ended


class Session:
    """An Engine running under session-starter, with containment acknowledged.

    ``pid`` is the Engine's PID (also its process group) and ``mode`` the
    containment mode, from the ack line; ``stdin`` and ``stdout`` are the
    Engine's (binary files; stdout begins with the first byte after the
    ack line); ``process`` is the session-starter Popen. As a context
    manager, its exit stops the session if it still runs, waits for it and
    closes the pipes.
    """

    def __init__(self, proc: subprocess.Popen, pid: int, mode: str, prep: _Prepared, tail: _Tail, stderr: _Pump, threads: List[threading.Thread], records: _Records) -> None:
        self.process = proc
        self.starter_pid = proc.pid
        self.pid = pid
        self.mode = mode
        self.stdin: IO[bytes] = proc.stdin  # type: ignore[assignment]
        self.stdout: IO[bytes] = proc.stdout  # type: ignore[assignment]
        self._binary = prep.binary  # for CallResult.end_released()
        self._control = prep.ctl_w
        self._stop_timeout = prep.stop_timeout
        self._tail = tail
        self._stderr = stderr
        self._threads = threads
        self._records = records
        self._lock = threading.Lock()
        self.killed = False
        """True when stop() had to SIGKILL session-starter: the status is then its own, not the Engine's."""

    @property
    def records(self) -> List[Record]:
        """The status records read so far."""
        return list(self._records.records)

    @property
    def returncode(self) -> Optional[int]:
        """session-starter's status once it has exited, as Popen has it (-N: died of signal N)."""
        return self.process.returncode

    def started(self, timeout: Optional[float] = None) -> Optional[Started]:
        """The started record; None if the records end without one (or there is no status pipe)."""
        return self._records.wait_started(timeout)

    def ended(self, timeout: Optional[float] = None) -> Optional[Ended]:
        """The ended record; None if the records end without one (session-starter was SIGKILLed, or there is no status pipe).

        Raises RecordError for a bad record, subprocess.TimeoutExpired after timeout.
        """
        return self._records.wait_ended(timeout)

    def poll(self) -> Optional[int]:
        return self.process.poll()

    def wait(self, timeout: Optional[float] = None) -> int:
        """Waits for session-starter to exit and returns its status, which mirrors the Engine's (Popen.wait)."""
        code = self.process.wait(timeout)
        self._close_control()
        return code

    def _close_control(self) -> None:
        with self._lock:
            if self._control >= 0:
                os.close(self._control)
                self._control = -1

    def _end(self) -> None:
        """Begins the end without waiting: closes the control pipe, else sends SIGTERM (terminates on Windows)."""
        with self._lock:
            had_control = self._control >= 0
        if had_control:
            self._close_control()
        elif _WINDOWS:
            self.process.terminate()
        else:
            self.process.send_signal(_signal.SIGTERM)

    def stop(self) -> int:
        """Ends the session and returns session-starter's status.

        Closes the control pipe (without one, sends SIGTERM), which ends the
        Engine's group, and waits; if session-starter has not exited within
        the stop timeout it is SIGKILLed, and ``killed`` is True. The ack
        comes before the Engine runs: a stop before started() returns ends
        the session with nothing executed (status 125).
        """
        if self.process.poll() is None:
            self._end()
            try:
                self.process.wait(self._stop_timeout)
            except subprocess.TimeoutExpired:
                self.killed = True
                self.process.kill()
        return self.wait()

    def stderr_tail(self) -> str:
        """The last 4 KiB of session-starter's stderr (which is also the Engine's) so far."""
        return self._tail.text()

    def close(self) -> None:
        """Stops the session if it still runs, waits for it, and closes the pipes.

        Its stderr is still read for DEFAULT_DRAIN after session-starter
        has exited; past it the pipe is closed, even if something the
        session released holds it.
        """
        try:
            self.stop()
        finally:
            for f in (self.stdin, self.stdout):
                try:
                    f.close()
                except OSError:
                    pass
            self._stderr.finish(time.monotonic() + DEFAULT_DRAIN)
            for t in self._threads:
                t.join(1)

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _read_ack_line(fd: int, timeout: float) -> Tuple[str, Optional[str]]:
    """Reads the first line of fd, one byte at a time so that not a byte after the newline is taken from the Engine.

    Returns the line without its newline and None, or what was read and the
    code of what went wrong: "no-ack" (end of file), "malformed-ack" (too
    long), "ack-timeout".
    """
    line = bytearray()
    deadline = time.monotonic() + timeout
    if _WINDOWS:
        return _read_ack_line_thread(fd, deadline)
    while len(line) <= MAX_ACK_LINE:
        left = deadline - time.monotonic()
        if left <= 0:
            return line.decode("utf-8", "replace"), "ack-timeout"
        try:
            ready, _, _ = select.select([fd], [], [], left)
        except InterruptedError:
            continue
        if not ready:
            continue
        b = os.read(fd, 1)
        if not b:
            return line.decode("utf-8", "replace"), "no-ack"
        if b == b"\n":
            return line.decode("utf-8", "replace"), None
        line += b
    return line.decode("utf-8", "replace"), "malformed-ack"


def _read_ack_line_thread(fd: int, deadline: float) -> Tuple[str, Optional[str]]:
    """_read_ack_line where pipes cannot be selected (Windows): the reads in a thread, the wait bounded."""
    result: List[Tuple[str, Optional[str]]] = []
    line = bytearray()

    def read() -> None:
        while len(line) <= MAX_ACK_LINE:
            b = os.read(fd, 1)
            if not b:
                result.append((line.decode("utf-8", "replace"), "no-ack"))
                return
            if b == b"\n":
                result.append((line.decode("utf-8", "replace"), None))
                return
            line += b
        result.append((line.decode("utf-8", "replace"), "malformed-ack"))

    t = threading.Thread(target=read, daemon=True)
    t.start()
    t.join(max(0.0, deadline - time.monotonic()))
    if not result:
        return bytes(line).decode("utf-8", "replace"), "ack-timeout"
    return result[0]


def _read_status(fd: int, records: _Records) -> None:
    with os.fdopen(fd, "rb") as f:
        for line in f:
            if not records.take(line):
                break
    records.close()


def launch(
    argv: Sequence[str],
    *,
    binary: Optional[str] = None,
    env: Optional[Mapping[str, str]] = None,
    cwd: Optional[str] = None,
    stderr: Any = None,
    grace: float = 0,
    stop_signal: Union[str, int, None] = None,
    timeout: float = 0,
    kill_budget: float = 0,
    containment: Optional[str] = None,
    watch_stdin: bool = False,
    stdin_grace: float = 0,
    control: Optional[bool] = None,
    status: Optional[bool] = None,
    extra_flags: Sequence[str] = (),
    ack_timeout: Optional[float] = None,
    stop_timeout: Optional[float] = None,
) -> Session:
    """Start argv under session-starter and return the Session once containment is acknowledged.

    Durations are in seconds; 0 leaves a flag out, so that session-starter's
    default applies. ``grace``, ``stop_signal`` (a name or a number),
    ``timeout``, ``kill_budget``, ``containment``, ``watch_stdin`` (end the
    session when this process's end of the Engine's stdin closes) and
    ``stdin_grace`` (the Engine's own time then) are its flags;
    ``extra_flags`` more flags without an argument here (one this function
    sets itself or has an argument for is refused). ``control`` and
    ``status`` (default True; False on Windows, where they are not
    supported) give session-starter a control pipe, which stop() closes and
    this process's death closes too, and a status pipe, whose records the
    session reads. ``stderr``: None copies session-starter's stderr (which
    is also the Engine's) to this process's, subprocess.DEVNULL discards
    it, a binary file gets it; its last 4 KiB are kept either way.
    ``ack_timeout`` bounds the wait for the ack (default 60 s);
    ``stop_timeout`` how long stop() waits before SIGKILL (default
    end_bound(grace, kill_budget) + 5 s). ``binary`` defaults to
    binary_path(); ``env`` to os.environ, without SESSION_STARTER_CONTAIN.

    Raises LaunchError when there is no session (see the module's doc),
    BinaryNotFoundError (a LaunchError) when there is no binary.
    """
    prep = _Prepared(
        argv,
        binary=binary,
        env=env,
        cwd=cwd,
        stderr=stderr,
        grace=grace,
        stop_signal=stop_signal,
        timeout=timeout,
        kill_budget=kill_budget,
        containment=containment,
        watch_stdin=watch_stdin,
        stdin_grace=stdin_grace,
        control=control,
        status=status,
        extra_flags=extra_flags,
        ack_timeout=ack_timeout,
        stop_timeout=stop_timeout,
    )
    prep.open_pipes()
    try:
        proc = subprocess.Popen(
            prep.args(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=prep.pass_fds(),
            env=prep.env,
            cwd=prep.cwd,
        )
    except OSError as err:
        prep.close_all()
        raise prep.spawn_error(err) from None
    prep.close_passed()
    tail = _Tail()
    write = prep.write_stderr

    def copy_stderr(b: bytes) -> None:
        nonlocal write
        tail.write(b)
        if write is not None:
            try:
                write(b)
            except (OSError, ValueError):
                write = None  # the destination is gone: keep the tail only

    assert proc.stderr is not None
    stderr = _Pump(proc.stderr, copy_stderr)
    threads: List[threading.Thread] = []
    records = _Records()
    if prep.stat_r >= 0:
        threads.append(threading.Thread(target=_read_status, args=(prep.stat_r, records), daemon=True))
    else:
        records.close()
    for t in threads:
        t.start()

    assert proc.stdout is not None
    line, code = _read_ack_line(proc.stdout.fileno(), prep.ack_timeout)
    why = ""
    if code is None:
        try:
            pid, mode = parse_ack(line)
        except RecordError as err:
            code, why = "malformed-ack", str(err)
    elif code == "ack-timeout":
        why = f"no ack line within {prep.ack_timeout:g} s"
    elif code == "malformed-ack":
        why = f"first line longer than {MAX_ACK_LINE} bytes"
    if code is not None:
        raise _abandon(proc, prep, stderr, threads, tail, code, why, line)
    return Session(proc, pid, mode, prep, tail, stderr, threads, records)


def _abandon(proc: subprocess.Popen, prep: _Prepared, stderr: _Pump, threads: List[threading.Thread], tail: _Tail, code: str, why: str, line: str) -> LaunchError:
    """Ends a session-starter that did not acknowledge, and returns the error.

    One that ended its stdout is left to exit by itself within the ack
    timeout, so that its own status is reported; any other is SIGKILLed at
    once (its guard ends whatever it started).
    """
    if prep.ctl_w >= 0:
        os.close(prep.ctl_w)
        prep.ctl_w = -1
    for f in (proc.stdin,):
        try:
            f.close()  # type: ignore[union-attr]
        except OSError:
            pass
    if code != "no-ack":
        proc.kill()
    try:
        proc.wait(prep.ack_timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    proc.stdout.close()  # type: ignore[union-attr]
    stderr.finish(time.monotonic() + 1)
    for t in threads:
        t.join(1)
    return prep.no_session(code, why, line, proc.returncode, tail.text())

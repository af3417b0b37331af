"""launch_async(): launch() for asyncio.

The same command line, checks, guarantees and errors as launch(); the
session's stdin and stdout are asyncio streams (the bytes after the ack
line stay in stdout's buffer), and its waits are coroutines.
"""

from __future__ import annotations

import asyncio
import os
import signal as _signal
import subprocess
from typing import Any, List, Mapping, Optional, Sequence, Union

from ._records import MAX_ACK_LINE, Ended, Record, RecordError, Started, parse_ack, parse_record
from ._session import _WINDOWS, LaunchError, _Prepared, _Tail


class AsyncSession:
    """An Engine running under session-starter, for asyncio; see Session.

    ``stdin`` is an asyncio.StreamWriter and ``stdout`` an
    asyncio.StreamReader. As an async context manager, its exit stops the
    session if it still runs and waits for it.
    """

    def __init__(self, proc: asyncio.subprocess.Process, pid: int, mode: str, prep: _Prepared, tail: _Tail, tasks: List["asyncio.Task[None]"], records: "_AsyncRecords") -> None:
        self.process = proc
        self.starter_pid = proc.pid
        self.pid = pid
        self.mode = mode
        self.stdin: asyncio.StreamWriter = proc.stdin  # type: ignore[assignment]
        self.stdout: asyncio.StreamReader = proc.stdout  # type: ignore[assignment]
        self._binary = prep.binary  # for CallResult.end_released()
        self._control = prep.ctl_w
        self._stop_timeout = prep.stop_timeout
        self._tail = tail
        self._tasks = tasks
        self._records = records
        self.killed = False
        """True when stop() had to SIGKILL session-starter: the status is then its own, not the Engine's."""

    @property
    def records(self) -> List[Record]:
        return list(self._records.records)

    @property
    def returncode(self) -> Optional[int]:
        return self.process.returncode

    async def started(self) -> Optional[Started]:
        """The started record; None if the records end without one (or there is no status pipe)."""
        return await self._records.wait(self._records.started)

    async def ended(self) -> Optional[Ended]:
        """The ended record; None if the records end without one. Raises RecordError for a bad record."""
        return await self._records.wait(self._records.ended)

    def _close_control(self) -> None:
        if self._control >= 0:
            os.close(self._control)
            self._control = -1

    async def wait(self) -> int:
        """Waits for session-starter to exit and returns its status, which mirrors the Engine's."""
        code = await self.process.wait()
        self._close_control()
        return code

    def _end(self) -> None:
        """Begins the end without waiting, as Session._end()."""
        if self._control >= 0:
            self._close_control()
        elif _WINDOWS:
            self.process.terminate()
        else:
            try:
                self.process.send_signal(_signal.SIGTERM)
            except ProcessLookupError:
                pass

    def _close_pipes(self) -> None:
        """Closes session-starter's stdout and stderr here, even where something the session released holds them."""
        transport = getattr(self.process, "_transport", None)
        for fd in (1, 2):
            pipe = transport.get_pipe_transport(fd) if transport is not None else None
            if pipe is not None:
                pipe.close()

    async def stop(self) -> int:
        """Ends the session, as Session.stop() does, and returns session-starter's status."""
        if self.process.returncode is None:
            self._end()
            try:
                await asyncio.wait_for(self.process.wait(), self._stop_timeout)
            except asyncio.TimeoutError:
                self.killed = True
                try:
                    self.process.kill()
                except ProcessLookupError:
                    pass
        return await self.wait()

    def stderr_tail(self) -> str:
        return self._tail.text()

    async def close(self) -> None:
        """Stops the session if it still runs, waits for it and for its readers, and closes stdin."""
        try:
            await self.stop()
        finally:
            self.stdin.close()
            # Only a process that escaped the session can hold stderr
            # open past session-starter's exit: not waited for long.
            await asyncio.wait(self._tasks, timeout=1)

    async def __aenter__(self) -> "AsyncSession":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()


class _AsyncRecords:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.records: List[Record] = []
        self.started: "asyncio.Future[Optional[Started]]" = loop.create_future()
        self.ended: "asyncio.Future[Optional[Ended]]" = loop.create_future()

    def take(self, line: bytes) -> bool:
        if not line.strip():
            return True
        try:
            rec = parse_record(line)
        except RecordError as err:
            for f in (self.started, self.ended):
                if not f.done():
                    f.set_exception(err)
            return False
        self.records.append(rec)
        if isinstance(rec, Started) and not self.started.done():
            self.started.set_result(rec)
        elif isinstance(rec, Ended) and not self.ended.done():
            self.ended.set_result(rec)
        return True

    def close(self) -> None:
        for f in (self.started, self.ended):
            if not f.done():
                f.set_result(None)

    async def wait(self, f: "asyncio.Future[Any]") -> Any:
        return await asyncio.shield(f)


async def _copy_stderr(r: asyncio.StreamReader, tail: _Tail, write: Any) -> None:
    while True:
        b = await r.read(65536)
        if not b:
            return
        tail.write(b)
        if write is not None:
            try:
                write(b)
            except (OSError, ValueError):
                write = None


async def _read_status(fd: int, records: _AsyncRecords) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 20)
    transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd, "rb", 0))
    try:
        while True:
            line = await reader.readline()
            if not line or not records.take(line):
                break
    finally:
        transport.close()
        records.close()


async def launch_async(
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
) -> AsyncSession:
    """launch() for asyncio: the same arguments, the same errors; returns an AsyncSession."""
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
    args = prep.args()
    try:
        proc = await asyncio.create_subprocess_exec(
            args[0],
            *args[1:],
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
    except BaseException:  # cancelled: asyncio has killed what it spawned
        prep.close_all()
        raise
    prep.close_passed()
    loop = asyncio.get_running_loop()
    tail = _Tail()
    records = _AsyncRecords(loop)
    assert proc.stderr is not None and proc.stdout is not None
    tasks = [loop.create_task(_copy_stderr(proc.stderr, tail, prep.write_stderr))]
    if prep.stat_r >= 0:
        tasks.append(loop.create_task(_read_status(prep.stat_r, records)))
        prep.stat_r = -1  # the reader owns it
    else:
        records.close()

    code: Optional[str] = None
    why = ""
    line = ""
    # Not wait_for: before Python 3.12 it can return a result and drop a
    # cancellation that came with it, and the session would be nobody's.
    read = loop.create_task(proc.stdout.readuntil(b"\n"))
    try:
        done, _ = await asyncio.wait([read], timeout=prep.ack_timeout)
    except asyncio.CancelledError:
        read.cancel()
        await _abandon(proc, prep, tasks, tail, "cancelled", "cancelled", line)
        raise
    try:
        if not done:
            read.cancel()
            raise asyncio.TimeoutError
        raw = read.result()
        line = raw[:-1].decode("utf-8", "replace")
        if len(raw) > MAX_ACK_LINE + 1:
            code, why = "malformed-ack", f"first line longer than {MAX_ACK_LINE} bytes"
        else:
            try:
                pid, mode = parse_ack(line)
            except RecordError as err:
                code, why = "malformed-ack", str(err)
    except asyncio.IncompleteReadError as err:
        code, line = "no-ack", err.partial.decode("utf-8", "replace")
    except asyncio.LimitOverrunError:
        code, why = "malformed-ack", f"first line longer than {MAX_ACK_LINE} bytes"
    except asyncio.TimeoutError:
        code, why = "ack-timeout", f"no ack line within {prep.ack_timeout:g} s"
    if code is not None:
        raise await _abandon(proc, prep, tasks, tail, code, why, line)
    return AsyncSession(proc, pid, mode, prep, tail, tasks, records)


async def _abandon(proc: asyncio.subprocess.Process, prep: _Prepared, tasks: List["asyncio.Task[None]"], tail: _Tail, code: str, why: str, line: str) -> LaunchError:
    """As _session._abandon: one that ended its stdout may exit by itself within the ack timeout; any other is SIGKILLed."""
    if prep.ctl_w >= 0:
        os.close(prep.ctl_w)
        prep.ctl_w = -1
    proc.stdin.close()  # type: ignore[union-attr]
    if code != "no-ack":
        try:
            proc.kill()
        except ProcessLookupError:
            pass
    try:
        await asyncio.wait_for(proc.wait(), prep.ack_timeout)
    except asyncio.TimeoutError:
        proc.kill()
        await proc.wait()
    await asyncio.wait(tasks, timeout=1)
    return prep.no_session(code, why, line, proc.returncode if proc.returncode is not None else -9, tail.text())

"""MCP stdio servers under session-starter, for the MCP Python SDK's clients.

``wrap_stdio_parameters()`` turns the SDK's ``StdioServerParameters`` into
parameters that run the server under session-starter, for the SDK's own
``stdio_client``. ``stdio_client()`` is a stand-in for the SDK's: the same
streams, with the server launched by ``launch_async()``, and the Engine's
PID and ended record at hand.

Both are duck-typed: nothing here imports the SDK until ``stdio_client()``
runs, and ``wrap_stdio_parameters()`` never does. They were tested against
fakes of the SDK (PyPI is not reachable where they were written): a
pydantic-like ``StdioServerParameters``, the SDK's ``get_default_environment``
and a ``stdio_client`` that ends its child as the SDK documents it.
"""

from __future__ import annotations

import asyncio
import codecs
import os
import sys
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Dict, Mapping, Optional, Sequence, TextIO, Tuple, Union

from ._aio import AsyncSession, launch_async
from ._records import Ended
from ._session import _duration, _flags, _invalid, end_bound

# The variables the SDK's default environment (HOME, LOGNAME, PATH, SHELL,
# TERM, USER) drops and a session needs: the ledger's directory, which the
# user's --reclaim reads, and the enclosing session's mark, which nests.
CARRIED_ENV = ("XDG_RUNTIME_DIR", "SESSION_STARTER_LEDGER_DIR", "SESSION_STARTER_SESSION")

# session-starter's --stdin-grace default, seconds.
DEFAULT_STDIN_GRACE = 2.0

# What the SDK's StdioServerParameters holds, all of which a copy keeps.
_PARAM_FIELDS = ("command", "args", "env", "cwd", "encoding", "encoding_error_handler")


def _carried(env: Optional[Mapping[str, str]]) -> Optional[Dict[str, str]]:
    """env with CARRIED_ENV from os.environ where set and env has none; None stays None when nothing is carried."""
    carried = {k: os.environ[k] for k in CARRIED_ENV if os.environ.get(k)}
    if not carried:
        return None if env is None else dict(env)
    return {**carried, **(env or {})}


def _command(params: Any) -> Tuple[str, list]:
    missing = [f for f in ("command", "args", "env", "cwd") if not hasattr(params, f)]
    if missing:
        raise _invalid(f"params: want the MCP SDK's StdioServerParameters (or an object like it); {type(params).__name__} has no {', '.join(missing)}")
    command, args = params.command, list(params.args or [])
    if not isinstance(command, str) or not command:
        raise _invalid(f"params.command={command!r}: want the server's program, a non-empty string")
    if not all(isinstance(a, str) for a in args):
        raise _invalid(f"params.args={params.args!r}: want a list of strings")
    return command, args


def wrap_stdio_parameters(
    params: Any,
    *,
    binary: Optional[str] = None,
    stdin_grace: float = 0,
    grace: float = 0,
    kill_budget: float = 0,
    stop_signal: Union[str, int, None] = None,
    containment: Optional[str] = None,
    extra_flags: Sequence[str] = (),
) -> Any:
    """StdioServerParameters that run the same server under session-starter, for the SDK's own stdio_client.

    ``params`` is the SDK's StdioServerParameters, or any object with its
    attributes (command, args, env, cwd, encoding, encoding_error_handler);
    it is not changed. The copy has the same type, made with
    ``model_copy(update=...)`` where it has one (pydantic), else with
    ``type(params)(...)``. Its command is ``binary`` (default
    binary_path()), spawned by the SDK with no shell between; its args are
    ``--stdio``, the flags of the options, ``--``, and
    the server's command line. So the session ends when the client closes
    the server's stdin (the server gets ``stdin_grace``, 0: session-starter's
    2 s, to exit by itself) or when the client process is gone, even
    SIGKILLed; every process the server started ends with it.

    ``grace``, ``kill_budget``, ``stop_signal``, ``containment`` and
    ``extra_flags`` are launch()'s. The SDK passes the server only
    ``HOME, LOGNAME, PATH, SHELL, TERM, USER`` and ``env``: the copy's env
    adds this process's XDG_RUNTIME_DIR, SESSION_STARTER_LEDGER_DIR and
    SESSION_STARTER_SESSION (where set, and not in ``params.env``), so that
    the session's ledger record is where the user's ``--reclaim`` looks,
    and a session started from a session nests in it. Raises LaunchError
    ("invalid-option") for a bad option or params, BinaryNotFoundError
    when there is no binary.
    """
    command, args = _command(params)
    flags = ["--stdio"] + _duration("stdin_grace", "--stdin-grace", stdin_grace)
    flags += _flags(grace, 0, kill_budget, stop_signal, containment, extra_flags)
    if binary is None:
        from . import binary_path  # raises BinaryNotFoundError

        binary = binary_path()
    elif not isinstance(binary, str) or not binary:
        raise _invalid("binary: want the path of session-starter")
    update = {"command": binary, "args": flags + ["--", command] + args, "env": _carried(params.env)}
    copy = getattr(params, "model_copy", None)
    if callable(copy):
        return copy(update=update)
    fields = {f: getattr(params, f) for f in _PARAM_FIELDS if hasattr(params, f)}
    fields.update(update)
    return type(params)(**fields)


class StdioStreams(tuple):
    """What stdio_client() yields: (read_stream, write_stream), as the SDK's stdio_client, and the session.

    ``session`` is the AsyncSession (``pid``: the Engine's PID, which a host
    reaps by); ``ended`` is the ended record once the context has exited
    (None before, or if session-starter wrote none).
    """

    session: AsyncSession
    ended: Optional[Ended]

    def __new__(cls, read_stream: Any, write_stream: Any, session: AsyncSession) -> "StdioStreams":
        self = super().__new__(cls, (read_stream, write_stream))
        self.session = session
        self.ended = None
        return self

    @property
    def pid(self) -> int:
        """The Engine's PID (the MCP server's)."""
        return self.session.pid


class _TextSink:
    """A binary writer onto a text stream, for stderr= of launch_async."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._decode = codecs.getincrementaldecoder("utf-8")("replace").decode

    def write(self, b: bytes) -> None:
        self._out.write(self._decode(b))
        self._out.flush()


def _errlog(errlog: Optional[TextIO]) -> Any:
    if errlog is None or errlog is sys.stderr:
        return None
    buf = getattr(errlog, "buffer", None)
    return buf if buf is not None and callable(getattr(buf, "write", None)) else _TextSink(errlog)


@asynccontextmanager
async def stdio_client(
    server: Any,
    errlog: Optional[TextIO] = None,
    *,
    binary: Optional[str] = None,
    stdin_grace: float = 0,
    grace: float = 0,
    kill_budget: float = 0,
    stop_signal: Union[str, int, None] = None,
    containment: Optional[str] = None,
    extra_flags: Sequence[str] = (),
    ack_timeout: Optional[float] = None,
) -> AsyncIterator[StdioStreams]:
    """The MCP SDK's stdio_client, with the server launched by launch_async() under session-starter.

    ``async with stdio_client(params) as (read_stream, write_stream)`` works
    as the SDK's does: anyio memory object streams; read_stream yields the
    SDK's ``SessionMessage`` for each line the server writes (an Exception
    for a line that is not a JSON-RPC message), write_stream takes
    SessionMessages, each written as one line. The server's environment is
    the SDK's (``get_default_environment()`` and ``server.env``) with
    CARRIED_ENV added as wrap_stdio_parameters() adds it; ``errlog`` (default
    sys.stderr) gets the server's stderr. The yielded StdioStreams also
    holds the session: ``pid`` and, after the exit, ``ended``.

    On exit the server's stdin is closed; session-starter (--watch-stdin)
    gives it ``stdin_grace`` (0: 2 s) to exit by itself, then ends the
    session with ``grace`` and ``kill_budget``; the exit returns once
    session-starter has exited and its ended record is read (past
    stdin_grace + end_bound() + 5 s it is stopped, as stop() does). If
    this process dies instead, the control pipe's end ends the session. The
    options are launch()'s; asyncio only (anyio's default backend). It
    imports anyio and the SDK (``mcp``) when it runs, never before.
    """
    import anyio
    import anyio.lowlevel
    from mcp import types
    from mcp.client.stdio import get_default_environment
    from mcp.shared.message import SessionMessage

    command, args = _command(server)
    encoding = getattr(server, "encoding", "utf-8")
    errors = getattr(server, "encoding_error_handler", "strict")
    env = _carried({**get_default_environment(), **(server.env or {})})
    cwd = None if server.cwd is None else os.fspath(server.cwd)
    session = await launch_async(
        [command] + args,
        binary=binary,
        env=env,
        cwd=cwd,
        stderr=_errlog(errlog),
        grace=grace,
        stop_signal=stop_signal,
        kill_budget=kill_budget,
        containment=containment,
        watch_stdin=True,
        stdin_grace=stdin_grace,
        extra_flags=extra_flags,
        ack_timeout=ack_timeout,
    )
    read_writer, read_stream = anyio.create_memory_object_stream(0)
    write_stream, write_reader = anyio.create_memory_object_stream(0)

    async def stdout_reader() -> None:
        decode = codecs.getincrementaldecoder(encoding)(errors).decode
        buffer = ""
        try:
            async with read_writer:
                while True:
                    chunk = await session.stdout.read(65536)
                    if not chunk:
                        return
                    lines = (buffer + decode(chunk)).split("\n")
                    buffer = lines.pop()
                    for line in lines:
                        try:
                            message = types.JSONRPCMessage.model_validate_json(line)
                        except Exception as exc:
                            await read_writer.send(exc)
                            continue
                        await read_writer.send(SessionMessage(message))
        except anyio.ClosedResourceError:
            await anyio.lowlevel.checkpoint()

    async def stdin_writer() -> None:
        try:
            async with write_reader:
                async for message in write_reader:
                    json = message.message.model_dump_json(by_alias=True, exclude_none=True)
                    session.stdin.write((json + "\n").encode(encoding, errors))
                    await session.stdin.drain()
        except (anyio.ClosedResourceError, ConnectionError):
            # The server is gone: write_reader is closed, so a later send
            # raises BrokenResourceError for the client to see.
            await anyio.lowlevel.checkpoint()

    streams = StdioStreams(read_stream, write_stream, session)
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(stdout_reader)
            tg.start_soon(stdin_writer)
            try:
                yield streams
            finally:
                with anyio.CancelScope(shield=True):
                    streams.ended = await _end(session, stdin_grace, grace, kill_budget)
                tg.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await session.close()


async def _end(session: AsyncSession, stdin_grace: float, grace: float, kill_budget: float) -> Optional[Ended]:
    """Closes the server's stdin and waits for the session's end and its ended record; past their bound, stops it."""
    session.stdin.close()
    bound = (stdin_grace or DEFAULT_STDIN_GRACE) + end_bound(grace, kill_budget) + 5.0
    try:
        await asyncio.wait_for(session.wait(), bound)
    except asyncio.TimeoutError:
        await session.stop()
    try:
        return await asyncio.wait_for(session.ended(), 1.0)
    except Exception:  # a bad record, or none: not known
        return None

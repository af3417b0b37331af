"""mcp.client.stdio: StdioServerParameters, get_default_environment() and stdio_client(), as the SDK has them on POSIX.

get_default_environment() passes a server only HOME, LOGNAME, PATH, SHELL,
TERM and USER of the client's environment (a value starting with "()", a
shell function, is dropped); stdio_client() spawns ``command`` with
``args`` directly (anyio.open_process), in that environment updated with
``env``. On exit it ends the server as the SDK does: it closes the
server's stdin, waits 2 s for it to exit, then SIGTERMs it, waits 2 s,
then SIGKILLs it: the direct child only, never what the child started.
"""

import os
import sys
from contextlib import asynccontextmanager

import anyio
import anyio.lowlevel
from anyio.streams.text import TextReceiveStream

from .. import types
from ..shared.message import SessionMessage

DEFAULT_INHERITED_ENV_VARS = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"]

# How long the SDK waits at each step of a server's end, seconds.
PROCESS_TERMINATION_TIMEOUT = 2.0


def get_default_environment():
    env = {}
    for name in DEFAULT_INHERITED_ENV_VARS:
        value = os.environ.get(name)
        if value is not None and not value.startswith("()"):
            env[name] = value
    return env


class StdioServerParameters:
    """A stand-in for the SDK's pydantic model: keyword fields with the SDK's defaults, and model_copy(update=...)."""

    def __init__(self, *, command, args=None, env=None, cwd=None, encoding="utf-8", encoding_error_handler="strict"):
        self.command = command
        self.args = list(args or [])
        self.env = env
        self.cwd = cwd
        self.encoding = encoding
        self.encoding_error_handler = encoding_error_handler

    def model_copy(self, *, update=None):
        fields = dict(vars(self))
        fields.update(update or {})
        return StdioServerParameters(**fields)


async def _wait(process, seconds):
    with anyio.move_on_after(seconds):
        await process.wait()
    return process.returncode is not None


@asynccontextmanager
async def stdio_client(server, errlog=sys.stderr):
    read_writer, read_stream = anyio.create_memory_object_stream(0)
    write_stream, write_reader = anyio.create_memory_object_stream(0)
    env = {**get_default_environment(), **server.env} if server.env is not None else get_default_environment()
    process = await anyio.open_process([server.command, *server.args], env=env, stderr=errlog, cwd=server.cwd)

    async def stdout_reader():
        try:
            async with read_writer:
                buffer = ""
                async for chunk in TextReceiveStream(process.stdout, encoding=server.encoding, errors=server.encoding_error_handler):
                    lines = (buffer + chunk).split("\n")
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

    async def stdin_writer():
        try:
            async with write_reader:
                async for message in write_reader:
                    json = message.message.model_dump_json(by_alias=True, exclude_none=True)
                    await process.stdin.send((json + "\n").encode(server.encoding, server.encoding_error_handler))
        except anyio.ClosedResourceError:
            await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as tg:
        tg.start_soon(stdout_reader)
        tg.start_soon(stdin_writer)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                await process.stdin.aclose()
                if not await _wait(process, PROCESS_TERMINATION_TIMEOUT):
                    process.terminate()
                    if not await _wait(process, PROCESS_TERMINATION_TIMEOUT):
                        process.kill()
                        await process.wait()
            tg.cancel_scope.cancel()

"""session-starter for Python launchers: launch() an Engine under the binary, and where the binary is.

``launch()`` (and ``launch_async()`` for asyncio) starts an Engine under
session-starter, spawning the binary directly, and returns a ``Session``
once the ack line was read within a bound: the Engine's stdin and stdout,
the status records, ``stop()`` and the mirrored status. It mirrors the Go
package starter/launch; see ``_session.py`` for its guarantees.
``parse_ack()``, ``parse_record()``, ``read_records()`` and
``read_ended()`` read the ack line and the status records. ``call()`` runs
one command (an Engine's per-call command) as a session of its own and
returns its output and whether it may be retried (``_call.py``);
``call_async()`` is its asyncio twin.
``wrap_stdio_parameters()`` and ``stdio_client()`` run an MCP stdio
server under session-starter for the MCP Python SDK's clients
(``_mcp.py``; anyio and the SDK are imported only when stdio_client()
runs). ``reclaim()`` ends what the dead sessions of this user left behind (their
session-starter and guard SIGKILLed together) and returns the record of
``session-starter --reclaim`` (``_reclaim.py``).

The session-starter wheel installs the static binary into the environment's
scripts directory (``bin/`` of a venv, ``Scripts\\`` on Windows), as ruff's
wheel does, so that no Python process stands between a launcher and
session-starter: a launcher spawns ``binary_path()`` itself.

``binary_path()`` returns the absolute path of an existing file, or raises
``BinaryNotFoundError`` with one message that names the platform and says
what to do; it never returns a path it has not seen.

Standard library only.
"""

from __future__ import annotations

import os
import platform
import sys
import sysconfig
from typing import List, Optional, Tuple

from ._aio import AsyncSession, launch_async
from ._call import DEFAULT_MAX_BUFFER, NOT_STARTED, STARTED, UNCLEAR, CallResult, MaxBufferError, call, call_async
from ._mcp import CARRIED_ENV, StdioStreams, stdio_client, wrap_stdio_parameters
from ._reclaim import reclaim
from ._records import Ended, Other, Record, RecordError, StarterExit, Started, Survivor, Usage, parse_ack, parse_record, read_ended, read_records
from ._session import DEFAULT_ACK_TIMEOUT, DEFAULT_DRAIN, DEFAULT_KILL_BUDGET, LaunchError, Session, end_bound, launch

__all__ = [
    "AsyncSession",
    "BinaryNotFoundError",
    "CARRIED_ENV",
    "CallResult",
    "DEFAULT_ACK_TIMEOUT",
    "DEFAULT_DRAIN",
    "DEFAULT_KILL_BUDGET",
    "DEFAULT_MAX_BUFFER",
    "Ended",
    "LaunchError",
    "MaxBufferError",
    "NOT_STARTED",
    "Other",
    "Record",
    "RecordError",
    "STARTED",
    "Session",
    "StarterExit",
    "Started",
    "StdioStreams",
    "Survivor",
    "Usage",
    "UNCLEAR",
    "__version__",
    "binary_path",
    "call",
    "call_async",
    "end_bound",
    "launch",
    "launch_async",
    "parse_ack",
    "parse_record",
    "read_ended",
    "read_records",
    "reclaim",
    "stdio_client",
    "wrap_stdio_parameters",
]

# Stamped by make dist (scripts/dist/wheel.py) from cmd/session-starter/version.go.
__version__ = "0.0.0-stamped-by-make-dist"

# SESSION_STARTER_BINARY names a binary to use instead of the wheel's: a
# build of one's own, or a platform with no wheel (FreeBSD: PyPI takes no
# FreeBSD tag).
OVERRIDE_ENV = "SESSION_STARTER_BINARY"

# The platforms with a wheel, as (GOOS, GOARCH).
_WHEEL_PLATFORMS = (
    ("linux", "amd64"),
    ("linux", "arm64"),
    ("darwin", "amd64"),
    ("darwin", "arm64"),
    ("windows", "amd64"),
    ("windows", "arm64"),
)

_MACHINES = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}

_INSTALL_HINT = (
    "build it from a clone of session-starter with Go (make build writes bin/session-starter) "
    "and set " + OVERRIDE_ENV + " to its path"
)


class BinaryNotFoundError(LaunchError, FileNotFoundError):
    """There is no session-starter binary for this platform or environment (code "binary-missing")."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "binary-missing")


def _platform() -> Tuple[str, str]:
    """This platform as Go names it: (GOOS, GOARCH), e.g. ("linux", "amd64")."""
    system = sys.platform
    if system.startswith("linux"):
        goos = "linux"
    elif system == "win32":
        goos = "windows"
    elif system.startswith("freebsd"):
        goos = "freebsd"
    else:
        goos = system
    machine = platform.machine().lower()
    return goos, _MACHINES.get(machine, machine)


def _script_dirs() -> List[str]:
    """The directories a wheel's scripts can have been installed into."""
    dirs = [sysconfig.get_path("scripts")]
    if hasattr(sysconfig, "get_preferred_scheme"):  # Python 3.10
        user_scheme = sysconfig.get_preferred_scheme("user")
    else:
        user_scheme = "nt_user" if os.name == "nt" else "posix_user"
    try:
        dirs.append(sysconfig.get_path("scripts", user_scheme))
    except KeyError:
        pass
    # Derived from where this package is: site-packages below a prefix
    # (another environment's, or pip install --prefix), or a pip install
    # --target directory, whose scripts go to its bin/.
    site = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if os.name == "nt":
        dirs.append(os.path.join(site, os.pardir, os.pardir, "Scripts"))
    else:
        dirs.append(os.path.join(site, os.pardir, os.pardir, os.pardir, "bin"))
    dirs.append(os.path.join(site, "bin"))
    seen = []
    for d in dirs:
        d = os.path.normpath(d)
        if d not in seen:
            seen.append(d)
    return seen


def binary_path() -> str:
    """The absolute path of the session-starter binary of this environment.

    ``SESSION_STARTER_BINARY``, if set, is used as it is. Raises
    ``BinaryNotFoundError`` where there is no wheel for this platform, or
    where the binary is not in any scripts directory of the environment.
    """
    override: Optional[str] = os.environ.get(OVERRIDE_ENV)
    if override:
        if not os.path.isfile(override):
            raise BinaryNotFoundError(f"session-starter: {OVERRIDE_ENV}={override}: no such file")
        return os.path.abspath(override)
    goos, goarch = _platform()
    key = f"{goos}-{goarch}"
    if (goos, goarch) not in _WHEEL_PLATFORMS:
        names = ", ".join(f"{o}-{a}" for o, a in _WHEEL_PLATFORMS)
        raise BinaryNotFoundError(
            f"session-starter: no wheel for this platform ({key}); there are wheels for {names}: {_INSTALL_HINT}"
        )
    exe = "session-starter.exe" if goos == "windows" else "session-starter"
    dirs = _script_dirs()
    for d in dirs:
        candidate = os.path.join(d, exe)
        if os.path.isfile(candidate):
            return candidate
    raise BinaryNotFoundError(
        f"session-starter: the binary for this platform ({key}) is not in {os.pathsep.join(dirs)}: "
        "install the session-starter wheel again (pip install --force-reinstall session-starter)"
    )

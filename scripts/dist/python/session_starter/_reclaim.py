"""reclaim(): end what the dead sessions of this user left behind.

It runs ``session-starter --reclaim --status-fd N`` (with ``--dry-run``
when asked): sessions whose session-starter and guard were SIGKILLed
together (an OOM kill of the whole tree, a container stop) left processes
nobody owns; this ends them, as the binary verifies them, and returns the
JSON record it wrote. A launcher can call it before it starts a session.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any, Dict, List, Mapping, Optional

from ._session import LaunchError

_TAIL = 4096


def reclaim(dry_run: bool = False, *, binary: Optional[str] = None, env: Optional[Mapping[str, str]] = None) -> Dict[str, Any]:
    """Runs session-starter --reclaim and returns its record, parsed.

    The record: ``{"event": "reclaimed", "dir", "dry_run", "sessions":
    [{"session", "action", "cgroup_ended", "ended": [{"pid", "comm"}],
    "left": [{"pid", "reason", "survivor"}], "guard_end", "containers"}], "problems": [{"file",
    "reason"}]}``; ``action`` is "reclaimed", "live" (its starter or guard
    lives: left alone), "unverified" (whether they live could not be told:
    left alone, the reason in "left"), "other-boot" (dropped, nothing
    signalled), "other-namespace" (its numbers are of another PID, cgroup
    or user namespace, or of none named, as in a record of version 1: left
    alone, never signalled, the reason in "left"), "namespace-gone" (of a
    PID namespace in which nothing is left: dropped, nothing signalled) or
    "would-reclaim" (``dry_run``: nothing is ended); ``guard_end``, when present, is what
    the session's guard's end came to after session-starter was gone, when
    it left something; ``containers``, when present, the ids of the
    session's containers (--containers) it stopped or removed. A "left" entry with ``survivor`` true is a process
    verified as the session's that lives on; exit status 125 (only for such
    a survivor) still returns the record. A PID given to a stranger
    ("token-mismatch"), a refused file or an unverified process is
    reported with exit status 0. Raises LaunchError when there is none: the binary is
    missing ("binary-missing") or cannot be started ("spawn"), or it wrote
    no record ("reclaim": the ledger is off, or the platform keeps none;
    ``stderr`` says why). ``env`` defaults to os.environ
    (SESSION_STARTER_LEDGER_DIR names another ledger).
    """
    if sys.platform == "win32":
        # No status pipe from this module there, nor anything to reclaim:
        # a session's job kills its processes when its last handle closes.
        raise LaunchError("session-starter: reclaim: not supported on Windows by this module", "invalid-option")
    if binary is None:
        from . import binary_path  # raises BinaryNotFoundError

        binary = binary_path()
    elif not isinstance(binary, str) or not binary:
        raise LaunchError("session-starter: binary: want the path of session-starter", "invalid-option")
    return run_for_record(binary, ["--reclaim"] + (["--dry-run"] if dry_run else []), "reclaimed", "reclaim", env)


def run_for_record(binary: str, flags: List[str], event: str, code: str, env: Optional[Mapping[str, str]] = None) -> Dict[str, Any]:
    """Runs binary with flags that run no PROGRAM, and returns the record it wrote to --status-fd, parsed.

    The record must be a JSON object with ``event``, and the exit status 0
    or 125 (some are left: the record says which). Else it raises
    LaunchError with ``code``, the exit status and the stderr's tail;
    BinaryNotFoundError when binary is missing, LaunchError "spawn" when it
    cannot be started.
    """
    r, w = os.pipe()
    try:
        args = [binary, *flags, "--status-fd", str(w)]
        try:
            proc = subprocess.Popen(
                args,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                pass_fds=(w,),
                env=dict(os.environ if env is None else env),
            )
        except OSError as err:
            from . import BinaryNotFoundError

            if isinstance(err, FileNotFoundError) and not os.path.exists(binary):
                raise BinaryNotFoundError(f"session-starter: {binary}: no such file") from err
            raise LaunchError(f"session-starter: {binary}: {err}", "spawn") from err
        os.close(w)
        w = -1
        with os.fdopen(r, "rb") as status:
            r = -1
            # The record comes whole before the exit; stderr is drained
            # after it (a few lines at most).
            data = status.read()
        _, err_bytes = proc.communicate()
    finally:
        for fd in (r, w):
            if fd >= 0:
                os.close(fd)
    stderr = err_bytes[-_TAIL:].decode(errors="replace")
    try:
        record = json.loads(data)
    except ValueError:
        record = None
    if not isinstance(record, dict) or record.get("event") != event or proc.returncode not in (0, 125):
        said = f"; stderr: {stderr.strip()}" if stderr.strip() else ""
        raise LaunchError(
            f"session-starter: {flags[0]} wrote no record; it exited {proc.returncode}{said}",
            code,
            returncode=proc.returncode,
            stderr=stderr,
        )
    return record

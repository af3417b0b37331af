"""The wire format session-starter speaks to a launcher.

Read as the Go package starter/launch reads it (ParseAck, ReadEnded): the
ack line on session-starter's stdout and the status records on its
--status-fd. The fixtures of starter/launch/testdata/records are the
schema; the tests parse every one of them, here as in Go and JavaScript.

A record's fields are only ever added: a field this module does not know
is left out of the typed record (it stays in ``record.raw``), but for the
usage figures, which go to ``Usage.others``; an event it does not know is
returned as ``Other``. A known field of the wrong type is an error, as in
Go; a known field that is missing, or null where null is not one of its
values, takes its zero value (0, False, "", []), as Go's encoding/json
leaves it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Dict, Iterator, List, Optional, Tuple, Union

# How the ack line begins: session_containment is its first key, and 1 the
# only value defined.
ACK_PREFIX = '{"session_containment":1,'

# Bounds the first line read as the ack. The ack is about 60 bytes; a
# longer first line is not an ack.
MAX_ACK_LINE = 1024


class RecordError(ValueError):
    """A line that is not an ack, or not a status record."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


def _quote(s: str) -> str:
    return json.dumps(s if len(s) <= 120 else s[:120] + "…")


def parse_ack(line: Union[str, bytes]) -> Tuple[int, str]:
    """Check an ack line (its newline optional); return the Engine's PID and the mode.

    The line must be one JSON object whose first key is session_containment
    with the value 1, with an integer pid > 1 and a non-empty string mode;
    other keys are ignored. Raises RecordError (code "malformed-ack")
    otherwise.
    """
    s = line.decode("utf-8", "replace") if isinstance(line, (bytes, bytearray)) else str(line)
    if s.endswith("\n"):
        s = s[:-1]

    def bad(why: str) -> RecordError:
        return RecordError(f"{_quote(s)}: {why}", "malformed-ack")

    if not s.startswith(ACK_PREFIX) or "\n" in s:
        raise bad(f"not one line beginning with {ACK_PREFIX}")
    try:
        a = json.loads(s)
    except ValueError as err:
        raise bad(str(err)) from None
    version = a.get("session_containment")
    if type(version) is not int or version != 1:
        raise bad("session_containment is not 1")
    pid = a.get("pid")
    if type(pid) is not int or pid <= 1:
        raise bad("no pid > 1")
    mode = a.get("mode")
    if not isinstance(mode, str) or mode == "":
        raise bad("no mode")
    return pid, mode


@dataclass
class StarterExit:
    """How session-starter itself ends: exit_status, and signal when it dies of the Engine's signal."""

    exit_status: int = 0
    signal: Optional[str] = None


@dataclass
class Survivor:
    """A process left live after the kill budget."""

    pid: int = 0
    uid: int = 0
    state: str = ""
    comm: str = ""
    # session-starter could not signal it: it does not run as root, and the survivor is another user's.
    denied: bool = False


@dataclass
class Usage:
    """What a session's tree used, each figure with its source; a figure the platform or mode cannot tell is None.

    cpu_ms is the CPU time of the whole tree, from cpu_source: "cpu.stat" (cgroup mode), "job" (Windows) or "rusage" (group mode, a
    lower bound); the peaks come from memory.peak and pids.peak, forks_refused from pids.events (cgroup mode, with the
    controller).

    others holds the figures this version does not know by name, under their JSON names: new figures arrive this way,
    with no change to this module. Each is a number or a string (any other type is a RecordError); a null one is left
    out.
    """

    cpu_ms: Optional[float] = None
    cpu_source: Optional[str] = None
    memory_peak_bytes: Optional[int] = None
    memory_peak_source: Optional[str] = None
    tasks_peak: Optional[int] = None
    tasks_peak_source: Optional[str] = None
    forks_refused: Optional[int] = None
    others: Dict[str, Union[int, float, str]] = field(default_factory=dict)


@dataclass
class Started:
    """The first status record, written when the Engine is released."""

    event: str = "started"
    pid: int = 0
    pgid: int = 0
    mode: str = ""
    guard_pid: int = 0
    time: str = ""
    session: Optional[str] = None
    # The Engine's command line as run, only when session-starter changed
    # it (--containers adds a label).
    argv: Optional[List[str]] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass
class Ended:
    """The last status record: how the session ended (see the README's table)."""

    event: str = "ended"
    reason: str = ""
    mode: Optional[str] = None
    executed: bool = False
    exit_code: Optional[int] = None
    signal: Optional[str] = None
    core_dumped: bool = False
    outcome: Optional[str] = None
    released: Optional[List[int]] = None
    members_seen: int = 0
    escapees_seen: int = 0
    kill_rounds: int = 0
    graceful: bool = False
    survivors: List[Survivor] = field(default_factory=list)
    duration_ms: float = 0.0
    group_end_ms: float = 0.0
    starter: StarterExit = field(default_factory=StarterExit)
    report: Optional[str] = None
    time: str = ""
    oom_kills: Optional[int] = None
    usage: Optional[Usage] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass
class Other:
    """A record of an event this version does not know."""

    event: str
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


Record = Union[Started, Ended, Other]


def _is_int(v: Any) -> bool:
    return type(v) is int


def _is_int_list(v: Any) -> bool:
    return isinstance(v, list) and all(_is_int(e) for e in v)


def _is_str_list(v: Any) -> bool:
    return isinstance(v, list) and all(_is_str(e) for e in v)


def _is_number(v: Any) -> bool:
    return type(v) in (int, float)


def _is_str(v: Any) -> bool:
    return isinstance(v, str)


def _is_bool(v: Any) -> bool:
    return type(v) is bool


def _is_figure(v: Any) -> bool:
    return _is_number(v) or _is_str(v)


# The fields of each record: JSON name -> (check, zero). None as the zero
# means the field's null (exit_code, signal) or its absence (mode).
_STARTER = {"exit_status": (_is_int, 0), "signal": (_is_str, None)}
_SURVIVOR = {"pid": (_is_int, 0), "uid": (_is_int, 0), "state": (_is_str, ""), "comm": (_is_str, ""), "denied": (_is_bool, False)}
_STARTED = {
    "event": (_is_str, ""),
    "pid": (_is_int, 0),
    "pgid": (_is_int, 0),
    "mode": (_is_str, ""),
    "guard_pid": (_is_int, 0),
    "time": (_is_str, ""),
    "session": (_is_str, None),
    "argv": (_is_str_list, None),
}
_ENDED = {
    "event": (_is_str, ""),
    "reason": (_is_str, ""),
    "mode": (_is_str, None),
    "executed": (_is_bool, False),
    "exit_code": (_is_int, None),
    "signal": (_is_str, None),
    "core_dumped": (_is_bool, False),
    "outcome": (_is_str, None),
    "released": (_is_int_list, None),
    "members_seen": (_is_int, 0),
    "escapees_seen": (_is_int, 0),
    "kill_rounds": (_is_int, 0),
    "graceful": (_is_bool, False),
    "duration_ms": (_is_number, 0.0),
    "group_end_ms": (_is_number, 0.0),
    "report": (_is_str, None),
    "time": (_is_str, ""),
    "oom_kills": (_is_int, None),
}
_USAGE = {
    "cpu_ms": (_is_number, None),
    "cpu_source": (_is_str, None),
    "memory_peak_bytes": (_is_int, None),
    "memory_peak_source": (_is_str, None),
    "tasks_peak": (_is_int, None),
    "tasks_peak_source": (_is_str, None),
    "forks_refused": (_is_int, None),
}


def _bad(message: str) -> RecordError:
    return RecordError(message, "bad-record")


def _fields(obj: Any, table: Dict[str, Tuple[Any, Any]], where: str) -> Dict[str, Any]:
    if not isinstance(obj, dict):
        raise _bad(f"{where}: {json.dumps(obj)} is not an object")
    out = {}
    for key, (ok, zero) in table.items():
        v = obj.get(key)
        if v is None:
            out[key] = zero
        elif not ok(v):
            raise _bad(f"{where}.{key}: {json.dumps(v)} is not of its type")
        else:
            out[key] = float(v) if ok is _is_number else v
    return out


def _others(obj: Dict[str, Any], table: Dict[str, Tuple[Any, Any]], where: str) -> Dict[str, Union[int, float, str]]:
    """The keys of obj that table does not name, each a number or a string (kept as written); a null one is left out."""
    out: Dict[str, Union[int, float, str]] = {}
    for key, v in obj.items():
        if key in table or v is None:
            continue
        if not _is_figure(v):
            raise _bad(f"{where}.{key}: {json.dumps(v)} is not of its type")
        out[key] = v
    return out


def parse_record(line: Union[str, bytes]) -> Record:
    """Read one status record, one line of JSON as session-starter writes it on --status-fd.

    Returns a Started or an Ended record, or Other for an event this
    version does not know; ``record.raw`` is the object as written. Raises
    RecordError (code "bad-record") for a line that is not a JSON object, or
    a known field of the wrong type.
    """
    s = line.decode("utf-8", "replace") if isinstance(line, (bytes, bytearray)) else str(line)
    try:
        raw = json.loads(s)
    except ValueError as err:
        raise _bad(f"status record {_quote(s)}: {err}") from None
    if not isinstance(raw, dict):
        raise _bad(f"status record {_quote(s)}: not a JSON object")
    event = raw.get("event")
    if event is None:
        event = ""
    elif not isinstance(event, str):
        raise _bad(f"status record.event: {json.dumps(event)} is not a string")
    if event == "started":
        return Started(**_fields(raw, _STARTED, "started record"), raw=raw)
    if event == "ended":
        rec = Ended(**_fields(raw, _ENDED, "ended record"), raw=raw)
        survivors = raw.get("survivors")
        if survivors is not None:
            if not isinstance(survivors, list):
                raise _bad(f"ended record.survivors: {json.dumps(survivors)} is not an array")
            rec.survivors = [
                Survivor(**_fields(x, _SURVIVOR, f"ended record.survivors[{i}]")) for i, x in enumerate(survivors)
            ]
        starter = raw.get("starter")
        if starter is not None:
            rec.starter = StarterExit(**_fields(starter, _STARTER, "ended record.starter"))
        usage = raw.get("usage")
        if usage is not None:
            known = _fields(usage, _USAGE, "ended record.usage")
            rec.usage = Usage(**known, others=_others(usage, _USAGE, "ended record.usage"))
        return rec
    return Other(event=event, raw=raw)


def read_records(f: BinaryIO) -> Iterator[Record]:
    """The status records read from a binary file (the status descriptor), one a line, until its end."""
    for line in f:
        if line.strip():
            yield parse_record(line)


def read_ended(f: BinaryIO) -> Ended:
    """Read the status records from f and return the ended record, which is always the last.

    Returns as soon as it has been read. Raises RecordError with code
    "no-ended" when f ends first (session-starter was SIGKILLed), or the
    error of a bad record.
    """
    for rec in read_records(f):
        if isinstance(rec, Ended):
            return rec
    raise RecordError("the status records end without an ended record", "no-ended")

"""The Python module reads the ack line and the status records as the
fixtures of starter/launch/testdata/records say, the schema the Go and
JavaScript launchers' tests parse too."""

import dataclasses
import io
import json
import unittest

import session_starter as ss
from support import fixture


def typed(v):
    """A typed record's value as plain JSON values: dataclasses as dicts (without raw; a Usage without the figures
    it has not, which the JSON leaves out, and with its others beside the figures it knows by name)."""
    if dataclasses.is_dataclass(v):
        out = {f.name: typed(getattr(v, f.name)) for f in dataclasses.fields(v) if f.name != "raw"}
        if isinstance(v, ss.Usage):
            out = {**{k: x for k, x in out.items() if x is not None and k != "others"}, **v.others}
        return out
    if isinstance(v, list):
        return [typed(x) for x in v]
    return v


def ended_with_usage(**usage):
    """An ended fixture with usage as its usage (None as JSON null): the figures a test names, not the fixture's, so
    that a figure the fixtures gain changes no test here."""
    return json.dumps({**json.loads(fixture("ended.jsonl")[0]), "usage": usage})


# Every figure this module knows by name, as the JSON has them.
KNOWN_USAGE = {
    "cpu_ms": 214.5,
    "cpu_source": "cpu.stat",
    "memory_peak_bytes": 67108864,
    "memory_peak_source": "memory.peak",
    "tasks_peak": 3,
    "tasks_peak_source": "pids.peak",
    "forks_refused": 0,
}


class AckTest(unittest.TestCase):
    def test_each_ack_fixture_gives_its_pid_and_mode(self):
        for line in fixture("ack.jsonl"):
            want = json.loads(line)
            self.assertEqual(ss.parse_ack(line), (want["pid"], want["mode"]), line)
            self.assertEqual(ss.parse_ack((line + "\n").encode()), (want["pid"], want["mode"]), line)

    def test_keys_a_later_version_adds_are_ignored(self):
        for line in fixture("ack-later.jsonl"):
            self.assertEqual(ss.parse_ack(line)[0], 1234, line)

    def test_each_invalid_ack_fixture_is_refused(self):
        for line in fixture("ack-invalid.txt"):
            with self.assertRaises(ss.RecordError, msg=line) as cm:
                ss.parse_ack(line)
            self.assertEqual(cm.exception.code, "malformed-ack")


class RecordsTest(unittest.TestCase):
    def test_every_field_of_each_status_fixture_is_read(self):
        """The typed record has each key of the JSON (nested ones too) with its value, so a field the Go types
        gain (and the fixtures with them) fails here until this module reads it."""
        for name, cls in (("started.jsonl", ss.Started), ("ended.jsonl", ss.Ended)):
            for line in fixture(name):
                raw = json.loads(line)
                rec = ss.parse_record(line)
                self.assertIsInstance(rec, cls, line)
                self.assertEqual(rec.raw, raw, line)
                fields = typed(rec)
                for key, value in raw.items():
                    self.assertIn(key, fields, f"{name}: {key} is not read: {line}")
                    self.assertEqual(fields[key], value, f"{name}: {key}: {line}")

    def test_fields_left_out_take_the_values_go_gives_them(self):
        rec = ss.parse_record('{"event":"ended","exit_code":null,"survivors":null,"starter":null,"members_seen":null}')
        self.assertEqual(
            (rec.exit_code, rec.survivors, rec.starter, rec.members_seen, rec.executed, rec.core_dumped, rec.reason, rec.mode, rec.report),
            (None, [], ss.StarterExit(0, None), 0, False, False, "", None, None),
        )

    def test_records_of_later_versions_are_read_and_their_new_fields_ignored(self):
        other, started, ended = map(ss.parse_record, fixture("later.jsonl"))
        self.assertEqual((type(other), other.event, other.raw["cpu_ms"]), (ss.Other, "usage", 3))
        self.assertEqual(started.pid, 4242)
        self.assertEqual(ended.exit_code, 3)
        self.assertEqual(ended.survivors, [ss.Survivor(pid=4250, uid=1000, state="D", comm="fuse worker")])
        self.assertEqual(ended.starter, ss.StarterExit(exit_status=3, signal=None))
        self.assertNotIn("energy", typed(ended))
        self.assertEqual(ended.raw["energy"], {"joules": 4})

    def test_a_usage_figure_this_version_does_not_know_reaches_others_under_its_json_name(self):
        rec = ss.parse_record(ended_with_usage(cpu_throttled_ms=12.5, io_pressure_source="io.pressure", energy_uj=7))
        self.assertEqual(rec.usage.others, {"cpu_throttled_ms": 12.5, "io_pressure_source": "io.pressure", "energy_uj": 7})
        self.assertIs(type(rec.usage.others["energy_uj"]), int, "kept as written")

    def test_the_usage_figures_known_by_name_keep_their_fields_values_and_checks_beside_an_unknown_one(self):
        rec = ss.parse_record(ended_with_usage(**KNOWN_USAGE, cpu_throttled_ms=3))
        want = ss.Usage(
            cpu_ms=214.5,
            cpu_source="cpu.stat",
            memory_peak_bytes=67108864,
            memory_peak_source="memory.peak",
            tasks_peak=3,
            tasks_peak_source="pids.peak",
            forks_refused=0,
            others={"cpu_throttled_ms": 3},
        )
        self.assertEqual(rec.usage, want)
        with self.assertRaisesRegex(ss.RecordError, r"^ended record\.usage\.tasks_peak: 1\.5 is not of its type$"):
            ss.parse_record(ended_with_usage(**{**KNOWN_USAGE, "tasks_peak": 1.5}, cpu_throttled_ms=3))

    def test_a_usage_figure_this_version_does_not_know_is_refused_when_it_is_not_a_number_or_a_string(self):
        for v in ({"usec": 1}, [1, 2], True, False):
            with self.assertRaises(ss.RecordError, msg=repr(v)) as cm:
                ss.parse_record(ended_with_usage(cpu_throttled_ms=v))
            self.assertEqual(cm.exception.code, "bad-record")
            self.assertEqual(str(cm.exception), f"ended record.usage.cpu_throttled_ms: {json.dumps(v)} is not of its type")

    def test_a_usage_figure_this_version_does_not_know_is_left_out_when_it_is_null(self):
        self.assertEqual(ss.parse_record(ended_with_usage(cpu_throttled_ms=None)).usage.others, {})

    def test_each_invalid_record_fixture_is_refused(self):
        for line in fixture("records-invalid.txt"):
            with self.assertRaises(ss.RecordError, msg=line) as cm:
                ss.parse_record(line)
            self.assertEqual(cm.exception.code, "bad-record")

    def test_read_ended_returns_the_ended_record_without_reading_on(self):
        f = io.BytesIO("\n".join([fixture("started.jsonl")[0], fixture("ended.jsonl")[0], "not JSON", ""]).encode())
        self.assertEqual(ss.read_ended(f).exit_code, 3)

    def test_read_ended_of_records_without_an_ended_record(self):
        for text in (fixture("started.jsonl")[0] + "\n", ""):
            with self.assertRaises(ss.RecordError) as cm:
                ss.read_ended(io.BytesIO(text.encode()))
            self.assertEqual(cm.exception.code, "no-ended")

    def test_read_ended_stops_at_a_record_that_is_not_one(self):
        ended = fixture("ended.jsonl")[0]
        for bad in fixture("records-invalid.txt"):
            with self.assertRaises(ss.RecordError, msg=bad) as cm:
                ss.read_ended(io.BytesIO(f"{bad}\n{ended}\n".encode()))
            self.assertEqual(cm.exception.code, "bad-record")

    def test_read_records_reads_the_last_record_without_a_newline(self):
        text = fixture("started.jsonl")[0] + "\n\n" + fixture("ended.jsonl")[0]
        self.assertEqual([r.event for r in ss.read_records(io.BytesIO(text.encode()))], ["started", "ended"])


if __name__ == "__main__":
    unittest.main()

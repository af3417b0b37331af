'use strict';

// The npm package reads the ack line and the status records as the
// fixtures of starter/launch/testdata/records say, the schema the Go and
// Python launchers' tests parse too.

const assert = require('node:assert/strict');
const { Readable } = require('node:stream');
const test = require('node:test');

const { sessionStarter, fixture } = require('./helpers.js');

const { parseAck, parseRecord, readRecords, readEnded, RecordError } = sessionStarter;

function camel(key) {
  return key.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
}

// camelDeep is a JSON value with every object key in camelCase, as the
// typed records spell them.
function camelDeep(v) {
  if (Array.isArray(v)) {
    return v.map(camelDeep);
  }
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [camel(k), camelDeep(x)]));
  }
  return v;
}

test('each ack fixture gives its pid and mode', () => {
  for (const line of fixture('ack.jsonl')) {
    const want = JSON.parse(line);
    assert.deepEqual(parseAck(line), { pid: want.pid, mode: want.mode }, line);
    assert.deepEqual(parseAck(Buffer.from(`${line}\n`)), { pid: want.pid, mode: want.mode }, `${line} as a Buffer, with its newline`);
  }
});

test('keys a later version adds to the ack are ignored', () => {
  for (const line of fixture('ack-later.jsonl')) {
    const ack = parseAck(line);
    assert.equal(ack.pid, 1234, line);
    assert.deepEqual(Object.keys(ack), ['pid', 'mode'], line);
  }
});

test('each invalid ack fixture is refused', () => {
  for (const line of fixture('ack-invalid.txt')) {
    assert.throws(() => parseAck(line), (err) => err instanceof RecordError && err.code === 'ERR_SESSION_STARTER_MALFORMED_ACK', line);
  }
});

// Every field of every started and ended fixture is read: the typed record
// has each key of the JSON (in camelCase, nested ones too) with its value,
// so a field the Go types gain (and the fixtures with them) fails here
// until this package reads it.
test('every field of each status fixture is read', () => {
  for (const [file, event] of [
    ['started.jsonl', 'started'],
    ['ended.jsonl', 'ended'],
  ]) {
    for (const line of fixture(file)) {
      const raw = JSON.parse(line);
      const rec = parseRecord(line);
      assert.equal(rec.event, event, line);
      assert.deepEqual(rec.raw, raw, line);
      for (const [key, value] of Object.entries(raw)) {
        assert.ok(Object.hasOwn(rec, camel(key)), `${file}: ${key} is not read: ${line}`);
        assert.deepEqual(rec[camel(key)], camelDeep(value), `${file}: ${key}: ${line}`);
      }
    }
  }
});

test('fields left out take the values Go gives them', () => {
  const rec = parseRecord('{"event":"ended","exit_code":null,"survivors":null,"starter":null,"members_seen":null}');
  assert.equal(rec.exitCode, null);
  assert.deepEqual(rec.survivors, []);
  assert.deepEqual(rec.starter, { exitStatus: 0, signal: null });
  assert.equal(rec.membersSeen, 0);
  assert.equal(rec.executed, false);
  assert.equal(rec.coreDumped, false);
  assert.equal(rec.reason, '');
  assert.equal(Object.hasOwn(rec, 'mode'), false, 'mode: absent, not empty');
  assert.equal(Object.hasOwn(rec, 'report'), false, 'report: absent, not empty');
});

test('records of later versions are read and their new fields ignored', () => {
  const [other, started, ended] = fixture('later.jsonl').map(parseRecord);
  assert.deepEqual(other, { event: 'usage', raw: { event: 'usage', cpu_ms: 3, max_rss_kib: 2048 } });
  assert.equal(started.pid, 4242);
  assert.equal(Object.hasOwn(started, 'cgroup'), false);
  assert.equal(ended.exitCode, 3);
  assert.deepEqual(ended.survivors, [{ pid: 4250, uid: 1000, state: 'D', comm: 'fuse worker', denied: false }]);
  assert.deepEqual(ended.starter, { exitStatus: 3, signal: null });
  assert.equal(Object.hasOwn(ended, 'energy'), false);
  assert.equal(ended.raw.energy.joules, 4, 'the new field stays in raw');
});

// An ended fixture with usage as its usage: the figures a test names, not
// the fixture's, so that a figure the fixtures gain changes no test here.
function endedWithUsage(usage) {
  return JSON.stringify({ ...JSON.parse(fixture('ended.jsonl')[0]), usage });
}

// Every figure this package knows by name, as the JSON has them.
const knownUsage = {
  cpu_ms: 214.5,
  cpu_source: 'cpu.stat',
  memory_peak_bytes: 67108864,
  memory_peak_source: 'memory.peak',
  tasks_peak: 3,
  tasks_peak_source: 'pids.peak',
  forks_refused: 0,
};

test('a usage figure this version does not know reaches the record under its camelCase name', () => {
  const rec = parseRecord(endedWithUsage({ cpu_throttled_ms: 12.5, io_pressure_source: 'io.pressure', energy_uj: 7 }));
  assert.equal(rec.usage.cpuThrottledMs, 12.5);
  assert.equal(rec.usage.ioPressureSource, 'io.pressure');
  assert.equal(rec.usage.energyUj, 7);
  assert.equal(Object.hasOwn(rec.usage, 'cpu_throttled_ms'), false, 'under its camelCase name only');
});

test('the usage figures known by name keep their names, values and checks beside an unknown one', () => {
  const rec = parseRecord(endedWithUsage({ ...knownUsage, cpu_throttled_ms: 3 }));
  assert.deepEqual(rec.usage, {
    cpuMs: 214.5,
    cpuSource: 'cpu.stat',
    memoryPeakBytes: 67108864,
    memoryPeakSource: 'memory.peak',
    tasksPeak: 3,
    tasksPeakSource: 'pids.peak',
    forksRefused: 0,
    cpuThrottledMs: 3,
  });
  assert.throws(() => parseRecord(endedWithUsage({ ...knownUsage, cpu_throttled_ms: 3, tasks_peak: 1.5 })), {
    code: 'ERR_SESSION_STARTER_BAD_RECORD',
    message: /ended record\.usage\.tasks_peak: 1\.5 is not of type optInt/,
  });
});

test('a usage figure this version does not know is refused when it is not a number or a string', () => {
  for (const v of [{ usec: 1 }, [1, 2], true, false]) {
    assert.throws(() => parseRecord(endedWithUsage({ cpu_throttled_ms: v })), {
      name: 'RecordError',
      code: 'ERR_SESSION_STARTER_BAD_RECORD',
      message: `ended record.usage.cpu_throttled_ms: ${JSON.stringify(v)} is not of type optFigure`,
    }, JSON.stringify(v));
  }
});

test('a usage figure this version does not know is left out when it is null', () => {
  const rec = parseRecord(endedWithUsage({ cpu_throttled_ms: null }));
  assert.equal(Object.hasOwn(rec.usage, 'cpuThrottledMs'), false);
});

test('each invalid record fixture is refused', () => {
  for (const line of fixture('records-invalid.txt')) {
    assert.throws(() => parseRecord(line), (err) => err instanceof RecordError && err.code === 'ERR_SESSION_STARTER_BAD_RECORD', line);
  }
});

// A stream that yields its text one byte at a time: records split across
// reads still parse.
function byteStream(text) {
  return Readable.from(Buffer.from(text).toString('latin1').split('').map((c) => Buffer.from(c, 'latin1')));
}

test('readRecords reads each record of a stream, the last without a newline too', async () => {
  const [started] = fixture('started.jsonl');
  const [ended] = fixture('ended.jsonl');
  const got = [];
  for await (const rec of readRecords(byteStream(`${started}\n\n${ended}`))) {
    got.push(rec.event);
  }
  assert.deepEqual(got, ['started', 'ended']);
});

test('readEnded returns the ended record, without reading on or destroying the stream', async () => {
  const [started] = fixture('started.jsonl');
  const [ended] = fixture('ended.jsonl');
  const stream = byteStream(`${started}\n${ended}\nnot JSON\n`);
  const rec = await readEnded(stream);
  assert.equal(rec.exitCode, 3);
  assert.equal(stream.destroyed, false);
});

test('readEnded of records without an ended record', async () => {
  const [started] = fixture('started.jsonl');
  await assert.rejects(readEnded(byteStream(`${started}\n`)), { code: 'ERR_SESSION_STARTER_NO_ENDED' });
  await assert.rejects(readEnded(byteStream('')), { code: 'ERR_SESSION_STARTER_NO_ENDED' });
});

test('readEnded stops at a record that is not one', async () => {
  const [ended] = fixture('ended.jsonl');
  for (const bad of fixture('records-invalid.txt')) {
    await assert.rejects(readEnded(byteStream(`${bad}\n${ended}\n`)), { code: 'ERR_SESSION_STARTER_BAD_RECORD' }, bad);
  }
});

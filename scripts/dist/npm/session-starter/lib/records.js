'use strict';

// The wire format session-starter speaks to a launcher, read as the Go
// package starter/launch reads it (ParseAck, ReadEnded): the ack line on
// its stdout and the status records on its --status-fd. The fixtures of
// starter/launch/testdata/records are the schema; the tests parse every
// one of them, here as in Go and Python.
//
// A record's fields are only ever added: a field this module does not
// know is left out of the typed record (it stays in record.raw), but for
// the usage figures, which pass through; an event it does not know is
// returned as { event, raw }. A known field of the wrong type is an
// error, as in Go; a known field that is missing, or null where null is
// not one of its values, takes its zero value (0, false, '', []), as Go's
// encoding/json leaves it.

// ackPrefix is how the ack line begins: session_containment is its first
// key, and 1 the only value defined.
const ackPrefix = '{"session_containment":1,';

// maxAckLine bounds the first line read as the ack. The ack is about 60
// bytes; a longer first line is not an ack.
const maxAckLine = 1024;

class RecordError extends Error {
  constructor(message, code) {
    super(message);
    this.name = 'RecordError';
    this.code = code;
  }
}

function quote(line) {
  const s = String(line);
  return JSON.stringify(s.length > 120 ? `${s.slice(0, 120)}…` : s);
}

/**
 * Checks an ack line (its newline optional) and returns the Engine's PID
 * and the containment mode. The line must be one JSON object whose first
 * key is session_containment with the value 1, with an integer pid > 1 and
 * a non-empty string mode; other keys are ignored. Throws a RecordError
 * (code ERR_SESSION_STARTER_MALFORMED_ACK) otherwise.
 */
function parseAck(line) {
  let s = Buffer.isBuffer(line) ? line.toString('utf8') : String(line);
  if (s.endsWith('\n')) {
    s = s.slice(0, -1);
  }
  const bad = (why) => new RecordError(`${quote(s)}: ${why}`, 'ERR_SESSION_STARTER_MALFORMED_ACK');
  if (!s.startsWith(ackPrefix) || s.includes('\n')) {
    throw bad(`not one line beginning with ${ackPrefix}`);
  }
  let a;
  try {
    a = JSON.parse(s);
  } catch (err) {
    throw bad(err.message);
  }
  if (a.session_containment !== 1) {
    throw bad('session_containment is not 1');
  }
  if (!Number.isInteger(a.pid) || a.pid <= 1) {
    throw bad('no pid > 1');
  }
  if (typeof a.mode !== 'string' || a.mode === '') {
    throw bad('no mode');
  }
  return { pid: a.pid, mode: a.mode };
}

// Kinds of field: each checks a JSON value and converts it, or throws.
// null is the value of the nullable kinds, and the zero value of the
// others (as encoding/json leaves a field that gets null).
const kinds = {
  string: { zero: '', ok: (v) => typeof v === 'string' },
  bool: { zero: false, ok: (v) => typeof v === 'boolean' },
  int: { zero: 0, ok: (v) => Number.isInteger(v) },
  number: { zero: 0, ok: (v) => typeof v === 'number' },
  intOrNull: { zero: null, ok: (v) => Number.isInteger(v) },
  stringOrNull: { zero: null, ok: (v) => typeof v === 'string' },
  // An optional string: left out of the record where the JSON has none.
  optString: { zero: undefined, ok: (v) => typeof v === 'string' },
  // An optional list of integers (PIDs): left out where the JSON has none.
  optIntList: { zero: undefined, ok: (v) => Array.isArray(v) && v.every((e) => Number.isInteger(e)) },
  optStringList: { zero: undefined, ok: (v) => Array.isArray(v) && v.every((e) => typeof e === 'string') },
  // Optional numbers: left out where the JSON has none.
  optInt: { zero: undefined, ok: (v) => Number.isInteger(v) },
  optNumber: { zero: undefined, ok: (v) => typeof v === 'number' },
  // A figure this module does not know by name: a number or a string.
  optFigure: { zero: undefined, ok: (v) => typeof v === 'number' || typeof v === 'string' },
};

// The fields of each record: JSON name → [property, kind]. Kinds that are
// field tables are nested objects; an array of one table is a list of them.
const starterFields = {
  exit_status: ['exitStatus', 'int'],
  signal: ['signal', 'stringOrNull'],
};
const survivorFields = {
  pid: ['pid', 'int'],
  uid: ['uid', 'int'],
  state: ['state', 'string'],
  comm: ['comm', 'string'],
  denied: ['denied', 'bool'],
};
// usage: each figure is there only where its counter is ({ optional:
// table } is an object left out where the JSON has none). A figure not in
// the table passes through under its camelCase name, checked by the kind
// others names, so a figure session-starter adds reaches users unedited.
const usageFields = {
  cpu_ms: ['cpuMs', 'optNumber'],
  cpu_source: ['cpuSource', 'optString'],
  memory_peak_bytes: ['memoryPeakBytes', 'optInt'],
  memory_peak_source: ['memoryPeakSource', 'optString'],
  tasks_peak: ['tasksPeak', 'optInt'],
  tasks_peak_source: ['tasksPeakSource', 'optString'],
  forks_refused: ['forksRefused', 'optInt'],
};
const startedFields = {
  event: ['event', 'string'],
  pid: ['pid', 'int'],
  pgid: ['pgid', 'int'],
  mode: ['mode', 'string'],
  guard_pid: ['guardPid', 'int'],
  time: ['time', 'string'],
  session: ['session', 'optString'],
  argv: ['argv', 'optStringList'],
};
const endedFields = {
  event: ['event', 'string'],
  reason: ['reason', 'string'],
  mode: ['mode', 'optString'],
  executed: ['executed', 'bool'],
  exit_code: ['exitCode', 'intOrNull'],
  signal: ['signal', 'stringOrNull'],
  core_dumped: ['coreDumped', 'bool'],
  outcome: ['outcome', 'optString'],
  released: ['released', 'optIntList'],
  members_seen: ['membersSeen', 'int'],
  escapees_seen: ['escapeesSeen', 'int'],
  kill_rounds: ['killRounds', 'int'],
  graceful: ['graceful', 'bool'],
  survivors: ['survivors', [survivorFields]],
  duration_ms: ['durationMs', 'number'],
  group_end_ms: ['groupEndMs', 'number'],
  starter: ['starter', starterFields],
  report: ['report', 'optString'],
  time: ['time', 'string'],
  oom_kills: ['oomKills', 'optInt'],
  usage: ['usage', { optional: usageFields, others: 'optFigure' }],
};

function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

// camel is a JSON name in camelCase, as the typed records spell it.
function camel(key) {
  return key.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
}

// convert reads the JSON object obj by the field table fields; where
// names the object in errors. With others (a kind), each key not in the
// table is read by that kind under its camelCase name, unless the table
// has a property of that name; without, it is left out.
function convert(obj, fields, where, others) {
  if (!isObject(obj)) {
    throw new RecordError(`${where}: ${JSON.stringify(obj)} is not an object`, 'ERR_SESSION_STARTER_BAD_RECORD');
  }
  const out = {};
  for (const [key, [prop, kind]] of Object.entries(fields)) {
    const v = Object.hasOwn(obj, key) ? obj[key] : undefined;
    out[prop] = convertValue(v, kind, `${where}.${key}`);
    if (out[prop] === undefined) {
      delete out[prop];
    }
  }
  if (others !== undefined) {
    const known = new Set(Object.values(fields).map(([prop]) => prop));
    for (const [key, v] of Object.entries(obj)) {
      const prop = camel(key);
      if (Object.hasOwn(fields, key) || known.has(prop)) {
        continue;
      }
      const got = convertValue(v, others, `${where}.${key}`);
      if (got !== undefined) {
        out[prop] = got;
      }
    }
  }
  return out;
}

function convertValue(v, kind, where) {
  if (Array.isArray(kind)) {
    if (v === undefined || v === null) {
      return [];
    }
    if (!Array.isArray(v)) {
      throw new RecordError(`${where}: ${JSON.stringify(v)} is not an array`, 'ERR_SESSION_STARTER_BAD_RECORD');
    }
    return v.map((e, i) => convert(e, kind[0], `${where}[${i}]`));
  }
  if (typeof kind === 'object' && kind.optional) {
    return v === undefined || v === null ? undefined : convert(v, kind.optional, where, kind.others);
  }
  if (typeof kind === 'object') {
    return convert(v === undefined || v === null ? {} : v, kind, where);
  }
  const k = kinds[kind];
  if (v === undefined || v === null) {
    return k.zero;
  }
  if (!k.ok(v)) {
    throw new RecordError(`${where}: ${JSON.stringify(v)} is not of type ${kind}`, 'ERR_SESSION_STARTER_BAD_RECORD');
  }
  return v;
}

/**
 * Reads one status record, one line of JSON as session-starter writes it
 * on --status-fd: a started or an ended record, typed (camelCase
 * properties; record.raw is the object as written), or { event, raw } for
 * an event this version does not know. Throws a RecordError (code
 * ERR_SESSION_STARTER_BAD_RECORD) for a line that is not a JSON object, or
 * a known field of the wrong type.
 */
function parseRecord(line) {
  const s = Buffer.isBuffer(line) ? line.toString('utf8') : String(line);
  let raw;
  try {
    raw = JSON.parse(s);
  } catch (err) {
    throw new RecordError(`status record ${quote(s)}: ${err.message}`, 'ERR_SESSION_STARTER_BAD_RECORD');
  }
  if (!isObject(raw)) {
    throw new RecordError(`status record ${quote(s)}: not a JSON object`, 'ERR_SESSION_STARTER_BAD_RECORD');
  }
  const event = convertValue(raw.event, 'string', 'status record.event');
  let rec;
  if (event === 'started') {
    rec = convert(raw, startedFields, 'started record');
  } else if (event === 'ended') {
    rec = convert(raw, endedFields, 'ended record');
  } else {
    rec = { event };
  }
  rec.raw = raw;
  return rec;
}

/**
 * The status records read from a stream (the status descriptor), one a
 * line, as an async iterator; it ends with the stream. A bad record
 * throws (see parseRecord). Leaving the loop early does not destroy the
 * stream.
 */
async function* readRecords(stream) {
  let buf = '';
  const chunks = typeof stream.iterator === 'function' ? stream.iterator({ destroyOnReturn: false }) : stream;
  for await (const chunk of chunks) {
    buf += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line.trim() !== '') {
        yield parseRecord(line);
      }
    }
  }
  if (buf.trim() !== '') {
    yield parseRecord(buf);
  }
}

/**
 * Reads the status records from a stream and resolves with the ended
 * record, which is always the last, as soon as it has been read. Rejects
 * with a RecordError of code ERR_SESSION_STARTER_NO_ENDED when the stream
 * ends first (session-starter was SIGKILLed), or the error of a bad
 * record.
 */
async function readEnded(stream) {
  for await (const rec of readRecords(stream)) {
    if (rec.event === 'ended') {
      return rec;
    }
  }
  throw new RecordError('the status records end without an ended record', 'ERR_SESSION_STARTER_NO_ENDED');
}

module.exports = { RecordError, parseAck, parseRecord, readRecords, readEnded, maxAckLine };

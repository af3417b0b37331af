'use strict';

// call() runs one command as a session of its own, for an Engine's
// per-call commands: an MCP server written for Node runs each tool call's
// command through call() instead of child_process, so that when it exits,
// times out or is aborted every process it started ends too (a background
// job, a setsid daemon), and its output pipes reach end of file. The result
// says whether the command may be retried: only 'not-started' may.

const { LaunchError, durationOption, launch } = require('./launch.js');
const { runForRecord } = require('./reclaim.js');

const notStarted = 'not-started';
const started = 'started';
const unclear = 'unclear';

// The LaunchError codes and kinds after which provably nothing was
// executed: session-starter refused, or exited before its ack (which comes
// before the go-ahead), or never started.
const nothingRanCodes = new Set([
  'ERR_SESSION_STARTER_INVALID_OPTION',
  'ERR_SESSION_STARTER_BINARY_MISSING',
  'ERR_SESSION_STARTER_NOT_INSTALLED',
  'ERR_SESSION_STARTER_UNSUPPORTED_PLATFORM',
  'ERR_SESSION_STARTER_SPAWN',
]);
const nothingRanKinds = new Set(['usage', 'containment', 'cannot-execute', 'not-found']);

function nothingRan(err) {
  if (nothingRanCodes.has(err.code) || nothingRanKinds.has(err.kind)) {
    return true;
  }
  // Aborted before session-starter was spawned.
  return err.code === 'ERR_SESSION_STARTER_ABORTED' && err.exitCode === null && err.signal === null;
}

// defaultDrainMs bounds how long output is still read after
// session-starter has exited, as contain.DefaultDrain does for Go's calls:
// past it, a pipe still held open (by what a released call left running)
// is closed.
const defaultDrainMs = 500;

// defaultMaxBuffer bounds what call() keeps of stdout and of stderr, in
// bytes, each: 100 MiB, about execa's default.
const defaultMaxBuffer = 100 * 1024 * 1024;

/**
 * The error of a call whose stdout or stderr went past maxBuffer: the
 * output holds the first maxBuffer bytes, and the call was ended if it
 * still ran.
 */
class MaxBufferError extends Error {
  constructor(stream, maxBuffer) {
    super(`session-starter: call(): ${stream} went past maxBuffer (${maxBuffer} bytes): it holds the first ${maxBuffer} bytes, and the call was ended`);
    this.name = 'MaxBufferError';
    this.code = 'ERR_SESSION_STARTER_MAX_BUFFER';
    this.stream = stream;
    this.maxBuffer = maxBuffer;
  }
}

// Capture keeps at most max bytes of one output stream; past them it calls
// over once and drops the rest, so that the writer is never blocked.
class Capture {
  constructor(max, over) {
    this.chunks = [];
    this.size = 0;
    this.max = max;
    this.over = over;
    this.exceeded = false;
  }

  write(chunk) {
    const b = Buffer.from(chunk);
    const room = this.max - this.size;
    if (b.length > room) {
      if (room > 0) {
        this.chunks.push(b.subarray(0, room));
        this.size = this.max;
      }
      if (!this.exceeded) {
        this.exceeded = true;
        this.over();
      }
      return;
    }
    this.chunks.push(b);
    this.size += b.length;
  }

  value() {
    return Buffer.concat(this.chunks);
  }
}

// ended resolves once stream has delivered its last byte (its end, close
// or error).
function ended(stream) {
  if (stream.destroyed || stream.readableEnded) {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', resolve);
  });
}

// drainOption checks drain (milliseconds, more than 0; 0 or undefined is
// the default) and returns it.
function drainOption(options) {
  const ms = options.drain;
  if (ms === undefined || ms === 0) {
    return defaultDrainMs;
  }
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
    throw new LaunchError('ERR_SESSION_STARTER_INVALID_OPTION', `session-starter: drain ${String(ms)}: want a number of milliseconds, 0 or more`);
  }
  return ms;
}

// maxBufferOption checks maxBuffer (bytes, more than 0, or Infinity for no
// bound; undefined is the default) and returns it.
function maxBufferOption(options) {
  const n = options.maxBuffer;
  if (n === undefined) {
    return defaultMaxBuffer;
  }
  if (typeof n !== 'number' || !(n > 0) || !(Number.isInteger(n) || n === Infinity)) {
    throw new LaunchError('ERR_SESSION_STARTER_INVALID_OPTION', `session-starter: maxBuffer ${String(n)}: want a number of bytes, more than 0, or Infinity`);
  }
  return n;
}

// endReleased runs `bin --end-released ID` for a call's result: it ends
// this user's processes that carry the call's session id, and resolves
// with the PIDs left alive. See CallResult.endReleased in index.d.ts.
async function endReleased(ended, session, bin, options) {
  if (ended?.outcome !== 'released') {
    throw new LaunchError('ERR_SESSION_STARTER_NOT_RELEASED', 'session-starter: endReleased(): the call was not released: it left nothing running');
  }
  if (!session) {
    throw new LaunchError('ERR_SESSION_STARTER_NOT_RELEASED', 'session-starter: endReleased(): the call has no session id (its started record is missing)');
  }
  if (process.platform !== 'linux') {
    throw new LaunchError(
      'ERR_SESSION_STARTER_UNSUPPORTED_PLATFORM',
      'session-starter: endReleased(): Linux only (pidfds); the enclosing session ends what the call left',
    );
  }
  const o = options ?? {};
  const flags = ['--end-released', session, ...durationOption(o, 'grace', '--grace'), ...durationOption(o, 'killBudget', '--kill-budget')];
  const record = await runForRecord(bin, flags, 'ended-released', 'ERR_SESSION_STARTER_END_RELEASED');
  return (record.left ?? []).map(Number).sort((a, b) => a - b);
}

// notReleased is endReleased for a call that made no session.
function notReleased() {
  return endReleased(null, null, null);
}

/**
 * Runs cmd with args as a session of its own and resolves, once
 * session-starter has exited and its output is read, with { outcome,
 * exitCode, signal, stdout, stderr, ended, error, timedOut, outputHeld,
 * session, endReleased() }.
 * outcome is 'not-started' (provably nothing was executed: the only
 * outcome after which the call may be started again), 'started', or
 * 'unclear' (no ended record, or no ack: whether it ran cannot be known).
 * It never rejects for the command's failure: a session that could not be
 * made resolves with error set (a LaunchError), and so does output past
 * maxBuffer (a MaxBufferError).
 * Options: those of launch() (timeout, grace, stopSignal, killBudget,
 * containment, env, cwd, binary, extraFlags, signal; stderr and status are
 * call()'s), input (a string or Buffer written to the command's stdin,
 * which is then closed), releaseOnExit (what the command left running
 * when it exits on its own stays, for the enclosing session to end:
 * --release-on-exit, which needs one), drain (how long output is still
 * read after session-starter has exited: 500 ms if 0) and maxBuffer (the
 * bytes kept of stdout and of stderr, each: 100 MiB by default; past it
 * the call is ended).
 */
async function call(cmd, args, options) {
  if (!Array.isArray(args) && options === undefined) {
    options = args;
    args = [];
  }
  options = { ...(options ?? {}) };
  const input = options.input;
  delete options.input;
  if (options.releaseOnExit) {
    options.extraFlags = ['--release-on-exit', ...(options.extraFlags ?? [])];
  }
  delete options.releaseOnExit;
  let drainMs = defaultDrainMs;
  let maxBuffer = defaultMaxBuffer;
  let session = null;
  let exceeded = null;
  const over = (stream) => () => {
    exceeded ??= new MaxBufferError(stream, maxBuffer);
    session?.stop();
  };
  const stdout = new Capture(Infinity, over('stdout'));
  const stderr = new Capture(Infinity, over('stderr'));
  options.stderr = stderr;
  options.status = true;
  try {
    drainMs = drainOption(options);
    maxBuffer = maxBufferOption(options);
    delete options.drain;
    delete options.maxBuffer;
    stdout.max = maxBuffer;
    stderr.max = maxBuffer;
    session = await launch(cmd, args ?? [], options);
  } catch (err) {
    if (!(err instanceof LaunchError)) {
      throw err;
    }
    return {
      outcome: nothingRan(err) ? notStarted : unclear,
      exitCode: err.exitCode,
      signal: err.signal,
      stdout: Buffer.alloc(0),
      stderr: stderr.value(),
      ended: null,
      error: err,
      timedOut: false,
      outputHeld: false,
      session: null,
      endReleased: notReleased,
    };
  }
  if (exceeded !== null) {
    session.stop(); // stderr went past maxBuffer before the ack
  }
  session.stdin.on('error', () => {}); // the command stopped reading
  session.stdin.end(input ?? undefined);
  session.stdout.on('data', (c) => stdout.write(c));
  const outputs = [session.stdout, session.process.stderr];
  const read = Promise.all(outputs.map(ended));
  const status = await session.wait();
  // The call is over: what it left running (released) may hold the
  // pipes, so they are read for at most the drain bound, then closed.
  session.stdin.destroy();
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve(false), drainMs);
  });
  const outputHeld = !(await Promise.race([read.then(() => true), late]));
  clearTimeout(timer);
  for (const s of outputs) {
    s.destroy();
  }
  let endedRecord = null;
  try {
    endedRecord = await session.ended;
  } catch {
    endedRecord = null; // a bad record: not known
  }
  const sid = session.records.find((r) => r.event === 'started')?.session ?? null;
  const bin = session.process.spawnfile;
  let outcome = unclear;
  if (endedRecord !== null) {
    outcome = endedRecord.executed ? started : notStarted;
  }
  return {
    outcome,
    exitCode: status.exitCode,
    signal: status.signal,
    stdout: stdout.value(),
    stderr: stderr.value(),
    ended: endedRecord,
    error: exceeded,
    timedOut: endedRecord !== null && endedRecord.reason === 'timeout',
    outputHeld,
    session: sid,
    endReleased: (opts) => endReleased(endedRecord, sid, bin, opts),
  };
}

module.exports = { call, notStarted, started, unclear, MaxBufferError, defaultDrainMs, defaultMaxBuffer };

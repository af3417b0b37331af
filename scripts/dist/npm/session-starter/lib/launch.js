'use strict';

// launch() starts an Engine under session-starter, as the Go package
// starter/launch does (launch.Start): it spawns the native binary itself,
// with no Node process between the launcher and session-starter, passing
// "--ack --parent-pid <this process's PID>" (which implies
// --watch-parent), a control pipe and a status pipe, and the flags of its
// typed options; it reads the ack line within a bound and resolves with a
// Session whose stdin and stdout are the Engine's.
//
// Guarantees. A rejection of launch() is a LaunchError and means there is
// no session: session-starter exited before its ack (nothing was executed:
// the exit status says why — 2 usage, 125 containment, 126 and 127
// PROGRAM), or it was SIGKILLed because its first line was not an ack or
// none came within the ack timeout (its guard then ends anything it had
// started), or it never started (no binary); in every case it has been
// reaped. No 'error' event of the child or of its streams goes unhandled.
// A Session's stop() ends the session and resolves with session-starter's
// status, which mirrors the Engine's, within the stop timeout; past it
// session-starter is SIGKILLed (its guard ends the Engine's group) and the
// status says so (killed).

const { spawn } = require('node:child_process');
const fs = require('node:fs');

const { binaryPath } = require('./binary.js');
const { RecordError, parseAck, parseRecord, maxAckLine } = require('./records.js');

// defaultKillBudgetMs is session-starter's --kill-budget default
// (launch.DefaultKillBudget).
const defaultKillBudgetMs = 10000;

// endSlackMs is what the end of a session may take past its deadline, the
// grace plus the kill budget (launch.EndSlack).
const endSlackMs = 250;

// stopSlackMs is how long past the end's bound stop() waits before it
// SIGKILLs session-starter, as launch.DefaultWaitDelay adds it: a
// session-starter still ending a large group is not interrupted.
const stopSlackMs = 5000;

// defaultAckTimeoutMs bounds the wait for the ack line
// (launch.DefaultAckTimeout). session-starter acknowledges within
// milliseconds; its gate and its guard each give up after 30 s (a stuck
// fork, a machine out of memory), so one that has said nothing after both
// is not going to. At the limit it is SIGKILLed and launch() rejects with
// ERR_SESSION_STARTER_ACK_TIMEOUT.
const defaultAckTimeoutMs = 60000;

// maxDurationMs bounds every duration session-starter reads: 100 years
// (launch.MaxDuration).
const maxDurationMs = 100 * 365 * 24 * 3600 * 1000;

// stderrTail is how much of session-starter's stderr a session keeps for
// error reports: its own reports are one line each, and the Engine's last
// words before an early exit fit too.
const stderrTail = 4096;

// requestEnv is the variable by which a launcher asks a Go Engine to
// contain itself (launch.RequestEnv); it is removed from the Engine's
// environment, or a Go Engine would write a second ack.
const requestEnv = 'SESSION_STARTER_CONTAIN';

// The exit statuses by which session-starter says why there is no
// session, before its ack.
const whyNoAck = {
  2: ['usage', 'a usage error (a bad flag, duration or descriptor): nothing was started'],
  125: ['containment', 'containment could not be established, or the launcher was gone: nothing was executed'],
  126: ['cannot-execute', 'PROGRAM was found but cannot be executed'],
  127: ['not-found', 'PROGRAM was not found'],
};

// The flags launch() sets itself or from a typed option: not accepted
// among extraFlags, so that each is said once and the stop timeout is
// derived from what session-starter gets.
const ownFlags = new Set([
  '--ack',
  '--parent-pid',
  '--watch-parent',
  '--control-fd',
  '--status-fd',
  '--grace',
  '-k',
  '--stop-signal',
  '-s',
  '--timeout',
  '--kill-budget',
  '--containment',
  '--watch-stdin',
  '--stdin-grace',
  '--',
]);

/**
 * The error of launch(): there is no session. code says what happened;
 * exitCode and signal how session-starter ended (null if it never
 * started), kind why it exited before the ack (from its exit status),
 * line what was read in the ack's place, stderr the last 4 KiB of its
 * stderr.
 */
class LaunchError extends Error {
  constructor(code, message, fields = {}) {
    super(message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = 'LaunchError';
    this.code = code;
    this.exitCode = fields.exitCode ?? null;
    this.signal = fields.signal ?? null;
    this.kind = fields.kind;
    this.line = fields.line ?? '';
    this.stderr = fields.stderr ?? '';
  }
}

// binaryOf is the session-starter that options.binary names, else the
// package's own (binaryPath()); a LaunchError says what is wrong.
function binaryOf(options) {
  const bin = options.binary;
  if (bin === undefined) {
    try {
      return binaryPath();
    } catch (err) {
      throw new LaunchError(err.code, err.message, { cause: err });
    }
  }
  if (typeof bin !== 'string' || bin === '') {
    throw invalid('binary: want the path of session-starter');
  }
  return bin;
}

function invalid(message) {
  return new LaunchError('ERR_SESSION_STARTER_INVALID_OPTION', `session-starter: ${message}`);
}

// durationArg returns session-starter's spelling of ms milliseconds: whole
// milliseconds as they are, else whole nanoseconds (at least 1, so that a
// positive duration stays positive), which Go's duration syntax reads.
function durationArg(ms) {
  if (Number.isInteger(ms)) {
    return `${ms}ms`;
  }
  return `${Math.max(1, Math.round(ms * 1e6))}ns`;
}

// durationOption checks the option name (milliseconds, 0 or more; 0 or
// undefined leaves the flag out) and returns its flag and value, if any.
function durationOption(options, name, flag) {
  const ms = options[name];
  if (ms === undefined || ms === 0) {
    return [];
  }
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
    throw invalid(`${name} ${String(ms)}: want a number of milliseconds, 0 or more`);
  }
  if (ms > maxDurationMs) {
    throw invalid(`${name} ${ms}: out of range (at most 100 years)`);
  }
  return [flag, durationArg(ms)];
}

/**
 * The longest a session's end takes, from the stop to session-starter's
 * exit, with the given grace and kill budget in milliseconds (0: the
 * default): grace + kill budget + 250 ms (launch.Ending.EndBound).
 */
function endBound(graceMs = 0, killBudgetMs = 0) {
  return Math.max(graceMs, 0) + (killBudgetMs > 0 ? killBudgetMs : defaultKillBudgetMs) + endSlackMs;
}

// flagsOf checks options and returns session-starter's flags for them,
// and the stop timeout.
function flagsOf(options) {
  const flags = [
    ...durationOption(options, 'grace', '--grace'),
    ...durationOption(options, 'timeout', '--timeout'),
    ...durationOption(options, 'killBudget', '--kill-budget'),
    ...durationOption(options, 'stdinGrace', '--stdin-grace'),
  ];
  if (options.watchStdin !== undefined) {
    if (typeof options.watchStdin !== 'boolean') {
      throw invalid(`watchStdin ${String(options.watchStdin)}: want true or false`);
    }
    if (options.watchStdin) {
      flags.push('--watch-stdin');
    }
  }
  if (flags.includes('--stdin-grace') && !options.watchStdin) {
    throw invalid('stdinGrace needs watchStdin, as --stdin-grace needs --watch-stdin');
  }
  const sig = options.stopSignal;
  if (sig !== undefined) {
    if (!(typeof sig === 'string' && sig !== '') && !(Number.isInteger(sig) && sig > 0)) {
      throw invalid(`stopSignal ${String(sig)}: want a signal name (TERM, SIGINT) or number`);
    }
    flags.push('--stop-signal', String(sig));
  }
  if (options.containment !== undefined) {
    if (typeof options.containment !== 'string' || options.containment === '') {
      throw invalid(`containment ${String(options.containment)}: want auto, group or cgroup`);
    }
    flags.push('--containment', options.containment);
  }
  const extra = options.extraFlags ?? [];
  if (!Array.isArray(extra) || !extra.every((f) => typeof f === 'string')) {
    throw invalid('extraFlags: want an array of strings');
  }
  for (const f of extra) {
    const name = f.split('=', 1)[0];
    if (ownFlags.has(name)) {
      throw invalid(`extraFlags: ${name} is set by launch() or by one of its options`);
    }
  }
  flags.push(...extra);
  let stopTimeout = options.stopTimeout;
  if (stopTimeout === undefined || stopTimeout === 0) {
    stopTimeout = endBound(options.grace ?? 0, options.killBudget ?? 0) + stopSlackMs;
  } else if (typeof stopTimeout !== 'number' || !(stopTimeout > 0)) {
    throw invalid(`stopTimeout ${String(stopTimeout)}: want a number of milliseconds, more than 0`);
  }
  return { flags, stopTimeout };
}

function ackTimeoutOf(options) {
  const t = options.ackTimeout;
  if (t === undefined || t === 0) {
    return defaultAckTimeoutMs;
  }
  if (typeof t !== 'number' || !(t > 0)) {
    throw invalid(`ackTimeout ${String(t)}: want a number of milliseconds, more than 0`);
  }
  return t;
}

// withoutRequest copies env without requestEnv.
function withoutRequest(env) {
  const out = {};
  for (const [k, v] of Object.entries(env)) {
    if (k !== requestEnv && v !== undefined) {
      out[k] = v;
    }
  }
  return out;
}

// Tail keeps the last stderrTail bytes written to it.
class Tail {
  constructor() {
    this.chunks = [];
    this.size = 0;
  }

  push(chunk) {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - this.chunks[0].length >= stderrTail) {
      this.size -= this.chunks.shift().length;
    }
  }

  toString() {
    const b = Buffer.concat(this.chunks);
    return b.subarray(Math.max(0, b.length - stderrTail)).toString('utf8');
  }
}

// describeExit is "exited N" or "was killed by SIGNAL", with why for a
// status that explains a missing ack.
function describeExit(code, signal) {
  if (signal !== null) {
    return `session-starter was killed by ${signal}`;
  }
  const why = whyNoAck[code];
  return `session-starter exited ${code}${why ? ` (${why[1]})` : ''}`;
}

/**
 * An Engine running under session-starter, with containment
 * acknowledged. See index.d.ts for each member.
 */
class Session {
  constructor(child, ack, state) {
    this.pid = ack.pid;
    this.mode = ack.mode;
    this.process = child;
    this.starterPid = child.pid;
    this.stdin = child.stdin;
    this.stdout = child.stdout;
    this.control = state.control;
    this.records = state.records;
    this.started = state.started;
    this.ended = state.ended;
    this.exited = state.exited;
    this._state = state;
  }

  get exitCode() {
    return this._state.status ? this._state.status.exitCode : null;
  }

  get signalCode() {
    return this._state.status ? this._state.status.signal : null;
  }

  /** Resolves with session-starter's status once it has exited. */
  wait() {
    return this.exited;
  }

  /**
   * Ends the session: closes the control pipe (without one, sends SIGTERM
   * to session-starter), which ends the Engine's group, and resolves with
   * session-starter's status. If session-starter has not exited within
   * the stop timeout it is SIGKILLed, and the status has killed: true.
   */
  stop() {
    this._state.stop();
    return this.exited;
  }

  /** The last 4 KiB of session-starter's stderr (which is also the Engine's) so far. */
  stderrTail() {
    return this._state.tail.toString();
  }
}

/**
 * Starts cmd with args under session-starter and resolves with a Session
 * once session-starter has acknowledged containment. See index.d.ts for
 * the options.
 */
async function launch(cmd, args, options) {
  if (!Array.isArray(args) && options === undefined) {
    options = args;
    args = [];
  }
  options = options ?? {};
  args = args ?? [];
  if (typeof cmd !== 'string' || cmd === '') {
    throw invalid('no Engine command (cmd is empty)');
  }
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) {
    throw invalid('args: want an array of strings');
  }
  const { flags, stopTimeout } = flagsOf(options);
  const ackTimeout = ackTimeoutOf(options);
  const windows = process.platform === 'win32';
  // On Windows --control-fd and --status-fd take handle values, which
  // Node's extra stdio do not pass: there stop() terminates
  // session-starter, whose kill-on-close job ends the Engine's tree.
  const wantControl = options.control ?? !windows;
  const wantStatus = options.status ?? !windows;
  if (windows && (wantControl || wantStatus)) {
    throw invalid('control and status pipes: not supported on Windows by this package');
  }
  const stderrTo = options.stderr ?? 'forward';
  if (stderrTo !== 'forward' && stderrTo !== 'ignore' && typeof stderrTo?.write !== 'function') {
    throw invalid("stderr: want 'forward', 'ignore' or a writable stream");
  }
  if (options.cwd !== undefined && !(typeof options.cwd === 'string' && fs.statSync(options.cwd, { throwIfNoEntry: false })?.isDirectory())) {
    throw invalid(`cwd ${String(options.cwd)}: no such directory`);
  }
  const abort = options.signal;
  if (abort?.aborted) {
    throw new LaunchError('ERR_SESSION_STARTER_ABORTED', 'session-starter: aborted before the launch', { cause: abort.reason });
  }

  const bin = binaryOf(options);

  const starterArgs = ['--ack', '--parent-pid', String(process.pid)];
  const stdio = ['pipe', 'pipe', 'pipe'];
  let controlFd = -1;
  let statusFd = -1;
  if (wantControl) {
    controlFd = stdio.length;
    stdio.push('pipe');
    starterArgs.push('--control-fd', String(controlFd));
  }
  if (wantStatus) {
    statusFd = stdio.length;
    stdio.push('pipe');
    starterArgs.push('--status-fd', String(statusFd));
  }
  starterArgs.push(...flags, '--', cmd, ...args);

  let child;
  try {
    child = spawn(bin, starterArgs, {
      stdio,
      cwd: options.cwd,
      env: withoutRequest(options.env ?? process.env),
      windowsHide: true,
    });
  } catch (err) {
    throw new LaunchError('ERR_SESSION_STARTER_SPAWN', `session-starter: ${bin}: ${err.message}`, { cause: err });
  }
  const state = watch(child, { controlFd, statusFd, stderrTo, stopTimeout, windows });

  if (child.pid === undefined) {
    // The spawn failed; its 'error' follows, and no 'exit'.
    await state.exited;
    const err = state.spawnError;
    const missing = err?.code === 'ENOENT';
    throw new LaunchError(
      missing ? 'ERR_SESSION_STARTER_BINARY_MISSING' : 'ERR_SESSION_STARTER_SPAWN',
      `session-starter: ${bin}: ${missing ? 'no such file' : err?.message}`,
      { cause: err },
    );
  }

  let ack;
  let line = '';
  try {
    line = await readAckLine(child, ackTimeout, abort);
    ack = parseAck(line);
  } catch (err) {
    throw await abandon(child, state, err, err.line ?? line, ackTimeout);
  }
  const session = new Session(child, ack, state);
  if (abort) {
    const onAbort = () => session.stop();
    abort.addEventListener('abort', onAbort, { once: true });
    state.exited.then(() => abort.removeEventListener('abort', onAbort));
  }
  return session;
}

// watch attaches the listeners a session needs from its spawn on: every
// 'error' is handled; stderr is copied and its tail kept; the status
// records are read; the exit is recorded and stop() is armed.
function watch(child, { controlFd, statusFd, stderrTo, stopTimeout, windows }) {
  const state = {
    tail: new Tail(),
    records: [],
    status: null,
    spawnError: null,
    control: controlFd >= 0 ? child.stdio[controlFd] : null,
    stopping: false,
    killed: false,
    killTimer: null,
  };
  // Errors on the streams (EPIPE on stdin once the Engine is gone, a
  // stream destroyed by the end) must not crash the launcher; a listener
  // of the caller's sees them too.
  for (const s of child.stdio) {
    s?.on('error', () => {});
  }
  child.stderr.on('data', (chunk) => {
    state.tail.push(chunk);
    if (stderrTo === 'forward') {
      process.stderr.write(chunk);
    } else if (stderrTo !== 'ignore') {
      stderrTo.write(chunk);
    }
  });

  let resolveExit;
  state.exited = new Promise((resolve) => {
    resolveExit = resolve;
  });
  const finish = (exitCode, signal) => {
    if (state.status !== null) {
      return;
    }
    clearTimeout(state.killTimer);
    state.status = { exitCode, signal, killed: state.killed };
    // The end closes what the launcher held for the session.
    state.control?.destroy();
    resolveExit(state.status);
  };
  child.on('exit', (code, signal) => finish(code, signal));
  child.on('error', (err) => {
    // A spawn that failed has no 'exit' (a failed kill is also reported
    // here, and changes nothing).
    if (child.pid === undefined && state.status === null) {
      state.spawnError = err;
      finish(null, null);
    }
  });

  state.stop = () => {
    if (state.status !== null || state.stopping) {
      return;
    }
    state.stopping = true;
    if (state.control !== null && !state.control.destroyed) {
      state.control.destroy();
    } else if (windows) {
      child.kill();
    } else {
      child.kill('SIGTERM');
    }
    state.killTimer = setTimeout(() => {
      if (state.status === null) {
        state.killed = true;
        child.kill('SIGKILL');
      }
    }, stopTimeout);
  };

  // started and ended resolve with their record, or null when the
  // records end without one; a bad record rejects them. Both are handled
  // here, so that a launcher that never looks does not get an unhandled
  // rejection.
  const waiters = { started: null, ended: null };
  state.started = new Promise((resolve, reject) => {
    waiters.started = { resolve, reject };
  });
  state.ended = new Promise((resolve, reject) => {
    waiters.ended = { resolve, reject };
  });
  state.started.catch(() => {});
  state.ended.catch(() => {});
  const settle = (name, how, value) => {
    if (waiters[name] !== null) {
      waiters[name][how](value);
      waiters[name] = null;
    }
  };
  if (statusFd < 0) {
    settle('started', 'resolve', null);
    settle('ended', 'resolve', null);
    return state;
  }
  const status = child.stdio[statusFd];
  let buf = '';
  let failed = false;
  const take = (line) => {
    if (failed || line.trim() === '') {
      return;
    }
    let rec;
    try {
      rec = parseRecord(line);
    } catch (err) {
      failed = true;
      settle('started', 'reject', err);
      settle('ended', 'reject', err);
      return;
    }
    state.records.push(rec);
    if (rec.event === 'started' || rec.event === 'ended') {
      settle(rec.event, 'resolve', rec);
    }
  };
  status.setEncoding('utf8');
  status.on('data', (chunk) => {
    buf += chunk;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      take(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  });
  status.on('close', () => {
    take(buf);
    buf = '';
    settle('started', 'resolve', null);
    settle('ended', 'resolve', null);
  });
  return state;
}

// readAckLine resolves with the first line of session-starter's stdout,
// without its newline, and hands any bytes after it back to the stream,
// so that not a byte of the Engine's is lost. It rejects on the end of
// stdout (ERR_SESSION_STARTER_NO_ACK), a first line too long for an ack,
// the ack timeout and the abort signal, with what was read of the line as
// the error's line.
function readAckLine(child, timeoutMs, abort) {
  const out = child.stdout;
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    let timer = null;
    const done = (err, line) => {
      clearTimeout(timer);
      out.removeListener('readable', onReadable);
      out.removeListener('end', onEnd);
      abort?.removeEventListener('abort', onAbort);
      if (err) {
        err.line = Buffer.concat(chunks).toString('utf8');
        reject(err);
      } else {
        resolve(line);
      }
    };
    const onReadable = () => {
      let chunk;
      while ((chunk = out.read()) !== null) {
        const i = chunk.indexOf(0x0a);
        if (i >= 0) {
          chunks.push(chunk.subarray(0, i));
          const rest = chunk.subarray(i + 1);
          const line = Buffer.concat(chunks).toString('utf8');
          if (rest.length > 0) {
            out.unshift(rest);
          }
          done(null, line);
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
        if (size > maxAckLine) {
          done(new RecordError(`first line longer than ${maxAckLine} bytes`, 'ERR_SESSION_STARTER_MALFORMED_ACK'));
          return;
        }
      }
    };
    const onEnd = () => done(new RecordError('no ack line', 'ERR_SESSION_STARTER_NO_ACK'));
    const onAbort = () => done(new RecordError('aborted before the ack', 'ERR_SESSION_STARTER_ABORTED'));
    out.on('readable', onReadable);
    out.on('end', onEnd);
    abort?.addEventListener('abort', onAbort, { once: true });
    timer = setTimeout(
      () => done(new RecordError(`no ack line within ${timeoutMs} ms`, 'ERR_SESSION_STARTER_ACK_TIMEOUT')),
      timeoutMs,
    );
  });
}

// abandon ends a session-starter that did not acknowledge and returns the
// LaunchError for it. One that ended its stdout is left to exit by itself
// within the ack timeout, so that its own status is reported; any other is
// SIGKILLed at once (its guard ends whatever it started).
async function abandon(child, state, err, line, ackTimeout) {
  state.control?.destroy();
  child.stdin.destroy();
  const noAck = err.code === 'ERR_SESSION_STARTER_NO_ACK';
  if (!noAck) {
    child.kill('SIGKILL');
  }
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(resolve, ackTimeout);
  });
  if ((await Promise.race([state.exited.then(() => true), late])) !== true) {
    child.kill('SIGKILL');
    await state.exited;
  }
  clearTimeout(timer);
  child.stdout.destroy();
  const { exitCode, signal } = state.status;
  const code = err.code ?? 'ERR_SESSION_STARTER_NO_ACK';
  const what = {
    ERR_SESSION_STARTER_NO_ACK: 'no ack line',
    ERR_SESSION_STARTER_MALFORMED_ACK: `first line is not an ack: ${err.message}`,
    ERR_SESSION_STARTER_ACK_TIMEOUT: err.message,
    ERR_SESSION_STARTER_ABORTED: 'aborted before the ack',
  }[code];
  const read = line !== '' && code !== 'ERR_SESSION_STARTER_MALFORMED_ACK' ? ` (read ${JSON.stringify(line.slice(0, 120))})` : '';
  const stderr = state.tail.toString();
  const said = stderr.trim() !== '' ? `; stderr: ${stderr.trim()}` : '';
  return new LaunchError(code, `session-starter: ${what ?? err.message}${read}; ${describeExit(exitCode, signal)}${said}`, {
    exitCode,
    signal,
    kind: noAck && signal === null ? whyNoAck[exitCode]?.[0] : undefined,
    line,
    stderr,
    cause: code === 'ERR_SESSION_STARTER_MALFORMED_ACK' ? err : undefined,
  });
}

module.exports = {
  LaunchError,
  Session,
  launch,
  endBound,
  defaultAckTimeoutMs,
  defaultKillBudgetMs,
  // For lib/stdio.js, lib/reclaim.js and lib/call.js, not exported by the package.
  binaryOf,
  durationOption,
  flagsOf,
  invalid,
  withoutRequest,
  stopSlackMs,
};

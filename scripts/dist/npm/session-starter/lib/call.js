'use strict';

// call() runs one command as a session of its own, for an Engine's
// per-call commands: an MCP server written for Node runs each tool call's
// command through call() instead of child_process, so that when it exits,
// times out or is aborted every process it started ends too (a background
// job, a setsid daemon), and its output pipes reach end of file. The result
// says whether the command may be retried: only 'not-started' may.

const { LaunchError, launch } = require('./launch.js');

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

function collect(stream) {
  const chunks = [];
  stream.on('data', (c) => chunks.push(c));
  return new Promise((resolve) => {
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('close', () => resolve(Buffer.concat(chunks)));
    stream.on('error', () => resolve(Buffer.concat(chunks)));
  });
}

/**
 * Runs cmd with args as a session of its own and resolves, once every
 * process of it has ended, with { outcome, exitCode, signal, stdout,
 * stderr, ended, error, timedOut }. outcome is 'not-started' (provably
 * nothing was executed: the only outcome after which the call may be
 * started again), 'started', or 'unclear' (no ended record, or no ack:
 * whether it ran cannot be known). It never rejects for the command's
 * failure: a session that could not be made resolves with error set.
 * Options: those of launch() (timeout, grace, stopSignal, killBudget,
 * containment, env, cwd, binary, extraFlags, signal; stderr and status are
 * call()'s), input (a string or Buffer written to the command's stdin,
 * which is then closed) and releaseOnExit (what the command left running
 * when it exits on its own stays, for the enclosing session to end:
 * --release-on-exit, which needs one).
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
  const stderrChunks = [];
  options.stderr = { write: (c) => stderrChunks.push(Buffer.from(c)) };
  options.status = true;
  let session;
  try {
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
      stderr: Buffer.concat(stderrChunks),
      ended: null,
      error: err,
      timedOut: false,
    };
  }
  session.stdin.on('error', () => {}); // the command stopped reading
  session.stdin.end(input ?? undefined);
  // End of file once every holder of the pipe has ended.
  const stdout = await collect(session.stdout);
  const status = await session.wait();
  let ended = null;
  try {
    ended = await session.ended;
  } catch {
    ended = null; // a bad record: not known
  }
  let outcome = unclear;
  if (ended !== null) {
    outcome = ended.executed ? started : notStarted;
  }
  return {
    outcome,
    exitCode: status.exitCode,
    signal: status.signal,
    stdout,
    stderr: Buffer.concat(stderrChunks),
    ended,
    error: null,
    timedOut: ended !== null && ended.reason === 'timeout',
  };
}

module.exports = { call, notStarted, started, unclear };

'use strict';

// Stdio servers and agents under session-starter, for MCP and ACP
// clients, without a dependency on either SDK: their shapes are
// structural (index.d.ts declares them).
//
// withSessionStarter() rewrites the MCP TypeScript SDK's
// StdioServerParameters so that the SDK's own StdioClientTransport spawns
// session-starter (the native binary, no shell between) with
// --stdio in front of the server. StdioSessionTransport
// is a Transport of the SDK's shape on launch(): its pid is the Engine's,
// its ended the status record of the end. launchAgent() launches an ACP
// agent and gives its stdio as the web streams the ACP SDK's ndJsonStream
// takes.
//
// Guarantees. Each runs the server with the session watching its stdin and
// its launcher: a client's close (the end of the server's stdin), its
// SIGTERM or its SIGKILL ends every process of the session within the
// stdin grace plus the grace plus the kill budget. Each carries the
// variables that place the session's ledger record and nest it
// (carriedEnv) from this process's environment, which the SDK's default
// environment drops.

const { PassThrough, Readable, Writable } = require('node:stream');

const { LaunchError, launch, endBound, binaryOf, flagsOf, invalid, withoutRequest, stopSlackMs } = require('./launch.js');

// carriedVars are carried from this process's environment into a
// server's, where set: XDG_RUNTIME_DIR and SESSION_STARTER_LEDGER_DIR
// choose the ledger's directory (without them a session's record lands
// where the user's --reclaim does not look); SESSION_STARTER_SESSION nests
// the session in this process's own.
const carriedVars = ['XDG_RUNTIME_DIR', 'SESSION_STARTER_LEDGER_DIR', 'SESSION_STARTER_SESSION'];

// sdkInheritedVars is the MCP TypeScript SDK's DEFAULT_INHERITED_ENV_VARS:
// what StdioClientTransport passes a server of this process's environment
// when its parameters name no env. StdioSessionTransport passes the same.
const sdkInheritedVars =
  process.platform === 'win32'
    ? ['APPDATA', 'HOMEDRIVE', 'HOMEPATH', 'LOCALAPPDATA', 'PATH', 'PROCESSOR_ARCHITECTURE', 'SYSTEMDRIVE', 'SYSTEMROOT', 'TEMP', 'USERNAME', 'USERPROFILE', 'PROGRAMFILES']
    : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];

// defaultStdinGraceMs is session-starter's --stdin-grace default.
const defaultStdinGraceMs = 2000;

/**
 * The variables of carriedVars that are set in env (default process.env).
 */
function carriedEnv(env = process.env) {
  const out = {};
  for (const k of carriedVars) {
    if (typeof env[k] === 'string' && env[k] !== '') {
      out[k] = env[k];
    }
  }
  return out;
}

// sdkDefaultEnv is what the SDK's getDefaultEnvironment() returns: the
// inherited variables that are set, but for shell functions' values.
function sdkDefaultEnv() {
  const out = {};
  for (const k of sdkInheritedVars) {
    const v = process.env[k];
    if (v !== undefined && !v.startsWith('()')) {
      out[k] = v;
    }
  }
  return out;
}

// checkParams checks a StdioServerParameters' command and args.
function checkParams(params, what) {
  if (params === null || typeof params !== 'object') {
    throw invalid(`${what}: want { command, args?, env?, cwd? }`);
  }
  if (typeof params.command !== 'string' || params.command === '') {
    throw invalid(`${what}: no command (params.command is empty)`);
  }
  const args = params.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) {
    throw invalid(`${what}: args: want an array of strings`);
  }
  if (params.env !== undefined && (params.env === null || typeof params.env !== 'object')) {
    throw invalid(`${what}: env: want an object of strings`);
  }
  return args;
}

// stdioFlags checks the options of a stdio server's session and returns
// session-starter's flags for them, --watch-stdin among them.
function stdioFlags(options) {
  if (options === null || typeof options !== 'object') {
    throw invalid('options: want an object');
  }
  if (options.watchStdin === false) {
    throw invalid('watchStdin: a stdio server is always watched through its stdin');
  }
  return flagsOf({ ...options, watchStdin: true });
}

/**
 * Returns StdioServerParameters that run params' server through
 * session-starter: command is binaryPath() (or options.binary), args are
 * "--stdio", the flags of options, "--", then the
 * server's command and args; env is params.env with carriedEnv() under
 * it. Every other field is kept.
 */
function withSessionStarter(params, options = {}) {
  const args = checkParams(params, 'withSessionStarter');
  const { flags } = stdioFlags(options);
  const bin = binaryOf(options);
  return {
    ...params,
    command: bin,
    args: ['--stdio', ...flags.filter((f) => f !== '--watch-stdin'), '--', params.command, ...args],
    env: { ...carriedEnv(), ...withoutRequest(params.env ?? {}) },
  };
}

// closeSession ends session's stdin, so that --watch-stdin ends it, and
// resolves with its ended record once session-starter has exited. Past
// the longest such end plus stopSlackMs it is stopped (stop() then bounds
// the rest).
async function closeSession(session, options) {
  session.stdin.end();
  const bound = (options.stdinGrace || defaultStdinGraceMs) + endBound(options.grace ?? 0, options.killBudget ?? 0) + stopSlackMs;
  const timer = setTimeout(() => session.stop(), bound);
  try {
    await session.exited;
  } finally {
    clearTimeout(timer);
  }
  try {
    return await session.ended;
  } catch {
    return null; // a bad record: the end is not known
  }
}

// stderrOf maps the SDK's stderr parameter onto launch()'s stderr, and
// returns the stream a 'pipe' gives the caller.
function stderrOf(stderr) {
  if (stderr === undefined || stderr === 'inherit') {
    return { to: 'forward', pipe: null };
  }
  if (stderr === 'ignore') {
    return { to: 'ignore', pipe: null };
  }
  if (stderr === 'pipe' || stderr === 'overlapped') {
    const pipe = new PassThrough();
    return { to: pipe, pipe };
  }
  if (typeof stderr?.write === 'function') {
    return { to: stderr, pipe: null };
  }
  throw invalid(
    `stderr ${String(stderr)}: want 'inherit', 'ignore', 'pipe' or a writable stream (for a descriptor, use withSessionStarter with the SDK's StdioClientTransport)`,
  );
}

/**
 * A Transport of the MCP TypeScript SDK's shape over a server launched
 * with launch(): newline-delimited JSON-RPC on the server's stdin and
 * stdout, as the SDK's StdioClientTransport frames it. See index.d.ts.
 */
class StdioSessionTransport {
  constructor(params, options = {}) {
    this._args = checkParams(params, 'StdioSessionTransport');
    stdioFlags(options); // refused here, not at start()
    this._params = params;
    this._options = options;
    this._stderr = stderrOf(params.stderr);
    this._session = null;
    this._starting = false;
    this._buf = '';
    this.sessionId = undefined;
    this.onclose = undefined;
    this.onerror = undefined;
    this.onmessage = undefined;
    let resolveEnded;
    this.ended = new Promise((resolve) => {
      resolveEnded = resolve;
    });
    this._resolveEnded = resolveEnded;
  }

  /** The Engine's PID once started, else null. */
  get pid() {
    return this._session?.pid ?? null;
  }

  /** The Session once started, else null. */
  get session() {
    return this._session;
  }

  /** With stderr 'pipe': the server's stderr, from construction on; else null. */
  get stderr() {
    return this._stderr.pipe;
  }

  async start() {
    if (this._starting) {
      throw new Error('StdioSessionTransport already started! If using Client class, note that connect() calls start() automatically.');
    }
    this._starting = true;
    const env = { ...sdkDefaultEnv(), ...carriedEnv(), ...(this._params.env ?? {}) };
    let session;
    try {
      session = await launch(this._params.command, this._args, {
        ...this._options,
        watchStdin: true,
        env,
        cwd: this._params.cwd,
        stderr: this._stderr.to,
      });
    } catch (err) {
      this._resolveEnded(null);
      this.onerror?.(err);
      throw err;
    }
    this._session = session;
    session.ended.then(this._resolveEnded, () => this._resolveEnded(null));
    session.stdin.on('error', (err) => this.onerror?.(err));
    session.stdout.on('error', (err) => this.onerror?.(err));
    session.stdout.setEncoding('utf8');
    session.stdout.on('data', (chunk) => this._read(chunk));
    const outEnded = new Promise((resolve) => session.stdout.once('close', resolve));
    Promise.all([session.exited, outEnded]).then(() => {
      this._stderr.pipe?.end();
      this.onclose?.();
    });
  }

  // _read frames chunk's messages: one a line, a trailing \r dropped.
  _read(chunk) {
    this._buf += chunk;
    let i;
    while ((i = this._buf.indexOf('\n')) >= 0) {
      const line = this._buf.slice(0, i).replace(/\r$/, '');
      this._buf = this._buf.slice(i + 1);
      let message;
      try {
        message = JSON.parse(line);
      } catch (err) {
        this.onerror?.(err);
        continue;
      }
      if (message === null || typeof message !== 'object' || message.jsonrpc !== '2.0') {
        this.onerror?.(new Error(`session-starter: not a JSON-RPC 2.0 message: ${line.slice(0, 120)}`));
        continue;
      }
      this.onmessage?.(message);
    }
  }

  send(message) {
    return new Promise((resolve, reject) => {
      const stdin = this._session?.stdin;
      if (!stdin || stdin.writableEnded || stdin.destroyed) {
        reject(new Error('Not connected'));
        return;
      }
      if (stdin.write(`${JSON.stringify(message)}\n`)) {
        resolve();
      } else {
        stdin.once('drain', resolve);
      }
    });
  }

  /**
   * Ends the server's stdin; the session then ends per --watch-stdin. It
   * resolves once the ended record is in (ended).
   */
  async close() {
    if (this._session === null) {
      this._resolveEnded(null);
      return;
    }
    await closeSession(this._session, this._options);
    await this.ended;
  }
}

/**
 * Launches an ACP agent (JSON-RPC over its stdio) under session-starter
 * with --watch-stdin and resolves with its AgentSession. See index.d.ts.
 */
async function launchAgent(params, options = {}) {
  const args = checkParams(params, 'launchAgent');
  stdioFlags(options);
  const session = await launch(params.command, args, {
    stderr: 'forward',
    ...options,
    watchStdin: true,
    env: { ...process.env, ...(params.env ?? {}) },
    cwd: params.cwd,
  });
  return {
    session,
    pid: session.pid,
    stdin: session.stdin,
    stdout: session.stdout,
    writable: Writable.toWeb(session.stdin),
    readable: Readable.toWeb(session.stdout),
    ended: session.ended,
    close: () => closeSession(session, options),
  };
}

module.exports = { withSessionStarter, StdioSessionTransport, launchAgent, carriedEnv, carriedVars };

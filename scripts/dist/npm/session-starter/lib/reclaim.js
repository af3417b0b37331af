'use strict';

// reclaim() runs `session-starter --reclaim --status-fd 3`: it ends what
// the dead sessions of this user left behind (sessions whose
// session-starter and guard were SIGKILLed together: an OOM kill of the
// whole tree, a container stop) and resolves with the JSON record it
// wrote, what it ended and what it left. A launcher can call it before it
// starts a session.

const { spawn } = require('node:child_process');

const { LaunchError, binaryOf } = require('./launch.js');

const tailBytes = 4096;

/**
 * Runs session-starter --reclaim (with --dry-run when options.dryRun) and
 * resolves with its record, keys in camelCase: { event: 'reclaimed', dir,
 * dryRun, sessions: [{ session, action, cgroupEnded, ended: [{ pid, comm }],
 * left: [{ pid, reason, survivor }], guardEnd, containers }], problems:
 * [{ file, reason }] } (guardEnd, when set: what the session's guard's end
 * came to after session-starter was gone, when it left something). The
 * record's own snake_case keys (dry_run, cgroup_ended, guard_end) are kept
 * too, deprecated, for one release. Its exit status
 * 125, only when a process verified as a session's is left (survivor:
 * true), still resolves: the record says what. A PID given to a stranger
 * (token-mismatch), a refused file or an unverified process is reported
 * with exit status 0. It rejects with a LaunchError when there is no record: the
 * binary is missing or cannot be spawned (codes as launch()'s), or it
 * wrote none ('ERR_SESSION_STARTER_RECLAIM': the ledger is off, the
 * platform keeps none; stderr says why). Options: dryRun, binary, env.
 */
async function reclaim(options = {}) {
  if (process.platform === 'win32') {
    // No status pipe from this package there; nor anything to reclaim: a
    // session's job kills its processes when its last handle closes.
    throw new LaunchError('ERR_SESSION_STARTER_INVALID_OPTION', 'session-starter: reclaim: not supported on Windows by this package');
  }
  const flags = ['--reclaim'];
  if (options.dryRun) {
    flags.push('--dry-run');
  }
  return withCamelKeys(await runForRecord(binaryOf(options), flags, 'reclaimed', 'ERR_SESSION_STARTER_RECLAIM', options.env));
}

// withCamelKeys returns v with each snake_case key of its objects, at any
// depth, also under its camelCase name (dry_run: dryRun), unless v has
// that name already. The snake_case keys stay for one release, deprecated.
function withCamelKeys(v) {
  if (Array.isArray(v)) {
    return v.map(withCamelKeys);
  }
  if (v === null || typeof v !== 'object') {
    return v;
  }
  const out = {};
  for (const [key, value] of Object.entries(v)) {
    const converted = withCamelKeys(value);
    out[key] = converted;
    const camel = key.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
    if (camel !== key && !Object.hasOwn(v, camel)) {
      out[camel] = converted;
    }
  }
  return out;
}

// runForRecord runs bin with flags that run no PROGRAM and resolves with
// the record it wrote to --status-fd 3, parsed. The record must be a JSON
// object of that event, and the exit status 0 or 125 (some are left: the
// record says which); else it rejects with a LaunchError of code, the
// exit status and the stderr's tail.
async function runForRecord(bin, flags, event, code, env) {
  let child;
  try {
    child = spawn(bin, [...flags, '--status-fd', '3'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'], env: env ?? process.env });
  } catch (err) {
    throw new LaunchError('ERR_SESSION_STARTER_SPAWN', `session-starter: ${bin}: ${err.message}`, { cause: err });
  }
  const status = [];
  let stderr = Buffer.alloc(0);
  child.stdio[3].on('data', (c) => status.push(c));
  child.stdio[3].on('error', () => {});
  child.stderr.on('data', (c) => {
    stderr = Buffer.concat([stderr, c]).subarray(-tailBytes);
  });
  child.stderr.on('error', () => {});
  const [exitCode, signal, spawnError] = await new Promise((resolve) => {
    child.on('error', (err) => resolve([null, null, err]));
    child.on('close', (c, sig) => resolve([c, sig, null]));
  });
  if (spawnError) {
    const missing = spawnError.code === 'ENOENT';
    throw new LaunchError(
      missing ? 'ERR_SESSION_STARTER_BINARY_MISSING' : 'ERR_SESSION_STARTER_SPAWN',
      `session-starter: ${bin}: ${missing ? 'no such file' : spawnError.message}`,
      { cause: spawnError },
    );
  }
  let record = null;
  try {
    record = JSON.parse(Buffer.concat(status).toString());
  } catch {
    record = null;
  }
  const said = stderr.toString().trim();
  if (record === null || record.event !== event || (exitCode !== 0 && exitCode !== 125)) {
    const how = signal !== null ? `killed by ${signal}` : `exited ${exitCode}`;
    throw new LaunchError(code, `session-starter: ${flags[0]} wrote no record; it ${how}${said ? `; stderr: ${said}` : ''}`, {
      exitCode,
      signal,
      stderr: stderr.toString(),
    });
  }
  return record;
}

module.exports = { reclaim, runForRecord };

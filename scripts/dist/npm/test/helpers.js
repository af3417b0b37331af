'use strict';

// Shared by the tests of the npm package's launch API. They run against
// the package as installed (require('session-starter'), found through
// NODE_PATH: scripts/dist/launchers.sh sets it) and the real binary it
// resolves (binaryPath(), or SESSION_STARTER_BINARY).
//
// Every process of a test's sessions carries a mark in its environment
// that nothing else on the machine has; a test ends by checking that none
// is left (noneLeft). Processes found are SIGKILLed by PID, each after its
// mark is read again, and the test fails. Nothing is killed by name.

const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const sessionStarter = require('session-starter');

// SESSION_STARTER_EXPECT_PACKAGE, when set, is the directory the package
// must have been loaded from: the check runs the installed package, not
// the source tree's.
const expected = process.env.SESSION_STARTER_EXPECT_PACKAGE;
if (expected && !require.resolve('session-starter').startsWith(path.resolve(expected) + path.sep)) {
  throw new Error(`session-starter was loaded from ${require.resolve('session-starter')}, not from ${expected}`);
}

// markVar names the mark in the environment of the tests' sessions.
const markVar = 'SESSION_STARTER_JS_TEST_MARK';

// tooLong bounds every "eventually": sessions end in milliseconds, and
// two loaded cores can stretch that a hundredfold.
const tooLong = 30000;

// The fixtures every launcher's tests parse.
const recordsDir =
  process.env.SESSION_STARTER_RECORDS || path.join(__dirname, '..', '..', '..', '..', 'starter', 'launch', 'testdata', 'records');

function newMark() {
  return `${process.pid}-${crypto.randomBytes(8).toString('hex')}`;
}

// markedEnv is this process's environment with the mark.
function markedEnv(mark, extra = {}) {
  return { ...process.env, ...extra, [markVar]: mark };
}

// liveWhere lists the live processes (not zombies) whose environment,
// as a list of NAME=value strings, satisfies pred.
function liveWhere(pred) {
  const out = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) {
      continue;
    }
    let env;
    let stat;
    try {
      env = fs.readFileSync(`/proc/${name}/environ`, 'latin1').split('\0');
      stat = fs.readFileSync(`/proc/${name}/stat`, 'latin1');
    } catch {
      continue; // gone, or not ours to read
    }
    if (pred(env) && stat[stat.lastIndexOf(')') + 2] !== 'Z') {
      out.push(Number(name));
    }
  }
  return out;
}

// marked lists the live processes whose environment carries the mark.
function marked(mark) {
  return liveWhere((env) => env.includes(`${markVar}=${mark}`));
}

// carrying lists the live processes whose SESSION_STARTER_SESSION lists
// the session id: those of a call, and what they started.
function carrying(session) {
  return liveWhere((env) => {
    const kv = env.find((e) => e.startsWith('SESSION_STARTER_SESSION='));
    return kv !== undefined && kv.slice(kv.indexOf('=') + 1).split(':').includes(session);
  });
}

async function sleep(ms) {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

// eventually polls cond until it holds, or throws after tooLong.
async function eventually(what, cond) {
  const deadline = Date.now() + tooLong;
  let pause = 5;
  while (!(await cond())) {
    if (Date.now() > deadline) {
      throw new Error(`after ${tooLong} ms: ${what}`);
    }
    await sleep(pause);
    pause = Math.min(2 * pause, 100);
  }
}

// noneLeft fails unless every process carrying the mark is gone within
// tooLong; any left are SIGKILLed by PID.
async function noneLeft(mark) {
  let left = [];
  try {
    await eventually('no process of the session may be left', () => {
      left = marked(mark);
      return left.length === 0;
    });
  } catch (err) {
    // Each one's command line, and its parent, group and session from
    // /proc/PID/stat: who it belonged to is the first question a leak asks.
    const names = left.map((pid) => {
      try {
        const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ').trim();
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
        const [, ppid, pgid, sid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return `${pid} (${cmdline}; ppid ${ppid}, pgid ${pgid}, sid ${sid})`;
      } catch {
        return String(pid);
      }
    });
    for (const pid of left) {
      if (marked(mark).includes(pid)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
    }
    throw new Error(`${err.message}: left and killed: ${names.join('; ')}`);
  }
}

// withMark runs fn(mark) and then checks that nothing of the mark is left.
// A failure of fn is the one reported: what it left is cleaned up, and
// named after it, never in its place.
async function withMark(fn) {
  const mark = newMark();
  let result;
  try {
    result = await fn(mark);
  } catch (err) {
    try {
      await noneLeft(mark);
    } catch (leftErr) {
      err.message += `; then ${leftErr.message}`;
    }
    throw err;
  }
  await noneLeft(mark);
  return result;
}

// alive says whether process pid runs (is not a zombie), by its
// /proc/PID/stat: unlike its environment, which reads empty while it
// execs, the stat is there for the whole of its life.
function alive(pid) {
  let stat;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return false;
  }
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}

// tempDir makes a directory removed at the end of the process.
const dirs = [];
function tempDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'session-starter-js-test-'));
  dirs.push(dir);
  return dir;
}
process.on('exit', () => {
  for (const dir of dirs) {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// fakeStarter writes an executable shell script standing in for a binary
// that is not session-starter; its last command is exec'd, so that the
// process launch() kills is the only one.
function fakeStarter(script) {
  const file = path.join(tempDir(), 'fake-starter');
  fs.writeFileSync(file, `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  return file;
}

// lines returns a function that resolves with the next line of a stream,
// or null at its end, bounded by tooLong.
function lines(stream) {
  const rl = require('node:readline').createInterface({ input: stream });
  const it = rl[Symbol.asyncIterator]();
  return async () => {
    let timer;
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no line within ${tooLong} ms`)), tooLong);
    });
    try {
      const r = await Promise.race([it.next(), late]);
      return r.done ? null : r.value;
    } finally {
      clearTimeout(timer);
    }
  };
}

// bounded resolves with p, or rejects after tooLong.
async function bounded(what, p) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${tooLong} ms`)), tooLong);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

// fixture returns the lines of a fixture file.
function fixture(name) {
  const text = fs.readFileSync(path.join(recordsDir, name), 'utf8');
  const out = text.split('\n').filter((l) => l !== '');
  assert.ok(out.length > 0, `${name}: no line`);
  return out;
}

module.exports = {
  alive,
  carrying,
  sessionStarter,
  markVar,
  tooLong,
  newMark,
  markedEnv,
  marked,
  eventually,
  noneLeft,
  withMark,
  tempDir,
  fakeStarter,
  lines,
  bounded,
  fixture,
  sleep,
};

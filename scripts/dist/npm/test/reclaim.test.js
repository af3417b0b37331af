'use strict';

// reclaim() against the real binary: what a session left when its
// session-starter and its guard were SIGKILLed together is ended, and
// reported. Each test has a ledger of its own (SESSION_STARTER_LEDGER_DIR).

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const test = require('node:test');

const h = require('./helpers.js');

const { launch, reclaim, LaunchError } = h.sessionStarter;

// deadSession launches a session with a setsid escapee, then SIGKILLs its
// guard (whose PID the ledger record names) and its session-starter,
// stopped first so that it cannot end the session when it loses its
// guard. It returns the processes the session left.
async function deadSession(env, ledger, mark) {
  const s = await launch('sh', ['-c', 'setsid sleep 300 & echo ready; exec sleep 300'], { env });
  const next = h.lines(s.stdout);
  assert.equal(await next(), 'ready');
  // Both execs done: a process reads no environment, so no mark, while it
  // execs.
  const comm = (pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      return ''; // gone meanwhile
    }
  };
  const sleeping = () => h.marked(mark).filter((pid) => comm(pid) === 'sleep');
  await h.eventually('the Engine and its escapee must be sleeping', () => sleeping().length === 2);
  let record;
  await h.eventually('the session must have its ledger record', () => {
    const files = fs.readdirSync(ledger).filter((f) => f.endsWith('.json'));
    if (files.length !== 1) {
      return false;
    }
    record = JSON.parse(fs.readFileSync(path.join(ledger, files[0]), 'utf8'));
    return true;
  });
  assert.equal(record.starter.pid, s.starterPid);
  process.kill(s.starterPid, 'SIGSTOP');
  // The guard is the stopped session-starter's child: nobody reaps it
  // until session-starter is killed, so its PID is still its own.
  process.kill(record.guard.pid, 'SIGKILL');
  process.kill(s.starterPid, 'SIGKILL');
  await s.wait();
}

test('reclaim() ends what a session left when its session-starter and guard were SIGKILLed together', () =>
  h.withMark(async (mark) => {
    const ledger = h.tempDir(); // 0700, as the ledger's directory must be
    const env = h.markedEnv(mark, { SESSION_STARTER_LEDGER_DIR: ledger });
    await deadSession(env, ledger, mark);
    const left = h.marked(mark).sort();
    assert.ok(left.length >= 2, `the Engine and its escapee must be left running, found ${left}`);

    const dry = await h.bounded('reclaim({ dryRun })', reclaim({ dryRun: true, env }));
    assert.equal(dry.event, 'reclaimed');
    assert.equal(dry.dryRun, true);
    assert.equal(dry.sessions.length, 1);
    assert.equal(dry.sessions[0].action, 'would-reclaim');
    assert.deepEqual(dry.sessions[0].ended.map((e) => e.pid).sort(), left);
    assert.deepEqual(h.marked(mark).sort(), left, 'a dry run ended something');

    const done = await h.bounded('reclaim()', reclaim({ env }));
    assert.equal(done.sessions.length, 1);
    assert.equal(done.sessions[0].action, 'reclaimed');
    assert.deepEqual(done.sessions[0].left, []);
    assert.deepEqual(done.sessions[0].ended.map((e) => e.pid).sort(), left);
    await h.eventually('what the session left must be gone', () => h.marked(mark).length === 0);

    const again = await h.bounded('reclaim() again', reclaim({ env }));
    assert.deepEqual(again.sessions, []);
    assert.deepEqual(again.problems, []);
  }));

test('reclaim() resolves with camelCase keys and keeps the snake_case keys for one release', async () => {
  // A stand-in for the binary that writes a record with every snake_case
  // key a reclaim writes, as a reclaim with a survivor exits: 125.
  const record = {
    event: 'reclaimed',
    dir: '/run/user/1000/session-starter',
    dry_run: false,
    sessions: [
      {
        session: 'a1',
        action: 'reclaimed',
        cgroup_ended: true,
        ended: [{ pid: 7, comm: 'sleep' }],
        left: [{ pid: 8, reason: 'survivor: SIGKILL did not end it', survivor: true }],
        guard_end: 'the guard ended 2 processes',
        containers: ['c0ffee'],
      },
    ],
    problems: [{ file: 'torn.json', reason: 'torn' }],
  };
  const bin = path.join(h.tempDir(), 'session-starter');
  fs.writeFileSync(bin, `#!/bin/sh\nprintf '%s\\n' '${JSON.stringify(record)}' >&3\nexit 125\n`, { mode: 0o755 });
  const got = await h.bounded('reclaim()', reclaim({ binary: bin }));
  assert.equal(got.dryRun, false);
  assert.equal(got.dir, record.dir);
  assert.deepEqual(got.problems, record.problems);
  const s = got.sessions[0];
  assert.equal(s.cgroupEnded, true);
  assert.equal(s.guardEnd, 'the guard ended 2 processes');
  assert.deepEqual(s.containers, ['c0ffee']);
  assert.deepEqual(s.ended, [{ pid: 7, comm: 'sleep' }]);
  assert.deepEqual(s.left, [{ pid: 8, reason: 'survivor: SIGKILL did not end it', survivor: true }]);
  // The deprecated names, as the record has them.
  assert.equal(got.dry_run, false);
  assert.equal(s.cgroup_ended, true);
  assert.equal(s.guard_end, 'the guard ended 2 processes');
});

test('reclaim() rejects with a LaunchError when there is no ledger', async () => {
  const open = h.tempDir();
  fs.chmodSync(open, 0o777); // open to others: refused, the ledger is off
  await assert.rejects(reclaim({ env: { ...process.env, SESSION_STARTER_LEDGER_DIR: open } }), (err) => {
    assert.ok(err instanceof LaunchError);
    assert.equal(err.code, 'ERR_SESSION_STARTER_RECLAIM');
    assert.equal(err.exitCode, 125);
    assert.match(err.stderr, /ledger: off/);
    return true;
  });
});

test('reclaim() rejects with a LaunchError when the binary is missing', async () => {
  await assert.rejects(reclaim({ binary: path.join(h.tempDir(), 'no-such-binary') }), (err) => {
    assert.ok(err instanceof LaunchError);
    assert.equal(err.code, 'ERR_SESSION_STARTER_BINARY_MISSING');
    return true;
  });
});

'use strict';

// call() against the real binary: one command as a session of its own.

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const test = require('node:test');

const h = require('./helpers.js');

const { call, notStarted, started, unclear } = h.sessionStarter;

const ack = '{"session_containment":1,"pid":4242,"mode":"group"}';

test('call() returns the output and status once what the command left is ended', () =>
  h.withMark(async (mark) => {
    const t0 = Date.now();
    // A background job and a setsid daemon hold stdout.
    const r = await h.bounded('call()', call('sh', ['-c', 'sleep 300 & setsid sleep 300 & echo out; echo err >&2; exit 3'], { env: h.markedEnv(mark) }));
    assert.ok(Date.now() - t0 < 60000, 'call() waited for what the command left');
    assert.equal(r.outcome, started);
    assert.equal(r.exitCode, 3);
    assert.equal(r.stdout.toString(), 'out\n');
    assert.equal(r.stderr.toString(), 'err\n');
    assert.equal(r.ended.reason, 'engine-exit');
  }));

test('call() writes input to the command', () =>
  h.withMark(async (mark) => {
    const r = await h.bounded('call()', call('cat', { input: 'hello\n', env: h.markedEnv(mark) }));
    assert.equal(r.outcome, started);
    assert.equal(r.stdout.toString(), 'hello\n');
  }));

test('a timeout ends the whole tree', () =>
  h.withMark(async (mark) => {
    const r = await h.bounded('call()', call('sh', ['-c', 'sleep 300 & exec sleep 300'], { timeout: 200, env: h.markedEnv(mark) }));
    assert.equal(r.timedOut, true);
    assert.equal(r.exitCode, 124);
    assert.equal(r.outcome, started);
  }));

test('a program not found is not started', () =>
  h.withMark(async (mark) => {
    const r = await h.bounded('call()', call('no-such-program-anywhere', { env: h.markedEnv(mark) }));
    assert.equal(r.outcome, notStarted);
    assert.equal(r.exitCode, 127);
    assert.ok(r.error);
  }));

test('a refused session is not started and runs nothing', () =>
  h.withMark(async (mark) => {
    const dir = h.tempDir();
    const marker = path.join(dir, 'ran');
    const r = await h.bounded('call()', call('touch', [marker], { env: h.markedEnv(mark), extraFlags: ['--parent-pid', '1'] }));
    assert.equal(r.outcome, notStarted);
    assert.equal(fs.existsSync(marker), false);
  }));

test('a starter SIGKILLed before its ack is unclear', async () => {
  const r = await h.bounded('call()', call('true', { binary: h.fakeStarter('kill -9 $$') }));
  assert.equal(r.outcome, unclear);
});

test('a session that ends without its ended record is unclear', async () => {
  const r = await h.bounded('call()', call('true', { binary: h.fakeStarter(`printf '%s\\n' '${ack}'; exit 0`) }));
  assert.equal(r.outcome, unclear);
});

test('releaseOnExit without an enclosing session is not started', () =>
  h.withMark(async (mark) => {
    const env = h.markedEnv(mark);
    delete env.SESSION_STARTER_SESSION;
    const marker = path.join(h.tempDir(), 'ran');
    const r = await h.bounded('call()', call('touch', [marker], { env, releaseOnExit: true }));
    assert.equal(r.outcome, notStarted);
    assert.equal(r.exitCode, 2);
    assert.match(r.error.stderr, /enclosing session/);
    assert.equal(fs.existsSync(marker), false);
  }));

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

// inSession runs script (Node, in this process's environment with the
// mark) as the Engine of an enclosing session and resolves with the JSON
// it writes as its first line, the session, and next, which reads its
// next line; the caller stops it.
async function inSession(mark, script) {
  const s = await h.sessionStarter.launch(process.execPath, ['-e', script], { env: h.markedEnv(mark) });
  const next = h.lines(s.stdout);
  const line = await next();
  assert.notEqual(line, null, 'the enclosing Engine wrote nothing');
  return { s, result: JSON.parse(line), next };
}

test('call() with releaseOnExit returns at the exit plus the drain bound while what it released holds stdout and stderr', () =>
  h.withMark(async (mark) => {
    // The released sleep holds both output pipes for 300 s: call() must
    // not wait for it.
    const script = `
      const { call } = require('session-starter');
      (async () => {
        const t0 = Date.now();
        const r = await call('sh', ['-c', 'sleep 300 & echo out; echo err >&2'], { releaseOnExit: true, drain: 200 });
        console.log(JSON.stringify({ ms: Date.now() - t0, stdout: r.stdout.toString(), stderr: r.stderr.toString(),
          outcome: r.outcome, exitCode: r.exitCode, outputHeld: r.outputHeld, released: r.ended && r.ended.released }));
        setInterval(() => {}, 1000); // the enclosing session ends it
      })();`;
    const { s, result } = await h.bounded('call() under an enclosing session', inSession(mark, script));
    try {
      assert.equal(result.outcome, started);
      assert.equal(result.exitCode, 0);
      assert.equal(result.stdout, 'out\n');
      assert.equal(result.stderr, 'err\n');
      assert.equal(result.outputHeld, true);
      assert.ok(result.ms >= 200, `returned after ${result.ms} ms, before the drain bound`);
      assert.equal(result.released.length, 1);
      assert.ok(h.alive(result.released[0]), 'the released sleep was ended by the call');
    } finally {
      await s.stop();
    }
  }));

test('endReleased() ends what a released call left and what it started since, and the enclosing session lives on', () =>
  h.withMark(async (mark) => {
    // The released loop keeps starting sleeps; its trap says it got the
    // stop signal within the grace. Its output goes to /dev/null: call()
    // closed the pipes, and the shell's "Terminated" line for a sleep would
    // end it by SIGPIPE before its trap runs.
    const termed = path.join(h.tempDir(), 'termed');
    const loop = `trap ": > ${termed}; exit 0" TERM; while :; do sleep 0.05; done`;
    const script = `
      const { call } = require('session-starter');
      const rl = require('node:readline').createInterface({ input: process.stdin });
      (async () => {
        const r = await call('sh', ['-c', ${JSON.stringify(`sleep 300 & setsid sh -c '${loop}' >/dev/null 2>&1 & echo ok`)}], { releaseOnExit: true });
        console.log(JSON.stringify({ session: r.session, released: r.ended && r.ended.released }));
        await new Promise((resolve) => rl.once('line', resolve));
        console.log(JSON.stringify(await r.endReleased({ grace: 20000 })));
        setInterval(() => {}, 1000); // the enclosing session ends it
      })();`;
    const { s, result, next } = await h.bounded('call() under an enclosing session', inSession(mark, script));
    try {
      assert.match(result.session, /^[0-9a-f]{32}$/);
      // The sleep 300 and the loop; a sleep 0.05 of the loop may be listed too.
      assert.ok(result.released.filter((p) => h.alive(p)).length >= 2, `the call ended what it released: ${JSON.stringify(result)}`);
      await h.eventually('the released loop starts a sleep after the call', () => h.carrying(result.session).some((p) => !result.released.includes(p)));
      s.stdin.write('end\n');
      assert.deepEqual(JSON.parse(await next()), []);
      assert.deepEqual(h.carrying(result.session), [], 'a process of the call lives on');
      assert.ok(fs.existsSync(termed), 'the released loop got no SIGTERM first');
      assert.equal(s.exitCode, null, 'the enclosing session ended');
      assert.ok(h.alive(s.pid), 'the enclosing Engine was ended');
    } finally {
      await s.stop();
    }
  }));

test('endReleased() resolves with the PIDs that outlived the kill budget', async (t) => {
  // A sleep frozen by a cgroup v1 freezer outlives SIGKILL until thawed.
  const freezer = '/sys/fs/cgroup/freezer';
  if (process.getuid() !== 0 || !fs.existsSync(path.join(freezer, 'cgroup.procs'))) {
    t.skip('needs root and a cgroup v1 freezer to make a process that SIGKILL cannot end');
    return;
  }
  await h.withMark(async (mark) => {
    const cg = path.join(freezer, `session-starter-js-test-${mark}`);
    try {
      fs.mkdirSync(cg);
    } catch (err) {
      t.skip(`cannot make a freezer cgroup: ${err.message}`);
      return;
    }
    const state = (s) => {
      if (s) {
        fs.writeFileSync(path.join(cg, 'freezer.state'), s);
      }
      return fs.readFileSync(path.join(cg, 'freezer.state'), 'utf8').trim();
    };
    const script = `
      const { call } = require('session-starter');
      const rl = require('node:readline').createInterface({ input: process.stdin });
      (async () => {
        const r = await call('sh', ['-c', 'sleep 300 & echo ok'], { releaseOnExit: true });
        console.log(JSON.stringify(r.ended.released));
        await new Promise((resolve) => rl.once('line', resolve)); // the test froze it
        console.log(JSON.stringify(await r.endReleased({ killBudget: 500 })));
        setInterval(() => {}, 1000); // the enclosing session ends it
      })();`;
    try {
      const { s, result: released, next } = await h.bounded('call() under an enclosing session', inSession(mark, script));
      try {
        assert.equal(released.length, 1, JSON.stringify(released));
        fs.writeFileSync(path.join(cg, 'cgroup.procs'), String(released[0]));
        state('FROZEN');
        await h.eventually('the released sleep is frozen', () => state() === 'FROZEN');
        s.stdin.write('frozen\n');
        assert.deepEqual(JSON.parse(await next()), released, 'endReleased() did not resolve with the frozen sleep');
        assert.ok(h.alive(released[0]));
        state('THAWED');
        await h.eventually('the thawed sleep dies of the SIGKILL endReleased() sent', () => !h.alive(released[0]));
      } finally {
        state('THAWED');
        await s.stop();
      }
    } finally {
      state('THAWED');
      await h.eventually('the freezer cgroup empties', () => fs.readFileSync(path.join(cg, 'cgroup.procs'), 'utf8').trim() === '');
      fs.rmdirSync(cg);
    }
  });
});

test('endReleased() runs the binary the call ran, and refuses a bad duration before it', () =>
  h.withMark(async (mark) => {
    const log = path.join(h.tempDir(), 'log');
    const wrapper = h.fakeStarter(`echo "$1" >> ${log}\nexec ${h.sessionStarter.binaryPath()} "$@"`);
    const script = `
      const { call } = require('session-starter');
      (async () => {
        const r = await call('sh', ['-c', 'sleep 300 & echo ok'], { releaseOnExit: true, binary: ${JSON.stringify(wrapper)} });
        const bad = await r.endReleased({ killBudget: -1 }).catch((err) => err.code);
        console.log(JSON.stringify({ bad, left: await r.endReleased() }));
        setInterval(() => {}, 1000); // the enclosing session ends it
      })();`;
    const { s, result } = await h.bounded('call() under an enclosing session', inSession(mark, script));
    await s.stop();
    assert.deepEqual(result, { bad: 'ERR_SESSION_STARTER_INVALID_OPTION', left: [] });
    assert.deepEqual(fs.readFileSync(log, 'utf8').split('\n').filter(Boolean), ['--ack', '--end-released']);
  }));

test('endReleased() rejects for a call that was not released', () =>
  h.withMark(async (mark) => {
    const r = await h.bounded('call()', call('sh', ['-c', 'sleep 300 & exit 0'], { env: h.markedEnv(mark) }));
    await assert.rejects(r.endReleased(), { code: 'ERR_SESSION_STARTER_NOT_RELEASED', message: /not released/ });
    const none = await h.bounded('call()', call('no-such-program-anywhere', { env: h.markedEnv(mark) }));
    await assert.rejects(none.endReleased(), { code: 'ERR_SESSION_STARTER_NOT_RELEASED' });
  }));

test('call() ends a command whose stdout or stderr goes past maxBuffer, and keeps the first maxBuffer bytes', async () => {
  for (const stream of ['stdout', 'stderr']) {
    await h.withMark(async (mark) => {
      const to = stream === 'stderr' ? ' >&2' : '';
      const r = await h.bounded(
        'call()',
        call('sh', ['-c', `head -c 3000000 /dev/zero${to}; exec sleep 300`], { maxBuffer: 1000000, env: h.markedEnv(mark) }),
      );
      assert.ok(r.error instanceof h.sessionStarter.MaxBufferError, `${stream}: ${r.error}`);
      assert.equal(r.error.code, 'ERR_SESSION_STARTER_MAX_BUFFER');
      assert.equal(r.error.stream, stream);
      assert.match(r.error.message, /went past maxBuffer \(1000000 bytes\)/);
      assert.equal(r[stream].length, 1000000);
      assert.equal(r.outcome, started);
      assert.equal(r.ended.reason, 'control-closed');
    });
  }
});

test('call() refuses a bad drain or maxBuffer, and runs nothing', () =>
  h.withMark(async (mark) => {
    const marker = path.join(h.tempDir(), 'ran');
    for (const bad of [{ drain: -1 }, { maxBuffer: 0 }, { maxBuffer: 1.5 }, { maxBuffer: '1' }]) {
      const r = await h.bounded('call()', call('touch', [marker], { ...bad, env: h.markedEnv(mark) }));
      assert.equal(r.outcome, notStarted, JSON.stringify(bad));
      assert.equal(r.error.code, 'ERR_SESSION_STARTER_INVALID_OPTION');
    }
    assert.equal(fs.existsSync(marker), false);
  }));

'use strict';

// launch() against the real binary: each test runs sessions whose
// processes carry a mark, and fails if any of them is left.

const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { Writable } = require('node:stream');
const test = require('node:test');

const h = require('./helpers.js');

const { launch, LaunchError, endBound } = h.sessionStarter;

// The Engine's sleep left behind: ended with the session.
const leak = 'sleep 300 & ';

// leak, once the sleep runs: a stop signal that reached the forked shell
// before its exec would be lost with the shell's trap.
const leakRunning = 'sleep 300 & until [ "$(cat /proc/$!/comm 2>/dev/null)" = sleep ]; do :; done; ';

test('the Engine gets the stdio, and its status is mirrored', () =>
  h.withMark(async (mark) => {
    const s = await launch('sh', ['-c', `${leak}echo "first $$"; read l; echo "got $l"; exit 3`], { env: h.markedEnv(mark) });
    assert.ok(s.pid > 1, `pid ${s.pid}`);
    assert.match(s.mode, /^(group|cgroup)$/);
    const next = h.lines(s.stdout);
    assert.equal(await next(), `first ${s.pid}`, "the Engine's first line, right after the ack");
    s.stdin.write('hello\n');
    assert.equal(await next(), 'got hello');
    assert.deepEqual(await h.bounded('wait()', s.wait()), { exitCode: 3, signal: null, killed: false });
    assert.equal(s.exitCode, 3);
    assert.equal(s.signalCode, null);
  }));

test('the status records arrive parsed: started, then ended', () =>
  h.withMark(async (mark) => {
    const s = await launch('sh', ['-c', `${leak}exit 5`], { env: h.markedEnv(mark) });
    const started = await h.bounded('started', s.started);
    assert.equal(started.pid, s.pid);
    assert.equal(started.pgid, s.pid);
    assert.equal(started.mode, s.mode);
    const ended = await h.bounded('ended', s.ended);
    assert.equal(ended.reason, 'engine-exit');
    assert.equal(ended.exitCode, 5);
    assert.equal(ended.starter.exitStatus, 5);
    assert.equal(ended.outcome, 'empty');
    assert.deepEqual(
      s.records.map((r) => r.event),
      ['started', 'ended'],
    );
    await h.bounded('wait()', s.wait());
  }));

test('without a status pipe, started and ended are null', () =>
  h.withMark(async (mark) => {
    const s = await launch('true', [], { env: h.markedEnv(mark), status: false });
    assert.equal(await s.started, null);
    assert.equal(await s.ended, null);
    assert.equal((await h.bounded('wait()', s.wait())).exitCode, 0);
    assert.ok(!s.process.spawnargs.includes('--status-fd'), s.process.spawnargs.join(' '));
  }));

test("the bytes after the ack line are the Engine's, even when they come in one read", () =>
  h.withMark(async (mark) => {
    // One write: the ack and the "Engine's" first line.
    const bin = h.fakeStarter(`printf '{"session_containment":1,"pid":4242,"mode":"group"}\\nfirst\\nsecond\\n'; exec sleep 300`);
    const s = await launch('true', [], { binary: bin, env: h.markedEnv(mark), stopTimeout: 100 });
    const next = h.lines(s.stdout);
    assert.equal(await next(), 'first');
    assert.equal(await next(), 'second');
    await s.stop();
  }));

// stop() closes the control pipe, and SIGKILLs session-starter once the
// stop timeout has passed: the fake reads no control pipe and takes no
// SIGTERM from it.
test('stop() SIGKILLs a session-starter that outlives the stop timeout, and says so', () =>
  h.withMark(async (mark) => {
    const bin = h.fakeStarter(`printf '{"session_containment":1,"pid":4242,"mode":"group"}\\n'; trap '' TERM; exec sleep 300`);
    const s = await launch('true', [], { binary: bin, env: h.markedEnv(mark), stopTimeout: 200 });
    const t0 = Date.now();
    assert.deepEqual(await h.bounded('stop()', s.stop()), { exitCode: null, signal: 'SIGKILL', killed: true });
    assert.ok(Date.now() - t0 >= 190, `stopped after ${Date.now() - t0} ms, want the stop timeout of 200 ms first`);
    // Killed, it wrote no ended record: the records end without one.
    assert.equal(await h.bounded('ended', s.ended), null);
  }));

test('stop() closes the control pipe: the session ends, the Engine is killed', () =>
  h.withMark(async (mark) => {
    const s = await launch('sh', ['-c', `${leak}exec sleep 300`], { env: h.markedEnv(mark) });
    // A stop before the started record is one before the Engine ran: 125.
    await h.bounded('started', s.started);
    assert.deepEqual(await h.bounded('stop()', s.stop()), { exitCode: null, signal: 'SIGKILL', killed: false });
    const ended = await s.ended;
    assert.equal(ended.reason, 'control-closed');
    assert.equal(ended.signal, 'KILL');
    assert.equal(s.control.destroyed, true);
  }));

test('stop() without a control pipe sends SIGTERM', () =>
  h.withMark(async (mark) => {
    const s = await launch('sh', ['-c', `${leak}exec sleep 300`], { env: h.markedEnv(mark), control: false });
    assert.equal(s.control, null);
    await h.bounded('started', s.started);
    assert.equal((await h.bounded('stop()', s.stop())).signal, 'SIGKILL');
    assert.equal((await s.ended).reason, 'signal TERM');
  }));

test('with a grace, stop() lets the Engine end itself: its exit code is mirrored', () =>
  h.withMark(async (mark) => {
    const s = await launch('sh', ['-c', `trap 'exit 7' TERM; ${leakRunning}echo ready; wait`], { env: h.markedEnv(mark), grace: 5000 });
    assert.equal(await h.lines(s.stdout)(), 'ready');
    assert.deepEqual(await h.bounded('stop()', s.stop()), { exitCode: 7, signal: null, killed: false });
    const ended = await s.ended;
    assert.equal(ended.exitCode, 7);
    assert.equal(ended.graceful, true);
  }));

test('each option reaches session-starter as its flag', () =>
  h.withMark(async (mark) => {
    const s = await launch('sleep', ['300'], {
      env: h.markedEnv(mark),
      grace: 1500,
      timeout: 60000,
      killBudget: 2000.5,
      stopSignal: 'INT',
      containment: 'group',
      extraFlags: ['--log-level', 'debug'],
      stderr: 'ignore',
    });
    const argv = fs.readFileSync(`/proc/${s.starterPid}/cmdline`, 'utf8').split('\0').slice(1, -1);
    assert.deepEqual(argv, [
      '--ack',
      '--parent-pid',
      String(process.pid),
      '--control-fd',
      '3',
      '--status-fd',
      '4',
      '--grace',
      '1500ms',
      '--timeout',
      '60000ms',
      '--kill-budget',
      '2000500000ns',
      '--stop-signal',
      'INT',
      '--containment',
      'group',
      '--log-level',
      'debug',
      '--',
      'sleep',
      '300',
    ]);
    assert.equal(s.mode, 'group');
    await h.bounded('stop()', s.stop());
  }));

test('the timeout ends the session: exit status 124', () =>
  h.withMark(async (mark) => {
    const s = await launch('sh', ['-c', `${leak}exec sleep 300`], { env: h.markedEnv(mark), timeout: 100, stderr: 'ignore' });
    assert.equal((await h.bounded('wait()', s.wait())).exitCode, 124);
    assert.equal((await s.ended).reason, 'timeout');
  }));

test("the stop timeout covers the end's bound", () => {
  assert.equal(endBound(), 10250);
  assert.equal(endBound(2000, 3000), 5250);
});

// The exit status before the ack says why there is no session.
test('a session-starter that exits before its ack: the exit status says why', async (t) => {
  const notExecutable = path.join(h.tempDir(), 'engine');
  fs.writeFileSync(notExecutable, 'data', { mode: 0o644 });
  for (const tt of [
    { name: 'PROGRAM not found', cmd: 'no-such-engine-7f3a', exitCode: 127, kind: 'not-found', said: 'no-such-engine-7f3a' },
    { name: 'PROGRAM not executable', cmd: notExecutable, exitCode: 126, kind: 'cannot-execute', said: notExecutable },
    { name: 'a usage error', cmd: 'true', extraFlags: ['--log-level', 'bogus'], exitCode: 2, kind: 'usage', said: 'bogus' },
    { name: 'containment refused', cmd: 'true', binary: h.fakeStarter('echo "session-starter: no cgroup" >&2; exit 125'), exitCode: 125, kind: 'containment', said: 'no cgroup' },
  ]) {
    await t.test(tt.name, () =>
      h.withMark(async (mark) => {
        const err = await launch(tt.cmd, [], { env: h.markedEnv(mark), binary: tt.binary, extraFlags: tt.extraFlags, stderr: 'ignore' }).then(
          () => assert.fail('launch() resolved'),
          (e) => e,
        );
        assert.ok(err instanceof LaunchError, String(err));
        assert.equal(err.code, 'ERR_SESSION_STARTER_NO_ACK');
        assert.equal(err.exitCode, tt.exitCode);
        assert.equal(err.kind, tt.kind);
        assert.ok(err.stderr.includes(tt.said), `stderr ${JSON.stringify(err.stderr)}: want ${tt.said}`);
        assert.ok(err.message.includes(`exited ${tt.exitCode}`) && err.message.includes(tt.said), err.message);
      }),
    );
  }
});

test('a first line that is not an ack: session-starter is killed', async (t) => {
  for (const line of ['hello', '{"pid":1234,"mode":"group"}', '{"session_containment":2,"pid":1234,"mode":"group"}']) {
    await t.test(line, () =>
      h.withMark(async (mark) => {
        const bin = h.fakeStarter(`printf '%s\\n' '${line}'; exec sleep 300`);
        await assert.rejects(launch('true', [], { binary: bin, env: h.markedEnv(mark) }), (err) => {
          assert.ok(err instanceof LaunchError);
          assert.equal(err.code, 'ERR_SESSION_STARTER_MALFORMED_ACK');
          assert.equal(err.line, line);
          assert.equal(err.signal, 'SIGKILL');
          return true;
        });
      }),
    );
  }
});

test('no ack within the ack timeout: session-starter is killed', () =>
  h.withMark(async (mark) => {
    const bin = h.fakeStarter('exec sleep 300');
    const t0 = Date.now();
    await assert.rejects(launch('true', [], { binary: bin, env: h.markedEnv(mark), ackTimeout: 150 }), (err) => {
      assert.equal(err.code, 'ERR_SESSION_STARTER_ACK_TIMEOUT');
      assert.equal(err.signal, 'SIGKILL');
      return true;
    });
    assert.ok(Date.now() - t0 >= 140, `gave up after ${Date.now() - t0} ms, want 150`);
  }));

test('an abort before the ack kills session-starter; after it, stops the session', () =>
  h.withMark(async (mark) => {
    const before = new AbortController();
    const pending = launch('true', [], { binary: h.fakeStarter('exec sleep 300'), env: h.markedEnv(mark), signal: before.signal });
    setTimeout(() => before.abort(), 50);
    await assert.rejects(pending, { code: 'ERR_SESSION_STARTER_ABORTED', signal: 'SIGKILL' });

    const after = new AbortController();
    const s = await launch('sh', ['-c', `${leak}exec sleep 300`], { env: h.markedEnv(mark), signal: after.signal });
    await h.bounded('started', s.started);
    after.abort();
    assert.equal((await h.bounded('wait()', s.wait())).signal, 'SIGKILL');
    assert.equal((await s.ended).reason, 'control-closed');

    const aborted = AbortSignal.abort();
    await assert.rejects(launch('true', [], { env: h.markedEnv(mark), signal: aborted }), { code: 'ERR_SESSION_STARTER_ABORTED' });
  }));

test('a missing binary is one LaunchError', async () => {
  const none = path.join(h.tempDir(), 'none');
  await assert.rejects(launch('true', [], { binary: none }), (err) => {
    assert.ok(err instanceof LaunchError);
    assert.equal(err.code, 'ERR_SESSION_STARTER_BINARY_MISSING');
    assert.equal(err.message, `session-starter: ${none}: no such file`);
    assert.equal(err.exitCode, null);
    return true;
  });
  const saved = process.env.SESSION_STARTER_BINARY;
  process.env.SESSION_STARTER_BINARY = none;
  try {
    await assert.rejects(launch('true', []), { code: 'ERR_SESSION_STARTER_BINARY_MISSING', message: `session-starter: SESSION_STARTER_BINARY=${none}: no such file` });
  } finally {
    if (saved === undefined) {
      delete process.env.SESSION_STARTER_BINARY;
    } else {
      process.env.SESSION_STARTER_BINARY = saved;
    }
  }
});

// A launcher of its own, with nothing to catch stray events: a missing
// binary is one line of the launcher's, and no 'error' event or rejection
// goes unhandled (which would crash it with a stack trace, status 1).
test('a missing binary does not crash a launcher', async () => {
  const script = `
    const { launch } = require('session-starter');
    launch('true', [], { binary: process.argv[1] }).then(
      () => { console.log('launched'); process.exit(1); },
      (err) => console.log(err.code));`;
  const child = spawn(process.execPath, ['-e', script, path.join(h.tempDir(), 'none')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  const code = await h.bounded('the launcher', new Promise((resolve) => child.on('close', resolve)));
  assert.equal(code, 0, err);
  assert.equal(out, 'ERR_SESSION_STARTER_BINARY_MISSING\n');
  assert.equal(err, '');
});

test('bad options are refused before anything starts', async () => {
  const ran = path.join(h.tempDir(), 'ran');
  const bin = h.fakeStarter(`touch '${ran}'`);
  for (const options of [
    { grace: -1 },
    { timeout: Number.NaN },
    { killBudget: '10s' },
    { grace: 4e12 },
    { stopSignal: {} },
    { containment: '' },
    { extraFlags: ['--grace', '2s'] },
    { extraFlags: ['--status-fd=3'] },
    { extraFlags: ['--'] },
    { extraFlags: [7] },
    { ackTimeout: -5 },
    { stopTimeout: 'soon' },
    { stdinGrace: 1000 },
    { stderr: 'pipe' },
    { cwd: path.join(h.tempDir(), 'none') },
  ]) {
    await assert.rejects(launch('true', [], { ...options, binary: bin }), { name: 'LaunchError', code: 'ERR_SESSION_STARTER_INVALID_OPTION' }, JSON.stringify(options));
  }
  await assert.rejects(launch('', []), { code: 'ERR_SESSION_STARTER_INVALID_OPTION' });
  await assert.rejects(launch('true', ['a', 1]), { code: 'ERR_SESSION_STARTER_INVALID_OPTION' });
  assert.equal(fs.existsSync(ran), false, 'session-starter ran');
});

test("the request for a Go Engine's own containment does not reach the Engine", () =>
  h.withMark(async (mark) => {
    const s = await launch('sh', ['-c', 'echo "${SESSION_STARTER_CONTAIN-unset}"'], { env: h.markedEnv(mark, { SESSION_STARTER_CONTAIN: '1' }) });
    assert.equal(await h.lines(s.stdout)(), 'unset');
    await h.bounded('wait()', s.wait());
  }));

test('stderr goes where asked, and its tail is kept', () =>
  h.withMark(async (mark) => {
    let got = '';
    const sink = new Writable({
      write(chunk, _enc, cb) {
        got += chunk;
        cb();
      },
    });
    const s = await launch('sh', ['-c', 'echo oops >&2; exit 4'], { env: h.markedEnv(mark), stderr: sink });
    assert.equal((await h.bounded('wait()', s.wait())).exitCode, 4);
    await h.eventually('stderr copied', () => got.includes('oops'));
    assert.ok(s.stderrTail().includes('oops'), s.stderrTail());
  }));

test('writing to the stdin of an Engine that closed it does not crash the launcher', () =>
  h.withMark(async (mark) => {
    const s = await launch('sh', ['-c', 'exec 0<&-; echo closed; exec sleep 300'], { env: h.markedEnv(mark) });
    assert.equal(await h.lines(s.stdout)(), 'closed');
    let failed = null;
    for (let i = 0; i < 16; i++) {
      s.stdin.write(Buffer.alloc(64 << 10), (err) => {
        failed ??= err;
      });
    }
    await h.eventually('the writes fail', () => failed !== null);
    assert.equal(failed.code, 'EPIPE');
    await h.bounded('stop()', s.stop());
  }));

// The launcher's death ends the session: --parent-pid watches it, and the
// control pipe reaches its end.
test('SIGKILL of the launcher ends the session', () =>
  h.withMark(async (mark) => {
    const launcher = spawn(process.execPath, [path.join(__dirname, 'launcher.js')], {
      env: h.markedEnv(mark),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const ready = JSON.parse(await h.lines(launcher.stdout)());
    assert.equal(ready.event, 'ready');
    // An environment read in the middle of an exec comes back empty.
    await h.eventually('the Engine runs', () => h.marked(mark).includes(ready.pid));
    launcher.kill('SIGKILL');
    await h.bounded('the launcher', new Promise((resolve) => launcher.on('exit', resolve)));
  }));

test('watchStdin ends the session when this process closes its end of the stdin', () =>
  h.withMark(async (mark) => {
    const s = await launch('sh', ['-c', `${leakRunning}echo ready; exec sleep 300`], { env: h.markedEnv(mark), watchStdin: true, stdinGrace: 100 });
    const next = h.lines(s.stdout);
    assert.equal(await next(), 'ready');
    s.stdin.end();
    assert.deepEqual(await h.bounded('wait()', s.wait()), { exitCode: null, signal: 'SIGKILL', killed: false });
    assert.equal((await h.bounded('ended', s.ended)).reason, 'stdin-closed');
  }));

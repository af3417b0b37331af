'use strict';

// The official MCP TypeScript SDK's client talks to a small MCP server
// (on the SDK too) launched through launch(); the client is ended by
// client.close(), by SIGTERM and by SIGKILL, and nothing of the session —
// the server, the processes it started, session-starter, its guard — may
// be left. The SDK is a devDependency of this directory (package.json,
// package-lock.json), installed from the npm cache by
// scripts/dist/launchers.sh; without it these tests skip, unless
// SESSION_STARTER_REQUIRE_SDK=1 (make dist-check) makes that a failure.

const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const path = require('node:path');
const test = require('node:test');

const h = require('./helpers.js');

function sdkMissing() {
  try {
    require.resolve('@modelcontextprotocol/sdk/client/index.js');
    return false;
  } catch {
    return true;
  }
}

const skip =
  sdkMissing() && process.env.SESSION_STARTER_REQUIRE_SDK !== '1'
    ? '@modelcontextprotocol/sdk is not installed: make dist-deps fetches it (needs the npm registry)'
    : false;

// runClient starts mcp-client.js with the mark, waits for its ready report
// and checks that the server and what it spawned run, then ends it with
// end(client) and resolves with its exit and what it printed after.
async function runClient(mark, end) {
  const client = spawn(process.execPath, [path.join(__dirname, 'mcp-client.js'), '--', process.execPath, path.join(__dirname, 'mcp-server.js')], {
    env: h.markedEnv(mark),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  client.stdin.on('error', () => {});
  const exited = new Promise((resolve) => client.on('exit', (code, signal) => resolve({ code, signal })));
  const next = h.lines(client.stdout);
  const ready = JSON.parse(await next());
  assert.equal(ready.event, 'ready');
  assert.deepEqual(ready.tools, ['spawn']);
  assert.equal(ready.spawned.length, 3);
  // An environment read in the middle of an exec comes back empty.
  for (const pid of [ready.pid, ...ready.spawned]) {
    await h.eventually(`pid ${pid} of the session runs`, () => h.marked(mark).includes(pid));
  }
  end(client);
  const last = await next();
  return { ready, exit: await h.bounded('the client', exited), last: last === null ? null : JSON.parse(last) };
}

test('client.close() ends the session: the status is mirrored, nothing is left', { skip }, () =>
  h.withMark(async (mark) => {
    const { exit, last } = await runClient(mark, (client) => client.stdin.write('close\n'));
    assert.deepEqual(exit, { code: 0, signal: null });
    // The server exited at its end of input; what it spawned was ended.
    assert.deepEqual(last, { event: 'exit', status: { exitCode: 0, signal: null, killed: false }, reason: 'engine-exit', executed: true });
  }));

for (const sig of ['SIGTERM', 'SIGKILL']) {
  test(`${sig} of the client ends the session: nothing is left`, { skip }, () =>
    h.withMark(async (mark) => {
      const { exit, last } = await runClient(mark, (client) => client.kill(sig));
      assert.deepEqual(exit, { code: null, signal: sig });
      assert.equal(last, null);
    }));
}

// Through a wrapper shell (the SDK's own StdioClientTransport starting
// `bash -c "session-starter --watch-stdin … -- server; exec sleep 600"`),
// the session — the server and all it spawned — ends with the client
// however the client ends, while the wrapper shell lives on.
for (const how of ['close', 'SIGTERM', 'SIGKILL']) {
  test(`through a wrapper shell, the client's ${how} ends the session while the shell lives`, { skip }, () =>
    h.withMark(async (mark) => {
      const client = spawn(process.execPath, [path.join(__dirname, 'mcp-wrapper-client.js'), h.sessionStarter.binaryPath()], {
        env: h.markedEnv(mark),
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      client.stdin.on('error', () => {});
      const exited = new Promise((resolve) => client.on('exit', (code, signal) => resolve({ code, signal })));
      const next = h.lines(client.stdout);
      const ready = JSON.parse(await next());
      assert.equal(ready.event, 'ready');
      assert.equal(ready.spawned.length, 3);
      for (const pid of ready.spawned) {
        await h.eventually(`pid ${pid} of the session runs`, () => h.marked(mark).includes(pid));
      }
      if (how === 'close') {
        client.stdin.write('close\n');
      } else {
        client.kill(how);
      }
      await h.bounded('the client', exited);
      // The session ends; the wrapper shell (SIGKILLed with the client's
      // close only after 4 s, else never) may be all that is left.
      // The wrapper's own life is read from its stat: it execs sleep when
      // session-starter exits, and its environment reads empty meanwhile.
      await h.eventually('the session must end', () => h.marked(mark).every((pid) => pid === ready.wrapper));
      if (how !== 'close') {
        assert.ok(h.alive(ready.wrapper), 'the wrapper shell must still be alive');
        process.kill(ready.wrapper, 'SIGKILL'); // ours: the test's grandchild, by PID
      }
    }));
}

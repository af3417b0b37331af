'use strict';

// The stdio helpers under the official clients: the MCP TypeScript SDK's
// client through withSessionStarter() and its own StdioClientTransport,
// and through StdioSessionTransport; the ACP TypeScript SDK's client
// through launchAgent(). Each client is a process of its own, ended by its
// close, by SIGTERM and by SIGKILL; its server leaves a child, a
// grandchild and a setsid'd process. From that moment (t0) every process
// of the session — found by the mark in its environment and by its PID —
// must be gone within the stdin grace (2 s) + the grace (2 s) + 1 s.
// The SDKs are devDependencies of this directory; without them these tests
// skip, unless SESSION_STARTER_REQUIRE_SDK=1 makes that a failure.

const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const test = require('node:test');

const h = require('./helpers.js');

const { withSessionStarter, StdioSessionTransport, launchAgent, carriedEnv, reclaim } = h.sessionStarter;

function missing(name) {
  try {
    require.resolve(name);
    return false;
  } catch {
    return true;
  }
}

const required = process.env.SESSION_STARTER_REQUIRE_SDK === '1';
const skipMcp =
  missing('@modelcontextprotocol/sdk/client/index.js') && !required
    ? '@modelcontextprotocol/sdk is not installed: make dist-deps fetches it (needs the npm registry)'
    : false;
const skipAcp =
  missing('@agentclientprotocol/sdk') && !required ? '@agentclientprotocol/sdk is not installed: make dist-deps fetches it (needs the npm registry)' : false;

// The stdin grace (session-starter's default), the grace the clients ask
// for, and the slack: the bound on the end from t0.
const endBoundMs = 2000 + 2000 + 1000;

const server = path.join(__dirname, 'mcp-server.js');
const agent = path.join(__dirname, 'acp-agent.js');

// clientArgv is the command line of a client of kind how ('params',
// 'transport' or 'acp') for the mark.
function clientArgv(how, mark, serverArgs) {
  if (how === 'acp') {
    return [path.join(__dirname, 'acp-client.js'), mark, '--', process.execPath, agent, ...serverArgs];
  }
  return [path.join(__dirname, 'mcp-session-client.js'), how, mark, '--', process.execPath, server, ...serverArgs];
}

// cmdline is process pid's command line, or '' once it is gone.
function cmdline(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

// environ is process pid's environment as an object.
function environ(pid) {
  const out = {};
  for (const kv of fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0')) {
    const i = kv.indexOf('=');
    if (i > 0) {
      out[kv.slice(0, i)] = kv.slice(i + 1);
    }
  }
  return out;
}

// ppid is process pid's parent.
function ppid(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

// startClient starts a client (its own environment is not marked: only
// its server's is), waits for its ready report and checks that the
// session's processes run.
async function startClient(how, mark, env = process.env, serverArgs = []) {
  const client = spawn(process.execPath, clientArgv(how, mark, serverArgs), { env, stdio: ['pipe', 'pipe', 'inherit'] });
  client.stdin.on('error', () => {});
  const exited = new Promise((resolve) => client.on('exit', (code, signal) => resolve({ code, signal })));
  const next = h.lines(client.stdout);
  const line = await next();
  assert.ok(line !== null, 'the client ended before its ready report');
  const ready = JSON.parse(line);
  assert.equal(ready.event, 'ready');
  assert.equal(ready.spawned.length, 3);
  for (const pid of [ready.pid, ready.starterPid, ...ready.spawned]) {
    await h.eventually(`pid ${pid} of the session runs`, () => h.marked(mark).includes(pid));
  }
  return { client, exited, next, ready };
}

// goneBy waits until no process carries the mark and none of pids lives,
// and fails if that took past t0 + endBoundMs.
async function goneBy(mark, pids, t0) {
  await h.eventually('no process of the session may be left', () => h.marked(mark).length === 0 && !pids.some(h.alive));
  const took = Date.now() - t0;
  assert.ok(took <= endBoundMs, `the session took ${took} ms past t0 to end (bound ${endBoundMs} ms)`);
}

const kinds = [
  ['params', 'withSessionStarter() and the SDK\'s StdioClientTransport', skipMcp],
  ['transport', 'StdioSessionTransport', skipMcp],
  ['acp', 'launchAgent() and the ACP SDK\'s client', skipAcp],
];

for (const [how, through, skip] of kinds) {
  // The server exits at its end of input, or (--ignore-eof) lives on:
  // then only the watch of its stdin and of its launcher ends it.
  for (const [end, serverArgs] of [
    ['close', []],
    ['SIGTERM', []],
    ['SIGKILL', []],
    ['close', ['--ignore-eof']],
    ['SIGKILL', ['--ignore-eof']],
  ]) {
    const server = serverArgs.length > 0 ? ' of a server that ignores its end of input' : '';
    test(`through ${through}, the client's ${end}${server} leaves no process of the session within stdin grace + grace + 1 s`, { skip }, () =>
      h.withMark(async (mark) => {
        const { client, exited, next, ready } = await startClient(how, mark, process.env, serverArgs);
        try {
          await endClient(how, end, { client, exited, next, ready, mark, ignoresEof: serverArgs.length > 0 });
        } finally {
          client.kill('SIGKILL'); // ours, by handle: a no-op once it exited
        }
      }));
  }
}

// endClient checks the PIDs a client reports, ends it by end and checks
// that its session ends within endBoundMs.
async function endClient(how, end, { client, exited, next, ready, mark, ignoresEof }) {
  const pids = [ready.pid, ready.starterPid, ...ready.spawned];
  if (how === 'params') {
    // The SDK's pid is its child's: session-starter itself.
    assert.match(cmdline(ready.pid), /session-starter --stdio .*-- /);
  } else {
    // The Engine's PID, the server's own, not session-starter's.
    assert.notEqual(ready.pid, ready.starterPid);
    assert.match(cmdline(ready.pid), how === 'acp' ? /acp-agent\.js/ : /mcp-server\.js/);
    assert.equal(ppid(ready.spawned[0]), ready.pid);
  }
  if (how === 'acp') {
    // initialize, session/new and a prompt turn went through.
    assert.deepEqual([ready.protocolVersion, ready.stopReason], [1, 'end_turn']);
  }
  let t0;
  if (end === 'close') {
    client.stdin.write('close\n');
    const closing = JSON.parse(await next());
    assert.equal(closing.event, 'closing');
    t0 = closing.at;
    const closed = JSON.parse(await next());
    if (how !== 'params') {
      // close() resolved with the ended record in: the server exited at
      // the end of its input, within the stdin grace, or was ended.
      assert.deepEqual(closed, { event: 'closed', reason: ignoresEof ? 'stdin-closed' : 'engine-exit', executed: true });
    }
    assert.deepEqual(await h.bounded('the client', exited), { code: 0, signal: null });
  } else {
    t0 = Date.now();
    client.kill(end);
    assert.deepEqual(await h.bounded('the client', exited), { code: null, signal: end });
  }
  await goneBy(mark, pids, t0);
}

// A session's ledger record must be where the user's --reclaim reads, and
// a session started inside another must nest in it: the SDK's default
// environment keeps neither variable, the helpers carry them.
for (const [how, through, skip] of kinds.slice(0, 2)) {
  test(`through ${through} and the SDK's default environment, a login environment's reclaim --dry-run finds the session`, { skip }, () =>
    h.withMark(async (mark) => {
      const ledger = h.tempDir();
      fs.chmodSync(ledger, 0o700);
      const runtime = h.tempDir();
      const outer = 'f'.repeat(32);
      const login = { ...process.env, SESSION_STARTER_LEDGER_DIR: ledger, XDG_RUNTIME_DIR: runtime };
      const { client, exited, ready } = await startClient(how, mark, { ...login, SESSION_STARTER_SESSION: outer });
      try {
        await findInLedger({ ready, ledger, runtime, outer, login });
      } finally {
        client.kill('SIGKILL'); // ours, by handle
      }
      await h.bounded('the client', exited);
      await goneBy(mark, [ready.pid, ready.starterPid, ...ready.spawned], Date.now());
    }));
}

// findInLedger checks that the server's environment has the carried
// variables, and that a reclaim --dry-run in the login environment finds
// its session, live.
async function findInLedger({ ready, ledger, runtime, outer, login }) {
  // The server is the parent of what it spawned.
  const engine = ppid(ready.spawned[0]);
  const env = environ(engine);
  assert.equal(env.SESSION_STARTER_LEDGER_DIR, ledger);
  assert.equal(env.XDG_RUNTIME_DIR, runtime);
  const ids = env.SESSION_STARTER_SESSION.split(':');
  assert.deepEqual([ids.length, ids[0]], [2, outer], 'the session must nest in the outer one');
  const rec = await reclaim({ dryRun: true, env: login });
  assert.equal(rec.dir, ledger);
  const found = rec.sessions.find((s) => s.session === ids[1]);
  assert.ok(found, `the session ${ids[1]} is not in the ledger ${ledger}: ${JSON.stringify(rec.sessions)}`);
  assert.equal(found.action, 'live');
}

test('carriedEnv() takes the ledger, runtime and session variables that are set, and nothing else', () => {
  assert.deepEqual(carriedEnv({ XDG_RUNTIME_DIR: '/run/user/7', SESSION_STARTER_SESSION: 'a:b', HOME: '/h', SESSION_STARTER_LEDGER_DIR: '' }), {
    XDG_RUNTIME_DIR: '/run/user/7',
    SESSION_STARTER_SESSION: 'a:b',
  });
});

test('withSessionStarter() puts the binary with the watch flags and the options before the server, and keeps the rest', () => {
  const stderr = 'pipe';
  const p = withSessionStarter(
    { command: 'npx', args: ['-y', 'server'], env: { TOKEN: 't', SESSION_STARTER_CONTAIN: '1' }, cwd: '/', stderr },
    { grace: 1500, killBudget: 3000, containment: 'group', stdinGrace: 500 },
  );
  assert.equal(p.command, h.sessionStarter.binaryPath());
  assert.deepEqual(p.args, [
    '--stdio',
    '--grace',
    '1500ms',
    '--kill-budget',
    '3000ms',
    '--stdin-grace',
    '500ms',
    '--containment',
    'group',
    '--',
    'npx',
    '-y',
    'server',
  ]);
  assert.deepEqual(p.env, { ...carriedEnv(), TOKEN: 't' });
  assert.equal(p.cwd, '/');
  assert.equal(p.stderr, stderr);
});

test('the helpers refuse what they cannot run, saying what to fix', async () => {
  const bad = (fn, re) => assert.throws(fn, (err) => err.code === 'ERR_SESSION_STARTER_INVALID_OPTION' && re.test(err.message));
  bad(() => withSessionStarter({ command: '' }), /no command/);
  bad(() => withSessionStarter({ command: 'x', args: [1] }), /args: want an array of strings/);
  bad(() => withSessionStarter({ command: 'x' }, { grace: '2s' }), /grace 2s: want a number of milliseconds/);
  bad(() => withSessionStarter({ command: 'x' }, { watchStdin: false }), /always watched through its stdin/);
  bad(() => withSessionStarter({ command: 'x' }, { extraFlags: ['--watch-stdin'] }), /--watch-stdin is set by launch/);
  bad(() => new StdioSessionTransport({ command: 'x', stderr: 3 }), /stderr 3: want 'inherit', 'ignore', 'pipe' or a writable stream/);
  await assert.rejects(launchAgent({ command: 'x' }, { containment: 'jail', stopSignal: '' }), (err) => err.code === 'ERR_SESSION_STARTER_INVALID_OPTION');
});

test('StdioSessionTransport passes the server the SDK\'s default environment, the carried variables and its env, nothing else', { skip: skipMcp }, () =>
  h.withMark(async (mark) => {
    const { getDefaultEnvironment } = require('@modelcontextprotocol/sdk/client/stdio.js');
    const dir = h.tempDir();
    const t = new StdioSessionTransport({ command: 'sh', args: ['-c', 'env -0 > "$0"/env; exec cat', dir], env: { [h.markVar]: mark } });
    const errors = [];
    t.onerror = (err) => errors.push(err);
    let closed = 0;
    t.onclose = () => closed++;
    await t.start();
    await h.eventually('the server wrote its environment', () => fs.existsSync(path.join(dir, 'env')) && fs.statSync(path.join(dir, 'env')).size > 0);
    const got = Object.fromEntries(
      fs
        .readFileSync(path.join(dir, 'env'), 'latin1')
        .split('\0')
        .filter((kv) => kv !== '')
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    );
    const ids = got.SESSION_STARTER_SESSION;
    delete got.SESSION_STARTER_SESSION; // the session's mark
    delete got.PWD; // sh's own
    delete got.SHLVL;
    delete got._;
    const carried = carriedEnv();
    delete carried.SESSION_STARTER_SESSION;
    assert.deepEqual(got, { ...getDefaultEnvironment(), ...carried, [h.markVar]: mark });
    assert.ok(/^[0-9a-f]{32}$/.test(ids.split(':').at(-1)), ids);
    // A message each way, framed as the SDK frames it: cat echoes it.
    const back = new Promise((resolve) => {
      t.onmessage = resolve;
    });
    await t.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    assert.deepEqual(await h.bounded('the echo', back), { jsonrpc: '2.0', id: 1, method: 'ping' });
    await t.close();
    assert.equal((await t.ended).reason, 'engine-exit');
    await h.eventually('onclose was called', () => closed === 1);
    await assert.rejects(t.send({ jsonrpc: '2.0', id: 2, method: 'ping' }), /Not connected/);
    assert.deepEqual(errors, []);
  }));

test('StdioSessionTransport.close() stops a session-starter still there past the longest end, and resolves', () =>
  h.withMark(async (mark) => {
    // A stand-in that acknowledges and then ignores its stdin's end.
    const bin = h.fakeStarter(`printf '{"session_containment":1,"pid":4242,"mode":"group"}\\n'; exec sleep 300`);
    const t = new StdioSessionTransport({ command: 'true', env: { [h.markVar]: mark } }, { binary: bin, stdinGrace: 1, killBudget: 1, stopTimeout: 200 });
    await t.start();
    const t0 = Date.now();
    await h.bounded('close()', t.close());
    const took = Date.now() - t0;
    // stdin grace + endBound(0, 1) + 5 s, then stop()'s 200 ms.
    assert.ok(took >= 1 + 251 + 5000, `close() stopped the session after ${took} ms`);
    assert.equal(await t.ended, null);
    assert.deepEqual(await t.session.exited, { exitCode: null, signal: 'SIGKILL', killed: true });
  }));

test('StdioSessionTransport gives a piped stderr from construction on, and reports a line that is not JSON-RPC without dropping the next', () =>
  h.withMark(async (mark) => {
    const t = new StdioSessionTransport({
      command: 'sh',
      args: ['-c', `echo said >&2; printf 'not json\\n[1]\\n{"jsonrpc":"2.0","id":7,"result":{}}\\r\\n'; exec cat >/dev/null`],
      env: { [h.markVar]: mark },
      stderr: 'pipe',
    });
    assert.ok(t.stderr !== null, 'the stderr stream is there before start()');
    const said = h.lines(t.stderr);
    const errors = [];
    t.onerror = (err) => errors.push(err);
    const got = new Promise((resolve) => {
      t.onmessage = resolve;
    });
    await t.start();
    assert.equal(await said(), 'said');
    assert.deepEqual(await h.bounded('the message', got), { jsonrpc: '2.0', id: 7, result: {} });
    assert.equal(errors.length, 2, errors.map((e) => e.message).join('; '));
    assert.match(errors[1].message, /not a JSON-RPC 2\.0 message: \[1\]/);
    await t.close();
    assert.equal(await said(), null, 'the stderr stream ends with the session');
  }));

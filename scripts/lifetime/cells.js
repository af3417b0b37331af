'use strict';

// The lifetime suite: the official MCP clients (TypeScript, Go), the
// Python one on a fake of the Python SDK and the official ACP client,
// each run as a process of its
// own, start misbehaving stdio servers (fixtures/) through each
// integration of session-starter and bare, and are ended by close(), by
// SIGTERM and by SIGKILL. t0 is the call of close() or the signal that
// kills the client.
//
// Through session-starter, every cell must leave no process of the
// session within the stdin grace + the grace + 1 s of t0. Bare, each
// leaking fixture must leave at least one process in the same run, or it
// proves nothing; what it leaves is killed by PID.
//
// A cell's processes are those whose environment carries its mark
// (LIFETIME_MARK): the client puts it in the server's environment only.
// Each cell's result is appended to LIFETIME_RESULTS as a JSON line.
// A test file a client (ts, go, py, acp.test.js) calls defineCells: node
// --test runs the files at once, each one's cells in turn.
//
// Environment: NODE_PATH finds the npm package and the MCP SDK;
// SESSION_STARTER_BINARY is session-starter; LIFETIME_GO_CLIENT is the
// built Go client (scripts/lifetime/goclient); LIFETIME_PYTHON a python3
// that imports anyio, with PYTHONPATH holding scripts/dist/python and its
// tests (the fake MCP SDK); LIFETIME_RESULTS the file.

const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const test = require('node:test');

const stdinGraceMs = 2000; // session-starter's default --stdin-grace
const graceMs = 1000; // the clients' --grace
const boundMs = stdinGraceMs + graceMs + 1000;
// tooLong bounds every wait for an event (a ready line, an exit): two
// loaded cores stretch milliseconds a hundredfold.
const tooLong = 30000;

const results = process.env.LIFETIME_RESULTS;
const goClient = process.env.LIFETIME_GO_CLIENT;
const python = process.env.LIFETIME_PYTHON;
assert.ok(results, 'LIFETIME_RESULTS must name the results file');
assert.ok(goClient && fs.existsSync(goClient), 'LIFETIME_GO_CLIENT must name the built Go client');
assert.ok(python, 'LIFETIME_PYTHON must name a python3 that imports anyio');
assert.ok(process.env.SESSION_STARTER_BINARY, 'SESSION_STARTER_BINARY must name session-starter');

const node = process.execPath;
const fixtures = path.join(__dirname, 'fixtures');
const mcpServer = path.join(fixtures, 'server.js');
const acpAgent = path.join(fixtures, 'agent.js');

// argv(server) is the fixture's command line around server (the MCP
// server or the ACP agent). leaksOnClose: whether the fixture run bare outlives the SDKs' own close
// (stdin's end, then SIGTERM, then SIGKILL of the direct child only).
const fixtureList = [
  {
    name: 'npx-wrapper',
    what: 'an npx-style wrapper whose grandchild server ignores EOF',
    argv: (server) => [node, path.join(fixtures, 'npx-wrapper.js'), node, server, '--ignore-eof'],
    leaksOnClose: true,
  },
  { name: 'eof-child', what: 'a server that exits on EOF leaving a child', argv: (server) => [node, server, '--child'], leaksOnClose: true },
  {
    name: 'ignore-eof-term',
    what: 'a server that ignores EOF and SIGTERM',
    argv: (server) => [node, server, '--ignore-eof', '--ignore-sigterm'],
    leaksOnClose: false,
  },
  {
    name: 'setsid-job',
    what: 'a server whose tool call (ACP: prompt turn) setsids a background job',
    argv: (server) => [node, server, '--job'],
    leaksOnClose: true,
  },
];

const clients = [
  {
    name: 'ts',
    what: 'TypeScript',
    argv: [node, path.join(__dirname, 'ts-client.js')],
    server: mcpServer,
    integrations: ['bare', 'with-session-starter', 'stdio-session-transport'],
  },
  { name: 'go', what: 'Go', argv: [goClient], server: mcpServer, integrations: ['bare', 'starter-mcp'] },
  {
    name: 'py',
    what: 'Python (on the fake SDK)',
    argv: [python, path.join(__dirname, 'py-client.py')],
    server: mcpServer,
    integrations: ['bare', 'wrap-stdio-parameters', 'stdio-client'],
  },
  { name: 'acp', what: 'ACP', argv: [node, path.join(__dirname, 'acp-client.js')], server: acpAgent, integrations: ['bare', 'launch-agent'] },
];

const endings = ['close', 'SIGTERM', 'SIGKILL'];

// A mark starts with LIFETIME_RUN, which run.sh sets: should this process
// die before its cleanup, run.sh kills what carries the run's marks.
function newMark() {
  return `lifetime-${process.env.LIFETIME_RUN ?? 'norun'}-${process.pid}-${crypto.randomBytes(8).toString('hex')}`;
}

// marked lists the live processes (not zombies) whose environment carries
// the mark.
function marked(mark) {
  const want = Buffer.from(`\0LIFETIME_MARK=${mark}\0`);
  const out = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) {
      continue;
    }
    let env;
    let stat;
    try {
      env = Buffer.concat([Buffer.from('\0'), fs.readFileSync(`/proc/${name}/environ`)]);
      stat = fs.readFileSync(`/proc/${name}/stat`, 'latin1');
    } catch {
      continue; // gone, or not ours to read
    }
    if (env.includes(want) && stat[stat.lastIndexOf(')') + 2] !== 'Z') {
      out.push(Number(name));
    }
  }
  return out;
}

// killMarked SIGKILLs, by PID, each process that still carries the mark
// when it is read again, and returns their command lines.
function killMarked(mark) {
  const names = [];
  for (const pid of marked(mark)) {
    try {
      names.push(`${pid} ${fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ').trim()}`);
      if (marked(mark).includes(pid)) {
        process.kill(pid, 'SIGKILL');
      }
    } catch {
      // gone meanwhile
    }
  }
  return names;
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// until samples cond until it holds or the clock passes deadline (ms since
// the epoch); it resolves with the time it first held, or null.
async function until(cond, deadline) {
  for (;;) {
    if (cond()) {
      return Date.now();
    }
    if (Date.now() > deadline) {
      return null;
    }
    await pause(10);
  }
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

function lines(stream) {
  const it = require('node:readline').createInterface({ input: stream })[Symbol.asyncIterator]();
  return async (what) => {
    const r = await bounded(what, it.next());
    return r.done ? null : JSON.parse(r.value);
  };
}

// runCell runs one client through one integration against one fixture,
// ends it, and returns what was left: left is the count at t0 + bound
// (bare: at the later of that and the client's exit), emptyMs the time
// from t0 to the first moment nothing was left (null: never, within
// tooLong through session-starter, within the count's moment bare).
//
// A recipe's cell (recipes.test.js) gives how: under, an argv that runs
// the client (a mount namespace); env, the config's env for the server;
// bare, whether session-starter is left out; bound; and label, the
// integration its result names.
async function runCell(client, integration, fixture, ending, how = {}) {
  const { under = [], env, bare = integration === 'bare', bound = boundMs, label = integration } = how;
  const mark = newMark();
  const argv = [...under, ...client.argv, integration, mark, ...fixture.argv(client.server)];
  const proc = spawn(argv[0], argv.slice(1), {
    env: { ...process.env, LIFETIME_GRACE_MS: String(graceMs), ...(env && { LIFETIME_SERVER_ENV: JSON.stringify(env) }) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  proc.stdin.on('error', () => {});
  const exited = new Promise((resolve) => proc.on('exit', () => resolve(Date.now())));
  try {
    const next = lines(proc.stdout);
    const ready = await next('the ready line');
    assert.equal(ready?.event, 'ready', 'the client must connect and call the tool');
    const running = await until(() => {
      const now = marked(mark);
      return ready.pids.every((pid) => now.includes(pid));
    }, Date.now() + tooLong);
    assert.ok(running, `the server's processes ${ready.pids} must run with the mark`);
    const before = marked(mark).length;

    let t0;
    if (ending === 'close') {
      proc.stdin.write('close\n');
      const closing = await next('the closing line');
      assert.equal(closing?.event, 'closing');
      t0 = closing.t0;
    } else {
      t0 = Date.now();
      proc.kill(ending);
    }

    let left;
    let emptied;
    if (bare) {
      const exitAt = await bounded('the client', exited);
      const at = Math.max(t0 + bound, exitAt);
      emptied = await until(() => marked(mark).length === 0, at);
      left = emptied === null ? marked(mark).length : 0;
    } else {
      emptied = await until(() => marked(mark).length === 0, t0 + tooLong);
      left = emptied === null || emptied > t0 + bound ? Math.max(marked(mark).length, 1) : 0;
    }
    const cell = {
      client: client.name,
      integration: label,
      fixture: fixture.name,
      ending,
      before,
      left,
      emptyMs: emptied === null ? null : emptied - t0,
    };
    fs.appendFileSync(results, `${JSON.stringify(cell)}\n`);
    return cell;
  } finally {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGKILL'); // ours, by PID
    }
    await bounded('the client', exited);
    // What the cell left (bare: what the fixture leaks) is killed by PID.
    const killed = killMarked(mark);
    if (killed.length > 0 && !bare) {
      console.error(`lifetime: killed what the cell left: ${killed.join('; ')}`);
    }
  }
}

// leftNothing asserts that a cell through session-starter emptied the
// session within bound.
function leftNothing(cell, bound = boundMs) {
  assert.ok(cell.emptyMs !== null, `processes of the session were left after ${tooLong} ms`);
  assert.ok(cell.emptyMs <= bound, `the session took ${cell.emptyMs} ms to empty, past ${bound} ms`);
}

// leftSome asserts that a bare cell left a process: else its fixture
// proves nothing.
function leftSome(cell) {
  assert.ok(cell.left >= 1, 'the fixture left nothing bare: it proves nothing');
}

// defineCells defines the tests of the client named name: a test a cell.
function defineCells(name) {
  const client = clientNamed(name);
  for (const integration of client.integrations) {
    for (const fixture of fixtureList) {
      for (const ending of endings) {
        const how = ending === 'close' ? 'close()' : ending;
        if (integration !== 'bare') {
          test(`through ${integration}, the ${client.what} client's ${how} leaves nothing of ${fixture.what} within ${boundMs / 1000} s`, async () => {
            leftNothing(await runCell(client, integration, fixture, ending));
          });
        } else if (ending !== 'close' || fixture.leaksOnClose) {
          test(`run bare, ${fixture.what} outlives the ${client.what} client's ${how}`, async () => {
            leftSome(await runCell(client, integration, fixture, ending));
          });
        } else {
          test(`run bare, the ${client.what} client's own close() ends ${fixture.what} (it kills its direct child)`, async () => {
            const cell = await runCell(client, integration, fixture, ending);
            assert.equal(cell.left, 0);
          });
        }
      }
    }
  }
}

function clientNamed(name) {
  const client = clients.find((c) => c.name === name);
  assert.ok(client, `unknown client ${name}`);
  return client;
}

module.exports = { defineCells, runCell, clientNamed, leftNothing, leftSome, endings, stdinGraceMs, fixtures };

'use strict';

// The package README's examples, run as printed against the real binary,
// offline. Each fenced block is written to a file in a directory of its
// own (whose node_modules links the package and the SDKs) and run there:
// the shell blocks with bash, the js blocks with node as ES modules. The
// install line is not run: it needs the registry. The MCP and ACP examples
// name a server, my-server.js, and an agent, my-agent.js: this directory's
// test server and agent stand in for them. Every process an example
// started runs in its directory: none may be left once it has exited.

const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const test = require('node:test');

const h = require('./helpers.js');

const pkg = path.dirname(require.resolve('session-starter/package.json'));

function resolved(name) {
  try {
    return require.resolve(name);
  } catch {
    return null;
  }
}

// scopeDir is the node_modules/@scope directory a module was found in.
function scopeDir(file, scope) {
  const at = file && file.lastIndexOf(`${path.sep}node_modules${path.sep}${scope}${path.sep}`);
  return file && at >= 0 ? file.slice(0, at + `${path.sep}node_modules${path.sep}${scope}`.length) : null;
}

const mcp = scopeDir(resolved('@modelcontextprotocol/sdk/client/index.js'), '@modelcontextprotocol');
const acp = scopeDir(resolved('@agentclientprotocol/sdk'), '@agentclientprotocol');
const skipSdk =
  (mcp === null || acp === null) && process.env.SESSION_STARTER_REQUIRE_SDK !== '1'
    ? 'the MCP and ACP SDKs are not installed: make dist-deps fetches them (needs the npm registry)'
    : false;

// The README's fenced blocks, in order: [language, text].
function blocks() {
  const readme = fs.readFileSync(path.join(pkg, 'README.md'), 'utf8');
  return [...readme.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => [m[1], m[2]]);
}

// exampleDir makes the directory an example runs in.
function exampleDir() {
  const dir = h.tempDir();
  const nm = path.join(dir, 'node_modules');
  fs.mkdirSync(path.join(nm, '.bin'), { recursive: true });
  fs.symlinkSync(pkg, path.join(nm, 'session-starter'));
  fs.symlinkSync(path.join(pkg, 'bin', 'session-starter.js'), path.join(nm, '.bin', 'session-starter'));
  if (mcp !== null) {
    fs.symlinkSync(mcp, path.join(nm, '@modelcontextprotocol'));
  }
  if (acp !== null) {
    fs.symlinkSync(acp, path.join(nm, '@agentclientprotocol'));
  }
  fs.copyFileSync(path.join(__dirname, 'mcp-server.js'), path.join(dir, 'my-server.js'));
  fs.copyFileSync(path.join(__dirname, 'acp-agent.js'), path.join(dir, 'my-agent.js'));
  const ledger = path.join(dir, 'ledger');
  fs.mkdirSync(ledger, { mode: 0o700 });
  return { dir, ledger };
}

// inDir lists the live processes whose working directory is dir or under it.
function inDir(dir) {
  const out = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) {
      continue;
    }
    try {
      const cwd = fs.readlinkSync(`/proc/${name}/cwd`);
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'latin1');
      if ((cwd === dir || cwd.startsWith(dir + path.sep)) && stat[stat.lastIndexOf(')') + 2] !== 'Z') {
        out.push(Number(name));
      }
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

// run runs one example in its directory and returns its stdout; it fails
// when the example fails or leaves a process behind (those are SIGKILLed).
async function run(lang, text) {
  const { dir, ledger } = exampleDir();
  let argv;
  if (lang === 'js') {
    fs.writeFileSync(path.join(dir, 'example.mjs'), text);
    argv = [process.execPath, 'example.mjs'];
  } else {
    argv = ['bash', '-c', text];
  }
  const env = {
    ...process.env,
    SESSION_STARTER_LEDGER_DIR: ledger,
    // npx finds the package in node_modules; never the registry.
    npm_config_offline: 'true',
    npm_config_registry: 'http://127.0.0.1:9/',
    npm_config_update_notifier: 'false',
    npm_config_cache: path.join(dir, 'npm-cache'),
  };
  const child = spawn(argv[0], argv.slice(1), { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  const code = await h.bounded(`the example ${text.split('\n')[0]}`, new Promise((resolve) => child.on('close', resolve)));
  let left = [];
  try {
    await h.eventually('no process of the example may be left', () => (left = inDir(dir)).length === 0);
  } catch {
    // left names them, below
  } finally {
    for (const pid of inDir(dir)) {
      process.kill(pid, 'SIGKILL');
    }
  }
  assert.deepEqual(left, [], `the example left these processes, now SIGKILLed:\n${text}`);
  assert.equal(code, 0, `the example exited ${code}:\n${text}\nstdout: ${out}\nstderr: ${err}`);
  return out;
}

// The blocks as the README prints them, each with what it must print.
const examples = [
  { lang: 'sh', what: 'the install line', install: true },
  { lang: 'sh', what: 'the command', out: /^exit status 3\n$/ },
  { lang: 'js', what: 'launch()', out: /^got hello\nengine-exit 0\n$/ },
  { lang: 'js', what: 'call()', out: /^started 0 hello\n$/ },
  { lang: 'js', what: 'reclaim()', out: /^$/ },
  { lang: 'js', what: 'the MCP client', out: /^\[ 'spawn' \]\n$/, sdk: true },
  { lang: 'js', what: 'the ACP client', out: /^1\n$/, sdk: true },
];

test('the README has the examples this test runs, in order', () => {
  assert.deepEqual(
    blocks().map(([lang]) => lang),
    examples.map((e) => e.lang),
  );
  assert.equal(blocks()[0][1], 'npm install session-starter\n');
});

for (const [i, e] of examples.entries()) {
  if (e.install) {
    continue;
  }
  test(`the README's example of ${e.what} runs as printed`, { skip: e.sdk ? skipSdk : false }, async () => {
    const [lang, text] = blocks()[i];
    assert.equal(lang, e.lang);
    assert.match(await run(lang, text), e.out);
  });
}

test("the README's reclaim() example ends what a dead session left", async () => {
  // The example prints nothing on an empty ledger: here it has a record.
  const text = blocks()[4][1];
  assert.match(text, /reclaim\(\)/);
  const { dir, ledger } = exampleDir();
  try {
    await reclaimed(dir, ledger, text);
  } finally {
    for (const pid of inDir(dir)) {
      process.kill(pid, 'SIGKILL');
    }
  }
});

async function reclaimed(dir, ledger, text) {
  const s = await launch(dir, ledger);
  fs.writeFileSync(path.join(dir, 'example.mjs'), text);
  const child = spawn(process.execPath, ['example.mjs'], {
    cwd: dir,
    env: { ...process.env, SESSION_STARTER_LEDGER_DIR: ledger },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  assert.equal(await h.bounded('the reclaim() example', new Promise((resolve) => child.on('close', resolve))), 0);
  assert.match(out, new RegExp(`^${s.session} reclaimed \\[ ${s.pid} \\]\\n$`));
  await h.eventually("the dead session's Engine must be gone", () => !h.alive(s.pid));
}

// launch starts a session in dir whose session-starter and guard are then
// SIGKILLed together (session-starter stopped first, so that it cannot end
// the session when its guard dies): its Engine is left running.
async function launch(dir, ledger) {
  const { launch: start } = h.sessionStarter;
  const s = await start('sleep', ['300'], { cwd: dir, env: { ...process.env, SESSION_STARTER_LEDGER_DIR: ledger } });
  const started = await s.started;
  let record;
  await h.eventually('the session must have its ledger record', () => {
    const files = fs.readdirSync(ledger).filter((f) => f.endsWith('.json'));
    if (files.length !== 1) {
      return false;
    }
    record = JSON.parse(fs.readFileSync(path.join(ledger, files[0]), 'utf8'));
    return true;
  });
  process.kill(s.starterPid, 'SIGSTOP');
  process.kill(record.guard.pid, 'SIGKILL');
  process.kill(s.starterPid, 'SIGKILL');
  await s.wait();
  assert.ok(h.alive(started.pid), 'the Engine must be left running');
  return { session: started.session, pid: started.pid };
}

'use strict';

// The package's command through the real npx: the tarball npm pack makes
// of the package under test, installed offline into a project of its own,
// run as `npx session-starter -- …`. A signal to npx, or its death, must
// end the session as it would end the binary's: nothing of the chain (npm,
// the shell npm runs the command through, the Node shim, the binary, the
// Engine) may be left.
//
// On Node without process.execve (before 22.15), and wherever a package
// runner ran it, the shim is a relay: these tests take that path.

const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const test = require('node:test');

const h = require('./helpers.js');

// npmEnv keeps npm offline and quiet: a registry that does not answer and
// a cache of the test's own.
function npmEnv(cache, extra = {}) {
  return { ...process.env, npm_config_update_notifier: 'false', npm_config_cache: cache, npm_config_registry: 'http://127.0.0.1:9/', ...extra };
}

// installed packs the package under test and installs the tarball into a
// new project, offline; it returns the project's directory and the cache.
function installed() {
  const dir = h.tempDir();
  const cache = path.join(dir, 'cache');
  const pkg = path.dirname(require.resolve('session-starter/package.json'));
  const tarball = execFileSync('npm', ['pack', '--offline', '--ignore-scripts', '--silent', '--pack-destination', dir, pkg], {
    env: npmEnv(cache),
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .pop();
  const project = path.join(dir, 'project');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), '{"name":"npx-test","version":"1.0.0","private":true}\n');
  // The platform package is not in the cache: npm leaves that optional
  // dependency out, and SESSION_STARTER_BINARY names the binary.
  execFileSync('npm', ['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', path.join(dir, tarball)], {
    cwd: project,
    env: npmEnv(cache),
    stdio: 'ignore',
  });
  return { project, cache };
}

let setup = null;

// npxSession starts `npx session-starter FLAGS -- sh -c ENGINE PIDFILE` in
// the project, marked, and resolves once the Engine has written the PID of
// its background sleep; it returns npx's child process and its exit.
async function npxSession(mark, flags) {
  setup ??= installed();
  const pidfile = path.join(h.tempDir(), 'engine.pid');
  const engine = 'sleep 300 & echo "$!" >"$0"; exec sleep 300';
  const env = npmEnv(setup.cache, { [h.markVar]: mark, SESSION_STARTER_BINARY: h.sessionStarter.binaryPath() });
  const npx = spawn('npx', ['--offline', 'session-starter', ...flags, '--', 'sh', '-c', engine, pidfile], {
    cwd: setup.project,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  npx.stderr.on('data', (c) => {
    stderr += c;
  });
  const exited = new Promise((resolve) => npx.on('exit', (code, signal) => resolve({ code, signal })));
  await h.eventually('the Engine starts through npx', () => fs.existsSync(pidfile) && fs.readFileSync(pidfile, 'utf8').trim() !== '').catch((err) => {
    npx.kill('SIGKILL');
    err.message += ` (npx's stderr: ${stderr})`;
    throw err;
  });
  return { npx, exited };
}

// SIGTERM reaches the shell npm runs the command through, not the shim;
// SIGKILL reaches nothing: the shim sees its launcher gone.
for (const [sig, flags] of [
  ['SIGTERM', []],
  ['SIGKILL', []],
  ['SIGKILL', ['--watch-parent']],
]) {
  test(`${sig} to npx ends the session${flags.length ? ` with ${flags.join(' ')}` : ''} and leaves nothing of the chain`, () =>
    h.withMark(async (mark) => {
      const { npx, exited } = await npxSession(mark, flags);
      npx.kill(sig);
      await h.bounded('npx exits', exited);
      // withMark then checks that npm, its shell, the shim, the binary
      // and the Engine's two sleeps are all gone.
    }));
}

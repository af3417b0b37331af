'use strict';

// index.d.ts compiles under tsc --strict, types a launcher's use of the
// API (types-check.ts), and refuses its misuses; its MCP and ACP shapes
// fit the SDKs' own types. TypeScript, @types/node and the SDKs are
// devDependencies of this directory; without them this test skips, unless SESSION_STARTER_REQUIRE_SDK=1 makes that a failure.

const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const test = require('node:test');

const h = require('./helpers.js');

function resolved(name) {
  try {
    return require.resolve(name);
  } catch {
    return null;
  }
}

const tsc = resolved('typescript/bin/tsc');
const nodeTypes = resolved('@types/node/package.json');
const mcpSdkFile = resolved('@modelcontextprotocol/sdk/client/index.js');
const mcpSdk = mcpSdkFile && mcpSdkFile.slice(0, mcpSdkFile.lastIndexOf(`${path.sep}dist${path.sep}`));
const acpSdk = resolved('@agentclientprotocol/sdk')?.replace(/\.js$/, '.d.ts');
const skip =
  [tsc, nodeTypes, mcpSdk, acpSdk].includes(null) && process.env.SESSION_STARTER_REQUIRE_SDK !== '1'
    ? 'typescript, @types/node and the SDKs are not installed: make dist-deps fetches them (needs the npm registry)'
    : false;

test('index.d.ts types the API, and refuses its misuse', { skip }, () => {
  const pkg = path.dirname(require.resolve('session-starter/package.json'));
  const dir = h.tempDir();
  const config = path.join(dir, 'tsconfig.json');
  fs.writeFileSync(
    config,
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'es2022',
        module: 'node16',
        moduleResolution: 'node16',
        types: ['node'],
        typeRoots: [path.dirname(path.dirname(nodeTypes))],
        paths: {
          'session-starter': [path.join(pkg, 'lib', 'index.d.ts')],
          // The SDKs, found where node finds them (NODE_PATH), which tsc
          // does not read.
          '@modelcontextprotocol/sdk/*': [path.join(mcpSdk, 'dist', 'cjs', '*')],
          '@agentclientprotocol/sdk': [acpSdk],
        },
      },
      files: [path.join(__dirname, 'types-check.ts')],
    }),
  );
  // tsc needs about 15 s of CPU: at a load average of 20 on two cores that
  // is over a minute of wall time, so its bound is ten times tooLong.
  const bound = h.tooLong * 10;
  let out = '';
  try {
    out = execFileSync(process.execPath, [tsc, '-p', config], { encoding: 'utf8', timeout: bound });
  } catch (err) {
    const ended = err.signal ? ` (ended by ${err.signal} at its bound of ${bound} ms)` : '';
    assert.fail(`tsc${ended}: ${err.stdout}${err.stderr}`);
  }
  assert.equal(out, '');
});

// The reasons session-starter writes: starter's Reason constants, the
// "signal NAME" form of ReasonSignal, and "failed" (starter/status.go).
// The binary never cancels its context, so it never writes "canceled".
function writtenReasons() {
  const repo = path.join(__dirname, '..', '..', '..', '..');
  const options = fs.readFileSync(path.join(repo, 'starter', 'options.go'), 'utf8');
  const reasons = [...options.matchAll(/^\s*Reason\w+\s+Reason = "([a-z-]+)"/gm)].map((m) => m[1]);
  assert.ok(reasons.includes('engine-exit'), 'starter/options.go must declare the Reason constants');
  const status = fs.readFileSync(path.join(repo, 'starter', 'status.go'), 'utf8');
  assert.match(status, /rec\.Reason = "failed"/, 'starter/status.go must write reason "failed"');
  return [...reasons.filter((r) => r !== 'canceled').map((r) => (r === 'signal' ? 'signal NAME' : r)), 'failed'];
}

test('the doc of EndedRecord.reason names every reason session-starter writes', () => {
  const dts = fs.readFileSync(path.join(path.dirname(require.resolve('session-starter/package.json')), 'lib', 'index.d.ts'), 'utf8');
  const doc = dts.match(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*reason: string;/);
  assert.ok(doc, 'index.d.ts must document EndedRecord.reason');
  const text = doc[1].replace(/\s*\*\s*/g, ' ');
  for (const reason of writtenReasons()) {
    assert.ok(text.includes(`'${reason}'`), `the doc of EndedRecord.reason does not name '${reason}'`);
  }
});

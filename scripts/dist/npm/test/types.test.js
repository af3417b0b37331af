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
  let out = '';
  try {
    out = execFileSync(process.execPath, [tsc, '-p', config], { encoding: 'utf8', timeout: h.tooLong * 2 });
  } catch (err) {
    assert.fail(`tsc: ${err.stdout}${err.stderr}`);
  }
  assert.equal(out, '');
});

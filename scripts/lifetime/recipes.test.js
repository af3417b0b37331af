'use strict';

// The client configs of README.md (its one MCP recipe) and of the manual
// (cmd/session-starter/doc.go, "MCP and ACP clients"), run as printed.
// Each config's command, args and env are read out of the text: JSON as
// JSON, Codex's TOML by Python's tomllib. The official MCP TypeScript
// client runs the MCP configs; the official ACP client runs Zed's
// agent_servers. Each is ended by close(), SIGTERM and SIGKILL, and
// must leave nothing of the session within the stdin grace + the grace
// the config gives + 1 s (cells.js counts).
//
// The configs name /usr/local/bin/session-starter and `npx -y PACKAGE`.
// Each client runs in a mount namespace of its own, where the command's
// directory is a tmpfs holding session-starter and an offline npx. That
// npx runs the package's stand-in: npx-wrapper.js around server.js or
// agent.js, whose grandchild ignores EOF and whose tool call leaves a
// child and a setsid job. The control: each config's command after "--",
// started by the same client without session-starter, must leave
// processes on close(), or the stand-in proves nothing.

const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const test = require('node:test');

const { runCell, clientNamed, leftNothing, leftSome, endings, stdinGraceMs, fixtures } = require('./cells.js');

const repo = path.join(__dirname, '..', '..');

// The recipes: where each is printed, the key its servers are listed
// under, the transport type it may name, and the client that runs it.
const recipes = [
  {
    name: 'claude-cursor.json',
    what: "README.md's Claude Desktop, Claude Code and Cursor config",
    where: 'readme',
    key: 'mcpServers',
    types: [undefined, 'stdio'],
    client: 'ts',
  },
  { name: 'vscode.json', what: "the manual's VS Code config", where: 'manual', key: 'servers', types: ['stdio'], client: 'ts' },
  { name: 'codex.toml', what: "the manual's Codex config.toml", where: 'manual', key: 'mcp_servers', types: [undefined], client: 'ts' },
  { name: 'zed.json', what: "the manual's Zed agent_servers config", where: 'manual', key: 'agent_servers', types: ['custom'], client: 'acp' },
];

// between returns the text after the first start, up to the next end.
function between(text, start, end, what) {
  const at = text.indexOf(start);
  assert.ok(at >= 0, `${what}: no ${JSON.stringify(start.trim())}`);
  const rest = text.slice(at + start.length);
  const stop = rest.indexOf(end);
  return stop < 0 ? rest : rest.slice(0, stop);
}

// readmeBlocks returns the json blocks of README.md's recipe "MCP clients".
function readmeBlocks() {
  const readme = fs.readFileSync(path.join(repo, 'README.md'), 'utf8');
  const recipesSection = between(readme, '\n## Recipes\n', '\n## ', 'README.md');
  const sub = between(recipesSection, '\n### MCP clients', '\n### ', "README.md's recipes");
  return [...sub.matchAll(/\n```json\n([\s\S]*?)\n```\n/g)].map((m) => m[1]);
}

// manualBlocks returns the code blocks (tab-indented) of the manual's
// section "MCP and ACP clients".
function manualBlocks() {
  const doc = fs.readFileSync(path.join(repo, 'cmd', 'session-starter', 'doc.go'), 'utf8');
  const section = between(doc, '\n// # MCP and ACP clients\n', '\n// # ', 'the manual');
  const blocks = [];
  let block = null;
  for (const line of section.split('\n')) {
    if (line.startsWith('//\t')) {
      block ??= [];
      block.push(line.slice(3));
    } else if (block) {
      blocks.push(block.join('\n'));
      block = null;
    }
  }
  return blocks;
}

// parse reads a block: TOML (a first line that opens a table) through
// Python's tomllib, else JSON.
function parse(block) {
  if (block.trimStart().startsWith('[')) {
    const python = process.env.LIFETIME_PYTHON;
    const toJSON = 'import json, sys, tomllib; json.dump(tomllib.loads(sys.stdin.read()), sys.stdout)';
    return JSON.parse(execFileSync(python, ['-c', toJSON], { input: block, encoding: 'utf8' }));
  }
  return JSON.parse(block);
}

// serverOf returns the one server of the recipe's config, as the text
// gives it: command, args and env.
function serverOf(recipe) {
  const blocks = recipe.where === 'readme' ? readmeBlocks() : manualBlocks();
  if (recipe.where === 'readme') {
    assert.equal(blocks.length, 1, 'README.md keeps one MCP recipe');
  }
  const configs = blocks.map(parse).filter((c) => c[recipe.key] !== undefined);
  assert.equal(configs.length, 1, `${recipe.what}: want one block with ${recipe.key}, found ${configs.length}`);
  const servers = Object.values(configs[0][recipe.key]);
  assert.equal(servers.length, 1, `${recipe.what}: want one server`);
  const { type, command, args = [], env } = servers[0];
  assert.ok(recipe.types.includes(type), `${recipe.what}: type ${type}`);
  assert.ok(path.isAbsolute(command), `${recipe.what}: command ${command} is not an absolute path`);
  assert.equal(path.basename(command), 'session-starter', `${recipe.what}: the command runs session-starter`);
  assert.ok(Array.isArray(args) && args.every((a) => typeof a === 'string'), `${recipe.what}: args ${args}`);
  assert.ok(args.includes('--'), `${recipe.what}: args ${args} have no "--" before the server's command`);
  return { command, args, env };
}

// ms reads a duration of seconds ("2", "2s", "0.5s").
function ms(d) {
  const m = /^(\d+(?:\.\d+)?)s?$/.exec(d ?? '');
  assert.ok(m, `a duration in seconds, not ${d}`);
  return Number(m[1]) * 1000;
}

// boundOf is the stdin grace + the grace + 1 s that session-starter's
// flags in args (before "--") give.
function boundOf(args) {
  const flags = args.slice(0, args.indexOf('--'));
  let grace = 0;
  let stdinGrace = stdinGraceMs;
  flags.forEach((f, i) => {
    const [name, value = flags[i + 1]] = f.split('=');
    if (name === '--grace' || name === '-k') {
      grace = ms(value);
    } else if (name === '--stdin-grace') {
      stdinGrace = ms(value);
    }
  });
  return stdinGrace + grace + 1000;
}

// npxStandIn writes, into dir, the npx that the recipes' packages are run
// by: offline, each package is a fixture.
function npxStandIn(dir) {
  const node = process.execPath;
  const script = `#!/bin/sh
[ "$1" = -y ] || { echo "npx stand-in: $*" >&2; exit 2; }
case $2 in
@modelcontextprotocol/server-filesystem) server=server.js ;;
@zed-industries/claude-agent-acp) server=agent.js ;;
*) echo "npx stand-in: no stand-in for $2" >&2; exit 2 ;;
esac
exec '${node}' '${fixtures}/npx-wrapper.js' '${node}' "${fixtures}/$server" --child --job --ignore-eof
`;
  const p = path.join(dir, 'npx');
  fs.writeFileSync(p, script, { mode: 0o755 });
  return p;
}

// underBin is the argv that runs the rest in a mount namespace of its own
// where bin (the recipe's command's directory) holds only session-starter
// and the npx stand-in.
function underBin(bin, npx) {
  assert.ok(!process.execPath.startsWith(`${bin}/`), `node (${process.execPath}) must not be in ${bin}: the test hides ${bin}`);
  const setup = `mount -t tmpfs -o mode=755 none "$0" && cp "$1" "$0/session-starter" && cp "$2" "$0/npx" && shift 2 && exec "$@"`;
  return ['unshare', '--mount', '--propagation', 'private', 'sh', '-c', setup, bin, process.env.SESSION_STARTER_BINARY, npx];
}

// Read before anything is made: a recipe that is not there fails the
// file.
const servers = recipes.map(serverOf);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lifetime-recipes-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const npx = npxStandIn(tmp);

for (const [i, recipe] of recipes.entries()) {
  const client = clientNamed(recipe.client);
  const server = servers[i];
  const under = underBin(path.dirname(server.command), npx);
  const bound = boundOf(server.args);
  const asPrinted = { name: recipe.name, argv: () => [server.command, ...server.args] };
  for (const ending of endings) {
    const how = ending === 'close' ? 'close()' : ending;
    test(`${recipe.what}, run as printed by the official ${client.what} client, leaves nothing on its ${how} within ${bound / 1000} s`, async () => {
      leftNothing(await runCell(client, 'bare', asPrinted, ending, { under, env: server.env, bare: false, bound, label: 'recipe' }), bound);
    });
  }
  const direct = { name: recipe.name, argv: () => server.args.slice(server.args.indexOf('--') + 1) };
  test(`${recipe.what}'s command after "--", run without session-starter, outlives the ${client.what} client's close()`, async () => {
    leftSome(await runCell(client, 'bare', direct, 'close', { under, env: server.env, bound }));
  });
}

'use strict';

// Prints the lifetime suite's results (the JSON lines of RESULTS) as a
// Markdown table: a row per client, integration and fixture, a column per
// ending, each cell "processes left at t0 + bound / time from t0 to none".
//
// usage: node table.js RESULTS

const fs = require('node:fs');

const cells = fs
  .readFileSync(process.argv[2], 'utf8')
  .split('\n')
  .filter((l) => l !== '')
  .map((l) => JSON.parse(l));
const endings = ['close', 'SIGTERM', 'SIGKILL'];
// The rows in a fixed order: the cells' files run at once.
const order = (list, v) => (list.includes(v) ? list.indexOf(v) : list.length);
const clients = ['ts', 'go', 'py', 'acp'];
const integrations = [
  'bare',
  'with-session-starter',
  'stdio-session-transport',
  'starter-mcp',
  'wrap-stdio-parameters',
  'stdio-client',
  'launch-agent',
  'recipe',
];
const fixtures = ['npx-wrapper', 'eof-child', 'ignore-eof-term', 'setsid-job', 'claude-cursor.json', 'vscode.json', 'codex.toml', 'zed.json'];
cells.sort(
  (a, b) =>
    order(clients, a.client) - order(clients, b.client) ||
    order(integrations, a.integration) - order(integrations, b.integration) ||
    order(fixtures, a.fixture) - order(fixtures, b.fixture),
);
const rows = new Map();
for (const c of cells) {
  const key = `| ${c.client} | ${c.integration} | ${c.fixture} |`;
  if (!rows.has(key)) {
    rows.set(key, {});
  }
  const empty = c.emptyMs === null ? 'never' : `${(c.emptyMs / 1000).toFixed(2)} s`;
  rows.get(key)[c.ending] = `${c.left} / ${empty}`;
}
const out = ['| client | integration | fixture | close() | SIGTERM | SIGKILL |', '|---|---|---|---|---|---|'];
for (const [key, by] of rows) {
  out.push(`${key} ${endings.map((e) => by[e] ?? '–').join(' | ')} |`);
}
process.stdout.write(`${out.join('\n')}\n`);

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

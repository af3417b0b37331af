'use strict';

// A launcher for the tests of the launch API: it launches an Engine that
// leaves a sleep behind, prints {"event":"ready","pid":…} once the Engine
// runs, and waits to be killed.

const { launch } = require('session-starter');

async function main() {
  const s = await launch('sh', ['-c', 'sleep 300 & echo ready; exec sleep 300']);
  const first = await new Promise((resolve) => s.stdout.once('data', resolve));
  if (String(first) !== 'ready\n') {
    throw new Error(`the Engine said ${JSON.stringify(String(first))}`);
  }
  process.stdout.write(`${JSON.stringify({ event: 'ready', pid: s.pid, starterPid: s.starterPid })}\n`);
  await s.wait();
}

main().catch((err) => {
  console.error(err.message);
  process.exitCode = 1;
});

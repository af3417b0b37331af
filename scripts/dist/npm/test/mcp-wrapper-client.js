'use strict';

// An MCP client on the official TypeScript SDK with the config shape most
// clients use and --watch-parent cannot see through: the SDK's own
// StdioClientTransport starts a wrapper shell, `bash -c "session-starter
// --watch-stdin --watch-parent -- node mcp-server.js; exec sleep 600"`,
// whose shell outlives the client.
//
// usage: node mcp-wrapper-client.js SESSION_STARTER
// It connects, calls "spawn" with count 3, prints {"event":"ready",...}
// with the wrapper's PID, and waits for a line on its stdin; then it
// closes the client (stdin's end, 2 s, SIGTERM, 2 s, SIGKILL: the SDK's
// close) and prints {"event":"closed"}. The tests end it there, or with
// SIGTERM or SIGKILL while it waits.

const path = require('node:path');
const readline = require('node:readline');

const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

function report(fields) {
  process.stdout.write(`${JSON.stringify(fields)}\n`);
}

async function main() {
  const [starter] = process.argv.slice(2);
  const server = path.join(__dirname, 'mcp-server.js');
  const wrapper = `"$0" --watch-stdin --watch-parent --grace 2s -- "$1" "$2"; exec sleep 600`;
  const transport = new StdioClientTransport({
    command: 'bash',
    args: ['-c', wrapper, starter, process.execPath, server],
    env: process.env,
    stderr: 'inherit',
  });
  const client = new Client({ name: 'session-starter-wrapper-client', version: '1' });
  await client.connect(transport);
  const result = await client.callTool({ name: 'spawn', arguments: { count: 3 } });
  const spawned = JSON.parse(result.content[0].text);
  report({ event: 'ready', wrapper: transport.pid, spawned });

  const own = readline.createInterface({ input: process.stdin });
  await own[Symbol.asyncIterator]().next();
  own.close();
  process.stdin.destroy();
  await client.close();
  report({ event: 'closed' });
}

main().catch((err) => {
  console.error(err.stack);
  process.exitCode = 1;
});

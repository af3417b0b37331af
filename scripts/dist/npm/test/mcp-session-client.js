'use strict';

// An MCP client on the official TypeScript SDK whose server runs through
// the package's stdio helpers: with HOW "params", the SDK's own
// StdioClientTransport on withSessionStarter()'s parameters; with
// "transport", the package's StdioSessionTransport.
//
// usage: node mcp-session-client.js HOW MARK -- SERVER [ARG...]
// The server gets MARK as SESSION_STARTER_JS_TEST_MARK in its env, and
// NODE_PATH (the only variables the parameters name: the SDK's default
// environment applies), and a grace of 2 s. The client connects, calls "spawn" with
// count 3, prints {"event":"ready",...} and waits for a line on its
// stdin; then it prints {"event":"closing","at":MS}, closes the client
// and prints {"event":"closed",...}. The tests end it there, or with
// SIGTERM or SIGKILL while it waits.

const readline = require('node:readline');

const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { withSessionStarter, StdioSessionTransport } = require('session-starter');

const markVar = 'SESSION_STARTER_JS_TEST_MARK';

function report(fields) {
  process.stdout.write(`${JSON.stringify(fields)}\n`);
}

async function main() {
  const [how, mark, dashes, server, ...args] = process.argv.slice(2);
  if (dashes !== '--' || server === undefined || !['params', 'transport'].includes(how)) {
    throw new Error('usage: node mcp-session-client.js params|transport MARK -- SERVER [ARG...]');
  }
  // The SDK's default environment has no NODE_PATH: the server finds the
  // SDK by the one this client was given.
  const env = { [markVar]: mark, ...(process.env.NODE_PATH ? { NODE_PATH: process.env.NODE_PATH } : {}) };
  const params = { command: server, args, env };
  const transport =
    how === 'params' ? new StdioClientTransport(withSessionStarter(params, { grace: 2000 })) : new StdioSessionTransport(params, { grace: 2000 });
  const client = new Client({ name: 'session-starter-session-client', version: '1' });
  await client.connect(transport);
  const result = await client.callTool({ name: 'spawn', arguments: { count: 3 } });
  const spawned = JSON.parse(result.content[0].text);
  const starterPid = how === 'transport' ? transport.session.starterPid : transport.pid;
  report({ event: 'ready', pid: transport.pid, starterPid, spawned });

  const own = readline.createInterface({ input: process.stdin });
  await own[Symbol.asyncIterator]().next();
  own.close();
  process.stdin.destroy();
  report({ event: 'closing', at: Date.now() });
  await client.close();
  const ended = how === 'transport' ? await transport.ended : null;
  report({ event: 'closed', reason: ended?.reason ?? null, executed: ended?.executed ?? null });
}

main().catch((err) => {
  console.error(err.stack);
  process.exitCode = 1;
});

'use strict';

// A client on the official MCP TypeScript SDK, run as a process of its own
// so that the suite can end it with SIGTERM or SIGKILL.
//
// usage: node ts-client.js INTEGRATION MARK COMMAND [ARG...]
//   INTEGRATION  bare: the SDK's StdioClientTransport starts COMMAND
//                with-session-starter: the same transport, its parameters
//                  through withSessionStarter()
//                stdio-session-transport: StdioSessionTransport
//   MARK         set as LIFETIME_MARK in the server's environment (not in
//                this process's): the suite finds the session's
//                processes by it
// LIFETIME_SERVER_ENV, if set, is a config's env (a JSON object): laid
// over the SDK's default environment, as the clients lay it.
// It connects, calls the tool "start", prints {"event":"ready","pids":[…]}
// and waits for a line on its stdin. Then it prints
// {"event":"closing","t0":ms} (t0 when close() is called, in ms since the
// epoch), closes the client, prints {"event":"closed"} and exits.

const readline = require('node:readline');

const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport, getDefaultEnvironment } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { withSessionStarter, StdioSessionTransport } = require('session-starter');

// grace is the session's --grace: every end sends SIGTERM, and SIGKILL
// this long after.
const grace = Number(process.env.LIFETIME_GRACE_MS);

function report(fields) {
  process.stdout.write(`${JSON.stringify(fields)}\n`);
}

function transportOf(integration, params) {
  switch (integration) {
    case 'bare':
      return new StdioClientTransport(params);
    case 'with-session-starter':
      return new StdioClientTransport(withSessionStarter(params, { grace }));
    case 'stdio-session-transport':
      return new StdioSessionTransport(params, { grace });
    default:
      throw new Error(`unknown integration ${integration}`);
  }
}

async function main() {
  const [integration, mark, command, ...args] = process.argv.slice(2);
  if (command === undefined || !(grace > 0)) {
    throw new Error('usage: LIFETIME_GRACE_MS=MS node ts-client.js INTEGRATION MARK COMMAND [ARG...]');
  }
  // The SDK's default environment, as a client that names no env passes,
  // the config's env, and the mark; NODE_PATH finds the fixtures' SDK.
  const env = {
    ...getDefaultEnvironment(),
    ...JSON.parse(process.env.LIFETIME_SERVER_ENV ?? '{}'),
    NODE_PATH: process.env.NODE_PATH ?? '',
    LIFETIME_MARK: mark,
  };
  const transport = transportOf(integration, { command, args, env, stderr: 'inherit' });
  const client = new Client({ name: 'lifetime-ts-client', version: '1' });
  await client.connect(transport);
  const result = await client.callTool({ name: 'start', arguments: {} });
  report({ event: 'ready', pids: JSON.parse(result.content[0].text) });

  const own = readline.createInterface({ input: process.stdin });
  await own[Symbol.asyncIterator]().next();
  own.close();
  process.stdin.destroy();
  report({ event: 'closing', t0: Date.now() });
  await client.close();
  report({ event: 'closed' });
  // A host quits here. The SDK's close() resolves once its child is
  // killed, but a grandchild that holds the server's stdout keeps this
  // process's event loop alive.
  process.exit(0);
}

main().catch((err) => {
  console.error(err.stack);
  process.exitCode = 1;
});

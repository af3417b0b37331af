'use strict';

// A client on the official ACP TypeScript SDK, run as a process of its own
// so that the suite can end it with SIGTERM or SIGKILL.
//
// usage: node acp-client.js INTEGRATION MARK COMMAND [ARG...]
//   INTEGRATION  bare: the client spawns the agent itself and, on close,
//                  ends it as the MCP SDKs end a server (the ACP SDK
//                  starts no process): stdin's end, 2 s, SIGTERM, 2 s,
//                  SIGKILL of the direct child
//                launch-agent: launchAgent() of the npm package
//   MARK         set as LIFETIME_MARK in the agent's environment (not in
//                this process's)
// LIFETIME_SERVER_ENV, if set, is a config's env (a JSON object) for the
// agent, over this process's environment.
// It runs initialize, session/new and one prompt turn, prints
// {"event":"ready","pids":[…]} and waits for a line on its stdin. Then it
// prints {"event":"closing","t0":ms}, closes the connection and the
// agent, prints {"event":"closed"} and exits.

const { spawn } = require('node:child_process');
const readline = require('node:readline');
const { Readable, Writable } = require('node:stream');
const { pathToFileURL } = require('node:url');

const { launchAgent } = require('session-starter');

const grace = Number(process.env.LIFETIME_GRACE_MS);

function report(fields) {
  process.stdout.write(`${JSON.stringify(fields)}\n`);
}

// exitWithin resolves with whether child exited within ms.
function exitWithin(child, exited, ms) {
  let timer;
  return Promise.race([exited.then(() => true), new Promise((resolve) => (timer = setTimeout(resolve, ms, false)))]).finally(() =>
    clearTimeout(timer),
  );
}

// bareAgent spawns the agent as the client's own child.
function bareAgent(command, args, env) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    writable: Writable.toWeb(child.stdin),
    readable: Readable.toWeb(child.stdout),
    close: async () => {
      child.stdin.end();
      if (await exitWithin(child, exited, 2000)) {
        return;
      }
      child.kill('SIGTERM');
      if (await exitWithin(child, exited, 2000)) {
        return;
      }
      child.kill('SIGKILL');
      await exited;
    },
  };
}

async function main() {
  const [integration, mark, command, ...args] = process.argv.slice(2);
  if (command === undefined || !(grace > 0)) {
    throw new Error('usage: LIFETIME_GRACE_MS=MS node acp-client.js INTEGRATION MARK COMMAND [ARG...]');
  }
  const env = { ...JSON.parse(process.env.LIFETIME_SERVER_ENV ?? '{}'), LIFETIME_MARK: mark };
  let agent;
  if (integration === 'bare') {
    agent = bareAgent(command, args, env);
  } else if (integration === 'launch-agent') {
    agent = await launchAgent({ command, args, env }, { grace });
  } else {
    throw new Error(`unknown integration ${integration}`);
  }
  const acp = await import(pathToFileURL(require.resolve('@agentclientprotocol/sdk')).href);
  const { methods } = acp;
  const conn = acp.client({ name: 'lifetime-acp-client' }).connect(acp.ndJsonStream(agent.writable, agent.readable));
  await conn.agent.request(methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId } = await conn.agent.request(methods.agent.session.new, { cwd: process.cwd(), mcpServers: [] });
  const turn = await conn.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'start' }] });
  report({ event: 'ready', pids: turn._meta.pids });

  const own = readline.createInterface({ input: process.stdin });
  await own[Symbol.asyncIterator]().next();
  own.close();
  process.stdin.destroy();
  report({ event: 'closing', t0: Date.now() });
  conn.close();
  await agent.close();
  report({ event: 'closed' });
  process.exit(0);
}

main().catch((err) => {
  console.error(err.stack);
  process.exitCode = 1;
});

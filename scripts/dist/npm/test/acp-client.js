'use strict';

// An ACP client on the official ACP TypeScript SDK (stable v1) whose agent
// is launched through the package's launchAgent(): initialize, session/new
// and one prompt turn, over ndJsonStream of the agent's web streams.
//
// usage: node acp-client.js MARK -- AGENT [ARG...]
// The agent gets MARK as SESSION_STARTER_JS_TEST_MARK in its env and a
// grace of 2 s. After the turn the client prints {"event":"ready",...}
// with the Engine's PID and the PIDs the turn started, and waits for a
// line on its stdin; then it prints {"event":"closing","at":MS}, closes
// the connection and the agent, and prints {"event":"closed",...}. The
// tests end it there, or with SIGTERM or SIGKILL while it waits.

const readline = require('node:readline');
const { pathToFileURL } = require('node:url');

const { launchAgent } = require('session-starter');

const markVar = 'SESSION_STARTER_JS_TEST_MARK';

function report(fields) {
  process.stdout.write(`${JSON.stringify(fields)}\n`);
}

async function main() {
  const [mark, dashes, command, ...args] = process.argv.slice(2);
  if (dashes !== '--' || command === undefined) {
    throw new Error('usage: node acp-client.js MARK -- AGENT [ARG...]');
  }
  const acp = await import(pathToFileURL(require.resolve('@agentclientprotocol/sdk')).href);
  const { methods } = acp;
  const agent = await launchAgent({ command, args, env: { [markVar]: mark } }, { grace: 2000 });
  const conn = acp.client({ name: 'session-starter-test-client' }).connect(acp.ndJsonStream(agent.writable, agent.readable));
  const init = await conn.agent.request(methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId } = await conn.agent.request(methods.agent.session.new, { cwd: process.cwd(), mcpServers: [] });
  const turn = await conn.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'spawn' }] });
  report({
    event: 'ready',
    pid: agent.pid,
    starterPid: agent.session.starterPid,
    protocolVersion: init.protocolVersion,
    stopReason: turn.stopReason,
    spawned: turn._meta.pids,
  });

  const own = readline.createInterface({ input: process.stdin });
  await own[Symbol.asyncIterator]().next();
  own.close();
  process.stdin.destroy();
  report({ event: 'closing', at: Date.now() });
  conn.close();
  const ended = await agent.close();
  report({ event: 'closed', reason: ended?.reason ?? null, executed: ended?.executed ?? null });
}

main().catch((err) => {
  console.error(err.stack);
  process.exitCode = 1;
});

'use strict';

// A tiny ACP agent on the official ACP TypeScript SDK (stable v1): it
// answers initialize and session/new, and each prompt turn starts
// processes that run until they are killed — a sleep, a shell with a sleep
// of its own, and one in a session of its own (setsid) — returning their
// PIDs in the response's _meta.pids. At the end of its input it exits,
// leaving them running: ending them is the session's job. With
// --ignore-eof it lives on.

const { spawn } = require('node:child_process');
const { Readable, Writable } = require('node:stream');
const { pathToFileURL } = require('node:url');

async function main() {
  // The SDK is an ES module; NODE_PATH finds it for require.resolve only.
  const acp = await import(pathToFileURL(require.resolve('@agentclientprotocol/sdk')).href);
  const { methods } = acp;
  acp
    .agent({ name: 'session-starter-test-agent' })
    .onRequest(methods.agent.initialize, () => ({ protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {} }))
    .onRequest(methods.agent.session.new, () => ({ sessionId: 'only' }))
    .onRequest(methods.agent.session.prompt, () => {
      const pids = [];
      for (const [i, argv] of [['sleep', '600'], ['sh', '-c', 'sleep 600 & wait'], ['sleep', '600']].entries()) {
        const child = spawn(argv[0], argv.slice(1), { stdio: 'ignore', detached: i === 2 });
        child.unref();
        pids.push(child.pid);
      }
      return { stopReason: 'end_turn', _meta: { pids } };
    })
    .connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
  if (process.argv.includes('--ignore-eof')) {
    setInterval(() => {}, 1 << 30); // lives on past its end of input
  } else {
    process.stdin.on('end', () => process.exit(0));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

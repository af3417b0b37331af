'use strict';

// A small MCP server on the official TypeScript SDK (its low-level Server
// over stdio): the tool "spawn" starts COUNT processes that run until they
// are killed — a sleep, a shell with a sleep of its own, and one in a
// session of its own (setsid), which left the Engine's group — and returns
// their PIDs. At the end of its input it exits, leaving them running:
// ending them is the session's job. With --ignore-eof it lives on.

const { spawn } = require('node:child_process');

const { Server } = require('@modelcontextprotocol/sdk/server/index.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { CallToolRequestSchema, ListToolsRequestSchema } = require('@modelcontextprotocol/sdk/types.js');

const server = new Server({ name: 'session-starter-test-server', version: '1' }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'spawn',
      description: 'Start COUNT processes that run until killed; returns their PIDs.',
      inputSchema: { type: 'object', properties: { count: { type: 'integer', minimum: 1 } }, required: ['count'] },
    },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (req) => {
  if (req.params.name !== 'spawn') {
    throw new Error(`unknown tool ${req.params.name}`);
  }
  const pids = [];
  for (let i = 0; i < req.params.arguments.count; i++) {
    const argv = [['sleep', '600'], ['sh', '-c', 'sleep 600 & wait'], ['sleep', '600']][i % 3];
    const child = spawn(argv[0], argv.slice(1), { stdio: 'ignore', detached: i % 3 === 2 });
    child.unref(); // the server exits at its end of input without them
    pids.push(child.pid);
  }
  return { content: [{ type: 'text', text: JSON.stringify(pids) }] };
});

server.connect(new StdioServerTransport()).catch((err) => {
  console.error(err);
  process.exit(1);
});
if (process.argv.includes('--ignore-eof')) {
  setInterval(() => {}, 1 << 30); // lives on past its end of input
} else {
  process.stdin.on('end', () => process.exit(0));
}

'use strict';

// An MCP client on the official TypeScript SDK whose server is launched
// through session-starter's launch API: SessionTransport is the SDK's
// Transport over a Session's stdin and stdout, as StdioClientTransport is
// over a child process's.
//
// usage: node mcp-client.js -- SERVER [ARG...]
// It connects, lists the tools, calls "spawn" with count 3, prints
// {"event":"ready",...} and waits for a line on its stdin; then it closes
// the client (and so the transport: the server's end of input, then
// stop() if it is still there after 2 s) and prints {"event":"exit",...}.
// The tests end it there, or with SIGTERM or SIGKILL while it waits.

const readline = require('node:readline');

const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { ReadBuffer, serializeMessage } = require('@modelcontextprotocol/sdk/shared/stdio.js');
const { launch } = require('session-starter');

class SessionTransport {
  constructor(cmd, args, options) {
    this.cmd = cmd;
    this.args = args;
    this.options = options;
    this.readBuffer = new ReadBuffer();
  }

  async start() {
    this.session = await launch(this.cmd, this.args, this.options);
    const { stdin, stdout } = this.session;
    stdout.on('data', (chunk) => {
      this.readBuffer.append(chunk);
      for (;;) {
        let message;
        try {
          message = this.readBuffer.readMessage();
        } catch (err) {
          this.onerror?.(err);
          continue;
        }
        if (message === null) {
          break;
        }
        this.onmessage?.(message);
      }
    });
    stdout.on('error', (err) => this.onerror?.(err));
    stdin.on('error', (err) => this.onerror?.(err));
    this.session.exited.then(() => this.onclose?.());
  }

  send(message) {
    return new Promise((resolve) => {
      if (this.session.stdin.write(serializeMessage(message))) {
        resolve();
      } else {
        this.session.stdin.once('drain', resolve);
      }
    });
  }

  async close() {
    this.session.stdin.end();
    const timer = setTimeout(() => this.session.stop(), 2000);
    this.status = await this.session.wait();
    clearTimeout(timer);
  }
}

function report(fields) {
  process.stdout.write(`${JSON.stringify(fields)}\n`);
}

async function main() {
  const [dashes, server, ...args] = process.argv.slice(2);
  if (dashes !== '--' || server === undefined) {
    throw new Error('usage: node mcp-client.js -- SERVER [ARG...]');
  }
  const transport = new SessionTransport(server, args, { grace: 2000 });
  const client = new Client({ name: 'session-starter-test-client', version: '1' });
  await client.connect(transport);
  const tools = (await client.listTools()).tools.map((t) => t.name);
  const result = await client.callTool({ name: 'spawn', arguments: { count: 3 } });
  const spawned = JSON.parse(result.content[0].text);
  report({ event: 'ready', pid: transport.session.pid, mode: transport.session.mode, tools, spawned });

  const own = readline.createInterface({ input: process.stdin });
  await own[Symbol.asyncIterator]().next();
  own.close();
  process.stdin.destroy();
  await client.close();
  const ended = await transport.session.ended;
  report({ event: 'exit', status: transport.status, reason: ended.reason, executed: ended.executed });
}

main().catch((err) => {
  console.error(err.stack);
  process.exitCode = 1;
});

#!/usr/bin/env node
// A Node launcher, as an SDK would write it: it starts an Engine under
// session-starter, checks the ack line, and talks JSON-RPC (MCP-style) to
// the Engine over the same pipes. Built-in modules only.
//
// usage: node launcher.js SCENARIO -- ENGINE [ARG...]
// The scenarios and the reports on stdout are those of launcher.py.
"use strict";

const { spawn } = require("node:child_process");
const readline = require("node:readline");

function report(fields) {
  process.stdout.write(JSON.stringify(fields) + "\n");
}

// start runs the Engine under session-starter and resolves once the ack
// line has been checked. With control, descriptor 3 of session-starter is
// the control pipe (a socket in Node), kept open by child.stdio[3].
async function start(engine, control) {
  const args = ["--ack", "--parent-pid", String(process.pid)];
  const stdio = ["pipe", "pipe", "inherit"];
  if (control) {
    args.push("--control-fd", "3");
    stdio.push("pipe");
  }
  const child = spawn("session-starter", [...args, "--", ...engine], { stdio });
  const exited = new Promise((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })));
  // One reader for the whole of stdout: the first line is the ack, every
  // later line the Engine's, and nothing after the newline is lost.
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const first = await lines.next();
  let ack = null;
  try { ack = JSON.parse(first.value); } catch {}
  if (first.done || ack?.session_containment !== 1) {
    child.stdin.end();
    const { code, signal } = await exited;
    throw new Error(`no containment; session-starter exited ${signal ?? code}`);
  }
  let lastId = 0;
  const send = (message) => child.stdin.write(JSON.stringify(message) + "\n");
  return {
    pid: ack.pid,
    mode: ack.mode,
    child,
    exited,
    notify: (method) => send({ jsonrpc: "2.0", method }),
    async request(method, params) {
      const id = ++lastId;
      send({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
      const line = await lines.next();
      if (line.done) {
        const { code, signal } = await exited;
        throw new Error(`the Engine closed its stdout; session-starter exited ${signal ?? code}`);
      }
      const reply = JSON.parse(line.value);
      if (reply.id !== id || reply.error) {
        throw new Error(`${method}: unexpected reply ${line.value}`);
      }
      return reply.result;
    },
  };
}

async function main() {
  const [scenario, dashes, ...engine] = process.argv.slice(2);
  if (dashes !== "--" || engine.length === 0) {
    throw new Error("usage: node launcher.js SCENARIO -- ENGINE [ARG...]");
  }
  const session = await start(engine, scenario === "control");
  await session.request("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "launcher.js", version: "1" },
  });
  session.notify("notifications/initialized");
  const tools = (await session.request("tools/list")).tools.map((t) => t.name);
  const result = await session.request("tools/call", { name: "spawn", arguments: { count: 3 } });
  report({ event: "ready", pid: session.pid, mode: session.mode, tools,
    spawned: result.structuredContent.pids });

  // Wait for a line on our own stdin (hang: for its end), then let go of
  // it, or it would keep this process alive.
  const own = readline.createInterface({ input: process.stdin });
  const ownLines = own[Symbol.asyncIterator]();
  if (scenario === "hang") {
    while (!(await ownLines.next()).done) {}
    return;
  }
  await ownLines.next();
  own.close();
  process.stdin.destroy();
  if (scenario === "clean") {
    session.child.stdin.end(); // the Engine's end of input: it exits
  } else if (scenario === "control") {
    session.child.stdio[3].destroy(); // ends the session
  } else {
    throw new Error(`unknown scenario ${scenario}`);
  }
  report({ event: "exit", ...(await session.exited) });
}

main().catch((err) => { console.error(err.message); process.exitCode = 1; });

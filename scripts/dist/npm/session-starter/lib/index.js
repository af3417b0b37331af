'use strict';

// Package session-starter: the session-starter supervisor for Node
// launchers. launch() starts an Engine under the native binary, with no
// Node process between (lib/launch.js); binaryPath() finds the binary of
// this platform for a launcher that spawns it itself (lib/binary.js);
// parseAck(), parseRecord(), readRecords() and readEnded() read the ack
// line and the status records (lib/records.js); call() runs one command
// (an Engine's per-call command) as a session of its own and says whether
// it may be retried (lib/call.js); reclaim() ends what dead sessions left
// (lib/reclaim.js). withSessionStarter(), StdioSessionTransport and
// launchAgent() run MCP servers and ACP agents as sessions for the
// official SDKs' clients (lib/stdio.js). The types are in
// index.d.ts. The API mirrors the Go package starter/launch.

const { binaryPath, packageName } = require('./binary.js');
const { LaunchError, Session, launch, endBound, defaultAckTimeoutMs, defaultKillBudgetMs } = require('./launch.js');
const { RecordError, parseAck, parseRecord, readRecords, readEnded } = require('./records.js');
const { call, notStarted, started, unclear, MaxBufferError, defaultDrainMs, defaultMaxBuffer } = require('./call.js');
const { reclaim } = require('./reclaim.js');
const { withSessionStarter, StdioSessionTransport, launchAgent, carriedEnv } = require('./stdio.js');

module.exports = {
  launch,
  call,
  reclaim,
  withSessionStarter,
  StdioSessionTransport,
  launchAgent,
  carriedEnv,
  notStarted,
  started,
  unclear,
  MaxBufferError,
  defaultDrainMs,
  defaultMaxBuffer,
  Session,
  LaunchError,
  endBound,
  defaultAckTimeoutMs,
  defaultKillBudgetMs,
  binaryPath,
  packageName,
  RecordError,
  parseAck,
  parseRecord,
  readRecords,
  readEnded,
};

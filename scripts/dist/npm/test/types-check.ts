// Compiled by types.test.js with tsc --strict --noEmit against the
// installed package's index.d.ts: the API as a TypeScript launcher uses
// it, and misuses the types must refuse (@ts-expect-error fails the
// compile when the line is accepted).

import { launch, LaunchError, parseAck, parseRecord, readEnded, binaryPath, endBound, call, notStarted, started, unclear, reclaim, MaxBufferError, defaultDrainMs, defaultMaxBuffer, withSessionStarter, StdioSessionTransport, launchAgent, carriedEnv } from 'session-starter';
import type { AgentSession, CallResult, ReclaimRecord, EndedRecord, ExitStatus, LaunchOptions, Session, StatusRecord } from 'session-starter';
// The SDKs' own types (mapped to their declarations by types.test.js):
// the package's shapes must fit them.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { StdioServerParameters } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ndJsonStream } from '@agentclientprotocol/sdk' with { 'resolution-mode': 'import' };

async function main(): Promise<void> {
  const options: LaunchOptions = { grace: 2000, stopSignal: 'TERM', timeout: 60000, killBudget: 5000, containment: 'group', stderr: 'ignore' };
  let s: Session;
  try {
    s = await launch('engine', ['serve', '--stdio'], options);
  } catch (err) {
    if (err instanceof LaunchError) {
      const code: string = err.code;
      const status: number | null = err.exitCode;
      const kind: 'usage' | 'containment' | 'cannot-execute' | 'not-found' | undefined = err.kind;
      console.log(code, status, kind, err.stderr, err.line);
    }
    throw err;
  }
  const pid: number = s.pid;
  s.stdin.write('{}\n');
  s.stdout.on('data', (chunk: Buffer) => console.log(pid, chunk.length));
  const ended: EndedRecord | null = await s.ended;
  const exitCode: number | null | undefined = ended?.exitCode;
  // A usage figure known by name keeps its type; one added later is read by its camelCase name.
  const cpuMs: number | undefined = ended?.usage?.cpuMs;
  const throttled: number | string | undefined = ended?.usage?.cpuThrottledMs;
  console.log(cpuMs, throttled);
  // @ts-expect-error a figure known by name keeps its type
  const cpuSource: number | undefined = ended?.usage?.cpuSource;
  // @ts-expect-error a figure added later may be a string
  const figure: number | undefined = ended?.usage?.cpuThrottledMs;
  console.log(cpuSource, figure);
  const status: ExitStatus = await s.stop();
  const killed: boolean = status.killed;
  const records: StatusRecord[] = s.records;
  const again: Session = await launch('engine', { control: false });
  console.log(exitCode, killed, records.length, again.mode, endBound(1000), binaryPath());
  console.log(parseAck('{"session_containment":1,"pid":2,"mode":"group"}').mode, parseRecord('{}').event);
  console.log((await readEnded(s.stdout)).starter.exitStatus);

  // @ts-expect-error durations are milliseconds, not strings
  await launch('engine', [], { grace: '2s' });
  // @ts-expect-error a containment mode session-starter has not
  await launch('engine', [], { containment: 'jail' });
  // @ts-expect-error the Engine's arguments are strings
  await launch('engine', [1]);
  // @ts-expect-error the status is read-only
  s.pid = 3;

  const r: CallResult = await call('sh', ['-c', 'true'], { timeout: 1000, input: 'x' });
  const retry: boolean = r.outcome === notStarted;
  console.log(retry, r.stdout.length, r.exitCode, r.ended?.reason, r.timedOut, started, unclear);
  // @ts-expect-error call() captures stderr itself
  await call('engine', { stderr: 'ignore' });
  const held = await call('engine', { releaseOnExit: true, drain: defaultDrainMs, maxBuffer: defaultMaxBuffer });
  const tooMuch: 'stdout' | 'stderr' | null = held.error instanceof MaxBufferError ? held.error.stream : null;
  console.log(held.outputHeld, tooMuch);
  // @ts-expect-error maxBuffer is a number of bytes
  await call('engine', { maxBuffer: '1m' });
  const id: string | null = held.session;
  const left: number[] = await held.endReleased({ grace: 500, killBudget: 2000 });
  console.log(id, left, await held.endReleased());
  // @ts-expect-error durations are milliseconds
  await held.endReleased({ grace: '1s' });

  const rec: ReclaimRecord = await reclaim({ dryRun: true });
  for (const s of rec.sessions) {
    const left: string[] = s.left.map((l) => `${l.pid ?? '-'} ${l.reason}`);
    const cgroupEnded: boolean | undefined = s.cgroupEnded;
    const guardEnd: string | undefined = s.guardEnd;
    console.log(s.session, s.action, s.ended.length, left, cgroupEnded, guardEnd, s.containers);
  }
  const dryRun: boolean = rec.dryRun;
  console.log(dryRun);
  // @ts-expect-error dryRun is a boolean
  await reclaim({ dryRun: 'yes' });

  const server: StdioServerParameters = { command: 'npx', args: ['-y', 'server'], env: { TOKEN: 't' }, stderr: 'pipe' };
  const wrapped: StdioServerParameters = withSessionStarter(server, { grace: 2000, stdinGrace: 1000, killBudget: 5000, containment: 'cgroup' });
  const t: Transport = new StdioSessionTransport(server, { grace: 2000 });
  const own = new StdioSessionTransport(wrapped);
  const enginePid: number | null = own.pid;
  const end: EndedRecord | null = await own.ended;
  const carried: Record<string, string> = carriedEnv();
  console.log(t.sessionId, enginePid, end?.reason, carried, own.stderr?.readable);
  // @ts-expect-error the grace is in milliseconds
  withSessionStarter(server, { grace: '2s' });
  // @ts-expect-error a stdio server is always watched through its stdin
  new StdioSessionTransport(server, { watchStdin: false });
  // @ts-expect-error the environment is the server's params.env
  new StdioSessionTransport(server, { env: {} });

  const agent: AgentSession = await launchAgent({ command: 'agent', args: ['--acp'] }, { grace: 2000 });
  const stream: ReturnType<typeof ndJsonStream> = (null as unknown as typeof ndJsonStream)(agent.writable, agent.readable);
  const agentEnd: EndedRecord | null = await agent.close();
  console.log(agent.pid, stream.readable.locked, agentEnd?.reason);
  // @ts-expect-error the agent's command is a string
  await launchAgent({ command: ['agent'] });
}

void main;

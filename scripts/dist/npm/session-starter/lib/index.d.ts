/// <reference types="node" />

import type { ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/**
 * The absolute path of the session-starter binary for this platform: the
 * file that SESSION_STARTER_BINARY names, or the one in the platform's
 * package (@session-starter/<platform>-<arch>).
 *
 * Throws an Error whose code is ERR_SESSION_STARTER_UNSUPPORTED_PLATFORM
 * (no package for this platform), ERR_SESSION_STARTER_NOT_INSTALLED (the
 * platform's package is missing) or ERR_SESSION_STARTER_BINARY_MISSING (the
 * file is not there), with a message that names the platform.
 */
export function binaryPath(): string;

/**
 * The name of the package that holds the binary for a platform and an
 * architecture as Node names them (process.platform, process.arch; the
 * defaults), or undefined where there is none.
 */
export function packageName(platform?: string, arch?: string): string | undefined;

/** The containment modes a launcher may ask for (--containment). */
export type Containment = 'auto' | 'group' | 'cgroup';

/** Options of launch(). Durations are in milliseconds; 0 or undefined leaves a flag out, so that session-starter's default applies. */
export interface LaunchOptions {
  /** The session-starter binary; default binaryPath(). */
  binary?: string;
  /** The environment of session-starter and so of the Engine; default process.env. SESSION_STARTER_CONTAIN is removed from it. */
  env?: NodeJS.ProcessEnv;
  /** The working directory; it must exist. */
  cwd?: string;
  /**
   * Where session-starter's stderr (which is also the Engine's) goes:
   * 'forward' (the default) to this process's stderr, 'ignore', or a
   * writable stream. Its last 4 KiB are kept either way, for
   * Session.stderrTail() and LaunchError.stderr.
   */
  stderr?: 'forward' | 'ignore' | Writable;
  /** --grace: every end of the session sends the stop signal first and waits up to this long before SIGKILL. */
  grace?: number;
  /** --stop-signal: the signal the grace begins with, a name (TERM, SIGINT) or a number; session-starter's default is TERM. */
  stopSignal?: string | number;
  /** --timeout: the session is ended this long after the Engine was released, and session-starter exits 124. */
  timeout?: number;
  /** --kill-budget: how long the end keeps sending SIGKILL after the grace before it reports survivors (default 10 s). */
  killBudget?: number;
  /** --containment. */
  containment?: Containment;
  /** --watch-stdin: the session also ends when this process's end of the Engine's stdin closes. */
  watchStdin?: boolean;
  /** --stdin-grace: with watchStdin, the Engine's own time to exit, in milliseconds (default 2 s). */
  stdinGrace?: number;
  /**
   * A control pipe (--control-fd), kept by the session: stop() closes it,
   * and so does this process's death. Default true (false on Windows,
   * where it is not supported).
   */
  control?: boolean;
  /** A status pipe (--status-fd), read by the session into records, started and ended. Default true (false on Windows, where it is not supported). */
  status?: boolean;
  /** More flags for session-starter, before "--": flags without an option here. A flag launch() sets itself or has an option for is refused. */
  extraFlags?: string[];
  /** Bounds the wait for the ack line; default 60 s (defaultAckTimeoutMs). */
  ackTimeout?: number;
  /** How long stop() waits for session-starter to exit before SIGKILL; default endBound(grace, killBudget) + 5 s. */
  stopTimeout?: number;
  /** Aborting it before the ack is as a failed launch (ERR_SESSION_STARTER_ABORTED); after, it stops the session. */
  signal?: AbortSignal;
}

/** How session-starter ended, which mirrors the Engine: its exit code, or the signal it died of. */
export interface ExitStatus {
  /** The exit code, or null if session-starter died of a signal. */
  exitCode: number | null;
  /** The signal's name ('SIGKILL'), or null. */
  signal: NodeJS.Signals | null;
  /** True when stop() had to SIGKILL session-starter after its stop timeout: the status is then its own, not the Engine's. */
  killed: boolean;
}

/** The first status record, written when the Engine is released. */
export interface StartedRecord {
  event: 'started';
  /** The Engine's PID. */
  pid: number;
  /** Its process group: the same number. */
  pgid: number;
  mode: string;
  guardPid: number;
  /** RFC 3339 with nanoseconds. */
  time: string;
  /** The session's id in the session mark (SESSION_STARTER_SESSION); absent with --no-mark. */
  session?: string;
  /** The Engine's command line as run, present only when session-starter changed it (--containers adds a label). */
  argv?: string[];
  /** The record as written, unknown fields included. */
  raw: Record<string, unknown>;
}

/** A process left live after the kill budget. */
export interface Survivor {
  pid: number;
  uid: number;
  state: string;
  comm: string;
  /** session-starter could not signal it: it does not run as root, and the survivor is another user's. */
  denied: boolean;
}

/** The last status record: how the session ended. Fields are only ever added. */
export interface EndedRecord {
  event: 'ended';
  /**
   * What ended the session: 'engine-exit' (the Engine exited); 'signal
   * NAME' (session-starter got a stop signal, as 'signal TERM');
   * 'parent-gone' (the launcher died); 'control-closed' (the control pipe
   * closed, as by stop()); 'stdin-closed' (watchStdin: the Engine's stdin
   * hung up); 'timeout'; 'guard-lost' (the guard died); 'watch-failed'
   * (the end conditions could not be watched); or 'failed' (the session
   * failed before it was watched; report says why).
   */
  reason: string;
  /** The containment mode, once one was chosen. */
  mode?: string;
  /** Whether PROGRAM was executed. */
  executed: boolean;
  /** The Engine's exit code, or null. */
  exitCode: number | null;
  /** The name of the signal the Engine died of ('KILL'), or null. */
  signal: string | null;
  coreDumped: boolean;
  /** empty, unconfirmed, survivors, refused, released. */
  outcome?: string;
  /** With outcome released (--release-on-exit): the PIDs of what the Engine left running, which stay. */
  released?: number[];
  membersSeen: number;
  escapeesSeen: number;
  killRounds: number;
  graceful: boolean;
  survivors: Survivor[];
  durationMs: number;
  groupEndMs: number;
  /** How session-starter itself ends. */
  starter: { exitStatus: number; signal: string | null };
  /** The line session-starter wrote to stderr, if any. */
  report?: string;
  time: string;
  /** Processes of the session the kernel's OOM killer ended (cgroup mode with the memory controller). */
  oomKills?: number;
  /** What the session's tree used; absent when there is no figure at all. */
  usage?: Usage;
  raw: Record<string, unknown>;
}

/** What a session's tree used, each figure with its source; a figure the platform or mode cannot tell is absent. */
export interface Usage {
  /** CPU time of the whole tree, user and system, in ms. */
  cpuMs?: number;
  /** Where cpuMs comes from: 'cpu.stat' (cgroup mode), 'rusage' (group mode, a lower bound) or 'job' (Windows). */
  cpuSource?: string;
  /** Peak memory of the tree, in bytes (cgroup mode with the memory controller; Windows). */
  memoryPeakBytes?: number;
  /** Where memoryPeakBytes comes from: 'memory.peak' (cgroup mode) or 'job' (Windows). */
  memoryPeakSource?: string;
  /** Most tasks live at once, threads included (cgroup mode with the pids controller). */
  tasksPeak?: number;
  /** Where tasksPeak comes from: 'pids.peak'. */
  tasksPeakSource?: string;
  /** Forks refused at --max-tasks (pids.events). */
  forksRefused?: number;
  /**
   * A figure this version does not know by name, under its camelCase name: new figures arrive this way.
   * Its JSON value is a number or a string; any other type is a RecordError.
   */
  readonly [figure: string]: number | string | undefined;
}

/** A record of an event this version does not know. */
export interface OtherRecord {
  event: string;
  raw: Record<string, unknown>;
}

/** A status record, told apart by its event. */
export type StatusRecord = StartedRecord | EndedRecord | OtherRecord;

/** An Engine running under session-starter, with containment acknowledged. */
export class Session {
  private constructor();
  /** The Engine's PID, which is also its process group, from the ack line. */
  readonly pid: number;
  /** The containment mode from the ack line ('group', 'cgroup'). */
  readonly mode: string;
  /** The session-starter process. */
  readonly process: ChildProcess;
  readonly starterPid: number;
  /** The Engine's standard input. Its errors (EPIPE once the Engine is gone) never crash the process. */
  readonly stdin: Writable;
  /** The Engine's standard output, from the first byte after the ack line. */
  readonly stdout: Readable;
  /** The control pipe's end, or null; stop() closes it. */
  readonly control: Writable | null;
  /** The status records read so far. */
  readonly records: StatusRecord[];
  /** The started record; null if the records end without one (or there is no status pipe). Rejects on a bad record. */
  readonly started: Promise<StartedRecord | null>;
  /** The ended record; null if the records end without one (session-starter was SIGKILLed, or there is no status pipe). Rejects on a bad record. */
  readonly ended: Promise<EndedRecord | null>;
  /** Resolves once session-starter has exited. */
  readonly exited: Promise<ExitStatus>;
  /** session-starter's exit code once it has exited, else null. */
  readonly exitCode: number | null;
  /** The signal session-starter died of, once it has, else null. */
  readonly signalCode: NodeJS.Signals | null;
  /** Resolves with session-starter's status once it has exited (exited). */
  wait(): Promise<ExitStatus>;
  /**
   * Ends the session: closes the control pipe (without one, sends
   * SIGTERM), and resolves with session-starter's status, which mirrors
   * the Engine's; SIGKILLs session-starter after the stop timeout. The
   * ack comes before the Engine runs: a stop before `started` resolves
   * ends the session with nothing executed (exit code 125).
   */
  stop(): Promise<ExitStatus>;
  /** The last 4 KiB of session-starter's stderr so far. */
  stderrTail(): string;
}

/** Codes of a LaunchError. */
export type LaunchErrorCode =
  | 'ERR_SESSION_STARTER_INVALID_OPTION'
  | 'ERR_SESSION_STARTER_UNSUPPORTED_PLATFORM'
  | 'ERR_SESSION_STARTER_NOT_INSTALLED'
  | 'ERR_SESSION_STARTER_BINARY_MISSING'
  | 'ERR_SESSION_STARTER_SPAWN'
  | 'ERR_SESSION_STARTER_NO_ACK'
  | 'ERR_SESSION_STARTER_MALFORMED_ACK'
  | 'ERR_SESSION_STARTER_ACK_TIMEOUT'
  | 'ERR_SESSION_STARTER_ABORTED'
  | 'ERR_SESSION_STARTER_RECLAIM'
  | 'ERR_SESSION_STARTER_NOT_RELEASED'
  | 'ERR_SESSION_STARTER_END_RELEASED';

/** The error of launch(): there is no session, and nothing it started is left running. */
export class LaunchError extends Error {
  readonly code: LaunchErrorCode;
  /** session-starter's exit code, or null if it never started or died of a signal. */
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Why session-starter exited before its ack, from its exit status: 2, 125, 126, 127. */
  readonly kind?: 'usage' | 'containment' | 'cannot-execute' | 'not-found';
  /** What was read in the ack's place, without its newline. */
  readonly line: string;
  /** The last 4 KiB of session-starter's stderr. */
  readonly stderr: string;
}

/**
 * Starts cmd with args under session-starter ("--ack --parent-pid
 * <process.pid>"), spawning the native binary directly, and resolves once
 * it has acknowledged containment. Rejects with a LaunchError otherwise.
 */
export function launch(cmd: string, args?: readonly string[], options?: LaunchOptions): Promise<Session>;
export function launch(cmd: string, options?: LaunchOptions): Promise<Session>;

/** What call() resolves with; only outcome 'not-started' may be retried. */
export interface CallResult {
  /** 'not-started': provably nothing was executed; 'started'; 'unclear': whether it ran cannot be known. */
  outcome: 'not-started' | 'started' | 'unclear';
  /** The command's status as session-starter mirrored it; null when there was no session. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
  /** The ended record, or null (no session, or session-starter ended without one). */
  ended: EndedRecord | null;
  /** The LaunchError when there was no session; a MaxBufferError when stdout or stderr went past maxBuffer. */
  error: LaunchError | MaxBufferError | null;
  /** True when the session was ended by its timeout (exit status 124). */
  timedOut: boolean;
  /**
   * True when an output pipe was still held open at the drain bound (by
   * what a released call left running) and was closed: stdout and stderr
   * hold what was read until then, and that process's later writes to
   * them fail (EPIPE).
   */
  outputHeld: boolean;
  /** The call's session id (its mark, from the started record), by which endReleased() finds what it left; null without a started record. */
  session: string | null;
  /**
   * Ends what this released call left running (the model's "stop my dev
   * server") and resolves once it has ended, with the PIDs left alive
   * past the kill budget: [] when all ended. It runs session-starter
   * --end-released with the call's session id, on the binary the call
   * ran. That ends every process of this user that carries the id in
   * SESSION_STARTER_SESSION: those the ended record lists as released,
   * and what they started since. Each is checked again once a pidfd
   * holds it, and signalled through that pidfd. A process that scrubbed
   * its environment is not found: the enclosing session still ends it.
   * Linux only. Rejects with a LaunchError: ERR_SESSION_STARTER_NOT_RELEASED
   * for a call that was not released or has no session id;
   * ERR_SESSION_STARTER_UNSUPPORTED_PLATFORM off Linux;
   * ERR_SESSION_STARTER_INVALID_OPTION for a bad grace or killBudget;
   * ERR_SESSION_STARTER_END_RELEASED when session-starter wrote no record.
   */
  endReleased(options?: EndReleasedOptions): Promise<number[]>;
}

/** The options of CallResult.endReleased(). */
export interface EndReleasedOptions {
  /** How long the processes get to exit after the stop signal (SIGTERM), in milliseconds; 0 or undefined: none, SIGKILL at once. Its clock starts at the signal. */
  grace?: number;
  /** How long SIGKILL rounds go on after the grace, in milliseconds, each finding what forked meanwhile; 0 or undefined: 10 s. Past it the live ones are returned. */
  killBudget?: number;
}

/**
 * The error of a call whose stdout or stderr went past maxBuffer: that
 * output holds its first maxBuffer bytes, and the call was ended.
 */
export class MaxBufferError extends Error {
  readonly code: 'ERR_SESSION_STARTER_MAX_BUFFER';
  readonly stream: 'stdout' | 'stderr';
  readonly maxBuffer: number;
}

/** Options of call(): launch()'s, less stderr and status, which call() sets itself. */
export interface CallOptions extends Omit<LaunchOptions, 'stderr' | 'status'> {
  /** Written to the command's stdin, which is then closed. */
  input?: string | Buffer;
  /** --release-on-exit: what the command left running when it exits on its own stays, for the enclosing session to end (it needs one, else a usage error: not-started). */
  releaseOnExit?: boolean;
  /**
   * How long output is still read after session-starter has exited, in
   * milliseconds (0 or undefined: defaultDrainMs, 500). Its clock starts
   * at that exit; past it a pipe still held open is closed (outputHeld).
   */
  drain?: number;
  /**
   * The bytes kept of stdout and of stderr, each (undefined:
   * defaultMaxBuffer, 100 MiB; Infinity: no bound). Past it the call is
   * ended, the rest is dropped, and error is a MaxBufferError.
   */
  maxBuffer?: number;
}

/**
 * Runs one command (an Engine's per-call command) as a session of its own
 * and resolves once session-starter has exited and the output is read:
 * what the command left running is ended with it, so its output pipes
 * reach end of file. With releaseOnExit what it left stays and may hold
 * them: call() then resolves at most drain after the exit. Never rejects
 * for the command's failure.
 */
export function call(cmd: string, args?: readonly string[], options?: CallOptions): Promise<CallResult>;
export function call(cmd: string, options?: CallOptions): Promise<CallResult>;
/** CallResult.outcome when provably nothing was executed: the one outcome a caller may retry. */
export const notStarted: 'not-started';
/** CallResult.outcome when the command was executed. */
export const started: 'started';
/** CallResult.outcome when whether the command ran cannot be known. */
export const unclear: 'unclear';
/** call()'s default drain bound, in milliseconds: 500. */
export const defaultDrainMs: number;
/** call()'s default maxBuffer, in bytes: 100 MiB. */
export const defaultMaxBuffer: number;

/** The longest a session's end takes, from the stop to session-starter's exit: grace + kill budget (0: 10 s) + 250 ms. */
export function endBound(graceMs?: number, killBudgetMs?: number): number;
/** launch()'s default ackTimeout, in milliseconds: 60 s. */
export const defaultAckTimeoutMs: number;
/** session-starter's default --kill-budget, in milliseconds: 10 s. */
export const defaultKillBudgetMs: number;

/** The error of the record readers. */
export class RecordError extends Error {
  readonly code: 'ERR_SESSION_STARTER_MALFORMED_ACK' | 'ERR_SESSION_STARTER_BAD_RECORD' | 'ERR_SESSION_STARTER_NO_ENDED' | 'ERR_SESSION_STARTER_NO_ACK' | 'ERR_SESSION_STARTER_ACK_TIMEOUT' | 'ERR_SESSION_STARTER_ABORTED';
}

/** Checks an ack line and returns the Engine's PID and the mode; throws a RecordError otherwise. */
export function parseAck(line: string | Buffer): { pid: number; mode: string };
/** Reads one status record; throws a RecordError for a line that is not one. */
export function parseRecord(line: string | Buffer): StatusRecord;
/** The status records of a stream, one a line. */
export function readRecords(stream: Readable): AsyncGenerator<StatusRecord, void, undefined>;
/** The ended record of a stream of status records; rejects with ERR_SESSION_STARTER_NO_ENDED when there is none. */
export function readEnded(stream: Readable): Promise<EndedRecord>;

/** A process reclaim() ended (with dryRun: would end). */
export interface ReclaimedProcess {
  pid: number;
  comm: string;
}

/** A process reclaim() did not end, and why: 'mark-unreadable', 'other-uid', 'token-mismatch', 'other-namespace: …' (the record is of another namespace: which), 'platform', 'survivor: …' (SIGKILL did not end it), or what failed. pid is absent for the session as a whole. */
export interface LeftProcess {
  pid?: number;
  reason: string;
  /** Set for a process verified as the session's that lives on (its signal failed, SIGKILL did not end it, its cgroup did not empty): the only cause of exit status 125. */
  survivor?: boolean;
}

/** What reclaim() did with one ledger record. */
export interface ReclaimedSession {
  /** The session's id in its mark. */
  session: string;
  /** 'reclaimed' (what was left ended, the record removed; kept when a survivor is left, for the next reclaim), 'live' (its starter or guard lives: left alone), 'unverified' (whether they live could not be told: left alone, the reason in left), 'other-boot' (dropped, nothing signalled), 'other-namespace' (its numbers are of another PID, cgroup or user namespace, or of none named, as in a record of version 1: left alone, never signalled, the reason in left), 'namespace-gone' (of a PID namespace in which nothing is left: dropped, nothing signalled), 'would-reclaim' (dryRun). */
  action: 'reclaimed' | 'live' | 'unverified' | 'other-boot' | 'other-namespace' | 'namespace-gone' | 'would-reclaim';
  /** True when the reclaim ended the session's cgroup (cgroup mode). */
  cgroupEnded?: boolean;
  /** @deprecated The record's own name of cgroupEnded; kept for one release. */
  cgroup_ended?: boolean;
  ended: ReclaimedProcess[];
  left: LeftProcess[];
  /** What the session's guard's end came to after session-starter was gone, when it left something: its account and time. */
  guardEnd?: string;
  /** @deprecated The record's own name of guardEnd; kept for one release. */
  guard_end?: string;
  /** The ids of the session's containers (--containers) the reclaim stopped, or removed where made with --rm. */
  containers?: string[];
}

/** The record of session-starter --reclaim, keys in camelCase; the record's own snake_case keys are kept, deprecated, for one release. */
export interface ReclaimRecord {
  event: 'reclaimed';
  /** The ledger's directory. */
  dir: string;
  /** True with --dry-run: nothing was ended. */
  dryRun: boolean;
  /** @deprecated The record's own name of dryRun; kept for one release. */
  dry_run: boolean;
  sessions: ReclaimedSession[];
  /** Files of the ledger refused (torn, another user's, open to others): none acted on. */
  problems: { file: string; reason: string }[];
}

/** Options of reclaim(). */
export interface ReclaimOptions {
  /** --dry-run: list what would be ended, and end nothing. */
  dryRun?: boolean;
  /** The session-starter binary; default binaryPath(). */
  binary?: string;
  /** Its environment; default process.env (SESSION_STARTER_LEDGER_DIR names another ledger). */
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs session-starter --reclaim --status-fd: ends what the dead sessions
 * of this user left (their session-starter and guard SIGKILLed together)
 * and resolves with its record, also when it exited 125 (a process
 * verified as a session's left: a survivor in left; a reused PID or a
 * refused record is reported with exit status 0). Rejects with a LaunchError when there is no record
 * ('ERR_SESSION_STARTER_RECLAIM': the ledger is off; or the binary's
 * codes, as launch()).
 */
export function reclaim(options?: ReclaimOptions): Promise<ReclaimRecord>;

/**
 * The variables carried from this process's environment into a stdio
 * server's by the helpers below, where set: XDG_RUNTIME_DIR and
 * SESSION_STARTER_LEDGER_DIR choose the ledger's directory (without them a
 * non-root session's record lands in /tmp/session-starter-UID, where the
 * user's --reclaim does not look); SESSION_STARTER_SESSION nests the
 * session in this process's own. The MCP SDKs' default environment drops
 * all three. Returns those set (non-empty) in env, default process.env.
 */
export function carriedEnv(env?: NodeJS.ProcessEnv): Record<string, string>;

/**
 * The MCP TypeScript SDK's StdioServerParameters, declared by shape (this
 * package imports nothing from the SDK): what its StdioClientTransport
 * spawns. stderr is passed on as it is.
 */
export interface StdioServerParameters {
  /** The server's executable. */
  command: string;
  args?: string[];
  /** The SDK passes the server its default environment (HOME, LOGNAME, PATH, SHELL, TERM, USER) with this over it. */
  env?: Record<string, string>;
  cwd?: string;
  /** 'inherit' (the SDK's default), 'ignore', 'pipe', a stream or a descriptor. */
  stderr?: unknown;
}

/**
 * The options of a stdio server's session (withSessionStarter,
 * StdioSessionTransport, launchAgent): launch()'s flags, named as in
 * LaunchOptions, in milliseconds; 0 or undefined leaves a flag out, so
 * that session-starter's default applies. --watch-stdin is always on.
 */
export interface StdioOptions {
  /** The session-starter binary; default binaryPath(). */
  binary?: string;
  /** --grace: every end of the session sends the stop signal first and waits up to this long before SIGKILL. */
  grace?: number;
  /** --stop-signal: the signal the grace begins with; default TERM. */
  stopSignal?: string | number;
  /** --timeout: the session is ended this long after the server was released. */
  timeout?: number;
  /** --kill-budget: how long the end keeps sending SIGKILL after the grace (default 10 s). */
  killBudget?: number;
  /** --containment. */
  containment?: Containment;
  /**
   * --stdin-grace: once the server's stdin hung up (the client's close or
   * death), the server's own time to exit before the session is ended;
   * its clock starts at the hang-up. Default 2 s.
   */
  stdinGrace?: number;
  /** Only true, or left out: a stdio server is always watched through its stdin. */
  watchStdin?: true;
  /** More flags for session-starter, before "--"; a flag set here or by an option is refused. */
  extraFlags?: string[];
}

/**
 * Returns StdioServerParameters on which the MCP TypeScript SDK's own
 * StdioClientTransport runs params' server through session-starter, with
 * no shell or interpreter between: command is binaryPath() (or
 * options.binary); args are "--stdio", the flags of
 * options, "--", then the server's command and args; env is params.env
 * over carriedEnv() (SESSION_STARTER_CONTAIN removed); every other field
 * is kept. The session ends when the client closes the server's stdin
 * (after the stdin grace) or dies, and everything the server started
 * ends with it within the stdin grace + grace + kill budget. The SDK's
 * transport.pid is then session-starter's, which mirrors the server's
 * exit status. For a client that spawns the server itself, as ACP clients
 * do, env goes over the client's own environment.
 * Throws a LaunchError (ERR_SESSION_STARTER_INVALID_OPTION, or the codes
 * of binaryPath()) for what cannot run.
 */
export function withSessionStarter<P extends StdioServerParameters>(
  params: P,
  options?: StdioOptions,
): Omit<P, 'command' | 'args' | 'env'> & { command: string; args: string[]; env: Record<string, string> };

/** A JSON-RPC 2.0 message, as the MCP SDK's JSONRPCMessage. */
export type JSONRPCMessage = { jsonrpc: '2.0'; [key: string]: unknown };

/**
 * A Transport of the MCP TypeScript SDK's shape (declared by shape) for
 * its Client: a drop-in for StdioClientTransport that launches the server
 * with launch() and --watch-stdin. Messages are newline-delimited
 * JSON-RPC on the server's stdin and stdout, as the SDK frames them. The
 * server gets the SDK's default environment (HOME, LOGNAME, PATH, SHELL,
 * TERM, USER; on Windows the SDK's list), carriedEnv(), then params.env.
 */
export class StdioSessionTransport {
  /** Checks params and options (throws a LaunchError, as withSessionStarter); nothing starts before start(). */
  constructor(params: StdioServerParameters, options?: Omit<LaunchOptions, 'env' | 'cwd' | 'stderr' | 'watchStdin' | 'control' | 'status'> & StdioOptions);
  /** The Engine's PID (the server's own, what a host reaps by) once started, else null. */
  readonly pid: number | null;
  /** The Session once started, else null. */
  readonly session: Session | null;
  /** With params.stderr 'pipe': the server's stderr, from construction on (listen before start()); else null. */
  readonly stderr: Readable | null;
  /** The ended record, once the session has ended; null if it ended without one, or never started. */
  readonly ended: Promise<EndedRecord | null>;
  /** Always undefined: a stdio transport has no session id. */
  sessionId?: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: unknown) => void;
  /** Launches the server; rejects with launch()'s LaunchError (onerror sees it too), or when called twice. */
  start(): Promise<void>;
  /** Writes message and a newline to the server's stdin; rejects with "Not connected" before start() and after close(). */
  send(message: JSONRPCMessage, options?: unknown): Promise<void>;
  /**
   * Ends the server's stdin: the server gets the stdin grace to exit, then
   * the session ends (grace, kill budget). Resolves once session-starter
   * has exited and the ended record is in. Past stdin grace + endBound()
   * + 5 s it stops the session (Session.stop()). onclose is called once,
   * when session-starter has exited and the server's stdout is closed,
   * however the session ended.
   */
  close(): Promise<void>;
}

/** An ACP agent (or any stdio server) running under session-starter, from launchAgent(). */
export interface AgentSession {
  readonly session: Session;
  /** The Engine's PID: the agent's own. */
  readonly pid: number;
  /** The agent's stdin, a Node stream. */
  readonly stdin: Writable;
  /** The agent's stdout, a Node stream. */
  readonly stdout: Readable;
  /** The agent's stdin as a web stream: ndJsonStream(writable, readable) of the ACP SDK. */
  readonly writable: WritableStream<Uint8Array>;
  /** The agent's stdout as a web stream. */
  readonly readable: ReadableStream<Uint8Array>;
  /** The ended record; null if the session ended without one. */
  readonly ended: Promise<EndedRecord | null>;
  /** Ends the agent's stdin and resolves with the ended record once session-starter has exited, as StdioSessionTransport.close(). */
  close(): Promise<EndedRecord | null>;
}

/**
 * Launches an ACP agent (JSON-RPC over its stdio, as Zed's agent servers
 * are configured: command, args, env) under session-starter with
 * --watch-stdin, and resolves once containment is acknowledged. env goes
 * over this process's environment. An ACP client connects with the ACP
 * SDK's ndJsonStream(agent.writable, agent.readable). Rejects with a
 * LaunchError, as launch().
 */
export function launchAgent(
  params: { command: string; args?: string[]; env?: Record<string, string>; cwd?: string },
  options?: Omit<LaunchOptions, 'env' | 'cwd' | 'watchStdin'> & StdioOptions,
): Promise<AgentSession>;

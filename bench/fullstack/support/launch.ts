import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { httpRequest } from './http.ts';
import { groupProcesses } from './proc.ts';

/**
 * Starting and always stopping the processes of a run (servers, redis-server, the bridge).
 *
 * Each command runs under a small `sh` supervisor in a process group of its own. The
 * supervisor reads its stdin, a pipe from this process: when the pipe closes — because
 * `stop()` closed it, or because this process died in any way, SIGKILL included — it kills
 * the whole group, so a server and whatever it started (cluster workers, workerd) never
 * outlive the run. `stop()` and an exit handler here also kill the group directly.
 */

/**
 * Watches for the lifeline to close, or for the command to exit; either way the group goes.
 * The lifeline moves to fd 3 first: sh gives a background job /dev/null as stdin unless told.
 */
const SUPERVISOR = [
  'exec 3<&0',
  '"$@" </dev/null 3<&- &',
  'server=$!',
  '( cat <&3 >/dev/null; kill -TERM 0 ) &',
  'exec 3<&-',
  'wait "$server"',
  'code=$?',
  'echo "[launch] exited with code $code" >&2',
  "trap '' TERM",
  'kill -TERM 0 2>/dev/null',
  'exit "$code"',
].join('\n');

/** What to start. */
export interface LaunchOptions {
  /** Name used in messages. */
  name: string;
  /** Program and arguments. */
  command: readonly string[];
  /** Variables added to this process's environment. */
  env?: Readonly<Record<string, string>>;
  /** CPU list for taskset (e.g. "1"), when taskset is installed; absent runs unpinned. */
  cpus?: string;
  /** Working directory; default this process's. */
  cwd?: string;
  /**
   * Markers of lines to count on stdout and stderr (an exception, a store error…). A line
   * `MARKER ×N …` counts N: a process can report a burst in one line.
   */
  markers?: readonly string[];
}

/** A started process group. */
export interface Launched {
  readonly name: string;
  /** Process group id (= the supervisor's pid): every process of the group carries it. */
  readonly pgid: number;
  /** Resolves with the supervisor's exit code (null when a signal ended it). */
  readonly exited: Promise<number | null>;
  /** True until the supervisor exits. */
  running(): boolean;
  /** How many times `marker` (one of `markers`) was reported so far, and the first few such lines. */
  marked(marker: string): Tally;
  /** The last lines of stdout and stderr, for error messages. */
  outputTail(): string;
  /** Closes the lifeline, waits for the group to go, kills what is left after a grace period. */
  stop(): Promise<void>;
}

/** Counted lines of one marker. */
export interface Tally {
  count: number;
  /** The first lines (at most 3), to say what happened. */
  first: string[];
}

const live = new Set<Launched>();
let exitHookInstalled = false;
const TAIL_LINES = 60;

/** The groups started and not yet gone (the exit hook's list): what a run still has running. */
export function liveGroups(): ReadonlyArray<{ name: string; pgid: number }> {
  return [...live].filter((l) => groupAlive(l.pgid)).map((l) => ({ name: l.name, pgid: l.pgid }));
}

/** True when `taskset` can pin processes on this machine. */
export const canPin: boolean = spawnSync('sh', ['-c', 'command -v taskset'], { encoding: 'utf8' }).stdout.trim() !== '';

/** Starts `options.command` under the supervisor. */
export function launch(options: LaunchOptions): Launched {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // Last resort on any exit of this process (an exception included): no group survives it.
    process.on('exit', () => {
      for (const l of live) killGroup(l.pgid, 'SIGKILL');
    });
  }
  const command = options.cpus && canPin ? ['taskset', '-c', options.cpus, ...options.command] : [...options.command];
  const child = spawn('sh', ['-c', SUPERVISOR, 'sh', ...command], {
    detached: true,
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  if (child.pid === undefined) throw new Error(`${options.name}: could not start ${command[0]}`);
  const pgid = child.pid;
  const tail: string[] = [];
  const tallies = new Map<string, Tally>((options.markers ?? []).map((m) => [m, { count: 0, first: [] }]));
  let running = true;
  const collect = lineCollector((line) => {
    for (const [marker, tally] of tallies) {
      const at = line.indexOf(marker);
      if (at < 0) continue;
      const burst = /^ ×(\d+)/.exec(line.slice(at + marker.length));
      tally.count += burst ? Number(burst[1]) : 1;
      if (tally.first.length < 3) tally.first.push(line.slice(0, 500));
    }
    tail.push(line);
    if (tail.length > TAIL_LINES) tail.shift();
  });
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  // The lifeline is written to by no one; an EPIPE after the supervisor exits is expected.
  child.stdin!.on('error', () => {});
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running = false;
      resolve(code);
    }),
  );
  const launched: Launched = {
    name: options.name,
    pgid,
    exited,
    running: () => running,
    marked: (marker) => {
      const tally = tallies.get(marker);
      if (!tally) throw new TypeError(`${options.name}: "${marker}" is not one of the markers it was launched with`);
      return { count: tally.count, first: [...tally.first] };
    },
    outputTail: () => tail.join('\n'),
    stop: () => stopGroup(child, launched),
  };
  live.add(launched);
  void exited.then(() => {
    // The supervisor is gone; anything left in the group is killed on stop() or at exit.
    if (!groupAlive(pgid)) live.delete(launched);
  });
  return launched;
}

async function stopGroup(child: ChildProcess, launched: Launched): Promise<void> {
  child.stdin!.end();
  const graceful = await Promise.race([launched.exited.then(() => true), delay(8000).then(() => false)]);
  if (!graceful) killGroup(launched.pgid, 'SIGKILL');
  // The supervisor's own kill reaches the group; wait for its last members, then insist.
  for (let i = 0; i < 50 && groupAlive(launched.pgid); i++) await delay(100);
  if (groupAlive(launched.pgid)) killGroup(launched.pgid, 'SIGKILL');
  live.delete(launched);
}

function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // The group is already gone.
  }
}

/**
 * True while a process of the group runs. Zombies do not count: where PID 1 does not reap
 * orphans (containers), they would keep a dead group "alive" for kill(…, 0).
 */
function groupAlive(pgid: number): boolean {
  return groupProcesses(pgid, undefined, true).length > 0;
}

/** Splits chunks into lines, keeping a partial last line for the next chunk. */
function lineCollector(onLine: (line: string) => void): (chunk: Buffer) => void {
  let partial = '';
  return (chunk) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    // A line without an end for 64 KiB is still a line: the buffer stays bounded.
    if (partial.length > 65_536) {
      lines.push(partial);
      partial = '';
    }
    for (const line of lines) onLine(line);
  };
}

export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `check` resolves true; rejects with the process's output when it exits first or time runs out. */
async function waitUntil(launched: Launched, what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (!launched.running()) throw new Error(`${launched.name} exited before ${what}:\n${launched.outputTail()}`);
    if (await check().catch(() => false)) return;
    if (Date.now() > until) throw new Error(`${launched.name}: no ${what} within ${timeoutMs / 1000} s:\n${launched.outputTail()}`);
    await delay(100);
  }
}

/** Waits until `url` answers 200. */
export function waitForHttp(launched: Launched, url: string, timeoutMs = 60_000): Promise<void> {
  return waitUntil(launched, `a 200 from ${url}`, timeoutMs, async () => (await httpRequest(url, 'GET', 2000)).status === 200);
}

/** Waits until something accepts TCP connections on 127.0.0.1:`port`. */
export function waitForPort(launched: Launched, port: number, timeoutMs = 15_000): Promise<void> {
  return waitUntil(
    launched,
    `a listener on port ${port}`,
    timeoutMs,
    () =>
      new Promise<boolean>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => {
          socket.destroy();
          resolve(false);
        });
      }),
  );
}

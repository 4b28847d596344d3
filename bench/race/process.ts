/**
 * One process of the race bench (run.ts starts four readers and one writer per run). Its task
 * comes as JSON in argv; it says "ready", starts on "go" (stdin), and prints one JSON line of
 * what it saw. Times are process.hrtime (CLOCK_MONOTONIC: one clock for every process of the
 * machine), in ms.
 */
import { createInterface } from 'node:readline';
import pg from 'pg';
import { CONTENDERS } from './contenders.ts';
import type { RaceStores } from './race-contender.ts';

/** What run.ts asks of one process. */
export interface RaceTask {
  role: 'reader' | 'writer';
  contender: string;
  redisUrl: string;
  pgUrl: string;
  namespace: string;
  /** Writer: how many UPDATEs. */
  writes: number;
  /** Writer: extra time inside the transaction before COMMIT (0: autocommit). */
  slowCommitMs: number;
  /** Writer: mean pause between writes (exponential). */
  meanGapMs: number;
  /** Reader: reads in flight. */
  inFlight: number;
  /** Where the SQLite and cluster contenders' stores live. */
  stores: RaceStores;
}

const now = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const task = JSON.parse(process.argv[2]!) as RaceTask;
const contender = CONTENDERS.find((c) => c.id === task.contender);
if (!contender) throw new Error(`unknown contender ${task.contender}`);
const db = new pg.Client({ connectionString: task.pgUrl });
await db.connect();
const client = await contender.open(task.redisUrl, task.namespace, task.pgUrl, task.stores);
const lines = createInterface({ input: process.stdin });
const next = () => new Promise<string>((resolve) => lines.once('line', resolve));
process.stdout.write('ready\n');
await next();

if (task.role === 'reader') {
  let stopped = false;
  void next().then(() => (stopped = true));
  let loads = 0;
  const reads: number[] = []; // flat pairs: began at, version returned
  const took: number[] = []; // each read's duration, µs
  const load = async () => {
    loads++;
    const { rows } = await db.query<{ version: number }>('SELECT version FROM race WHERE id = 1');
    return rows[0]!.version;
  };
  const loop = async () => {
    while (!stopped) {
      const began = now();
      const version = await client.read(load);
      took.push((now() - began) * 1000);
      reads.push(began, version);
      // As a server's request handler would: let I/O run between reads (a read served from
      // memory resolves in microtasks, and a loop of those would starve every socket).
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  // One pg connection serves the loops: pg queues their queries, as a small pool would.
  await Promise.all(Array.from({ length: task.inFlight }, loop));
  process.stdout.write(`${JSON.stringify({ reads, took, loads: client.loads?.() ?? loads })}\n`);
} else {
  const commits: number[] = []; // commit returned at, per version 1..writes
  for (let version = 1; version <= task.writes; version++) {
    await sleep(-Math.log(1 - Math.random()) * task.meanGapMs);
    await client.before();
    if (client.update) {
      commits.push(await client.update(version, task.slowCommitMs));
    } else {
      if (task.slowCommitMs > 0) {
        await db.query('BEGIN');
        await db.query('UPDATE race SET version = $1 WHERE id = 1', [version]);
        await sleep(task.slowCommitMs);
        await db.query('COMMIT');
      } else {
        await db.query('UPDATE race SET version = $1 WHERE id = 1', [version]);
      }
      commits.push(now());
    }
    await client.after();
  }
  process.stdout.write(`${JSON.stringify({ commits })}\n`);
}
await client.close();
await db.end();
lines.close();

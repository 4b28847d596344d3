/**
 * One contender, one phase, a fixed number of calls with `concurrency` in flight, after the same
 * fill and warm-up every time: run under callgrind by bench/phases/instructions.ts, twice with
 * two call counts, so that the difference of the two instruction totals is what the extra calls
 * cost — startup, module loading, the fill and the JIT's warm-up cancel out.
 */
import type { ContenderSpec, PhaseName } from '../contenders/types.ts';
import { smallValue } from '../support/payloads.ts';
import { timedPass } from '../support/measure.ts';

/** What to run. */
export interface InstructionJob {
  contender: string;
  url: string;
  phase: PhaseName;
  concurrency: number;
  warmup: number;
  calls: number;
}

/** Keys the reads find: written once, before the warm-up. */
const KEYS = 1000;
const BATCH = 10;

/**
 * The contenders this counts, each loaded alone: under callgrind, loading every contender's
 * library (as the registry does) would cost more than the calls measured.
 */
const specs: Record<string, () => Promise<ContenderSpec>> = {
  // Defaults, but for the timeout: under callgrind every call takes ~50 times as long.
  'cachette-valkey': async () => (await import('../contenders/cachette.ts')).cachetteSpec({ id: 'cachette-valkey', label: 'cachette (valkey, defaults)', store: 'valkey', timeout: 60_000 }),
  'valkey-store': async () => (await import('../contenders/valkey-store.ts')).valkeyStoreSpec,
  'node-redis': async () => (await import('../contenders/node-redis.ts')).nodeRedisSpec,
  iovalkey: async () => (await import('../contenders/iovalkey.ts')).iovalkeySpec(false),
};

const job = JSON.parse(process.argv[2]!) as InstructionJob;
const spec = specs[job.contender];
if (!spec) throw new Error(`no contender "${job.contender}" here (${Object.keys(specs).join(', ')})`);
const contender = await (await spec()).open(job.url);
const key = (space: string, i: number) => `ins:${job.contender}:${space}:${i}`;
const ops: Record<PhaseName, (i: number) => Promise<unknown>> = {
  get: (i) => contender.get(key('v', i % KEYS)),
  'get-miss': (i) => contender.get(key('absent', i)),
  set: (i) => contender.set(key('s', i % KEYS), smallValue(i)),
  mget: (i) => contender.getMany(Array.from({ length: BATCH }, (_, j) => key('v', (i * BATCH + j) % KEYS))),
  mset: (i) => contender.setMany(Array.from({ length: BATCH }, (_, j) => [key('ms', (i * BATCH + j) % KEYS), smallValue(j)] as const)),
  incr: (i) => contender.incr(key('ctr', i % 16)),
  // Deleting keys that exist or not costs the client the same: one DEL, one integer back.
  delete: (i) => contender.delete(key('del', i % KEYS)),
};
/** `run` as a pass's op (which reports whether the call did its work: these only need it done). */
const done =
  (run: (i: number) => Promise<unknown>) =>
  async (i: number): Promise<boolean> => {
    await run(i);
    return true;
  };
try {
  await timedPass(
    KEYS,
    50,
    done((i) => contender.set(key('v', i), smallValue(i))),
  );
  const op = ops[job.phase];
  await timedPass(job.warmup, job.concurrency, done(op));
  await timedPass(
    job.calls,
    job.concurrency,
    done((i) => op(job.warmup + i)),
  );
} finally {
  await contender.close();
}

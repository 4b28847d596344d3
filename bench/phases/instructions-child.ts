/**
 * One contender, one phase, a fixed number of calls with `concurrency` in flight, after the same
 * fill and warm-up every time: run under callgrind by bench/phases/instructions.ts, twice with
 * two call counts, so that the difference of the two instruction totals is what the extra calls
 * cost — startup, module loading, the fill and the JIT's warm-up cancel out.
 */
import { contenderById } from '../contenders/registry.ts';
import type { PhaseName } from '../contenders/types.ts';
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

const job = JSON.parse(process.argv[2]!) as InstructionJob;
const contender = await contenderById(job.contender).open(job.url);
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

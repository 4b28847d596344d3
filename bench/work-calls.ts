/**
 * `GET /work`'s six awaited calls without HTTP (bench/fullstack/app/workload.ts: get 150 B,
 * getMany 10, set 150 B, set of a ~14 KiB document, incr, get of the document), one contender in
 * this process, `--in-flight` rounds at once, several passes: rounds/s and process CPU per
 * round for each pass, so that warm-up shows and a profiler (`--cpu-prof` on Node and Bun,
 * `perf` on Deno) sees the store's work without a server around it. Runs unchanged on Node, Bun
 * and Deno; the contender ids are those of the phases (bench/contenders/registry.ts).
 *
 *   taskset -c 1 node bench/.build/bench/work-calls.js --contender cachette-valkey --url redis://127.0.0.1:6379
 *   taskset -c 1 node_modules/.bin/bun bench/work-calls.ts --contender node-redis --rounds 20000 --passes 3
 *
 * Prints one JSON line per pass on stdout.
 */
import { contenderById } from './contenders/registry.ts';
import { doWork, MANY, prefill, randomParams, workKeys } from './fullstack/app/workload.ts';
import { isRowsValue, isSmallValue, rowsValue, smallValue } from './support/payloads.ts';
import { timedPass } from './support/measure.ts';

function arg(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at < 0 ? fallback : process.argv[at + 1]!;
}

const id = arg('contender', 'cachette-valkey');
const url = arg('url', process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const rounds = Number(arg('rounds', '20000'));
const inFlight = Number(arg('in-flight', '20'));
const passes = Number(arg('passes', '2'));
const only = arg('op', 'work');
const runtime = typeof (globalThis as { Bun?: unknown }).Bun === 'object' ? 'bun' : typeof (globalThis as { Deno?: unknown }).Deno === 'object' ? 'deno' : 'node';

const contender = await contenderById(id).open(url);
const keys = workKeys(`wc:${id}`);
await prefill(contender, keys);
for (let d = 0; d < 100; d++) await contender.set(keys.doc(d), rowsValue(d));
/** Each of the six calls alone, or the six in turn (`work`): resolves true when the result is right. */
const ops: Record<string, () => Promise<boolean>> = {
  work: async () => (await doWork(contender, randomParams(), keys)).doc,
  get: async () => {
    const p = randomParams();
    const v = await contender.get(keys.small(p.read));
    return v == null || isSmallValue(v, p.read);
  },
  getMany: async () => {
    const p = randomParams();
    return (await contender.getMany(Array.from({ length: MANY }, (_, k) => keys.small(p.read + k)))).length === MANY;
  },
  set: async () => {
    const p = randomParams();
    await contender.set(keys.small(p.write), smallValue(p.write));
    return true;
  },
  setDoc: async () => {
    const p = randomParams();
    await contender.set(keys.doc(p.doc), rowsValue(p.doc));
    return true;
  },
  incr: async () => (await contender.incr(keys.counter(randomParams().counter))) > 0,
  getDoc: async () => {
    const p = randomParams();
    return isRowsValue(await contender.get(keys.doc(p.doc)), p.doc);
  },
};
const op = ops[only];
if (!op) throw new Error(`--op: one of ${Object.keys(ops).join(', ')}`);
const profile = process.argv.includes('--profile') ? arg('profile', 'work-calls.cpuprofile') : undefined;
for (let pass = 0; pass < passes; pass++) {
  // The last pass only, once warm; node:inspector's profiler runs on Node and Deno (on Bun, `bun --cpu-prof`).
  const session = profile !== undefined && pass === passes - 1 ? await startProfiler() : undefined;
  const r = await timedPass(rounds, inFlight, op);
  const rss = process.memoryUsage().rss;
  if (session) await stopProfiler(session, profile!);
  console.log(
    JSON.stringify({
      runtime,
      id,
      op: only,
      pass,
      roundsPerSec: Math.round(rounds / (r.ms / 1000)),
      cpuUsPerRound: Math.round((r.cpuUs / rounds) * 10) / 10,
      wrong: r.wrong,
      rssMiB: Math.round(rss / 1048576),
    }),
  );
}
await contender.close();

async function startProfiler(): Promise<import('node:inspector/promises').Session> {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  return session;
}

async function stopProfiler(session: import('node:inspector/promises').Session, file: string): Promise<void> {
  const { writeFileSync } = await import('node:fs');
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(file, JSON.stringify(profile));
  session.disconnect();
}

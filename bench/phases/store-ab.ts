/**
 * A focused A/B of cachette's 50-in-flight phases over the valkey store, for comparing two
 * checkouts of the repository on one server: each run imports the engine and the store as built
 * under `--root`'s bench/.build (`npx tsc -p bench/tsconfig.build.json` there; default: this
 * tree), so the same script measures main and a branch alternately, and a run prints calls/s
 * and process CPU per call for each phase. Pin it to a core (taskset) as the bench does.
 *
 *   npx tsc -p bench/tsconfig.build.json && node bench/.build/bench/phases/store-ab.js \
 *     --url redis://127.0.0.1:6379 --root /path/to/other/checkout \
 *     [--phases get,get-miss,set,setMany] [--n 20000] [--ttl 60000] [--runs 3]
 *
 * `--ttl` gives every write an expiry (the exact-expiry write path); without it, writes do not expire.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { smallValue } from '../support/payloads.ts';
import { timedPass } from '../support/measure.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at < 0 ? fallback : args[at + 1]!;
};
const root = resolve(option('root', '.'));
const built = `${root}/bench/.build`;
const url = option('url', 'redis://127.0.0.1:6379');
const phases = option('phases', 'get,get-miss,set,setMany').split(',');
const n = Number(option('n', '20000'));
const runs = Number(option('runs', '3'));
const ttl = args.includes('--ttl') ? Number(option('ttl', '60000')) : undefined;
const BATCH = 10;
const IN_FLIGHT = 50;

type Cache = {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown, options?: { ttl?: number }): Promise<unknown>;
  setMany(entries: Array<{ key: string; value: unknown; ttl?: number }>): Promise<unknown>;
  close(): Promise<void>;
};
const { createCache } = (await import(pathToFileURL(`${built}/src/index.js`).href)) as { createCache: (o: object) => Cache };
const { valkeyStore } = (await import(pathToFileURL(`${built}/adapters/valkey/index.js`).href)) as { valkeyStore: (url: string) => { close(): Promise<void> } };

const store = valkeyStore(url);
const cache = createCache({ store, namespace: `ab${process.pid}` });
const withTtl = ttl === undefined ? {} : { ttl };

const ops: Record<string, (i: number) => Promise<boolean>> = {
  get: async (i) => (await cache.get(`v:${i % 1000}`)) !== undefined,
  'get-miss': async (i) => (await cache.get(`absent:${i}`)) === undefined,
  set: async (i) => {
    await cache.set(`s:${i}`, smallValue(i), withTtl);
    return true;
  },
  setMany: async (i) => {
    await cache.setMany(Array.from({ length: BATCH }, (_, j) => ({ key: `m:${(i * BATCH + j) % n}`, value: smallValue(j), ...withTtl })));
    return true;
  },
};

await timedPass(1000, IN_FLIGHT, (i) => cache.set(`v:${i}`, smallValue(i)).then(() => true));
const line: string[] = [];
for (const phase of phases) {
  const op = ops[phase];
  if (op === undefined) throw new RangeError(`no phase ${phase} (${Object.keys(ops).join(', ')})`);
  await timedPass(Math.min(n, 5000), IN_FLIGHT, op);
  const rates: number[] = [];
  const cpus: number[] = [];
  for (let r = 0; r < runs; r++) {
    const pass = await timedPass(n, IN_FLIGHT, op);
    if (pass.wrong > 0) throw new Error(`${phase}: ${pass.wrong} calls did not do their work`);
    rates.push((n / pass.ms) * 1000);
    cpus.push(pass.cpuUs / n);
  }
  rates.sort((a, b) => a - b);
  cpus.sort((a, b) => a - b);
  line.push(`${phase} ${Math.round(rates[runs >> 1]!)}/s ${cpus[runs >> 1]!.toFixed(2)}µs`);
}
console.log(`${root}: ${line.join('  ')}`);
await cache.close();
await store.close();

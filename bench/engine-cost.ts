/**
 * The engine's own CPU per call, with no I/O, layer by layer. The store is the in-process
 * memory store declared remote and ordered (as valkey is), so that the engine builds the same
 * path it builds for a server: store handle → guard (timeouts, breakers) → batcher. Each row
 * adds one layer to the one above it, so the difference between two rows is what that layer
 * costs; the codec rows are the serializer and envelope alone.
 *
 *   npx tsx bench/engine-cost.ts          (N_OPS calls per run, default 200,000; 7 runs, median)
 *   npx tsx bench/engine-cost.ts --quick  (20,000 calls, 3 runs)
 *   npm run bench runs it compiled, pinned to the client's core, as a section of the report.
 */
import { pathToFileURL } from 'node:url';
import { MemoryStore } from '../adapters/memory/index.ts';
import { buildPath } from '../src/cache/path/build-path.ts';
import { GuardLayer } from '../src/cache/path/guard.ts';
import { StoreHandle } from '../src/cache/path/store-handle.ts';
import { decodeEnvelope, encodeEnvelope } from '../src/codec/envelope.ts';
import { autoSerializer, cborSerializer, jsonSerializer } from '../src/codec/serializers.ts';
import { createCache, type Store } from '../src/index.ts';
import { systemClock } from '../src/cache/clock.ts';
import { smallValue } from './support/payloads.ts';
import { median } from './support/stats.ts';

/** One row of the engine-cost table. */
export interface EngineCostRow {
  /** What was called. */
  step: string;
  /** The operation the row belongs to (get, set, …). */
  op: string;
  /** CPU µs per call, median of the runs. */
  us: number;
}

/** The memory store, declared as a remote store that keeps order (what the engine sees of valkey). */
class RemoteLikeStore extends MemoryStore {
  override readonly local = false as unknown as true;
  readonly ordered = true;
}

const quietReporter = { failed: () => undefined, skipped: () => undefined, healthChanged: () => undefined };

/** Measures every row; `n` calls per run, `runs` runs, median kept. */
export async function measureEngineCost(n: number, runs: number): Promise<EngineCostRow[]> {
  const store: Store = new RemoteLikeStore({ maxEntries: 10_000 });
  const value = smallValue(7);
  const cache = createCache({ store, closeStore: false });
  const cacheNoBatch = createCache({ store, closeStore: false, batch: false, namespace: 'nb' });
  await cache.set('k', value);
  await cacheNoBatch.set('k', value);
  const stored = (await store.get('cachette:k'))!;
  const guard = new GuardLayer(new StoreHandle(store, false), { timeoutMs: 1000, threshold: 5, cooldownMs: 2000, clock: systemClock, reporter: quietReporter });
  const path = buildPath({ store, closeStore: false, batch: true, timeoutMs: 1000, threshold: 5, cooldownMs: 2000, clock: systemClock, reporter: quietReporter }).top;
  const json = jsonSerializer.encode(value).slice();
  const cbor = cborSerializer.encode(value).slice();
  const keys = Array.from({ length: 10 }, (_, i) => `k${i}`);
  await cache.setMany(keys.map((key) => ({ key, value })));

  const cases: Array<[op: string, step: string, call: () => unknown]> = [
    ['get', 'store.get (memory)', () => store.get('cachette:k')],
    ['get', '+ guard', () => guard.get('cachette:k')],
    ['get', '+ batcher (the whole path)', () => path.get('cachette:k')],
    ['get', 'envelope decode', () => decodeEnvelope(stored)],
    ['get', 'JSON decode (auto, plain value)', () => jsonSerializer.decode(json)],
    ['get', 'CBOR decode', () => cborSerializer.decode(cbor)],
    ['get', 'cache.get, batch: false', () => cacheNoBatch.get('k')],
    ['get', 'cache.get (defaults)', () => cache.get('k')],
    ['set', 'store.set (memory)', () => store.set('cachette:raw', stored)],
    ['set', '+ guard', () => guard.set('cachette:raw', stored)],
    ['set', '+ batcher (the whole path)', () => path.set('cachette:raw', stored)],
    ['set', 'auto encode (plain value → JSON)', () => autoSerializer.encode(value)],
    ['set', 'CBOR encode', () => cborSerializer.encode(value)],
    ['set', 'envelope encode', () => encodeEnvelope({ serializerId: 2, compressionId: 0, createdAt: 0, freshFor: Infinity, staleFor: 0, tags: [], payload: json })],
    ['set', 'cache.set (defaults)', () => cache.set('k', value)],
    ['getMany ×10', 'cache.getMany (defaults)', () => cache.getMany(keys)],
    ['setMany ×10', 'cache.setMany (defaults)', () => cache.setMany(keys.map((key) => ({ key, value })))],
    ['incr', 'cache.incr (defaults)', () => cache.incr('n')],
    ['delete', 'cache.delete (defaults)', () => cache.delete('absent')],
  ];

  const samples = new Map<string, number[]>();
  for (let run = 0; run <= runs; run++) {
    for (const [op, step, call] of cases) {
      const c0 = process.cpuUsage();
      for (let i = 0; i < n; i++) await call();
      const c = process.cpuUsage(c0);
      // Run 0 warms the JIT up and is not kept.
      if (run > 0) samples.set(`${op}\u0000${step}`, [...(samples.get(`${op}\u0000${step}`) ?? []), (c.user + c.system) / n]);
    }
  }
  await cache.close();
  await cacheNoBatch.close();
  await guard.close();
  return cases.map(([op, step]) => ({ op, step, us: median(samples.get(`${op}\u0000${step}`)!) }));
}

/** The rows as a markdown table. */
export function engineCostTable(rows: readonly EngineCostRow[]): string {
  const lines = ['| op | step | CPU µs per call |', '|---|---|---:|'];
  for (const r of rows) lines.push(`| ${r.op} | ${r.step} | ${r.us.toFixed(3)} |`);
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const quick = process.argv.includes('--quick');
  const n = Number(process.env.N_OPS ?? (quick ? 20_000 : 200_000));
  const runs = quick ? 3 : 7;
  const rows = await measureEngineCost(n, runs);
  // --json: one line for `npm run bench`, which runs this file as a pinned child process.
  console.log(process.argv.includes('--json') ? JSON.stringify(rows) : engineCostTable(rows));
}

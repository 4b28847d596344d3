/**
 * On Bun, cachette's two Valkey transports side by side: the bun-redis store (Bun's built-in
 * RedisClient) and the valkey store (iovalkey on Bun's node:net), store calls alone and through
 * `createCache` with its defaults, one call at a time and 50 in flight. It backs the choice of
 * Bun's default transport (runtimes/shared/server-stores.ts) with figures that the full-stack rows,
 * where the engine's own cost dominates, cannot separate.
 *
 *   node_modules/.bin/bun bench/fullstack/bun-transport.ts            (~3 min on 2 quiet cores)
 *   node_modules/.bin/bun bench/fullstack/bun-transport.ts --quick    (smoke run, seconds)
 *
 * REDIS_URL names a server to use; otherwise one is started (and always stopped).
 */
import { bunRedisStore } from '../../adapters/bun-redis/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache, type Store } from '../../src/index.ts';
import { timedPass } from '../support/measure.ts';
import { isSmallValue, rowsValue, smallValue } from '../support/payloads.ts';
import { median } from '../support/stats.ts';
import { startRedisService } from './support/services.ts';

const quick = process.argv.includes('--quick');
const N = quick ? 500 : 5000;
const RUNS = quick ? 1 : 3;
const KEYS = 1000;
const encoder = new TextEncoder();
const small = encoder.encode(JSON.stringify(smallValue(1)));
const doc = encoder.encode(JSON.stringify(rowsValue(1)));

/** One operation, given a call number; resolves true when the result is what it should be. */
type Op = (i: number) => Promise<boolean>;

interface Subject {
  name: string;
  open(url: string): Store;
}

const SUBJECTS: Subject[] = [
  { name: "bun-redis (Bun's RedisClient)", open: (url) => bunRedisStore(url) },
  { name: 'valkey (iovalkey)', open: (url) => valkeyStore(url) },
];

function storeOps(store: Store): Record<string, Op> {
  const k = (i: number) => `bt:s:${i % KEYS}`;
  return {
    get: async (i) => (await store.get(k(i)))?.length === small.length,
    'getMany ×10': async (i) => (await store.getMany(Array.from({ length: 10 }, (_, j) => k(i + j)))).every((v) => v?.length === small.length),
    set: async (i) => (await store.set(k(i), small), true),
    'set 14 KiB': async (i) => (await store.set(`bt:d:${i % 100}`, doc), true),
    incr: async (i) => (await store.incr(`bt:c:${i % 100}`, 1)) > 0,
  };
}

function cacheOps(store: Store): Record<string, Op> {
  const cache = createCache({ store, namespace: 'bt-cache' });
  const k = (i: number) => `s:${i % KEYS}`;
  return {
    'cache.get': async (i) => isSmallValue(await cache.get(k(i)), i % KEYS),
    'cache.getMany ×10': async (i) => (await cache.getMany(Array.from({ length: 10 }, (_, j) => k(i + j)))).every((v, j) => isSmallValue(v, (i + j) % KEYS)),
    'cache.set': async (i) => cache.set(k(i), smallValue(i % KEYS)),
    'cache.set 14 KiB': async (i) => cache.set(`d:${i % 100}`, rowsValue(i % 100)),
    'cache.incr': async (i) => ((await cache.incr(`c:${i % 100}`)) ?? 0) > 0,
  };
}

async function prefill(store: Store): Promise<void> {
  const cache = createCache({ store, namespace: 'bt-cache' });
  for (let at = 0; at < KEYS; at += 100) {
    await store.setMany(Array.from({ length: 100 }, (_, j) => ({ key: `bt:s:${at + j}`, value: small })));
    await cache.setMany(Array.from({ length: 100 }, (_, j) => ({ key: `s:${at + j}`, value: smallValue(at + j) })));
  }
}

const external = process.env.REDIS_URL;
const redis = external ? undefined : await startRedisService();
const url = external ?? redis!.url;
try {
  const stores = SUBJECTS.map((s) => ({ ...s, store: s.open(url) }));
  for (const s of stores) await prefill(s.store);
  console.log(`Bun ${(globalThis as { Bun?: { version: string } }).Bun?.version ?? '(not Bun)'}; ${N} calls per run, median of ${RUNS} runs taking turns; calls/s (client CPU µs per call)\n`);
  for (const concurrency of [1, 50]) {
    console.log(`| ${concurrency === 1 ? 'one call at a time' : `${concurrency} in flight`} | ${stores.map((s) => s.name).join(' | ')} | bun-redis ÷ valkey |`);
    console.log(`|---|${stores.map(() => '---:').join('|')}|---:|`);
    const tables = stores.map((s) => ({ ...storeOps(s.store), ...cacheOps(s.store) }));
    for (const op of Object.keys(tables[0]!)) {
      const rates: number[][] = stores.map(() => []);
      const cpu: number[][] = stores.map(() => []);
      const wrong = stores.map(() => 0);
      for (let run = 0; run < RUNS; run++) {
        for (const [si, ops] of tables.entries()) {
          const pass = await timedPass(N, concurrency, ops[op]!);
          // A failed check (a cache call that timed out on a busy machine reads as a miss) is flagged, never dropped.
          wrong[si]! += pass.wrong;
          rates[si]!.push(N / (pass.ms / 1000));
          cpu[si]!.push(pass.cpuUs / N);
        }
      }
      const medians = rates.map(median);
      const cells = medians.map((r, si) => `${Math.round(r).toLocaleString('en-US')} (${median(cpu[si]!).toFixed(1)})${wrong[si] ? ` ⚠ ${wrong[si]} failed checks` : ''}`);
      console.log(`| ${op} | ${cells.join(' | ')} | ${(medians[0]! / medians[1]!).toFixed(2)}× |`);
    }
    console.log('');
  }
  for (const s of stores) {
    await s.store.clear?.('bt');
    await s.store.close();
  }
} finally {
  await redis?.stop();
}

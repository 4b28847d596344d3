/**
 * One window of the hit-loop A/B (bench/coherent/hits-ab.ts): `getOrSet` of keys this process
 * already holds, awaited one after the other in a tight loop for `argv[4]` seconds, through
 * cachette taken from the tree at `argv[2]`, with `argv[3]` as the L1 (none | strict | tracking |
 * coherent | memory: the memory store with no L1, the plainest in-process cache), on the
 * redis-server at `argv[5]`. Prints one JSON line: hits, seconds, CPU µs per hit, and how many
 * calls ran their factory (0 once warm: every call is a hit).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [root, mode, seconds, url] = process.argv.slice(2) as [string, string, string, string];
const from = (path: string) => import(pathToFileURL(join(root, path)).href);
const { createCache } = (await from('src/index.ts')) as typeof import('../../src/index.ts');
const { valkeyStore } = (await from('adapters/valkey/index.ts')) as typeof import('../../adapters/valkey/index.ts');
const { memoryStore } = (await from('adapters/memory/index.ts')) as typeof import('../../adapters/memory/index.ts');

const store = mode === 'memory' ? memoryStore({ maxEntries: 10_000 }) : valkeyStore(url);
const l1 = mode === 'none' || mode === 'memory' ? {} : { l1: { consistency: mode as 'strict' | 'tracking' | 'coherent' } };
const cache = createCache({ store, namespace: `hits-${mode}`, ttl: '10m', ...l1 });
/** A few held keys, read round-robin: a hit loop, not a one-key microbenchmark. */
const KEYS = Array.from({ length: 16 }, (_, i) => `held:${i}`);
let fills = 0;
const factory = (key: string) => () => {
  fills++;
  return { id: key, name: `value of ${key}`, tags: ['a', 'b'], n: 42 };
};
const factories = KEYS.map(factory);

async function loop(end: number): Promise<number> {
  let hits = 0;
  while (performance.now() < end) {
    for (let i = 0; i < KEYS.length; i++) await cache.getOrSet(KEYS[i]!, factories[i]!);
    hits += KEYS.length;
  }
  return hits;
}
// Warm-up: values stored, copies made, the bus subscribed to what they depend on.
await loop(performance.now() + 1000);
fills = 0;
const cpu = process.cpuUsage();
const started = performance.now();
const hits = await loop(performance.now() + Number(seconds) * 1000);
const elapsed = (performance.now() - started) / 1000;
const used = process.cpuUsage(cpu);
process.stdout.write(`${JSON.stringify({ hits, seconds: elapsed, cpuUsPerHit: (used.user + used.system) / Math.max(hits, 1), fills })}\n`);
await cache.close();
await store.close();
process.exit(0);

/**
 * The engine's own CPU per call, with no I/O: cachette over the in-process memory store,
 * against the store called directly and the serializer alone, so what remains is the cache's
 * own work (envelope, key, freshness, stats, promise plumbing). Over a network store the same
 * work hides under the client's syscalls, which move by more than it costs from run to run.
 *
 *   npx tsx bench/engine-cost.ts          (N_OPS calls per run, default 200,000; 7 runs, median)
 */
import { memoryStore } from '../adapters/memory/index.ts';
import { cborSerializer, createCache } from '../src/index.ts';
import { smallValue } from './support/payloads.ts';
import { median } from './support/stats.ts';

const n = Number(process.env.N_OPS ?? 200_000);
const runs = 7;
const store = memoryStore({ maxEntries: 1000 });
const cache = createCache({ store });
const value = smallValue(7);
const encoded = cborSerializer.encode(value).slice();
await cache.set('k', value);

const cases: Array<[string, () => Promise<unknown> | unknown]> = [
  ['cache.get (hit)', () => cache.get('k')],
  ['store.get alone', () => store.get('cachette:k')],
  ['CBOR decode alone', () => cborSerializer.decode(encoded)],
  ['cache.set', () => cache.set('k', value)],
  ['store.set alone', () => store.set('cachette:raw', encoded)],
  ['CBOR encode alone', () => cborSerializer.encode(value)],
];

const cpuPerCall = new Map<string, number[]>();
for (let run = 0; run <= runs; run++) {
  for (const [label, call] of cases) {
    const c0 = process.cpuUsage();
    for (let i = 0; i < n; i++) await call();
    const c = process.cpuUsage(c0);
    if (run > 0) cpuPerCall.set(label, [...(cpuPerCall.get(label) ?? []), (c.user + c.system) / n]);
  }
}
const us = (label: string) => median(cpuPerCall.get(label)!);
console.log(`| step | CPU µs per call (median of ${runs} × ${n.toLocaleString('en-US')}) |\n|---|---:|`);
for (const [label] of cases) console.log(`| ${label} | ${us(label).toFixed(3)} |`);
const getOwn = us('cache.get (hit)') - us('store.get alone') - us('CBOR decode alone');
const setOwn = us('cache.set') - us('store.set alone') - us('CBOR encode alone');
console.log(`\nengine's own work: get ${getOwn.toFixed(2)} µs, set ${setOwn.toFixed(2)} µs per call (budget 1.5 µs)`);
await cache.close();
await store.close();

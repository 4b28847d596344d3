/**
 * What `cache.wrap` adds to a `getOrSet` hit: building the default key from the arguments
 * (the stable encoding, and SHA-256 for long ones) and the call plumbing. CPU per call over the
 * in-process memory store, no I/O, median of several runs.
 *
 *   npx tsx bench/wrap-cost.ts             (N_OPS calls per case and run, default 100,000; 7 runs)
 *   npx tsx bench/wrap-cost.ts --quick     (a smoke run: 2,000 calls, 2 runs)
 */
import { memoryStore } from '../adapters/memory/index.ts';
import { encodeArguments } from '../src/cache/argument-key.ts';
import { createCache } from '../src/index.ts';
import { median } from './support/stats.ts';

const quick = process.argv.includes('--quick');
const n = quick ? 2_000 : Number(process.env.N_OPS ?? 100_000);
const runs = quick ? 2 : 7;
const store = memoryStore({ maxEntries: 1000 });
const cache = createCache({ store });
const value = { id: 42, name: 'Ada', roles: ['admin', 'dev'] };
const load = async (..._args: unknown[]) => value;

const filter = { status: 'active', since: new Date('2026-01-01T00:00:00Z'), tags: ['a', 'b', 'c'], page: { size: 20, after: 'xyz' } };
const longQuery = 'q'.repeat(300);
const byId = cache.wrap(async function byId(id: number) {
  return load(id);
});
const byFilter = cache.wrap(async function byFilter(f: typeof filter) {
  return load(f);
});
const byLong = cache.wrap(async function byLong(q: string) {
  return load(q);
});
const byKey = cache.wrap(
  async function byKeyFn(id: number) {
    return load(id);
  },
  { key: (id) => `user:${id}` },
);
const filterKey = await byFilter.keyFor(filter);
const longKey = await byLong.keyFor(longQuery);
for (const call of [() => byId(42), () => byFilter(filter), () => byLong(longQuery), () => byKey(42), () => cache.getOrSet('byId(42)', load)]) await call();

const cases: Array<[string, () => unknown]> = [
  ['getOrSet hit, key given', () => cache.getOrSet('byId(42)', load)],
  ['wrap hit, key(...args) option', () => byKey(42)],
  ['wrap hit, one number argument', () => byId(42)],
  ['wrap hit, a nested object with a Date', () => byFilter(filter)],
  ['wrap hit, a 300-character string (SHA-256 key)', () => byLong(longQuery)],
  ['getOrSet hit, the same key as the object case', () => cache.getOrSet(filterKey, load)],
  ['getOrSet hit, the same key as the long case', () => cache.getOrSet(longKey, load)],
  ['encodeArguments alone, the nested object', () => encodeArguments([filter], 'byFilter')],
];

const cpu = new Map<string, number[]>();
for (let run = 0; run <= runs; run++) {
  for (const [label, call] of cases) {
    const c0 = process.cpuUsage();
    for (let i = 0; i < n; i++) await call();
    const c = process.cpuUsage(c0);
    // Run 0 warms up the JIT and is not counted.
    if (run > 0) cpu.set(label, [...(cpu.get(label) ?? []), (c.user + c.system) / n]);
  }
}
const us = (label: string) => median(cpu.get(label)!);
console.log(`| call | CPU µs per call (median of ${runs} × ${n.toLocaleString('en-US')}) |\n|---|---:|`);
for (const [label] of cases) console.log(`| ${label} | ${us(label).toFixed(3)} |`);
console.log(
  `\nwrap's own work on a hit: ${(us('wrap hit, one number argument') - us('getOrSet hit, key given')).toFixed(2)} µs (one number), ` +
    `${(us('wrap hit, a nested object with a Date') - us('getOrSet hit, the same key as the object case')).toFixed(2)} µs (nested object), ` +
    `${(us('wrap hit, a 300-character string (SHA-256 key)') - us('getOrSet hit, the same key as the long case')).toFixed(2)} µs (hashed key)`,
);
await cache.close();
await store.close();

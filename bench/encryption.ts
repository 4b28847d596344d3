/**
 * The CPU cost of `encryption` (docs/cache.md#encryption-at-rest): a `get` hit and a `set` of a
 * ~1 KB JSON value on a memory store, with encryption off and on, measured in one process, the
 * two caches alternating round by round so that load from elsewhere on the machine hits both
 * alike. CPU µs per call (process.cpuUsage), median and best of the rounds.
 *
 *   npx tsx bench/encryption.ts           # 21 rounds of 5,000 calls
 *   npx tsx bench/encryption.ts --quick   # 3 rounds of 500
 */
import { memoryStore } from '../adapters/memory/index.ts';
import { createCache, type Cache } from '../src/index.ts';

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 3 : 21;
const CALLS = quick ? 500 : 5_000;
const value = { items: Array.from({ length: 12 }, (_, i) => ({ id: i, name: `item ${i}`, description: 'x'.repeat(48) })) };
const key = crypto.getRandomValues(new Uint8Array(32));
const caches: Record<'off' | 'on', Cache> = {
  off: createCache({ store: memoryStore(), logger: false }),
  on: createCache({ store: memoryStore(), logger: false, encryption: { keys: { k: key }, current: 'k' } }),
};
const calls = {
  get: (cache: Cache) => cache.get('hit'),
  set: (cache: Cache) => cache.set('written', value),
};
for (const cache of Object.values(caches)) {
  await cache.set('hit', value);
  if (JSON.stringify(await cache.get('hit')) !== JSON.stringify(value)) throw new Error('the value did not read back');
}

const samples: Record<string, number[]> = {};
for (const [call, run] of Object.entries(calls)) {
  for (const mode of ['off', 'on'] as const) for (let i = 0; i < CALLS / 4; i++) await run(caches[mode]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of round % 2 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      const start = process.cpuUsage();
      for (let i = 0; i < CALLS; i++) await run(caches[mode]);
      const used = process.cpuUsage(start);
      (samples[`${call} ${mode}`] ??= []).push((used.user + used.system) / CALLS);
    }
  }
}
const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
console.log(`value: ${JSON.stringify(value).length} bytes of JSON; ${ROUNDS} rounds of ${CALLS} calls each`);
for (const call of Object.keys(calls)) {
  const off = samples[`${call} off`]!;
  const on = samples[`${call} on`]!;
  console.log(
    `${call}: off median ${median(off).toFixed(2)} CPU µs (best ${Math.min(...off).toFixed(2)}), on median ${median(on).toFixed(2)} (best ${Math.min(...on).toFixed(2)}), on / off ${(median(on) / median(off)).toFixed(2)}`,
  );
}
await Promise.all(Object.values(caches).map((cache) => cache.close()));

/**
 * `npx tsx bench/coherent/copies-ab.ts <treeA> <treeB> [rounds]`: the CPU of one L1 hit's memory
 * lookup (L1Copies.get, src/cache/tiers/l1-copies.ts) of tree A against tree B, in one process,
 * rounds alternating, over 16 and 2,000 held copies. Prints ns per get, each round, and the
 * median ratio B ÷ A, with the load average.
 */
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median } from './windows.ts';

const [a, b, roundsArg = '5'] = process.argv.slice(2);
if (!a || !b) throw new Error('usage: copies-ab.ts <treeA> <treeB> [rounds]');
const GETS = 2_000_000;
const from = (root: string, path: string) => import(pathToFileURL(join(resolve(root), path)).href);

async function held(root: string, keys: readonly string[]) {
  const { L1Copies } = (await from(root, 'src/cache/tiers/l1-copies.ts')) as typeof import('../../src/cache/tiers/l1-copies.ts');
  const { EntryCodec } = (await from(root, 'src/cache/entry-codec.ts')) as typeof import('../../src/cache/entry-codec.ts');
  const { resolveSerializer } = (await from(root, 'src/codec/serializers.ts')) as typeof import('../../src/codec/serializers.ts');
  const codec = new EntryCodec(resolveSerializer('auto'), undefined, 1 << 20);
  const copies = new L1Copies(10_000, 64 << 20);
  for (const key of keys) {
    const bytes = codec.encode(key, { key }, Date.now(), 60_000, 0, []);
    copies.set(key, bytes, codec.decode(bytes)!);
  }
  return copies;
}

for (const count of [16, 2000]) {
  const keys = Array.from({ length: count }, (_, i) => `cachette:bench:key:${i}`);
  const trees = { A: await held(a, keys), B: await held(b, keys) };
  const ns: Record<'A' | 'B', number[]> = { A: [], B: [] };
  for (let round = 0; round < Number(roundsArg); round++) {
    for (const tree of round % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const)) {
      const copies = trees[tree];
      let found = 0;
      const cpu = process.cpuUsage();
      for (let i = 0; i < GETS; i++) if (copies.get(keys[i % count]!) !== undefined) found++;
      const used = process.cpuUsage(cpu);
      if (found !== GETS) throw new Error(`tree ${tree} lost copies`);
      ns[tree].push(((used.user + used.system) * 1000) / GETS);
    }
  }
  console.log(`${count} copies: A ${ns.A.map((x) => x.toFixed(0)).join(' ')} ns/get, B ${ns.B.map((x) => x.toFixed(0)).join(' ')} ns/get; median B ÷ A ${(median(ns.B) / median(ns.A)).toFixed(2)}`);
}
console.log(`load average: ${loadavg()[0]!.toFixed(2)}`);

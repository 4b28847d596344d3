/**
 * What `cache.get` over the SQLite store costs above the store's own get: both awaited one at
 * a time on a hit, in alternating rounds in one process, CPU µs per call.
 *
 *   npx tsx bench/sqlite-get-cost.ts [--n 50000] [--rounds 8] [--tree <checkout> --tree <other>]
 *
 * Each `--tree` (default: this checkout) is imported from its sources, all in one process, and
 * their rounds alternate: an A/B of two checkouts in one run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({ options: { n: { type: 'string', default: '50000' }, rounds: { type: 'string', default: '8' }, tree: { type: 'string', multiple: true } } });
const n = Number(args.n);
const rounds = Number(args.rounds);
const trees = args.tree ?? [resolve(import.meta.dirname, '..')];

interface Side {
  label: string;
  storeGet: () => Promise<unknown>;
  cacheGet: () => Promise<unknown>;
  close: () => Promise<void>;
}

async function open(tree: string, dir: string): Promise<Side> {
  const { createCache } = (await import(pathToFileURL(join(tree, 'src/index.ts')).href)) as typeof import('../src/index.ts');
  const { sqliteStore } = (await import(pathToFileURL(join(tree, 'adapters/sqlite/index.ts')).href)) as typeof import('../adapters/sqlite/index.ts');
  const store = sqliteStore({ path: join(dir, `${trees.indexOf(tree)}.db`) });
  const cache = createCache({ store, closeStore: false });
  const value = { id: 1, name: 'a value of about 150 bytes once serialized', tags: ['x', 'y', 'z'], n: 12345, flag: true, nested: { a: 1, b: 'two' } };
  if (!(await cache.set('k', value))) throw new Error('set failed');
  const full = 'cachette:k';
  if ((await store.get(full)) === undefined) throw new Error(`no entry under ${full}`);
  return {
    label: tree,
    storeGet: () => store.get(full),
    cacheGet: () => cache.get('k'),
    close: async () => {
      await cache.close();
      await store.close();
    },
  };
}

async function cpuPerCall(call: () => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) await call();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

const dir = mkdtempSync(join(tmpdir(), 'sqlite-get-cost-'));
try {
  const sides = await Promise.all(trees.map((tree) => open(tree, dir)));
  for (const side of sides) {
    for (let i = 0; i < 20_000; i++) {
      await side.cacheGet();
      await side.storeGet();
    }
  }
  const rows: Array<{ tree: string; store: number; cache: number }> = [];
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      const store = await cpuPerCall(side.storeGet);
      const cache = await cpuPerCall(side.cacheGet);
      rows.push({ tree: side.label, store, cache });
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const side of sides) {
    const mine = rows.filter((row) => row.tree === side.label);
    console.log(
      `${side.label}: store get ${median(mine.map((r) => r.store)).toFixed(2)} µs, cache.get ${median(mine.map((r) => r.cache)).toFixed(2)} µs, over store ${median(mine.map((r) => r.cache - r.store)).toFixed(2)} µs (median of ${mine.length} rounds; per round over: ${mine.map((r) => (r.cache - r.store).toFixed(2)).join(' ')})`,
    );
  }
  for (const side of sides) await side.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * The classic mix on the sqlite store under whichever runtime runs this file (Node, Bun or
 * Deno, each on its own binding), printed as one JSON line. Argument: JSON { dir, ops, warmup }.
 */
import { join } from 'node:path';
import { sqliteStore } from '../../adapters/sqlite/index.ts';
import { storeKv } from './store-kv.ts';
import { classicMix } from './workloads.ts';

const job = JSON.parse(process.argv[process.argv.length - 1]!) as { dir: string; ops: number; warmup: number };
const store = sqliteStore({ path: join(job.dir, 'cache.db'), timeoutMs: 10_000 });
const result = await classicMix(storeKv(store), 'bytes', {
  ops: job.ops,
  warmup: job.warmup,
  seed: 1,
  check: true,
});
await store.close();
console.log(JSON.stringify({ binding: store.binding, result }));

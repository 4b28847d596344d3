/**
 * One of several processes sharing a SQLite store file (test/adapters/sqlite-processes.test.ts).
 * Runs unchanged under Node (tsx), Bun and Deno, each on its own binding. Argument: JSON
 * { path, id, goFile, increments, churn, leases }. Prints "ready", waits for `goFile` so that
 * every process starts at once, works, then prints one JSON line of what it saw.
 */
import { existsSync } from 'node:fs';
import { sqliteStore } from '../../adapters/sqlite/index.ts';
import { checkValue, makeValue } from './sqlite-values.ts';

interface Job {
  path: string;
  id: string;
  goFile: string;
  increments: number;
  churn: number;
  leases: number;
}

const job = JSON.parse(process.argv[process.argv.length - 1]!) as Job;
// 200 KiB values go to files beside the database: torn reads are checked on both paths.
const store = sqliteStore({ path: job.path, timeoutMs: 10_000, fileThreshold: 64 * 1024 });
// Opening is lazy about errors: a first call proves the file is usable before "ready".
await store.get('warm-up');
console.log('ready');
while (!existsSync(job.goFile)) await new Promise((r) => setTimeout(r, 5));

const report = { id: job.id, binding: store.binding, reads: 0, hits: 0, torn: 0, writes: 0, leasesWon: [] as number[] };
let seed = [...job.id].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
const random = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;

for (let i = 0; i < Math.max(job.increments, job.churn, job.leases); i++) {
  if (i < job.increments) {
    await store.incr('shared-counter', 1);
    await store.incr(`own:${job.id}`, 1);
  }
  if (i < job.churn) {
    // Sizes from one page to many overflow pages, so a torn write would show.
    const key = `churn:${Math.floor(random() * 16)}`;
    if (random() < 0.5) {
      const size = [100, 8 * 1024, 200 * 1024][Math.floor(random() * 3)]!;
      await store.set(key, makeValue(size, Math.floor(random() * 2 ** 31)));
      report.writes++;
    } else {
      const value = await store.get(key);
      report.reads++;
      if (value) {
        report.hits++;
        if (!checkValue(value)) report.torn++;
      }
    }
  }
  if (i < job.leases && (await store.add(`lease:${i}`, new TextEncoder().encode(job.id), 60_000))) report.leasesWon.push(i);
}
await store.close();
console.log(JSON.stringify(report));

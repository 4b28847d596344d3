/**
 * One "process" of the cross-process tests (test/cache/processes.test.ts), run with tsx. It
 * reads its task from argv as JSON, says "ready" on stdout, waits for "go" on stdin, then:
 *
 * - `coalesce`: 50 concurrent getOrSet on one cold key; each factory run is counted on the
 *   server (INCR), so the parent can sum runs over every process;
 * - `hold-fill`: starts a fill whose factory never settles (it holds the fill lease), says
 *   "holding", and waits to be killed;
 * - `hold-write`: begins a fenced write and never commits, says "holding", waits to be killed.
 */
import { createInterface } from 'node:readline';
import { valkeyStore } from '../../../adapters/valkey/index.ts';
import { createCache } from '../../../src/index.ts';

interface Task {
  mode: 'coalesce' | 'hold-fill' | 'hold-write';
  redisUrl: string;
  namespace: string;
  /** Lease expiries in ms (lockTimeout for fills, writeLeaseTtl for writes). */
  leaseMs: number;
}

const task = JSON.parse(process.argv[2]!) as Task;
const cache = createCache({ store: valkeyStore(task.redisUrl), namespace: task.namespace, lockTimeout: task.leaseMs, writeLeaseTtl: task.leaseMs });
const lines = createInterface({ input: process.stdin });
const go = new Promise<void>((resolve) => lines.once('line', () => resolve()));
process.stdout.write('ready\n');
await go;

if (task.mode === 'coalesce') {
  const factory = async () => {
    await cache.incr('factory-runs');
    await new Promise((resolve) => setTimeout(resolve, 100));
    return 'filled once';
  };
  const values = await Promise.all(Array.from({ length: 50 }, () => cache.getOrSet('cold', factory, { tags: ['cold'] })));
  process.stdout.write(`${JSON.stringify({ values: [...new Set(values)], stats: cache.stats() })}\n`);
  await cache.close();
  lines.close();
} else if (task.mode === 'hold-fill') {
  void cache.getOrSet('abandoned', () => new Promise<string>(() => {}));
  // The lease is taken once the read missed; give it the turns it needs, then announce it.
  while ((await cache.stats()).misses === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  await new Promise((resolve) => setTimeout(resolve, 50));
  process.stdout.write('holding\n');
} else {
  await cache.beginWrite(['crashed-writer']);
  process.stdout.write('holding\n');
}

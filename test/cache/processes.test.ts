import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childLines } from '../support/child-lines.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache, type Cache } from '../../src/index.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { uniqueNamespace } from './targets.ts';

/** A worker process (processes/worker.ts) and its stdout lines as they come. */
interface Worker {
  child: ChildProcess;
  next(): Promise<string>;
  go(): void;
}

function startWorker(task: Record<string, unknown>): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/cache/processes/worker.ts', JSON.stringify({ redisUrl, ...task })], { stdio: ['pipe', 'pipe', 'inherit'] });
  const next = childLines(child);
  return {
    child,
    next,
    go: () => child.stdin!.write('go\n'),
  };
}

function killed(worker: Worker): Promise<void> {
  const exited = new Promise<void>((resolve) => worker.child.once('exit', () => resolve()));
  worker.child.kill('SIGKILL');
  return exited;
}

describe.runIf(requireRedis())('across processes, against a real server', () => {
  let namespace: string;
  let cache: Cache;
  beforeAll(() => {
    namespace = uniqueNamespace('procs');
    cache = createCache({ store: valkeyStore(redisUrl!), namespace, lockTimeout: 5000 });
  });
  afterAll(async () => {
    await cache.clear();
    await cache.close();
  });

  it('4 processes × 50 concurrent misses on one cold key run the factory once in total', { timeout: 60_000 }, async () => {
    const workers = Array.from({ length: 4 }, () => startWorker({ mode: 'coalesce', namespace, leaseMs: 5000 }));
    for (const w of workers) expect(await w.next()).toBe('ready');
    for (const w of workers) w.go();
    const results = await Promise.all(workers.map(async (w) => JSON.parse(await w.next()) as { values: string[]; stats: { fills: number; coalesced: number } }));
    expect(results.map((r) => r.values)).toEqual(Array(4).fill(['filled once']));
    expect(await cache.incr('factory-runs', 0)).toBe(1);
    expect(results.reduce((sum, r) => sum + r.stats.fills, 0)).toBe(1);
  });

  it('a process killed while holding a fill lease blocks the key no longer than the lease', { timeout: 60_000 }, async () => {
    const holder = startWorker({ mode: 'hold-fill', namespace, leaseMs: 300 });
    expect(await holder.next()).toBe('ready');
    holder.go();
    expect(await holder.next()).toBe('holding');
    await killed(holder);
    let runs = 0;
    expect(await cache.getOrSet('abandoned', () => `filled here ${++runs}`)).toBe('filled here 1');
    expect(cache.stats().leaseWaits).toBeGreaterThanOrEqual(1);
    await cache.idle();
    expect(await cache.get('abandoned')).toBe('filled here 1');
  });

  it('a process killed while holding a write lease: reads never fail, and fills store again once the lease lapses', { timeout: 60_000 }, async () => {
    const writer = startWorker({ mode: 'hold-write', namespace, leaseMs: 400 });
    expect(await writer.next()).toBe('ready');
    writer.go();
    expect(await writer.next()).toBe('holding');
    await killed(writer);
    // While the dead writer's lease lasts, reads are served from the source and nothing is stored.
    expect(await cache.getOrSet('w', () => 'from the source', { tags: ['crashed-writer'] })).toBe('from the source');
    await cache.idle();
    expect(cache.stats().fenced).toBeGreaterThanOrEqual(1);
    expect(await cache.get('w')).toBeUndefined();
    // Once it lapses (at most writeLeaseTtl), fills store for everyone again.
    let stored = false;
    for (let i = 0; i < 100 && !stored; i++) {
      await cache.getOrSet('w', () => 'after the lease', { tags: ['crashed-writer'] });
      await cache.idle();
      stored = (await cache.get('w')) === 'after the lease';
      if (!stored) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(stored).toBe(true);
  });
});

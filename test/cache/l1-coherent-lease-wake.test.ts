/**
 * The coherent L1 and fill leases across processes (issue 28): a getOrSet that finds another
 * process's fill lease held waits for that process's write on the coherence bus, and looks at
 * the store again only when told (the write's invalidation, or the lease given up), instead of
 * polling it with a backoff. The filler is a real process on a redis-server of this suite's own
 * (other suites' clears on a shared server would wake the waiter too: harmless, but counted);
 * what is asserted is how many calls the waiter sent to the store while it waited, and what it got.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache, type Cache } from '../../src/index.ts';
import { childLines } from '../support/child-lines.ts';
import { eventually, untilFromMemory } from '../support/eventually.ts';
import { requireRedis } from '../support/redis-env.ts';
import { startRedis, type RedisServer } from '../support/redis-server.ts';
import { sleep } from '../support/suite-api.ts';
import { CountingStore } from '../support/wrapped-stores.ts';
import { uniqueNamespace } from './targets.ts';

/** How long the filler keeps its lease once the waiter waits: a backoff polling the store would look a dozen times in it. */
const HOLD_MS = 400;

describe.runIf(requireRedis())('coherent L1: a fill lease held by another process', () => {
  let filler: { child: ChildProcess; next(): Promise<string>; send(line: string): void };
  let waiter: Cache;
  let counted: CountingStore;
  let namespace: string;
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedis();
    const redisUrl = server.url;
    namespace = uniqueNamespace('l1c-wake');
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/cache/processes/coherent-filler.ts', redisUrl, namespace], { stdio: ['pipe', 'pipe', 'inherit'] });
    filler = { child, next: childLines(child), send: (line) => child.stdin!.write(`${line}\n`) };
    expect(await filler.next()).toBe('ready');
    counted = new CountingStore(valkeyStore(redisUrl));
    // A lease that outlives the test: a waiter that was not woken would wait for all of it.
    waiter = createCache({ store: counted, namespace, lockTimeout: '1m', l1: { consistency: 'coherent' } });
  });
  afterAll(async () => {
    filler.send('quit');
    await new Promise((resolve) => filler.child.once('exit', resolve));
    await waiter.close();
    await server.stop();
  });

  /** Makes the waiter's bus live and subscribed to the channel of `key`'s entry (a copy of it served from memory), then removes the entry. */
  async function watching(key: string): Promise<void> {
    await waiter.set(key, 'warm');
    await untilFromMemory(waiter, key);
    await waiter.delete(key);
  }

  /** Starts the filler's fill of `key`, then the waiter's getOrSet of it, and resolves once the waiter waits for the lease. */
  async function waitingFor(key: string): Promise<{ value: Promise<string>; ran: () => boolean }> {
    filler.send(`fill ${key}`);
    expect(await filler.next()).toBe('filling');
    const waits = waiter.stats().leaseWaits;
    let ran = false;
    const value = waiter.getOrSet(key, () => {
      ran = true;
      return 'the waiter’s own';
    });
    await eventually(() => waiter.stats().leaseWaits > waits, 'the waiter waits for the lease');
    return { value, ran: () => ran };
  }

  it('wakes on the filler’s write and reads the store once more, however long the fill takes', async () => {
    await watching('slow');
    const { value, ran } = await waitingFor('slow');
    const before = counted.calls.length;
    await sleep(HOLD_MS);
    // The look issued after the watch opened, at most: no polling while the filler works.
    expect(counted.calls.length - before).toBeLessThanOrEqual(1);
    const during = counted.calls.length;
    filler.send('give filled');
    expect(await value).toBe('filled');
    expect(await filler.next()).toBe('filled');
    expect(ran()).toBe(false);
    // Woken by the invalidation: one read finds the entry.
    expect(counted.calls.length - during).toBeLessThanOrEqual(1);
    expect(waiter.stats().coalesced).toBeGreaterThanOrEqual(1);
  });

  it('wakes when the filler gives its lease up (its source failed) and fills for itself, not after the lease expired', async () => {
    await watching('failing');
    const { value, ran } = await waitingFor('failing');
    const before = counted.calls.length;
    await sleep(HOLD_MS);
    expect(counted.calls.length - before).toBeLessThanOrEqual(1);
    filler.send('fail');
    expect(await filler.next()).toBe('filled');
    // Both lease and wait last a minute: only the bus's word ends the wait before the test's own timeout.
    expect(await value).toBe('the waiter’s own');
    expect(ran()).toBe(true);
  });
});

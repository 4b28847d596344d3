import Valkey from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { upstashStore } from '../../adapters/upstash/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache, MissingCapabilityError, type Cache } from '../../src/index.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { CountingStore } from '../support/wrapped-stores.ts';
import { engineTargets, uniqueNamespace } from './targets.ts';

/** Runs `check` until it holds, a bounded number of times: for what travels on another connection. */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`never happened: ${what}`);
}

describe('l1 option checks', () => {
  it('refuses bad l1 options, and tracking on stores that cannot deliver invalidations', () => {
    const store = memoryStore();
    expect(() => createCache({ store, l1: { maxEntries: 0 } })).toThrow(RangeError);
    expect(() => createCache({ store, l1: { maxBytes: 1.5 } })).toThrow(RangeError);
    expect(() => createCache({ store, l1: { consistency: 'eventual' as 'strict' } })).toThrow(/"strict", "tracking", "coherent" or "bounded"/);
    expect(() => createCache({ store, l1: { size: 1 } as object })).toThrow(TypeError);
    expect(() => createCache({ store, l1: { consistency: 'tracking' } })).toThrow(MissingCapabilityError);
    const upstash = upstashStore({ url: 'http://127.0.0.1:1', token: 't' });
    expect(() => createCache({ store: upstash, l1: { consistency: 'tracking' } })).toThrow(/"upstash" store has no "tracking" capability/);
    expect(() => createCache({ store, lockTimeout: Infinity })).toThrow(/lockTimeout/);
  });
});

describe.each(engineTargets)('L1 strict on $name', ({ open }) => {
  let counting: CountingStore;
  let cache: Cache;
  let writer: Cache;
  beforeAll(() => {
    const store = open();
    const namespace = uniqueNamespace('l1s');
    counting = new CountingStore(store);
    cache = createCache({ store: counting, namespace, l1: { maxEntries: 100 }, closeStore: false });
    writer = createCache({ store, namespace, closeStore: false }); // another process
  });
  afterAll(async () => {
    await cache.clear();
    await cache.close();
    await writer.close();
    await counting.close();
  });

  it('serves a copy after one round trip that transfers no value, and never a replaced one', async () => {
    await writer.set('k', { big: 'x'.repeat(2000) });
    expect(await cache.get('k')).toEqual({ big: 'x'.repeat(2000) });
    const before = cache.stats().bytesRead;
    counting.reset();
    expect(await cache.get('k')).toEqual({ big: 'x'.repeat(2000) });
    expect(counting.calls.map((c) => c.method)).toEqual(['readWithGenerations']);
    expect(cache.stats().bytesRead).toBe(before); // confirmed, not transferred
    await writer.set('k', 'replaced');
    expect(await cache.get('k')).toBe('replaced');
    await writer.delete('k');
    expect(await cache.get('k')).toBeUndefined();
  });

  it('checks the tags a copy records on every read', async () => {
    let runs = 0;
    expect(await cache.getOrSet('t', () => ++runs, { tags: ['l1-tag'] })).toBe(1);
    expect(await cache.getOrSet('t', () => ++runs, { tags: ['l1-tag'] })).toBe(1);
    await writer.invalidateTags(['l1-tag']);
    expect(await cache.get('t')).toBeUndefined();
    expect(await cache.getOrSet('t', () => ++runs, { tags: ['l1-tag'] })).toBe(2);
  });
});

describe.runIf(requireRedis())('L1 tracking on valkey', () => {
  const name = `l1t-${process.pid}-${Date.now().toString(36)}`;
  let counting: CountingStore;
  let cache: Cache;
  let writer: Cache;
  let admin: Valkey;
  beforeAll(() => {
    const namespace = uniqueNamespace('l1t');
    counting = new CountingStore(valkeyStore({ connection: redisUrl!, clientOptions: { connectionName: name } }));
    cache = createCache({ store: counting, namespace, l1: { consistency: 'tracking' } });
    writer = createCache({ store: valkeyStore(redisUrl!), namespace });
    admin = new Valkey(redisUrl!);
  });
  afterAll(async () => {
    await cache.clear();
    await cache.close();
    await writer.close();
    admin.disconnect();
  });

  /** The connections this cache's store holds on the server. */
  async function ours(): Promise<Array<{ id: string; flags: string }>> {
    const list = String(await admin.call('CLIENT', 'LIST'))
      .trim()
      .split('\n');
    return list
      .map((line) => Object.fromEntries(line.split(' ').map((kv) => kv.split('=') as [string, string])))
      .filter((c) => c.name === name)
      .map((c) => ({ id: c.id!, flags: c.flags! }));
  }

  /** True once a read of `key` is served from memory (no store call). */
  async function servedFromMemory(key: string): Promise<boolean> {
    await cache.get(key);
    counting.reset();
    await cache.get(key);
    return counting.calls.length === 0;
  }

  it('serves hits from memory with no round trip, and evicts on the server’s invalidation', async () => {
    await writer.set('hot', 'v1');
    await eventually(() => servedFromMemory('hot'), 'tracking live and the copy kept');
    expect(await cache.get('hot')).toBe('v1');
    await writer.set('hot', 'v2');
    await eventually(async () => (await cache.get('hot')) === 'v2', 'the invalidation evicted the copy');
  });

  it('evicts copies recording a tag when another process invalidates it', async () => {
    await cache.getOrSet('tagged', () => 'first', { tags: ['tt'] });
    await eventually(() => servedFromMemory('tagged'), 'the tagged copy kept');
    await writer.invalidateTags(['tt']);
    await eventually(async () => (await cache.get('tagged')) === undefined, 'the counter’s invalidation evicted the copy');
  });

  it('holds at most two server connections', async () => {
    await eventually(() => servedFromMemory('hot'), 'tracking live');
    expect((await ours()).length).toBeLessThanOrEqual(2);
    expect((await ours()).length).toBe(2);
  });

  it('flushes and bypasses L1 while the invalidation connection is down, and never serves across the gap', async () => {
    await writer.set('gap', 'before');
    await eventually(() => servedFromMemory('gap'), 'the copy kept');
    const subscriber = (await ours()).find((c) => c.flags.includes('P'));
    expect(subscriber).toBeDefined();
    await admin.call('CLIENT', 'KILL', 'ID', subscriber!.id);
    // Until tracking is back, every read goes to the store; a write meanwhile is seen at once.
    await eventually(async () => {
      counting.reset();
      await cache.get('gap');
      return counting.calls.length > 0;
    }, 'L1 bypassed');
    await writer.set('gap', 'during');
    expect(await cache.get('gap')).toBe('during');
    await eventually(() => servedFromMemory('gap'), 'tracking back');
    expect(await cache.get('gap')).toBe('during');
    await writer.set('gap', 'after');
    await eventually(async () => (await cache.get('gap')) === 'after', 'invalidations delivered again');
  });
});

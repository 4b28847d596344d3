/**
 * The bounded L1 (`l1: { consistency: 'bounded', maxStaleness }`), the alternative for stores
 * without a coherence bus: on the upstash store over real HTTP (the local bridge to a real
 * redis-server), two caches with their own connections as two processes would have, and a
 * clock the test moves (no waiting, no timed assertion).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { upstashStore } from '../../adapters/upstash/index.ts';
import { startBridge, type Bridge } from '../../products/bridge/index.ts';
import { createCache, MissingCapabilityError, type Cache } from '../../src/index.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { uniqueNamespace } from './targets.ts';

describe('bounded l1 option checks', () => {
  it('takes maxStaleness with consistency "bounded" only, a finite duration above 0', () => {
    expect(() => createCache({ store: memoryStore(), l1: { consistency: 'bounded', maxStaleness: '250ms' } })).not.toThrow();
    expect(() => createCache({ store: memoryStore(), l1: { maxStaleness: '1s' } })).toThrow(/maxStaleness applies to consistency: "bounded" only/);
    expect(() => createCache({ store: memoryStore(), l1: { consistency: 'coherent', maxStaleness: '1s' } })).toThrow(MissingCapabilityError);
    expect(() => createCache({ store: memoryStore(), l1: { consistency: 'bounded', maxStaleness: 0 } })).toThrow(/finite duration greater than 0/);
    expect(() => createCache({ store: memoryStore(), l1: { consistency: 'bounded', maxStaleness: Infinity } })).toThrow(/finite duration greater than 0/);
    expect(() => createCache({ store: memoryStore(), l1: { consistency: 'bounded', maxStaleness: 'soon' as '1s' } })).toThrow(/l1.maxStaleness must be/);
    expect(() => createCache({ store: memoryStore(), l1: { consistency: 'eventual' as 'bounded' } })).toThrow(/"strict", "tracking", "coherent" or "bounded"/);
  });
});

describe.runIf(requireRedis())('bounded L1 on upstash (REST: no bus), two processes', () => {
  let bridge: Bridge;
  let now = 1_000_000;
  const clock = { now: () => now };
  let reader: Cache;
  let writer: Cache;
  beforeAll(async () => {
    bridge = await startBridge({ redisUrl: redisUrl! });
    const namespace = uniqueNamespace('l1b');
    const open = () => upstashStore({ url: bridge.url, token: bridge.token });
    reader = createCache({ store: open(), namespace, clock, l1: { consistency: 'bounded', maxStaleness: '1s' } });
    writer = createCache({ store: open(), namespace, clock, l1: { consistency: 'bounded', maxStaleness: '1s' } });
  });
  afterAll(async () => {
    await writer.clear();
    await reader.close();
    await writer.close();
    await bridge.close();
  });

  it('refuses coherent with an error that names the stores with a bus and the bounded mode', () => {
    expect(() => createCache({ store: upstashStore({ url: bridge.url, token: bridge.token }), l1: { consistency: 'coherent' } })).toThrow(
      /"upstash" store has no "coherence" capability.*bun-redis store, the sqlite store and the postgres store.*"bounded" with a maxStaleness/,
    );
  });

  it('serves a confirmed copy from memory within maxStaleness, and the other process’s write once it ran out', async () => {
    await writer.set('k', 'v1');
    expect(await reader.get('k')).toBe('v1');
    const read = reader.stats().bytesRead;
    expect(await reader.get('k')).toBe('v1');
    expect(reader.stats().bytesRead).toBe(read);
    await writer.set('k', 'v2');
    now += 999;
    // Within the bound, and documented so: the copy confirmed 999 ms ago is still served.
    expect(await reader.get('k')).toBe('v1');
    now += 1;
    expect(await reader.get('k')).toBe('v2');
    // Confirmed again: from memory for another maxStaleness.
    const again = reader.stats().bytesRead;
    expect(await reader.get('k')).toBe('v2');
    expect(reader.stats().bytesRead).toBe(again);
  });

  it('an unchanged copy is confirmed without its value (strict’s small round trip) and served from memory again', async () => {
    await writer.set('same', 'x'.repeat(4000));
    expect(await reader.get('same')).toHaveLength(4000);
    now += 1000;
    const before = reader.stats().bytesRead;
    expect(await reader.get('same')).toHaveLength(4000);
    expect(reader.stats().bytesRead - before).toBeLessThan(4000);
    const after = reader.stats().bytesRead;
    expect(await reader.get('same')).toHaveLength(4000);
    expect(reader.stats().bytesRead).toBe(after);
  });

  it('its own writes, tag invalidations and clears drop its copies at once', async () => {
    await reader.set('own', 'a');
    expect(await reader.get('own')).toBe('a');
    await reader.set('own', 'b');
    expect(await reader.get('own')).toBe('b');
    let version = 0;
    const load = () => reader.getOrSet('row', () => version, { tags: ['rows'] });
    expect(await load()).toBe(0);
    version = 1;
    await reader.invalidateTags(['rows']);
    expect(await load()).toBe(1);
    await reader.clear();
    expect(await reader.get('own')).toBeUndefined();
  });

  it('a clock that went back counts as expired: the copy is confirmed again', async () => {
    await writer.set('back', 'old');
    expect(await reader.get('back')).toBe('old');
    await writer.set('back', 'new');
    now -= 5000;
    expect(await reader.get('back')).toBe('new');
  });
});

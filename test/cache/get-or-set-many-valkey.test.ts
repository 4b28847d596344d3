import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache, type Cache } from '../../src/index.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { CountingStore } from '../support/wrapped-stores.ts';
import { uniqueNamespace } from './targets.ts';

describe.skipIf(!requireRedis())('getOrSetMany on real Valkey', () => {
  let store: CountingStore;
  let cache: Cache;
  beforeAll(() => {
    store = new CountingStore(valkeyStore(redisUrl!));
    cache = createCache({ store, namespace: uniqueNamespace('gosm'), logger: false });
  });
  afterAll(async () => {
    await cache.clear();
    await cache.close();
  });

  it('one round trip for the reads, one for the writes, and the factory called once with the misses', async () => {
    await cache.set('a', 'stored');
    await cache.idle();
    store.reset();
    const asked: string[][] = [];
    const keys = Array.from({ length: 20 }, (_, i) => (i === 0 ? 'a' : `k${i}`));
    const values = await cache.getOrSetMany(keys, async (missing) => {
      asked.push([...missing]);
      return missing.map((key) => `value ${key}`);
    });
    expect(values[0]).toBe('stored');
    expect(values.slice(1)).toEqual(keys.slice(1).map((key) => `value ${key}`));
    expect(asked).toEqual([keys.slice(1)]);
    await cache.idle();
    // Fill leases are not taken by a batch: what reached the server is the read and the write.
    expect(store.calls).toHaveLength(2);
    store.reset();
    expect(await cache.getOrSetMany(keys, () => [])).toEqual(['stored', ...keys.slice(1).map((key) => `value ${key}`)]);
    expect(store.calls).toHaveLength(1);
  });
});

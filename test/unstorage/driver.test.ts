/**
 * Issue 30, item 2: cachette/unstorage against unstorage's documented driver behaviour
 * (driver-suite.ts), over memory and a real redis-server, through a store and through a cache;
 * plus what only this driver does: items tagged from their key and invalidated by
 * `cache.invalidateTags`, a `base`, and bad options.
 */
import { createStorage } from 'unstorage';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache, type Cache, type Store } from '../../src/index.ts';
import cachetteDriver, { cachetteDriver as named } from '../../src/unstorage/index.ts';
import { uniqueNamespace } from '../cache/targets.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { describeDriver } from './driver-suite.ts';

const stores: Array<{ name: string; open(): Store }> = [{ name: 'memory', open: () => memoryStore() }];
if (requireRedis()) stores.push({ name: 'valkey', open: () => valkeyStore(redisUrl!) });

for (const { name, open } of stores) {
  // Through a store: each driver builds its cache over one store, under a base of its own (the valkey server is shared).
  const store = open();
  afterAll(async () => {
    await store.close();
    await cache?.close();
  });
  describeDriver({ name: `${name}, through a store`, driver: () => cachetteDriver({ store, base: uniqueNamespace('unstorage') }) });

  // Through a cache, with tags from the key.
  let cache: Cache | undefined;
  const shared = () => (cache ??= createCache({ store: open(), prefix: uniqueNamespace('unstorage-cache') }));
  describeDriver({
    name: `${name}, through a cache`,
    driver: () => named({ store: shared(), base: uniqueNamespace('unstorage'), tags: (key) => (key.startsWith('users:') ? ['users'] : []) }),
    additionalTests: ({ storage }) => {
      it('an item tagged from its key is a miss once its tag is invalidated, others stay', async () => {
        await storage().setItem('users:1', { name: 'Ada' });
        await storage().setItem('posts:1', 'kept');
        expect(await storage().getItem('users:1')).toEqual({ name: 'Ada' });
        expect(await shared().invalidateTags(['users'])).toBe(true);
        expect(await storage().getItem('users:1')).toBeNull();
        expect(await storage().hasItem('users:1')).toBe(false);
        expect(await storage().getItem('posts:1')).toBe('kept');
      });

      it('stores under the cache’s own key space (`base:key`), where the rest of the app sees it', async () => {
        const own = createStorage({ driver: named({ store: shared(), base: 'app' }) });
        await own.setItem('shared:k', 'v');
        expect(await shared().get('app:shared:k')).toBe('v');
        await own.removeItem('shared:k');
      });
    },
  });
}

describe('cachetteDriver options', () => {
  it('keeps its items under `base`: getKeys and clear stay inside it', async () => {
    const store = memoryStore();
    const a = createStorage({ driver: cachetteDriver({ store, base: 'a' }) });
    const b = createStorage({ driver: cachetteDriver({ store, base: 'b' }) });
    await a.setItem('k', 'in a');
    await b.setItem('k', 'in b');
    expect(await a.getKeys()).toEqual(['k']);
    await a.clear();
    expect(await a.getItem('k')).toBeNull();
    expect(await b.getItem('k')).toBe('in b');
  });

  it('refuses bad options at once, naming them', () => {
    const store = memoryStore();
    expect(() => cachetteDriver({ store, ttl: -1 })).toThrow(/"ttl" is in seconds and must be a positive number/);
    expect(() => cachetteDriver({ store, tags: ['users'] as never })).toThrow(/"tags" must be a function of the key/);
    expect(() => cachetteDriver({ store, baes: 'x' } as never)).toThrow(/baes/);
    expect(() => cachetteDriver({ store: {} as never })).toThrow(/cachetteDriver\(\): needs a cachette store/);
  });

  it('a write with a bad ttl is refused, and nothing is stored', async () => {
    const storage = createStorage({ driver: cachetteDriver({ store: memoryStore() }) });
    await expect(storage.setItem('k', 'v', { ttl: 'soon' })).rejects.toThrow(/a "ttl" is in seconds/);
    expect(await storage.hasItem('k')).toBe(false);
  });
});

/**
 * Issue 30, item 1: what cachette/keyv adds to Keyv's own suite (keyv-test-suite.test.ts):
 * cache-manager 7 over it (`createCache({ stores: [keyv] })`), entries landing in cachette's key
 * space, store failures reaching `keyv.on('error')`, who closes what, and bad input.
 */
import { createCache as createCacheManager } from 'cache-manager';
import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { StoreLayer } from '../../src/cache/path/layer.ts';
import { createCache, MissingCapabilityError, StoreError } from '../../src/index.ts';
import { keyvStore } from '../../src/keyv/index.ts';

describe('cachette/keyv', () => {
  it('is a cache-manager 7 store: get, set with a TTL, mget, del, through the cachette cache', async () => {
    const cache = createCache({ store: memoryStore(), prefix: 'app' });
    const manager = createCacheManager({ stores: [new Keyv({ store: keyvStore(cache), namespace: 'users' })] });
    await manager.set('1', { name: 'Ada' }, 60_000);
    expect(await manager.get('1')).toEqual({ name: 'Ada' });
    expect(await manager.mget(['1', '2'])).toEqual([{ name: 'Ada' }, undefined]);
    // Keyv's namespace is the first segment of the key, under the cache's prefix.
    expect(await cache.inspect('users:1')).toMatchObject({ state: 'fresh' });
    expect((await cache.inspect('users:1')).ttl).toBeGreaterThan(50_000);
    expect(await manager.del('1')).toBe(true);
    expect(await manager.get('1')).toBeUndefined();
    await cache.close();
  });

  it('reports the store’s failures to keyv.on("error"), and serves a miss', async () => {
    const failing = new (class extends StoreLayer {
      override async get(): Promise<Uint8Array | undefined> {
        throw new StoreError('memory: the disk is on fire');
      }
    })(memoryStore());
    const keyv = new Keyv({ store: keyvStore(failing) });
    const seen: unknown[] = [];
    keyv.on('error', (error: unknown) => seen.push(error));
    await keyv.set('k', 'v');
    expect(await keyv.get('k')).toBeUndefined();
    expect(seen).toHaveLength(1);
    expect(String(seen[0])).toMatch(/the disk is on fire/);
    await keyv.disconnect();
  });

  it('closes the cache it built over a store on disconnect(), never a cache it was given', async () => {
    const cache = createCache({ store: memoryStore() });
    await new Keyv({ store: keyvStore(cache) }).disconnect();
    expect(await cache.set('still', 'open')).toBe(true);
    await cache.close();

    let closed = 0;
    const store = new (class extends StoreLayer {
      override async close(): Promise<void> {
        closed++;
      }
    })(memoryStore());
    await new Keyv({ store: keyvStore(store) }).disconnect();
    expect(closed).toBe(1);
  });

  it('clearing a namespace on a store that cannot list keys is a MissingCapabilityError, and nothing is removed', async () => {
    const store = memoryStore();
    const blind = new (class extends StoreLayer {})(store);
    (blind as { keys?: unknown }).keys = undefined;
    const adapter = keyvStore(blind);
    const keyv = new Keyv({ store: adapter, namespace: 'ns', throwOnErrors: true });
    await keyv.set('a', 1);
    await expect(adapter.clear()).rejects.toThrow(MissingCapabilityError);
    expect(await keyv.get('a')).toBe(1);
  });

  it('refuses what is neither a store nor a cache', () => {
    expect(() => keyvStore(null as never)).toThrow(/keyvStore\(\): needs a cachette store or a cache from createCache\(\), got null/);
    expect(() => keyvStore({ get() {} } as never)).toThrow(/keyvStore\(\): needs a cachette store \(get, getMany, set, delete\)/);
  });
});

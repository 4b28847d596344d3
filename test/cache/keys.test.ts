// `cache.keys(prefix)` (issue 30: the Keyv iterator, unstorage's getKeys and a Keyv namespace's
// clear list keys through it): the caller's keys, unescaped, under the cache's prefix and the
// given one, never the engine's own keys (tags, leases), walked one store step at a time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { callerKeyOf, entryKey, fillLeaseKey, tagKeys } from '../../src/cache/key-space.ts';
import { createCache, MissingCapabilityError, StoreError, type Cache } from '../../src/index.ts';
import type { KeyPage, Store } from '../../src/store/types.ts';
import { StoreLayer } from '../../src/cache/path/layer.ts';
import { engineTargets, uniqueNamespace } from './targets.ts';

/** Collects a walk. */
async function all(walk: AsyncIterable<string>): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of walk) keys.push(key);
  return keys.sort();
}

/** Hands the walk out one key per step, and counts the steps. */
class OneKeyPerStep extends StoreLayer {
  steps = 0;
  override async keys(prefix: string, cursor?: string): Promise<KeyPage> {
    this.steps++;
    const keys = [...(await this.next.keys!(prefix)).keys].sort();
    const at = cursor === undefined ? 0 : Number(cursor);
    return at + 1 < keys.length ? { keys: keys.slice(at, at + 1), cursor: String(at + 1) } : { keys: keys.slice(at) };
  }
}

describe('callerKeyOf: the inverse of entryKey', () => {
  const hostile = ['plain', 'user:1', '#', '##', ':#', ':##', 'a:#:#b', '#{tag:t}:gen', '#lease:k', 'ns:#x', '', '{tag:t}:gen'];

  it('gives back every caller key from its store key, under any prefix', () => {
    for (const prefix of ['', 'cachette:', 'cachette:ns:'])
      for (const key of hostile) {
        expect(callerKeyOf(prefix, entryKey(prefix, key)), `${prefix} ${key}`).toBe(key);
      }
  });

  it('is no caller key for the engine’s own keys, of this cache or of one namespaced below it, nor outside the prefix', () => {
    const own = 'cachette:';
    const engineKeys = [tagKeys(own, 't').generation, tagKeys(own, 't').fence, tagKeys(own, 't').soft, fillLeaseKey(own, 'k'), tagKeys(`${own}ns:`, 't').generation, fillLeaseKey(`${own}ns:`, 'k')];
    for (const key of engineKeys) expect(callerKeyOf(own, key), key).toBeUndefined();
    expect(callerKeyOf(own, 'other:k')).toBeUndefined();
    // A namespaced cache's entries are keys of the cache above it, as its clear() removes them too.
    expect(callerKeyOf(own, entryKey(`${own}ns:`, 'k'))).toBe('ns:k');
  });
});

describe.each(engineTargets)('cache.keys on $name', ({ open }) => {
  let store: Store;
  let cache: Cache;
  beforeAll(() => {
    store = open();
    cache = createCache({ store, prefix: uniqueNamespace('keys'), closeStore: false });
  });
  afterAll(async () => {
    await cache.clear();
    await cache.close();
    await store.close();
  });

  it('lists the caller’s keys under a prefix, the engine’s tag and lease keys never', async () => {
    const keys = ['user:1', 'user:2', 'user:#3', '#user', 'post:1'];
    for (const key of keys) await cache.set(key, key, { tags: ['t'] });
    await cache.invalidateTags(['u']);
    await cache.getOrSet('user:filled', () => 'x', { tags: ['t2'] });
    await cache.idle();
    expect(await all(cache.keys('user:'))).toEqual(['user:#3', 'user:1', 'user:2', 'user:filled']);
    expect(await all(cache.keys())).toEqual(['#user', 'post:1', 'user:#3', 'user:1', 'user:2', 'user:filled']);
    expect(await all(cache.keys('none:'))).toEqual([]);
  });

  it('sees a write issued just before the walk (a barrier in the tick’s fold)', async () => {
    void cache.set('late:1', 1);
    expect(await all(cache.keys('late:'))).toEqual(['late:1']);
  });
});

describe('cache.keys over the store path', () => {
  it('walks every step the store hands out, until it gives no cursor', async () => {
    const stepped = new OneKeyPerStep(memoryStore());
    const cache = createCache({ store: stepped });
    await cache.setMany(['a', 'b', 'c'].map((key) => ({ key, value: key })));
    expect(await all(cache.keys())).toEqual(['a', 'b', 'c']);
    expect(stepped.steps).toBe(3);
    await cache.close();
  });

  it('a store that cannot list keys is a MissingCapabilityError naming it', async () => {
    const store = memoryStore();
    const blind = new (class extends StoreLayer {})(store);
    (blind as { keys?: unknown }).keys = undefined;
    const cache = createCache({ store: blind });
    await expect(all(cache.keys())).rejects.toThrow(MissingCapabilityError);
    await expect(all(cache.keys())).rejects.toThrow(/"memory" store has no "keys" capability/);
    await cache.close();
  });

  it('a step that fails ends the walk with the store’s error, not with a partial listing', async () => {
    const failing = new (class extends StoreLayer {
      override async keys(): Promise<KeyPage> {
        throw new StoreError('memory: the walk broke');
      }
    })(memoryStore());
    const cache = createCache({ store: failing, logger: false });
    await cache.set('a', 1);
    await expect(all(cache.keys())).rejects.toThrow(/the walk broke/);
    await cache.close();
  });
});

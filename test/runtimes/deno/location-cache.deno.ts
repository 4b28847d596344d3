// The per-location tier on Deno's Cache API: `deno test -A --no-check test/runtimes/deno/location-cache.deno.ts`.
// Two locations are two named Caches over one memory store, which compares a copy's first bytes
// in the store (as Upstash's script does): a confirmed copy transfers no value.
import assert from 'node:assert/strict';
import { memoryStore } from '../../../adapters/memory/index.ts';
import { denoRunner } from '../../../src/store/testing/index.ts';
import { createCache } from '../../../src/index.ts';

const { describe, it } = denoRunner();

describe('locationCache on Deno', () => {
  it('verified: an invalidation in location a is seen by location b at its next read; bounded serves within maxAge', async () => {
    const store = memoryStore();
    const namespace = `loc-${crypto.randomUUID()}`;
    const clock = { t: 1_000_000, now: () => clock.t };
    const open = async (name: string, mode: 'verified' | 'bounded') =>
      createCache({
        store,
        namespace,
        clock,
        closeStore: false,
        logger: false,
        locationCache: mode === 'bounded' ? { mode, maxAge: 1000, cache: await caches.open(`${name}-${namespace}`) } : { mode, cache: `${name}-${namespace}` },
      });
    const a = await open('a', 'verified');
    const b = await open('b', 'verified');
    const c = await open('c', 'bounded');
    await a.set('page', 'v1', { tags: ['t'] });
    assert.equal(await b.get('page'), 'v1');
    const before = b.stats().bytesRead;
    assert.equal(await b.get('page'), 'v1');
    assert.equal(b.stats().locationConfirmed, 1);
    assert.equal(b.stats().bytesRead, before, 'confirmed in the store: no value read');
    assert.equal(await c.get('page'), 'v1');
    await a.invalidateTags(['t']);
    assert.equal(await b.get('page'), undefined, "b's old copy was not served");
    assert.equal(await c.get('page'), 'v1', 'bounded: inside maxAge');
    assert.equal(c.stats().locationUnconfirmed, 1);
    clock.t += 1000;
    assert.equal(await c.get('page'), undefined, 'bounded: at maxAge, checked and outdated');
    await Promise.all([a.close(), b.close(), c.close()]);
    for (const name of ['a', 'b', 'c']) await caches.delete(`${name}-${namespace}`);
  });
});

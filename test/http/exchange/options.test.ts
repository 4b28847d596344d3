import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { memoryStore } from '../../../adapters/memory/index.ts';
import { withCache } from '../../../src/http/index.ts';

describe('withCache options', () => {
  const handler = async () => new Response('x');
  it('names the bad option', () => {
    assert.throws(() => withCache(handler, {} as never), /withCache\(\) from cachette\/http: pass a "store" \(e\.g\. memoryStore\(\)\) or a "cache"/);
    assert.throws(() => withCache('nope' as never, { store: memoryStore() }), /first argument must be a handler/);
    assert.throws(() => withCache(handler, { store: memoryStore(), ttl: -1 }), RangeError);
    assert.throws(() => withCache(handler, { store: memoryStore(), maxBodyBytes: -5 }), /maxBodyBytes/);
    assert.throws(() => withCache(handler, { store: memoryStore(), heuristic: { fraction: 2 } }), /heuristic.fraction/);
    assert.throws(() => withCache(handler, { store: memoryStore(), name: 'bad name' }), /"name"/);
    assert.throws(() => withCache(handler, { store: memoryStore(), ignoreQuery: 'utm' as never }), /ignoreQuery/);
    assert.throws(() => withCache(handler, { store: memoryStore(), storeSetCookie: true } as never), /replaced by setCookie.*'strip'/);
    assert.throws(() => withCache(handler, { store: memoryStore(), setCookie: 'keep' as never }), /"setCookie" must be 'bypass', 'strip' or 'store'/);
    assert.throws(() => withCache(handler, { store: memoryStore(), targetedFields: ['bad name'] }), /targetedFields/);
    assert.throws(() => withCache(handler, { store: memoryStore(), targetedFields: 'CDN-Cache-Control' as never }), /targetedFields/);
    assert.throws(() => withCache(handler, { store: memoryStore(), maxVariants: 0 }), /maxVariants/);
    assert.throws(() => withCache(handler, { store: memoryStore(), shareWindowBytes: 0 }), /shareWindowBytes/);
    assert.throws(() => withCache(handler, { store: memoryStore(), originTimeout: 0 }), /originTimeout must be greater than 0/);
    assert.throws(() => withCache(handler, { store: memoryStore(), originIdleTimeout: '-1s' as never }), /originIdleTimeout/);
    assert.throws(() => withCache(handler, { store: memoryStore(), hitForMiss: 'soon' as never }), /hitForMiss/);
    assert.throws(() => withCache(handler, { store: memoryStore(), slowClientTimeout: 0 }), /slowClientTimeout must be greater than 0/);
  });

  it('rejects a custom key function that returns no key, and a bad purge target', async () => {
    const cached = withCache(handler, { store: memoryStore(), key: () => '' });
    await assert.rejects(cached(new Request('http://x/')), /"key" function returned ""/);
    await assert.rejects(cached.purge({ url: 'not a url' }), /purge: pass \{ url/);
    await assert.rejects(cached.purge({} as never), /purge: pass/);
  });
});

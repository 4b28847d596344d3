// locationCache where the runtime has no Cache API (Node): refused at createCache, naming what
// to pass instead; a Cache passed explicitly is checked for the methods the tier calls. The
// tier itself runs in workerd (test/workers/location-cache.test.ts).
import assert from 'node:assert/strict';
import { it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { createCache } from '../../src/index.ts';

it('locationCache is refused where globalThis.caches does not exist, and a Cache passed is checked', () => {
  assert.equal(typeof (globalThis as { caches?: unknown }).caches, 'undefined', 'this runner has no Cache API');
  const store = memoryStore();
  assert.throws(
    () => createCache({ store, locationCache: { mode: 'verified' } }),
    /^TypeError: createCache: locationCache needs the Cache API \(globalThis\.caches, as on Cloudflare Workers and Deno\), which this runtime lacks/,
  );
  assert.throws(() => createCache({ store, locationCache: { mode: 'verified', cache: 'pages' } }), /needs the Cache API/);
  assert.throws(() => createCache({ store, locationCache: { mode: 'verified', cache: {} as never } }), /locationCache\.cache must be a Cache \(from caches\.open\) or its name; it lacks match\(\)/);
  assert.throws(() => createCache({ store, locationCache: { mode: 'bounded', maxAge: 0 } }), /locationCache\.maxAge must be a finite duration greater than 0/);
  assert.throws(() => createCache({ store, locationCache: { mode: 'verified', maxBytes: 0 } }), /locationCache\.maxBytes must be a positive integer/);
});

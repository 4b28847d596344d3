// Issue 29, item 4: a soft purge by URL reads each stored response and writes it back stale.
// A response this process stores for the URL while the purge holds the old one must not be
// overwritten by the old one, now stale: here the purge's read is held (the engine passed to the
// HTTP cache is wrapped) while a request with `no-cache` fetches and stores a new response.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { memoryStore } from '../../../adapters/memory/index.ts';
import { valkeyStore } from '../../../adapters/valkey/index.ts';
import { createCache, type Cache } from '../../../src/cache/create-cache.ts';
import { withCache } from '../../../src/http/index.ts';
import type { Store } from '../../../src/store/types.ts';
import { redisUrl, requireRedis } from '../../support/redis-env.ts';

/** An engine whose next `get` after {@link arm} is held until {@link release}; it reports the writes that land meanwhile. */
class Interleaving {
  #armed = false;
  #holding = false;
  #reached!: () => void;
  #release!: () => void;
  #landed!: () => void;
  /** Settles when the armed `get` has read its value and is held. */
  readonly held = new Promise<void>((resolve) => (this.#reached = resolve));
  /** Settles when a `set` lands while the `get` is held. */
  readonly landed = new Promise<void>((resolve) => (this.#landed = resolve));
  readonly #released = new Promise<void>((resolve) => (this.#release = resolve));
  readonly cache: Cache;

  constructor(engine: Cache) {
    this.cache = new Proxy(engine, {
      get: (target, name) => {
        if (name === 'get') return (key: string) => this.#get(target, key);
        if (name === 'set') return (...args: Parameters<Cache['set']>) => this.#set(target, args);
        const value: unknown = Reflect.get(target, name, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }

  arm(): void {
    this.#armed = true;
  }

  release(): void {
    this.#holding = false;
    this.#release();
  }

  async #get(target: Cache, key: string): Promise<unknown> {
    const value = await target.get(key);
    if (this.#armed) {
      this.#armed = false;
      this.#holding = true;
      this.#reached();
      await this.#released;
    }
    return value;
  }

  async #set(target: Cache, args: Parameters<Cache['set']>): Promise<boolean> {
    const stored = await target.set(...args);
    if (this.#holding) this.#landed();
    return stored;
  }
}

/** A few turns of the event loop: long enough for a write started by a finished response to reach the engine. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

function softPurgeSuite(name: string, open: () => Store) {
  describe(`soft purge by URL on ${name}`, () => {
    let store: Store;
    beforeAll(() => {
      store = open();
    });
    afterAll(() => store.close());

    it('leaves a response stored for the URL while the purge reads the old one in place, fresh', async () => {
      const interleaving = new Interleaving(createCache({ store, closeStore: false, namespace: `soft-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}` }));
      let calls = 0;
      const origin = async () => {
        calls++;
        return new Response(`v${calls}`, { headers: { 'cache-control': 'max-age=100', etag: `"${calls}"` } });
      };
      const cached = withCache(origin, { cache: interleaving.cache });
      const url = 'http://example.test/soft';
      assert.equal(await (await cached(new Request(url))).text(), 'v1');
      await cached.idle();

      interleaving.arm();
      const purged = cached.purge({ url, soft: true });
      await interleaving.held;
      // The purge holds v1; a client that will not take a stored response makes the cache fetch and store v2.
      const refetched = await cached(new Request(url, { headers: { 'cache-control': 'no-cache' } }));
      assert.equal(await refetched.text(), 'v2');
      await Promise.race([interleaving.landed, turns(20)]);
      interleaving.release();
      assert.equal(await purged, 1, 'v1 was fresh when the purge read it');
      await cached.idle();

      const after = await cached(new Request(url));
      assert.equal(await after.text(), 'v2', 'v2 was not overwritten by v1, now stale');
      assert.match(after.headers.get('cache-status') ?? '', /^cachette; hit/);
      assert.equal(calls, 2);
      await cached.close();
      await interleaving.cache.close();
    });
  });
}

softPurgeSuite('memory', () => memoryStore());
describe.runIf(requireRedis())('valkey', () => {
  softPurgeSuite('valkey', () => valkeyStore(redisUrl!));
});

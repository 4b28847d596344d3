// Issue 29, item 4: a soft purge by URL goes through the engine's atomic `expire`. Two HTTP
// caches, each on its own engine over one store (one memory store, or two clients of one real
// redis-server), stand for two processes. Process A soft-purges the URL while process B stores
// a newer version of it: A's write is held (its engine is wrapped) until B's response has
// landed. A purge that read the old response and wrote it back stale would put the old version
// back over the new one, and serve it; `expire` stales whatever is stored when it runs.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { memoryStore } from '../../../adapters/memory/index.ts';
import { valkeyStore } from '../../../adapters/valkey/index.ts';
import { createCache, type Cache } from '../../../src/cache/create-cache.ts';
import { withCache } from '../../../src/http/index.ts';
import type { Store } from '../../../src/store/types.ts';
import { redisUrl, requireRedis } from '../../support/redis-env.ts';

/** An engine whose first write (`set` or `expire`) after {@link arm} waits for {@link release}. */
class HeldWrite {
  #armed = false;
  #reached!: () => void;
  #release!: () => void;
  /** Settles when the armed write was called and is held. */
  readonly held = new Promise<void>((resolve) => (this.#reached = resolve));
  readonly #released = new Promise<void>((resolve) => (this.#release = resolve));
  readonly cache: Cache;

  constructor(engine: Cache) {
    this.cache = new Proxy(engine, {
      get: (target, name) => {
        const value: unknown = Reflect.get(target, name, target);
        if (typeof value !== 'function') return value;
        const bound = value.bind(target) as (...args: unknown[]) => Promise<unknown>;
        return name === 'set' || name === 'expire' ? (...args: unknown[]) => this.#write(() => bound(...args)) : bound;
      },
    });
  }

  arm(): void {
    this.#armed = true;
  }

  release(): void {
    this.#release();
  }

  async #write(write: () => Promise<unknown>): Promise<unknown> {
    if (this.#armed) {
      this.#armed = false;
      this.#reached();
      await this.#released;
    }
    return write();
  }
}

/** An origin whose current version a test moves on; it answers a request naming that version's ETag with a 304. */
class VersionedOrigin {
  version = 1;
  /** The If-None-Match of every request, in order. */
  readonly conditions: Array<string | null> = [];
  readonly fetch = async (request: Request): Promise<Response> => {
    const condition = request.headers.get('if-none-match');
    this.conditions.push(condition);
    const headers = { etag: `"${this.version}"`, 'cache-control': 'max-age=100, stale-while-revalidate=60' };
    return condition === headers.etag ? new Response(null, { status: 304, headers }) : new Response(`v${this.version}`, { headers });
  };
}

function softPurgeSuite(name: string, open: () => [Store, Store]) {
  describe(`soft purge by URL on ${name}, two processes`, () => {
    let stores: [Store, Store];
    beforeAll(() => {
      stores = open();
    });
    afterAll(async () => {
      await stores[0].close();
      if (stores[1] !== stores[0]) await stores[1].close();
    });

    it('stales the version another process stored while the purge ran, and never puts the old one back', async () => {
      const namespace = `soft-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
      const origin = new VersionedOrigin();
      const held = new HeldWrite(createCache({ store: stores[0], closeStore: false, compression: false, namespace }));
      const engineB = createCache({ store: stores[1], closeStore: false, compression: false, namespace });
      const a = withCache(origin.fetch, { cache: held.cache });
      const b = withCache(origin.fetch, { cache: engineB });
      const url = 'http://example.test/soft';
      assert.equal(await (await a(new Request(url))).text(), 'v1');
      await a.idle();

      origin.version = 2;
      held.arm();
      const purged = a.purge({ url, soft: true });
      await held.held;
      // While A's purge is under way, B revalidates (its client sent no-cache) and stores v2.
      const refetched = await b(new Request(url, { headers: { 'cache-control': 'no-cache' } }));
      assert.equal(await refetched.text(), 'v2');
      await b.idle();
      held.release();
      assert.equal(await purged, 1);
      await a.idle();

      // Stale now, within stale-while-revalidate: served at once, revalidated in the background.
      const stale = await b(new Request(url));
      assert.equal(await stale.text(), 'v2', 'the purge put v1 back over v2');
      assert.match(stale.headers.get('cache-status') ?? '', /^cachette; hit; ttl=-/, 'v2 was marked stale');
      await b.idle();
      assert.equal(origin.conditions.at(-1), '"2"', 'the revalidation asked about v2');
      const fresh = await a(new Request(url));
      assert.equal(await fresh.text(), 'v2');
      assert.match(fresh.headers.get('cache-status') ?? '', /^cachette; hit; ttl=\d/, 'the 304 made v2 fresh again');
      assert.equal(origin.conditions.length, 3);
      await a.close();
      await b.close();
      await held.cache.close();
      await engineB.close();
    });
  });
}

softPurgeSuite('memory', () => {
  const store = memoryStore();
  return [store, store];
});
describe.runIf(requireRedis())('valkey', () => {
  softPurgeSuite('valkey', () => [valkeyStore(redisUrl!), valkeyStore(redisUrl!)]);
});

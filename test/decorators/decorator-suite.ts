// TC39 standard decorators, written as users write them. Bun and Deno run this file natively;
// under vitest it is compiled by TypeScript first (see test/support/decorators-plugin.ts),
// because Vite 8's transformer does not lower standard decorators yet.
import assert from 'node:assert/strict';
import { memoryStore } from '../../adapters/memory/index.ts';
import { cached, cachedResponse, createCache, factoryContext, type Cache } from '../../src/index.ts';
import type { Store } from '../../src/store/types.ts';
import type { SuiteApi } from '../support/suite-api.ts';

/** `@cached` and `@cachedResponse` on real classes. Runner-neutral: vitest, bun test, Deno.test. */
export function decoratorSuite(t: SuiteApi): void {
  t.describe('decorators: @cached and @cachedResponse', () => {
    let store: Store;
    let cache: Cache;
    t.beforeAll(() => {
      store = memoryStore();
      cache = createCache({ store, prefix: 'decorators' });
    });
    t.afterAll(async () => {
      await cache.close();
      await store.close();
    });

    t.it('@cached answers repeated and concurrent calls from one execution, keyed by the declaring class', async () => {
      const lookups: string[] = [];
      class Users {
        readonly table = 'users';
        @cached(cache, { ttl: '1m' })
        async find(id: string): Promise<{ id: string; table: string }> {
          lookups.push(id);
          await new Promise((resolve) => setTimeout(resolve, 5));
          return { id, table: this.table };
        }
      }
      const users = new Users();
      const results = await Promise.all([users.find('1'), users.find('1'), new Users().find('1')]);
      assert.deepEqual(results, Array(3).fill({ id: '1', table: 'users' }));
      assert.deepEqual(await users.find('2'), { id: '2', table: 'users' });
      assert.deepEqual(lookups, ['1', '2']);
      assert.deepEqual(await cache.get('Users.find("1")'), { id: '1', table: 'users' });
      // A subclass inherits the method and its entries; an override calling super shares them too.
      class Admins extends Users {
        override async find(id: string) {
          return super.find(id);
        }
      }
      assert.deepEqual(await new Admins().find('1'), { id: '1', table: 'users' });
      assert.deepEqual(lookups, ['1', '2']);
    });

    t.it('@cached on a static method, with a name and with a key that reads the instance', async () => {
      let counts = 0;
      let reads = 0;
      class Stats {
        constructor(readonly tenant: string) {}
        @cached(cache)
        static async count(kind: string): Promise<number> {
          counts++;
          return kind.length;
        }
        @cached(cache, {
          key(day) {
            return `report:${this.tenant}:${day}`;
          },
        })
        async report(day: string): Promise<string> {
          reads++;
          return `${this.tenant} ${day}`;
        }
        @cached(cache, { name: 'stats.v2' })
        async named(n: number): Promise<number> {
          return n * 2;
        }
      }
      assert.equal(await Stats.count('abc'), 3);
      assert.equal(await Stats.count('abc'), 3);
      assert.equal(counts, 1);
      assert.equal(await cache.get('Stats.count("abc")'), 3);
      assert.equal(await new Stats('a').report('mon'), 'a mon');
      assert.equal(await new Stats('b').report('mon'), 'b mon');
      assert.equal(await new Stats('a').report('mon'), 'a mon');
      assert.equal(reads, 2, 'one entry per tenant');
      assert.equal(await cache.get('report:b:mon'), 'b mon');
      assert.equal(await new Stats('a').named(4), 8);
      assert.equal(await cache.get('stats.v2(4)'), 8);
    });

    t.it('@cached takes its cache from the instance through a function', async () => {
      const own = createCache({ store, prefix: 'decorators-own' });
      class Repo {
        constructor(readonly cache: Cache) {}
        @cached((self: Repo) => self.cache)
        async load(id: number): Promise<number> {
          return id + 1;
        }
      }
      assert.equal(await new Repo(own).load(1), 2);
      assert.equal(await own.get('Repo.load(1)'), 2);
      assert.equal(await cache.get('Repo.load(1)'), undefined);
      class Broken {
        @cached(() => undefined as unknown as Cache)
        async load(): Promise<number> {
          return 1;
        }
      }
      await assert.rejects(new Broken().load(), /the cache function did not return a cache/);
    });

    t.it('@cached methods reach their fill through factoryContext(): skip stores nothing, and version and refreshAhead pass through', async () => {
      let runs = 0;
      class Search {
        @cached(cache, { ttl: '1m', version: 3, refreshAhead: 0.9 })
        async query(_text: string): Promise<string[]> {
          const ctx = factoryContext<string[]>();
          runs++;
          assert.equal(ctx?.key, 'Search.query("nothing")');
          assert.equal(ctx?.signal.aborted, false);
          ctx?.skip();
          return [];
        }
      }
      const search = new Search();
      assert.deepEqual(await search.query('nothing'), []);
      await cache.idle();
      assert.deepEqual(await search.query('nothing'), []);
      assert.equal(runs, 2);
      assert.equal(factoryContext(), undefined);
    });

    t.it('@cached refuses what it cannot decorate, and a value that is not a cache', () => {
      const context = { kind: 'getter', name: 'x', static: false, private: false } as unknown as ClassMethodDecoratorContext<unknown, () => Promise<unknown>>;
      assert.throws(() => cached(cache)(async () => 1, context), /@cached decorates class methods, not getter/);
      assert.throws(() => cached({} as Cache), /needs a cache from createCache\(\)/);
      // Options are checked where the class is defined, not on the first call.
      assert.throws(
        () => {
          class Late {
            @cached(cache, { ttl: 'later' as '1s' })
            async load(): Promise<number> {
              return 1;
            }
          }
          return Late;
        },
        (error: unknown) => error instanceof RangeError && /@cached load: ttl/.test(error.message),
      );
    });

    t.it('@cachedResponse serves a stored response, answers HEAD and revalidates in the background with the same instance', async () => {
      let now = Math.floor(Date.now() / 1000) * 1000;
      const pages = cachedResponse({ store, namespace: `pages-${Math.random().toString(36).slice(2)}`, now: () => now });
      const waited: Array<Promise<unknown>> = [];
      const ctx = { waitUntil: (promise: Promise<unknown>) => void waited.push(promise) };
      class Site {
        renders = 0;
        @pages
        async fetch(request: Request, env: { greeting: string }, _ctx: typeof ctx): Promise<Response> {
          this.renders++;
          return new Response(`${env.greeting} ${new URL(request.url).pathname} #${this.renders}`, {
            headers: { 'cache-control': 'max-age=10, stale-while-revalidate=60', 'cache-tag': 'pages' },
          });
        }
      }
      const site = new Site();
      const env = { greeting: 'hi' };
      const first = await site.fetch(new Request('https://example.com/a'), env, ctx);
      assert.equal(await first.text(), 'hi /a #1');
      assert.match(first.headers.get('cache-status') ?? '', /fwd=uri-miss.*stored/);
      await pages.idle();
      const hit = await site.fetch(new Request('https://example.com/a'), env, ctx);
      assert.equal(await hit.text(), 'hi /a #1');
      assert.match(hit.headers.get('cache-status') ?? '', /; hit/);
      const head = await site.fetch(new Request('https://example.com/a', { method: 'HEAD' }), env, ctx);
      assert.equal(await head.text(), '');
      assert.equal(head.status, 200);
      now += 20_000;
      const stale = await site.fetch(new Request('https://example.com/a'), env, ctx);
      assert.equal(await stale.text(), 'hi /a #1', 'the stale copy, at once');
      await pages.idle();
      assert.equal(site.renders, 2, 'revalidated by calling the method again on the same instance');
      assert.ok(waited.length > 0, 'background work went through ctx.waitUntil');
      assert.equal(await (await site.fetch(new Request('https://example.com/a'), env, ctx)).text(), 'hi /a #2');
      assert.equal(await pages.purge({ tag: 'pages' }), 1);
      assert.equal(await (await site.fetch(new Request('https://example.com/a'), env, ctx)).text(), 'hi /a #3');
      await pages.close();
    });

    t.it('@cachedResponse rejects a call whose first argument is not a Request, and refuses bad options at once', async () => {
      const pages = cachedResponse({ store });
      class Api {
        @pages
        async fetch(_request: Request): Promise<Response> {
          return new Response('x');
        }
      }
      await assert.rejects(new Api().fetch('https://example.com/' as unknown as Request), /first argument must be a Request, got string/);
      assert.throws(() => cachedResponse({} as never), /@cachedResponse\(\): pass a "store" \(e\.g\. memoryStore\(\)\) or a "cache" \(from createCache\)/);
      await pages.close();
    });
  });
}

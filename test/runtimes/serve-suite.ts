import assert from 'node:assert/strict';
import type { PurgeTarget } from '../../src/http/index.ts';
import type { ServeOptions, ServerCacheOptions } from '../../runtimes/shared/server-cache.ts';
import type { EnvLike } from '../../runtimes/shared/env-store.ts';
import type { SuiteApi } from '../support/suite-api.ts';

/** What the suite uses of a running server. */
interface Running {
  url: string;
  close(): Promise<void>;
}

/** What the suite uses of a server's cache. */
interface RunningCache {
  purge(target: PurgeTarget): Promise<number>;
  idle(): Promise<void>;
}

/** A runtime helper's `serve`, as cachette/node, cachette/bun and cachette/deno export it. */
export interface ServeFn {
  (handler: (request: Request, env?: unknown) => Promise<Response>, options: ServeOptions & { cache: true | ServerCacheOptions }): Promise<Running & { cache: RunningCache }>;
  (handler: (request: Request, env?: unknown) => Promise<Response>, options?: ServeOptions): Promise<Running & { cache: RunningCache | undefined }>;
}

const MEMORY_LINE = '[cachette] store: memory (no VALKEY_URL, REDIS_URL, UPSTASH_REDIS_REST_URL or KV binding; not shared between processes or isolates)';

/**
 * What every server runtime helper must do, over real HTTP on 127.0.0.1: serve a handler as it
 * is unless asked to cache; with `cache`, serve a cached response from the store the
 * environment names and say which once, share the cache between two servers through Valkey,
 * refuse a malformed VALKEY_URL before listening, say so when two cachette layers are stacked,
 * and refuse cache options given where serve() no longer takes them.
 * Runner-neutral: run unchanged by vitest (Node), bun test and Deno.test.
 */
export function serveSuite(t: SuiteApi, runtime: string, serve: ServeFn, env: EnvLike): void {
  t.describe(`${runtime} helper over HTTP`, () => {
    const run = `${runtime}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    // An origin that counts its calls and says so in the body, so a hit is visible.
    const origin = (label = '', headers: Record<string, string> = {}) => {
      let calls = 0;
      const handler = async (request: Request) => {
        calls++;
        return new Response(`${label}${new URL(request.url).pathname} #${calls}`, { headers: { 'cache-control': 'public, max-age=60', ...headers } });
      };
      return { handler, calls: () => calls };
    };

    t.it('serves the handler as it is unless asked to cache: no store, no Cache-Status', async () => {
      const o = origin();
      const server = await serve(o.handler, { port: 0 });
      try {
        assert.equal(server.cache, undefined);
        for (const n of [1, 2]) {
          const res = await fetch(`${server.url}/plain`);
          assert.equal(await res.text(), `/plain #${n}`);
          assert.equal(res.headers.get('cache-status'), null);
        }
      } finally {
        await server.close();
      }
    });

    // Issue 20 (first-hour defect 5): on Bun a string body's type is not in the headers, and the
    // cache sent the miss without a Content-Type and the hit as application/octet-stream.
    t.it("keeps the Content-Type the runtime's own server sends for a string body, on the miss and on the hit", async () => {
      // No init: @hono/node-server sends no type for a string body given with headers of its own.
      const handler = async () => new Response('hello');
      const plain = await serve(handler, { port: 0 });
      let expected: string | null;
      try {
        expected = (await fetch(`${plain.url}/typed`)).headers.get('content-type');
      } finally {
        await plain.close();
      }
      assert.match(expected ?? '', /^text\/plain; ?charset=utf-8$/i);
      const server = await serve(handler, { port: 0, cache: { env: {}, log: false, ttl: '60s' } });
      try {
        const miss = await fetch(`${server.url}/typed`);
        assert.equal(await miss.text(), 'hello');
        assert.match(miss.headers.get('cache-status') ?? '', /fwd=uri-miss/);
        assert.equal(miss.headers.get('content-type'), expected);
        const hit = await fetch(`${server.url}/typed`);
        assert.equal(await hit.text(), 'hello');
        assert.match(hit.headers.get('cache-status') ?? '', /; hit/);
        assert.equal(hit.headers.get('content-type'), expected);
      } finally {
        await server.close();
      }
    });

    t.it('with cache, serves a miss, then the stored response, from the store the environment names', async () => {
      const o = origin();
      const lines: string[] = [];
      const server = await serve(o.handler, { port: 0, cache: { env: {}, log: (l) => lines.push(l) } });
      try {
        const first = await fetch(`${server.url}/a`);
        assert.equal(await first.text(), '/a #1');
        assert.match(first.headers.get('cache-status') ?? '', /fwd=uri-miss/);
        const second = await fetch(`${server.url}/a`);
        assert.equal(await second.text(), '/a #1');
        assert.match(second.headers.get('cache-status') ?? '', /; hit/);
        assert.equal(o.calls(), 1);
        assert.deepEqual(lines, [MEMORY_LINE]);
        assert.equal(await server.cache.purge({ url: `${server.url}/a` }), 1);
        assert.equal(await (await fetch(`${server.url}/a`)).text(), '/a #2');
      } finally {
        await server.close();
      }
    });

    const valkeyTest = 'with cache, two servers on VALKEY_URL share one cache';
    const redisUrl = typeof env.REDIS_URL === 'string' && env.REDIS_URL ? env.REDIS_URL : undefined;
    if (redisUrl === undefined && env.CI !== 'true' && env.CACHETTE_REQUIRE_ALL !== '1') {
      // No Redis server here (scripts/test says why): reported as not run, not as a failure.
      t.skip?.(valkeyTest);
    } else {
      t.it(valkeyTest, async () => {
        if (redisUrl === undefined) throw new Error('REDIS_URL is not set and CI forbids skipping the Valkey tests');
        const [a, b] = [origin('a'), origin('b')];
        // Keyed by path: the two servers listen on different ports, so their URLs differ.
        const cache = { env: { VALKEY_URL: redisUrl }, log: false as const, namespace: `serve-${run}`, key: (r: Request) => new URL(r.url).pathname };
        const first = await serve(a.handler, { port: 0, cache });
        const second = await serve(b.handler, { port: 0, cache });
        try {
          assert.equal(await (await fetch(`${first.url}/shared`)).text(), 'a/shared #1');
          await first.cache.idle(); // the store write happens after the answer
          const fromSecond = await fetch(`${second.url}/shared`);
          assert.equal(await fromSecond.text(), 'a/shared #1', 'the second server answered from what the first stored');
          assert.match(fromSecond.headers.get('cache-status') ?? '', /; hit/);
          assert.equal(b.calls(), 0);
        } finally {
          await first.close();
          await second.close();
        }
      });
    }

    t.it('with cache, refuses a malformed VALKEY_URL before listening', async () => {
      await assert.rejects(serve(origin().handler, { port: 0, cache: { env: { VALKEY_URL: 'localhost:6379' }, log: false } }), /VALKEY_URL must be a redis:\/\//);
    });

    t.it("hands the handler the platform's second argument, with the cache and without", async () => {
      const seen: unknown[] = [];
      const handler = async (request: Request, env?: unknown) => {
        seen.push(env);
        return new Response(new URL(request.url).pathname, { headers: { 'cache-control': 'max-age=60' } });
      };
      for (const options of [{ port: 0 }, { port: 0, cache: { env: {}, log: false as const } }]) {
        const server = await serve(handler, options);
        try {
          await (await fetch(`${server.url}/env`)).text();
        } finally {
          await server.close();
        }
      }
      assert.equal(seen.length, 2);
      for (const env of seen) assert.equal(typeof env, 'object', 'Node: { incoming, outgoing }; Bun: the server; Deno: the connection info');
    });

    t.it('says once when the handler already has a cachette layer inside, so two caches are stacked', async () => {
      const inner = origin('', { 'cache-status': 'cachette; fwd=uri-miss; fwd-status=200; stored' });
      const lines: string[] = [];
      const server = await serve(inner.handler, { port: 0, cache: { env: {}, log: (l) => lines.push(l) } });
      try {
        await (await fetch(`${server.url}/one`)).text();
        await (await fetch(`${server.url}/two`)).text();
        const stacked = lines.filter((l) => l.includes('two caches are stacked'));
        assert.equal(stacked.length, 1, lines.join('\n'));
        assert.match(stacked[0]!, /\/one was already answered by a cachette layer/);
      } finally {
        await server.close();
      }
    });

    t.it('refuses cache options at the top level, saying they go inside cache', async () => {
      const misplaced = { port: 0, ttl: '30s' } as unknown as ServeOptions;
      await assert.rejects(serve(origin().handler, misplaced), (error: unknown) => error instanceof TypeError && /unknown option "ttl".*cache: \{ ttl: … \}/.test(error.message));
      await assert.rejects(serve(origin().handler, { port: 70_000 }), RangeError);
    });
  });
}

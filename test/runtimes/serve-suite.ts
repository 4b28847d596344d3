import assert from 'node:assert/strict';
import type { PurgeTarget } from '../../src/http/index.ts';
import type { ServerCacheOptions } from '../../runtimes/server-cache.ts';
import type { EnvLike } from '../../runtimes/env-store.ts';
import type { SuiteApi } from '../support/suite-api.ts';

/** A runtime helper's `serve`, as cachette/node, cachette/bun and cachette/deno export it. */
export type ServeFn = (
  handler: (request: Request) => Promise<Response>,
  options: ServerCacheOptions & { port?: number; hostname?: string },
) => Promise<{ url: string; close(): Promise<void>; cache: { purge(target: PurgeTarget): Promise<number>; idle(): Promise<void> } }>;

/**
 * What every server runtime helper must do, over real HTTP on 127.0.0.1: serve a cached
 * response, pick the store from the environment and say which once, share the cache between
 * two servers through Valkey, and refuse a malformed VALKEY_URL before listening.
 * Runner-neutral: run unchanged by vitest (Node), bun test and Deno.test.
 */
export function serveSuite(t: SuiteApi, runtime: string, serve: ServeFn, env: EnvLike): void {
  t.describe(`${runtime} helper over HTTP`, () => {
    const run = `${runtime}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    // An origin that counts its calls and says so in the body, so a hit is visible.
    const origin = (label = '') => {
      let calls = 0;
      const handler = async (request: Request) => {
        calls++;
        return new Response(`${label}${new URL(request.url).pathname} #${calls}`, { headers: { 'cache-control': 'public, max-age=60' } });
      };
      return { handler, calls: () => calls };
    };

    t.it('serves a miss, then the stored response, from the store the environment names', async () => {
      const o = origin();
      const lines: string[] = [];
      const server = await serve(o.handler, { port: 0, env: {}, log: (l) => lines.push(l) });
      try {
        const first = await fetch(`${server.url}/a`);
        assert.equal(await first.text(), '/a #1');
        assert.match(first.headers.get('cache-status') ?? '', /fwd=uri-miss/);
        const second = await fetch(`${server.url}/a`);
        assert.equal(await second.text(), '/a #1');
        assert.match(second.headers.get('cache-status') ?? '', /; hit/);
        assert.equal(o.calls(), 1);
        assert.deepEqual(lines, ['[cachette] store: memory (no VALKEY_URL, REDIS_URL, UPSTASH_REDIS_REST_URL or KV binding; not shared between processes or isolates)']);
        assert.equal(await server.cache.purge({ url: `${server.url}/a` }), 1);
        assert.equal(await (await fetch(`${server.url}/a`)).text(), '/a #2');
      } finally {
        await server.close();
      }
    });

    t.it('two servers on VALKEY_URL share one cache', async () => {
      const url = env.REDIS_URL;
      if (typeof url !== 'string' || !url) throw new Error('REDIS_URL is needed: scripts/test and the vitest global setup provide it');
      const [a, b] = [origin('a'), origin('b')];
      // Keyed by path: the two servers listen on different ports, so their URLs differ.
      const options = { port: 0, env: { VALKEY_URL: url }, log: false as const, namespace: `serve-${run}`, key: (r: Request) => new URL(r.url).pathname };
      const first = await serve(a.handler, options);
      const second = await serve(b.handler, options);
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

    t.it('refuses a malformed VALKEY_URL before listening', async () => {
      await assert.rejects(serve(origin().handler, { port: 0, env: { VALKEY_URL: 'localhost:6379' }, log: false }), /VALKEY_URL must be a redis:\/\//);
    });
  });
}

import assert from 'node:assert/strict';
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { describe, it } from 'vitest';
import { withCache } from '../../runtimes/workers/index.ts';

// cachette/workers' own duties: picking the store from the bindings once per env, and doing
// the store write in ctx.waitUntil.
describe('withCache', () => {
  const app = { fetch: async (request: Request) => new Response(`hello ${new URL(request.url).pathname}`, { headers: { 'cache-control': 'public, max-age=60' } }) };

  it('picks the KV binding, says so once, and writes through ctx.waitUntil', async () => {
    const lines: string[] = [];
    const worker = withCache(app, { log: (l) => lines.push(l), namespace: `rt-${crypto.randomUUID()}` });
    const bindings = { CACHETTE_KV: env.CACHETTE_KV };
    const path = `/kv-${crypto.randomUUID()}`;
    const ctx = createExecutionContext();
    const first = await worker.fetch(new Request(`http://127.0.0.1:8787${path}`), bindings, ctx);
    assert.equal(await first.text(), `hello ${path}`);
    await waitOnExecutionContext(ctx);
    const keys = (await env.CACHETTE_KV.list()).keys.filter((k) => k.name.includes(path));
    assert.ok(keys.length > 0, 'the response was written to KV once the waitUntil work settled');
    const second = await worker.fetch(new Request(`http://127.0.0.1:8787${path}`), bindings, createExecutionContext());
    assert.match(second.headers.get('cache-status') ?? '', /; hit/);
    assert.deepEqual(lines, ['[cachette] store: cloudflare-kv (KV binding CACHETTE_KV)'], 'one line per isolate, not per request');
  });

  it('uses a KV binding under another name when told, and memory when there is none', async () => {
    const lines: string[] = [];
    await withCache(app, { kvBinding: 'PAGES', log: (l) => lines.push(l) }).fetch(new Request('http://127.0.0.1/x'), { PAGES: env.CACHETTE_KV }, createExecutionContext());
    await withCache(app, { log: (l) => lines.push(l) }).fetch(new Request('http://127.0.0.1/x'), {}, createExecutionContext());
    assert.deepEqual(lines, [
      '[cachette] store: cloudflare-kv (KV binding PAGES)',
      '[cachette] store: memory (no VALKEY_URL, REDIS_URL, UPSTASH_REDIS_REST_URL or KV binding; not shared between processes or isolates)',
    ]);
  });

  it('refuses VALKEY_URL on Workers, naming what works instead', async () => {
    const worker = withCache(app, { log: false });
    await assert.rejects(
      worker.fetch(new Request('http://127.0.0.1/x'), { VALKEY_URL: 'redis://127.0.0.1:6379' }, createExecutionContext()),
      /cannot open TCP connections to Valkey; set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN, bind a KV namespace, or pass a store/,
    );
  });

  it('refuses Upstash variables, naming the entry that opens Upstash', async () => {
    const worker = withCache(app, { log: false });
    const upstash = { UPSTASH_REDIS_REST_URL: 'https://example.upstash.io', UPSTASH_REDIS_REST_TOKEN: 't', CACHETTE_KV: env.CACHETTE_KV };
    await assert.rejects(
      worker.fetch(new Request('http://127.0.0.1/x'), upstash, createExecutionContext()),
      /this entry leaves Upstash out so that KV-only Workers bundle without @upstash\/redis; import \{ withCache \} from 'cachette\/workers\/upstash'/,
    );
  });

  it('refuses something that is neither an app nor a handler', () => {
    assert.throws(() => withCache({} as never), /pass a Hono app \(or anything with fetch\(request, env, ctx\)\) or a fetch handler/);
  });
});

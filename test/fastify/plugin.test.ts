// cachette/fastify on real Fastify 5 apps over loopback HTTP: what Fastify routes send (strings,
// Buffers, serialised objects, streams, after onSend hooks) is captured and served again;
// reply headers of earlier hooks stay per request; a hit skips the rest of the lifecycle;
// stale-while-revalidate and the §4.3.4 retry go through the server as requests of their own;
// the plugin's encapsulation, decorator, options and close; and nothing hangs.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createReadStream, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { afterAll, describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { createCache } from '../../src/cache/create-cache.ts';
import cache, { type FastifyCacheOptions } from '../../runtimes/node-http/fastify/index.ts';
import { rawExchange } from '../proxy/support.ts';

const store = memoryStore();
afterAll(() => store.close());
let namespaces = 0;
const LICENSE = fileURLToPath(new URL('../../LICENSE', import.meta.url));

interface Running {
  app: FastifyInstance;
  base: string;
  port: number;
  get(path: string, init?: RequestInit): Promise<{ status: number; body: string; headers: Headers; cs: string }>;
  close(): Promise<void>;
}

type Setup = (app: FastifyInstance) => void | Promise<void>;

/**
 * Builds a Fastify app, `before` (hooks that run before the cache's), the plugin with `options`
 * (none: `routes` registers it), then `routes`, and serves it on 127.0.0.1.
 */
async function start(options: Partial<FastifyCacheOptions> | undefined, routes: Setup, settings: FastifyServerOptions = {}, before?: Setup): Promise<Running> {
  const app = Fastify(settings);
  await before?.(app);
  if (options) await app.register(cache, { store, namespace: `fastify-${namespaces++}`, ...options });
  await routes(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return served(app);
}

async function served(app: FastifyInstance): Promise<Running> {
  const port = (app.server.address() as { port: number }).port;
  const base = `http://127.0.0.1:${port}`;
  return {
    app,
    base,
    port,
    async get(path, init) {
      const res = await fetch(base + path, { redirect: 'manual', ...init });
      const body = await res.text();
      if (app.hasDecorator('cache')) await app.cache.idle();
      return { status: res.status, body, headers: res.headers, cs: res.headers.get('cache-status') ?? '' };
    },
    async close() {
      app.server.closeAllConnections();
      await app.close();
    },
  };
}

/** A clock for the cache, on whole seconds so that ages are exact. */
function clock(): { now: () => number; advance(ms: number): void } {
  let now = Math.floor(Date.now() / 1000) * 1000;
  return { now: () => now, advance: (ms) => void (now += ms) };
}

describe('cachette/fastify', () => {
  it('captures what routes send (strings, Buffers, serialised objects, streams, redirects, 404s) and serves it again', async () => {
    let calls = 0;
    const app = await start({ ttl: '1m' }, (a) => {
      a.get('/string', async () => `string #${++calls}`);
      a.get('/buffer', async (_request, reply) => reply.type('application/octet-stream').send(Buffer.from(`buffer #${++calls}`)));
      a.get(
        '/object',
        { schema: { response: { 200: { type: 'object', properties: { n: { type: 'integer' } } } } } },
        // `secret` is not in the schema: Fastify's serialiser drops it.
        async () => ({ n: ++calls, secret: 'dropped' }),
      );
      a.get('/stream', async (_request, reply) => {
        calls++;
        return reply.type('text/plain').send(createReadStream(LICENSE));
      });
      a.get('/large', async (_request, reply) => {
        calls++;
        // 1 MiB through a stream that respects back-pressure.
        const body = new PassThrough();
        reply.type('text/plain').send(body);
        const chunk = Buffer.alloc(16_384, 'x');
        for (let i = 0; i < 64; i++) if (!body.write(chunk)) await once(body, 'drain');
        body.end();
        return reply;
      });
      a.get('/old', async (_request, reply) => {
        calls++;
        return reply.code(301).redirect('/string');
      });
    });
    try {
      for (const path of ['/string', '/buffer', '/object', '/stream', '/large', '/old']) {
        const miss = await app.get(path);
        // A streamed body is stored once it ended: only a known length says `stored` at the head.
        assert.match(miss.cs, /fwd=uri-miss; fwd-status=(200|301); ttl=\d+/, path);
        const before = calls;
        const hit = await app.get(path);
        assert.match(hit.cs, /; hit/, path);
        assert.equal(hit.body, miss.body, path);
        assert.equal(hit.status, miss.status, path);
        assert.equal(hit.headers.get('content-type'), miss.headers.get('content-type'), path);
        assert.equal(calls, before, `${path}: no route ran for the hit`);
      }
      assert.equal((await app.get('/object')).body, '{"n":3}');
      assert.match((await app.get('/stream')).body, /^MIT License[\s\S]*SOFTWARE\.\n$/);
      assert.equal((await app.get('/large')).body.length, 1 << 20);
      assert.equal((await app.get('/old')).headers.get('location'), '/string');
      const missing = await app.get('/nowhere');
      assert.equal(missing.status, 404, "Fastify's own not-found answer");
      assert.match(missing.cs, /stored/, 'under the default ttl, as any heuristically cacheable status');
      assert.match((await app.get('/nowhere')).cs, /; hit/);
    } finally {
      await app.close();
    }
  });

  it('sends the reply headers of earlier hooks with every answer and never stores them; cookies from both sides reach the client', async () => {
    let requests = 0;
    const app = await start(
      { ttl: '1m' },
      (a) => {
        a.get('/page', async (_request, reply) => reply.header('cache-control', 'max-age=60').send('page'));
        // Fastify adds a Set-Cookie to those already on the reply.
        a.get('/login', async (_request, reply) => reply.header('set-cookie', 'seen=1').send('welcome'));
        a.get('/override', async (_request, reply) => reply.header('x-request', 'route').send('override'));
      },
      {},
      (a) => {
        a.addHook('onRequest', async (request, reply) => {
          reply.header('x-request', String(++requests));
          reply.raw.setHeader('x-raw', `raw ${requests}`);
          if (request.url === '/login') reply.header('set-cookie', 'session=s1');
        });
      },
    );
    try {
      const miss = await app.get('/page');
      assert.equal(miss.headers.get('x-request'), '1');
      assert.equal(miss.headers.get('x-raw'), 'raw 1');
      assert.match(miss.cs, /stored/);
      const hit = await app.get('/page');
      assert.match(hit.cs, /; hit/);
      assert.equal(hit.headers.get('x-request'), '2', 'the header of this request, not a stored one');
      assert.equal(hit.headers.get('x-raw'), 'raw 2');
      const login = await app.get('/login');
      assert.deepEqual(login.headers.getSetCookie(), ['session=s1', 'seen=1']);
      assert.doesNotMatch(login.cs, /stored/, "the route's own Set-Cookie keeps its response out of the store");
      await app.get('/override');
      const overridden = await app.get('/override');
      assert.match(overridden.cs, /; hit/);
      assert.equal(overridden.headers.get('x-request'), 'route', 'a field the route changed is part of its response');
    } finally {
      await app.close();
    }
  });

  it('answers a hit before later hooks, body parsing and the handler; onResponse hooks and earlier hooks see every request', async () => {
    const seen: string[] = [];
    const app = await start(
      { ttl: '1m' },
      (a) => {
        a.addHook('onRequest', async () => void seen.push('later onRequest'));
        a.addHook('preHandler', async () => void seen.push('preHandler'));
        a.addHook('onSend', async (_request, _reply, payload) => {
          seen.push('onSend');
          return payload;
        });
        a.addHook('onResponse', async (_request, reply) => void seen.push(`onResponse ${reply.statusCode}`));
        a.get('/hooked', { onRequest: async () => void seen.push('route onRequest') }, async () => {
          seen.push('handler');
          return 'hooked';
        });
      },
      {},
      (a) => void a.addHook('onRequest', async () => void seen.push('earlier onRequest')),
    );
    try {
      await app.get('/hooked');
      // onResponse follows the client's answer, which may still be on its way when fetch is done.
      while (!seen.includes('onResponse 200')) await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(seen.splice(0), ['earlier onRequest', 'later onRequest', 'route onRequest', 'preHandler', 'handler', 'onSend', 'onResponse 200']);
      const hit = await app.get('/hooked');
      assert.match(hit.cs, /; hit/);
      while (!seen.includes('onResponse 200')) await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(seen, ['earlier onRequest', 'onResponse 200']);
    } finally {
      await app.close();
    }
  });

  it('stores what onSend hooks made of the payload, and serves it as they left it', async () => {
    let calls = 0;
    const app = await start({ ttl: '1m' }, (a) => {
      a.addHook('onSend', async (_request, reply, payload) => {
        reply.header('x-transformed', 'yes');
        return typeof payload === 'string' ? payload.toUpperCase() : payload;
      });
      a.get('/shout', async () => `quiet ${++calls}`);
    });
    try {
      const miss = await app.get('/shout');
      assert.equal(miss.body, 'QUIET 1');
      const hit = await app.get('/shout');
      assert.match(hit.cs, /; hit/);
      assert.equal(hit.body, 'QUIET 1');
      assert.equal(hit.headers.get('x-transformed'), 'yes');
    } finally {
      await app.close();
    }
  });

  it('caches only the routes of the context it is registered in, and refuses a second cache over the same routes', async () => {
    const app = Fastify();
    await app.register(async (cached) => {
      await cached.register(cache, { store, namespace: `fastify-${namespaces++}`, ttl: '1m' });
      cached.get('/inside', async () => 'inside');
      await cached.register(async (nested) => void nested.get('/nested', async () => 'nested'));
    });
    app.get('/outside', async () => 'outside');
    await app.register(async (sibling) => {
      sibling.get('/sibling', async () => 'sibling');
      assert.equal(sibling.hasDecorator('cache'), false, 'the decorator is the context’s own');
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const running = await served(app);
    const twice = Fastify();
    await twice.register(cache, { store, ttl: '1m' });
    twice.register(async (nested) => void (await nested.register(cache, { store, ttl: '1m' })));
    await assert.rejects(async () => void (await twice.ready()), /already has a "cache" decorator/);
    await twice.close();
    try {
      for (const [path, cached] of [
        ['/inside', true],
        ['/nested', true],
        ['/outside', false],
        ['/sibling', false],
      ] as const) {
        const got = await running.get(path);
        assert.equal(got.status, 200, path);
        assert.equal(/stored/.test(got.cs), cached, `${path}: ${got.cs}`);
      }
    } finally {
      await running.close();
    }
  });

  it('purges by URL (every variant) and by tag through app.cache', async () => {
    let calls = 0;
    const app = await start({ ttl: '1m', tags: (request) => (new URL(request.url).pathname.startsWith('/products') ? ['products'] : []) }, (a) => {
      a.get('/products/:id', async (request, reply) => reply.header('vary', 'x-variant').send(`product ${(request.params as { id: string }).id} #${++calls}`));
      a.get('/tagged', async (_request, reply) => reply.header('cache-tag', 'news').send(`news #${++calls}`));
    });
    try {
      await app.get('/products/1', { headers: { 'x-variant': 'a' } });
      await app.get('/products/1', { headers: { 'x-variant': 'b' } });
      const second = await app.get('/products/2');
      await app.get('/tagged');
      assert.equal(await app.app.cache.purge({ url: `${app.base}/products/1` }), 1, "the URL's entry, which its variants hang off");
      assert.match((await app.get('/products/1', { headers: { 'x-variant': 'a' } })).cs, /fwd=uri-miss/);
      assert.match((await app.get('/products/1', { headers: { 'x-variant': 'b' } })).cs, /fwd=vary-miss/, 'the other variant went with it');
      assert.match((await app.get('/products/2')).cs, /; hit/);
      assert.equal(await app.app.cache.purge({ tag: 'products' }), 1);
      const purged = await app.get('/products/2');
      assert.match(purged.cs, /fwd=vary-miss/, 'its entry is a miss everywhere the tag is read');
      assert.notEqual(purged.body, second.body);
      assert.match((await app.get('/tagged')).cs, /; hit/);
      assert.equal(await app.app.cache.purge({ tag: 'news' }), 1, 'a Cache-Tag the route sent');
      assert.equal((await app.get('/tagged')).body, `news #${calls}`);
      await assert.rejects(app.app.cache.purge({ url: '/relative' }), /absolute URL/);
    } finally {
      await app.close();
    }
  });

  it("answers a client's If-None-Match from the stored copy, and revalidates with the route's own ETag handling", async () => {
    const time = clock();
    let calls = 0;
    const app = await start({ ttl: '10s', now: time.now }, (a) => {
      a.get('/doc', async (request, reply) => {
        calls++;
        reply.header('etag', '"v1"');
        if (request.headers['if-none-match'] === '"v1"') return reply.code(304).send();
        return { doc: 'same' };
      });
    });
    try {
      await app.get('/doc');
      // A fetch() client sends Cache-Control: no-cache with validators unless told otherwise.
      const conditional = await app.get('/doc', { headers: { 'if-none-match': '"v1"', 'cache-control': 'max-age=60' } });
      assert.equal(conditional.status, 304);
      assert.match(conditional.cs, /; hit/);
      time.advance(30_000);
      const revalidated = await app.get('/doc');
      assert.equal(revalidated.status, 200);
      assert.equal(revalidated.body, '{"doc":"same"}');
      assert.match(revalidated.cs, /fwd=stale; fwd-status=304/, "the route answered the cache's If-None-Match with a 304");
      assert.equal(calls, 2);
    } finally {
      await app.close();
    }
  });

  it('serves a stale response at once and revalidates through the server as a request of its own, a HEAD included', async () => {
    const time = clock();
    let version = 1;
    let release: (() => void) | undefined;
    const seen: string[] = [];
    const app = await start(
      { now: time.now },
      (a) => {
        a.get('/news', async (_request, reply) => {
          const current = version;
          if (current > 1) await new Promise<void>((resolve) => (release = resolve));
          return reply.header('cache-control', 'max-age=10, stale-while-revalidate=600').send(`news v${current}`);
        });
      },
      {},
      (a) => {
        a.addHook('onRequest', async (request, reply) => {
          seen.push(`${request.method} from ${request.ip}`);
          reply.header('x-hook', String(seen.length));
        });
      },
    );
    try {
      assert.equal((await app.get('/news')).body, 'news v1');
      time.advance(20_000);
      version = 2;
      seen.length = 0;
      // The route is held until after the client was answered: the answer cannot have waited for it.
      const stale = (await rawExchange(app.port, `HEAD /news HTTP/1.1\r\nHost: 127.0.0.1:${app.port}\r\nConnection: close\r\n\r\n`, 2000)).text;
      assert.match(stale, /^HTTP\/1\.1 200/);
      assert.match(stale, /cache-status: cachette; hit; ttl=-10\r\n/i);
      assert.match(stale, /x-hook: 1\r\n/i);
      while (!release) await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(seen, ['HEAD from 127.0.0.1', 'GET from 127.0.0.1'], 'the refresh is a GET through the app, from the same client');
      release();
      await app.app.cache.idle();
      const fresh = await app.get('/news');
      assert.equal(fresh.body, 'news v2', "the GET route's body was stored, not a HEAD's");
      assert.match(fresh.cs, /; hit/);
      assert.equal(fresh.headers.get('x-hook'), '3', 'no header of the refresh request was stored');
    } finally {
      release?.();
      await app.close();
    }
  });

  it('sends the request again through the server after a 304 that matches nothing stored', async () => {
    const time = clock();
    const answers = ['first', 'mismatched 304', 'second'];
    const app = await start({ now: time.now }, (a) => {
      a.get('/again', async (_request, reply) => {
        const answer = answers.shift();
        if (answer === 'mismatched 304') return reply.code(304).headers({ etag: '"b"', 'cache-control': 'max-age=10' }).send();
        return reply.headers({ etag: answer === 'first' ? '"a"' : '"c"', 'cache-control': 'max-age=10' }).send(answer);
      });
    });
    try {
      assert.equal((await app.get('/again')).body, 'first');
      time.advance(20_000);
      const retried = await app.get('/again');
      assert.equal(retried.status, 200);
      assert.equal(retried.body, 'second');
      assert.match(retried.cs, /stored/);
      assert.deepEqual(answers, []);
    } finally {
      await app.close();
    }
  });

  it('works through app.inject, without a listening server, background revalidation included', async () => {
    const time = clock();
    let calls = 0;
    const app = Fastify();
    await app.register(cache, { store, namespace: `fastify-${namespaces++}`, now: time.now });
    app.get('/injected', async (_request, reply) => reply.header('cache-control', 'max-age=10, stale-while-revalidate=60').send(`#${++calls}`));
    try {
      const get = async () => {
        const res = await app.inject({ url: '/injected', headers: { host: 'inject.test' } });
        await app.cache.idle();
        return res;
      };
      assert.equal((await get()).body, '#1');
      const hit = await get();
      assert.match(String(hit.headers['cache-status']), /; hit/);
      time.advance(20_000);
      const stale = await get();
      assert.equal(stale.body, '#1');
      assert.equal(calls, 2, 'revalidated in the background');
      assert.equal((await get()).body, '#2');
      assert.equal(await app.cache.purge({ url: 'http://inject.test/injected' }), 1);
    } finally {
      await app.close();
    }
  });

  it('stores nothing of a streamed response when the client goes away in the middle, and lets the route finish', async () => {
    let calls = 0;
    const streams: PassThrough[] = [];
    const app = await start({ ttl: '1m' }, (a) => {
      a.get('/slow', async (_request, reply) => {
        calls++;
        const body = new PassThrough();
        streams.push(body);
        body.write('first part\n');
        return reply.type('text/plain').send(body);
      });
    });
    try {
      const accepted = once(app.app.server, 'connection') as Promise<[Socket]>;
      const socket = connect(app.port, '127.0.0.1');
      const [serverSide] = await accepted;
      socket.write(`GET /slow HTTP/1.1\r\nHost: 127.0.0.1:${app.port}\r\n\r\n`);
      await once(socket, 'data');
      const closed = once(serverSide, 'close');
      socket.destroy();
      await closed;
      await app.app.cache.idle();
      assert.equal(streams[0]!.destroyed, true, "Fastify stops the route's stream when the response it writes is abandoned");
      const next = app.get('/slow');
      while (streams.length < 2) await new Promise((resolve) => setImmediate(resolve));
      streams[1]!.end('second part\n');
      const again = await next;
      assert.match(again.cs, /fwd=uri-miss/, 'the abandoned response was not stored');
      assert.equal(again.body, 'first part\nsecond part\n');
      assert.equal(calls, 2);
    } finally {
      for (const stream of streams) stream.destroy();
      await app.close();
    }
  });

  it("answers 502 for a status a cache cannot pass on, and passes route errors through Fastify's error handler (stale-if-error where allowed)", async () => {
    const time = clock();
    let failing = false;
    const app = await start({ now: time.now }, (a) => {
      a.get('/odd', async (_request, reply) => {
        reply.hijack();
        reply.raw.writeHead(999, { 'content-type': 'text/plain' });
        reply.raw.end('odd');
      });
      a.get('/flaky', async (_request, reply) => {
        if (failing) throw new Error('database down');
        return reply.header('cache-control', 'max-age=10, stale-if-error=600').send('good');
      });
      a.get('/broken', async () => {
        throw new Error('always');
      });
    });
    try {
      const odd = await app.get('/odd');
      assert.equal(odd.status, 502);
      assert.match(odd.body, /status 999/);
      assert.equal((await app.get('/flaky')).body, 'good');
      failing = true;
      time.advance(20_000);
      const rescued = await app.get('/flaky');
      assert.equal(rescued.status, 200);
      assert.equal(rescued.body, 'good');
      assert.match(rescued.cs, /stale-if-error/);
      const broken = await app.get('/broken');
      assert.equal(broken.status, 500);
      assert.equal(JSON.parse(broken.body).message, 'always', "Fastify's own error reply, passed through");
      assert.match(broken.cs, /fwd=uri-miss; fwd-status=500/);
    } finally {
      await app.close();
    }
  });

  it("hands an error the cache meets before the route ran (a bypass that throws) to Fastify's error handler", async () => {
    const handled: string[] = [];
    const app = await start(
      {
        ttl: '1m',
        bypass: () => {
          throw new Error('bypass failed');
        },
      },
      (a) => {
        a.setErrorHandler((error: Error, _request, reply) => {
          handled.push(error.message);
          return reply.code(503).send('handled');
        });
        a.get('/bypass', async () => 'route');
      },
    );
    try {
      const got = await app.get('/bypass');
      assert.equal(got.status, 503);
      assert.equal(got.body, 'handled');
      assert.deepEqual(handled, ['bypass failed']);
    } finally {
      await app.close();
    }
  });

  it('keys by the forwarded host and protocol when Fastify trusts its proxy', async () => {
    const app = await start({ ttl: '1m' }, (a) => void a.get('/page', async (request) => `page for ${request.protocol}://${request.hostname}`), { trustProxy: true });
    try {
      const res = await app.get('/page', { headers: { 'x-forwarded-host': 'public.example', 'x-forwarded-proto': 'https' } });
      assert.equal(res.body, 'page for https://public.example');
      assert.equal(await app.app.cache.purge({ url: 'https://public.example/page' }), 1);
    } finally {
      await app.close();
    }
  });

  it('lets requests it cannot key go past the cache: absolute-form targets, malformed or missing Host', async () => {
    let calls = 0;
    const app = await start({ ttl: '1m' }, (a) => void a.get('/x', async (request) => `${request.url} #${++calls}`));
    try {
      const requests = [
        'GET http://127.0.0.1/x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
        'GET /x HTTP/1.1\r\nHost: evil.example/other\r\nConnection: close\r\n\r\n',
        'GET /x HTTP/1.0\r\n\r\n',
      ];
      for (const request of requests) {
        for (let i = 0; i < 2; i++) {
          const answer = (await rawExchange(app.port, request, 2000)).text;
          assert.doesNotMatch(answer, /cache-status/i, request);
        }
      }
      assert.ok(calls >= 4, 'each one Fastify routed reached the handler');
    } finally {
      await app.close();
    }
  });

  it('refuses bad options and HTTP/2 at registration, with the reason', async () => {
    const refused = async (app: FastifyInstance, options: FastifyCacheOptions, reason: RegExp) => {
      await assert.rejects(async () => void (await app.register(cache, options)), reason);
      await app.close();
    };
    await refused(Fastify(), { ttl: '1m' }, /app\.register\(cache\) from cachette\/fastify: pass a "store"/);
    await refused(Fastify(), { store, maxVariants: 0 }, /maxVariants must be a positive integer/);
    await refused(Fastify(), { store, ttl: '1m', tll: '2m' } as FastifyCacheOptions, /"tll"/);
    // Fastify's own register options are no cache option, and are not refused.
    const prefixed = Fastify();
    await prefixed.register(cache, { store, ttl: '1m', prefix: '/ignored', logLevel: 'warn' } as FastifyCacheOptions);
    await prefixed.close();
    await refused(Fastify({ http2: true }) as unknown as FastifyInstance, { store }, /HTTP\/2 server is not supported/);
  });

  it('is a named plugin that declares its peer range of Fastify versions, so Fastify refuses it on any other', async () => {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { peerDependencies: Record<string, string> };
    const meta = (cache as unknown as Record<symbol, { name: string; fastify: string }>)[Symbol.for('plugin-meta')]!;
    assert.equal(meta.fastify, manifest.peerDependencies.fastify);
    const app = Fastify();
    await app.register(cache, { store, ttl: '1m' });
    await app.ready();
    assert.equal(app.hasPlugin('cachette'), true);
    await app.close();
  });

  it('closes the engine it opened when the app closes, never a store or cache passed in', async () => {
    const own = memoryStore();
    const passed = createCache({ store: own, closeStore: false });
    const closes = (engine: { close(): Promise<void> }) => {
      const counted = { calls: 0 };
      const close = engine.close.bind(engine);
      engine.close = () => {
        counted.calls++;
        return close();
      };
      return counted;
    };
    const first = Fastify();
    await first.register(cache, { store: own, ttl: '1m' });
    await first.ready();
    const opened = closes(first.cache.httpCache.cache);
    await first.close();
    assert.equal(opened.calls, 1, 'the engine the plugin opened on the store');
    const second = Fastify();
    await second.register(cache, { cache: passed, ttl: '1m' });
    await second.ready();
    const given = closes(passed);
    await second.close();
    assert.equal(given.calls, 0, 'a cache passed in is the caller’s to close');
    await passed.set('still', 'open');
    assert.equal(await passed.get('still'), 'open', 'and the store stays open');
    await passed.close();
    await own.close();
  });
});

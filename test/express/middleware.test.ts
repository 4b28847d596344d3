// cachette/express on real Express 5 apps over loopback HTTP: what Express handlers write
// (json, send, write streaming, sendFile, redirects) is captured and served again; upstream
// headers stay per request; stale-while-revalidate runs in the same pass; and what cannot be
// keyed or finished goes past the cache without hanging anything.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import { connect, Socket, type AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import { afterAll, describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { ResponseCapture } from '../../runtimes/node-http/exchange/capture.ts';
import { cache, type ExpressCacheMiddleware, type ExpressCacheOptions } from '../../runtimes/node-http/express/index.ts';
import { RealResponse } from '../../runtimes/node-http/exchange/real-response.ts';

const store = memoryStore();
afterAll(() => store.close());
let namespaces = 0;
const LICENSE = fileURLToPath(new URL('../../LICENSE', import.meta.url));

interface Running {
  server: Server;
  base: string;
  port: number;
  middleware: ExpressCacheMiddleware;
  get(path: string, init?: RequestInit): Promise<{ status: number; body: string; headers: Headers; cs: string }>;
  close(): Promise<void>;
}

/** Builds an app with `routes`, the cache mounted by `mount`, and serves it on 127.0.0.1. */
async function start(options: Partial<ExpressCacheOptions>, routes: (app: Express, middleware: ExpressCacheMiddleware) => void): Promise<Running> {
  const app = express();
  const middleware = cache({ store, namespace: `express-${namespaces++}`, ...options });
  routes(app, middleware);
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  return {
    server,
    base,
    port,
    middleware,
    async get(path, init) {
      const res = await fetch(base + path, { redirect: 'manual', ...init });
      const body = await res.text();
      await middleware.idle();
      return { status: res.status, body, headers: res.headers, cs: res.headers.get('cache-status') ?? '' };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await middleware.close();
    },
  };
}

/** Sends raw bytes and reads until the server closes the connection. */
async function raw(port: number, request: string): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  socket.write(request);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  await once(socket, 'close');
  return Buffer.concat(chunks).toString('latin1');
}

describe('cachette/express', () => {
  it('captures res.json, res.send, res.write streaming, res.sendFile and redirects, and serves them again', async () => {
    let calls = 0;
    const app = await start({ ttl: '1m' }, (a, m) => {
      a.use('/api', m);
      a.get('/api/json', (_req, res) => void res.json({ n: ++calls }));
      a.get('/api/send', (_req, res) => void res.type('html').send(`<p>${++calls}</p>`));
      a.get('/api/stream', (_req, res) => {
        calls++;
        res.type('text/plain');
        // 1 MiB in 16 KiB writes that respect back-pressure.
        let sent = 0;
        const chunk = Buffer.alloc(16_384, 'x');
        const pump = () => {
          while (sent < 64) {
            sent++;
            if (sent === 64) return void res.end(chunk);
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
        };
        pump();
      });
      a.get('/api/file', (_req, res) => {
        calls++;
        res.sendFile(LICENSE, { headers: { 'cache-control': 'max-age=60' } });
      });
      a.get('/api/old', (_req, res) => {
        calls++;
        res.redirect(301, '/api/json');
      });
    });
    try {
      for (const path of ['/api/json', '/api/send', '/api/stream', '/api/file', '/api/old']) {
        const miss = await app.get(path);
        assert.match(miss.cs, /fwd=uri-miss; fwd-status=(200|301); ttl=\d+; stored/, path);
        const before = calls;
        const hit = await app.get(path);
        assert.match(hit.cs, /; hit/, path);
        assert.equal(hit.body, miss.body, path);
        assert.equal(hit.status, miss.status, path);
        assert.equal(hit.headers.get('content-type'), miss.headers.get('content-type'), path);
        assert.equal(calls, before, `${path}: no handler ran for the hit`);
      }
      assert.equal((await app.get('/api/stream')).body.length, 1 << 20);
      assert.match((await app.get('/api/file')).body, /^MIT License/);
      assert.equal((await app.get('/api/old')).headers.get('location'), '/api/json');
    } finally {
      await app.close();
    }
  });

  it('keys by the full URL under a mount point, so purge takes the URL the client used', async () => {
    let calls = 0;
    const app = await start({ ttl: '1m' }, (a, m) => {
      const router = express.Router();
      router.use(m);
      router.get('/item', (req, res) => void res.send(`${req.baseUrl}${req.url} #${++calls}`));
      a.use('/v1', router);
      a.use('/v2', router);
    });
    try {
      assert.equal((await app.get('/v1/item')).body, '/v1/item #1');
      assert.equal((await app.get('/v2/item')).body, '/v2/item #2', 'another mount point is another URL');
      assert.equal((await app.get('/v1/item')).body, '/v1/item #1');
      assert.equal(await app.middleware.purge({ url: `${app.base}/v1/item` }), 1);
      assert.equal((await app.get('/v1/item')).body, '/v1/item #3');
    } finally {
      await app.close();
    }
  });

  it('sends the headers upstream middleware set with every answer and never stores them; cookies from both sides reach the client', async () => {
    let requests = 0;
    const app = await start({ ttl: '1m' }, (a, m) => {
      a.use((_req, res, next) => {
        res.setHeader('x-request', String(++requests));
        res.append('set-cookie', 'session=s1');
        next();
      });
      a.use(m);
      a.get('/page', (_req, res) => {
        res.setHeader('cache-control', 'max-age=60');
        res.send('page');
      });
      a.get('/login', (_req, res) => {
        res.append('set-cookie', 'seen=1');
        res.send('welcome');
      });
    });
    try {
      const miss = await app.get('/page');
      assert.equal(miss.headers.get('x-request'), '1');
      assert.deepEqual(miss.headers.getSetCookie(), ['session=s1']);
      assert.equal(miss.headers.get('x-powered-by'), 'Express');
      assert.match(miss.cs, /stored/, "the upstream cookie is the request's, so the response may be stored");
      const hit = await app.get('/page');
      assert.match(hit.cs, /; hit/);
      assert.equal(hit.headers.get('x-request'), '2', 'the upstream header of this request, not the stored one');
      assert.deepEqual(hit.headers.getSetCookie(), ['session=s1']);
      const login = await app.get('/login');
      assert.deepEqual(login.headers.getSetCookie(), ['session=s1', 'seen=1'], "both sides' cookies, upstream first");
      assert.doesNotMatch(login.cs, /stored/, 'a response with its own Set-Cookie is not stored');
    } finally {
      await app.close();
    }
  });

  it("answers a client's If-None-Match from the stored copy, and revalidates with Express's own ETag", async () => {
    let now = Math.floor(Date.now() / 1000) * 1000;
    let calls = 0;
    const app = await start({ ttl: '10s', now: () => now }, (a, m) => {
      a.use(m);
      a.get('/doc', (_req, res) => {
        calls++;
        res.json({ doc: 'same' });
      });
    });
    try {
      const first = await app.get('/doc');
      const etag = first.headers.get('etag');
      assert.ok(etag?.startsWith('W/'), "Express's weak ETag");
      // A fetch() client sends Cache-Control: no-cache with validators unless told otherwise.
      const conditional = await app.get('/doc', { headers: { 'if-none-match': etag!, 'cache-control': 'max-age=60' } });
      assert.equal(conditional.status, 304);
      assert.match(conditional.cs, /; hit/);
      now += 30_000;
      const revalidated = await app.get('/doc');
      assert.equal(revalidated.status, 200);
      assert.equal(revalidated.body, '{"doc":"same"}');
      assert.match(revalidated.cs, /fwd=stale; fwd-status=304/, "Express answered the cache's If-None-Match with a 304");
      assert.equal(calls, 2);
    } finally {
      await app.close();
    }
  });

  it('serves a stale response at once and revalidates in the same pass, even when the client closes its connection', async () => {
    let now = Math.floor(Date.now() / 1000) * 1000;
    let version = 1;
    let release: (() => void) | undefined;
    const app = await start({ now: () => now }, (a, m) => {
      a.use(m);
      a.get('/news', async (_req, res) => {
        const current = version;
        if (current > 1) await new Promise<void>((resolve) => (release = resolve));
        res.set('cache-control', 'max-age=10, stale-while-revalidate=600').send(`news v${current}`);
      });
    });
    try {
      assert.equal((await app.get('/news')).body, 'news v1');
      now += 20_000;
      version = 2;
      // The handler is held until after the client was answered: the answer cannot have waited for it.
      const stale = await raw(app.port, `GET /news HTTP/1.1\r\nHost: 127.0.0.1:${app.port}\r\nConnection: close\r\n\r\n`);
      assert.match(stale, /^HTTP\/1\.1 200/);
      assert.match(stale, /cache-status: cachette; hit; ttl=-10\r\n/i);
      assert.match(stale, /news v1$/);
      assert.ok(release, 'the handler is running in the background');
      release!();
      await app.middleware.idle();
      const fresh = await app.get('/news');
      assert.equal(fresh.body, 'news v2');
      assert.match(fresh.cs, /; hit/);
    } finally {
      release?.();
      await app.close();
    }
  });

  it('stores nothing of a response whose piped stream closed before it ended, in the foreground or in the background, and never hangs', async () => {
    let now = Math.floor(Date.now() / 1000) * 1000;
    let calls = 0;
    let breakStream = true;
    const app = await start({ now: () => now }, (a, m) => {
      a.use(m);
      a.get('/piped', (_req, res) => {
        calls++;
        res.set('cache-control', 'max-age=10, stale-while-revalidate=60').type('text/plain');
        const source = new PassThrough();
        source.pipe(res);
        source.write(`part of #${calls}\n`);
        // As send() does when it sees the response finish: the stream is destroyed half way.
        if (breakStream) setImmediate(() => source.destroy());
        else source.end('rest\n');
      });
    });
    try {
      const broken = fetch(`${app.base}/piped`).then((res) => res.text());
      await assert.rejects(broken, 'the client learns the body is incomplete');
      await app.middleware.idle();
      breakStream = false;
      const whole = await app.get('/piped');
      assert.match(whole.cs, /fwd=uri-miss/, 'nothing of the broken response was stored');
      assert.equal(whole.body, 'part of #2\nrest\n');
      now += 20_000;
      breakStream = true;
      const stale = await app.get('/piped');
      assert.equal(stale.body, 'part of #2\nrest\n', 'the stale copy');
      assert.equal(calls, 3, 'the background revalidation ran, and broke');
      breakStream = false;
      const again = await app.get('/piped');
      assert.equal(again.body, 'part of #2\nrest\n', 'still the stale copy: the broken revalidation stored nothing');
      assert.equal(calls, 4, 'and the next stale hit revalidated again');
      assert.equal((await app.get('/piped')).body, 'part of #4\nrest\n');
    } finally {
      await app.close();
    }
  });

  it('revalidates a route that sends a file in the background, or drops that revalidation, and never hangs', async () => {
    let now = Math.floor(Date.now() / 1000) * 1000;
    const app = await start({ now: () => now }, (a, m) => {
      a.use(m);
      a.get('/license', (_req, res) => void res.sendFile(LICENSE, { headers: { 'cache-control': 'max-age=10, stale-while-revalidate=60' } }));
    });
    try {
      await app.get('/license');
      now += 20_000;
      const stale = await app.get('/license');
      assert.match(stale.cs, /; hit; ttl=-10/);
      assert.match(stale.body, /^MIT License/);
      // Whether send() finished its stream before it noticed the stale answer end is a race;
      // either way the next answer is whole, from the store or from the route.
      const next = await app.get('/license');
      assert.equal(next.status, 200);
      assert.match(next.body, /^MIT License[\s\S]*SOFTWARE\.\n$/);
    } finally {
      await app.close();
    }
  });

  it('stores nothing when the client goes away in the middle of a streamed miss, and lets the handler finish', async () => {
    let calls = 0;
    const started: Array<() => void> = [];
    const finishers: Array<() => void> = [];
    const app = await start({ ttl: '1m' }, (a, m) => {
      a.use(m);
      a.get('/slow', async (_req, res) => {
        calls++;
        res.type('text/plain');
        res.write('first part\n');
        await new Promise<void>((resolve) => {
          finishers.push(resolve);
          started.shift()?.();
        });
        res.end('second part\n');
      });
    });
    const handlerWaiting = () => new Promise<void>((resolve) => started.push(resolve));
    try {
      const accepted = once(app.server, 'connection') as Promise<[Socket]>;
      const socket = connect(app.port, '127.0.0.1');
      const [serverSide] = await accepted;
      const waiting = handlerWaiting();
      socket.write(`GET /slow HTTP/1.1\r\nHost: 127.0.0.1:${app.port}\r\n\r\n`);
      await waiting;
      await once(socket, 'data');
      const closed = once(serverSide, 'close');
      socket.destroy();
      await closed;
      finishers.shift()!();
      await app.middleware.idle();
      const waitingAgain = handlerWaiting();
      const next = app.get('/slow');
      await waitingAgain;
      finishers.shift()!();
      const again = await next;
      assert.match(again.cs, /fwd=uri-miss/, 'the abandoned response was not stored');
      assert.equal(again.body, 'first part\nsecond part\n');
      assert.equal(calls, 2);
    } finally {
      for (const finish of finishers) finish();
      await app.close();
    }
  });

  it('lets a handler finish quietly when its client left before it answered, and stores nothing', async () => {
    const errors: unknown[] = [];
    let release: (() => void) | undefined;
    let answered: (() => void) | undefined;
    let calls = 0;
    const app = await start({ ttl: '1m' }, (a, m) => {
      a.use(m);
      a.get('/late', async (_req, res) => {
        calls++;
        if (calls === 1) await new Promise<void>((resolve) => (release = resolve));
        res.json({ calls });
        answered?.();
      });
      a.use((error: unknown, _req: unknown, _res: unknown, next: (error?: unknown) => void) => {
        errors.push(error);
        next(error);
      });
    });
    try {
      const accepted = once(app.server, 'connection') as Promise<[Socket]>;
      const socket = connect(app.port, '127.0.0.1');
      const [serverSide] = await accepted;
      socket.write(`GET /late HTTP/1.1\r\nHost: 127.0.0.1:${app.port}\r\n\r\n`);
      while (!release) await new Promise((resolve) => setImmediate(resolve));
      const closed = once(serverSide, 'close');
      socket.destroy();
      await closed;
      const done = new Promise<void>((resolve) => (answered = resolve));
      release();
      await done;
      await app.middleware.idle();
      assert.deepEqual(errors, [], 'res.json after the client left threw nothing');
      const next = await app.get('/late');
      assert.match(next.cs, /fwd=uri-miss/);
      assert.equal(next.body, '{"calls":2}');
    } finally {
      release?.();
      await app.close();
    }
  });

  it('lets requests it cannot key go past the cache: absolute-form targets, malformed or missing Host', async () => {
    let calls = 0;
    const app = await start({ ttl: '1m' }, (a, m) => {
      a.use(m);
      a.get('/{*path}', (req, res) => void res.send(`${req.url} #${++calls}`));
    });
    try {
      const requests = [
        'GET http://127.0.0.1/x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
        'GET /x HTTP/1.1\r\nHost: evil.example/other\r\nConnection: close\r\n\r\n',
        'GET /x HTTP/1.0\r\n\r\n',
      ];
      for (const request of requests) {
        for (let i = 0; i < 2; i++) {
          const answer = await raw(app.port, request);
          assert.match(answer, /^HTTP\/1\.[01] 200/, request);
          assert.doesNotMatch(answer, /cache-status/i, request);
        }
      }
      assert.equal(calls, 6, 'every one reached the handler');
    } finally {
      await app.close();
    }
  });

  it('answers 502 for a status a cache cannot pass on, and passes handler errors through Express (stale-if-error where allowed)', async () => {
    let now = Math.floor(Date.now() / 1000) * 1000;
    let failing = false;
    const app = await start({ now: () => now }, (a, m) => {
      a.use(m);
      a.get('/odd', (_req, res) => void res.status(999).send('odd'));
      a.get('/flaky', (_req, res) => {
        if (failing) throw new Error('database down');
        res.set('cache-control', 'max-age=10, stale-if-error=600').send('good');
      });
      a.get('/broken', () => {
        throw new Error('always');
      });
    });
    try {
      const odd = await app.get('/odd');
      assert.equal(odd.status, 502);
      assert.match(odd.body, /status 999/);
      assert.equal((await app.get('/flaky')).body, 'good');
      failing = true;
      now += 20_000;
      const rescued = await app.get('/flaky');
      assert.equal(rescued.status, 200);
      assert.equal(rescued.body, 'good');
      assert.match(rescued.cs, /stale-if-error/);
      const broken = await app.get('/broken');
      assert.equal(broken.status, 500, "Express's own error page, passed through and not stored");
      assert.match(broken.cs, /fwd=uri-miss; fwd-status=500/);
    } finally {
      await app.close();
    }
  });

  it('tells the handlers about their own response: headersSent, getHeader, and upstream fields they may read', async () => {
    const seen: unknown[] = [];
    const app = await start({ ttl: '1m' }, (a, m) => {
      a.use((_req, res, next) => {
        res.setHeader('x-upstream', 'yes');
        next();
      });
      a.use(m);
      a.get('/inspect', (_req, res) => {
        seen.push(res.headersSent, res.getHeader('x-upstream'));
        res.setHeader('x-handler', '1');
        seen.push(res.getHeaderNames().includes('x-handler'));
        res.write('a');
        seen.push(res.headersSent);
        assert.throws(() => res.setHeader('x-late', '1'), /Cannot set headers after they are sent/);
        res.end('b');
      });
    });
    try {
      const got = await app.get('/inspect');
      assert.equal(got.body, 'ab');
      assert.equal(got.headers.get('x-handler'), '1');
      assert.deepEqual(seen, [false, 'yes', true, true]);
    } finally {
      await app.close();
    }
  });

  it('works as a plain node:http or Connect middleware, keyed by the Host header', async () => {
    const middleware = cache({ store, namespace: `express-${namespaces++}`, ttl: '1m' });
    let calls = 0;
    const server = createServer((req, res) =>
      middleware(req, res, () => {
        res.setHeader('content-type', 'text/plain');
        res.end(`${req.url} #${++calls}`);
      }),
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      assert.equal(await (await fetch(`${base}/plain?q=1`)).text(), '/plain?q=1 #1');
      await middleware.idle();
      const hit = await fetch(`${base}/plain?q=1`);
      assert.equal(await hit.text(), '/plain?q=1 #1');
      assert.match(hit.headers.get('cache-status') ?? '', /; hit/);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await middleware.close();
    }
  });

  it('sends a request again through the server after a 304 that matches nothing stored, and stores none of its upstream headers', async () => {
    let now = Math.floor(Date.now() / 1000) * 1000;
    let requests = 0;
    const answers = ['first', 'mismatched 304', 'second'];
    const app = await start({ now: () => now }, (a, m) => {
      a.use((_req, res, next) => {
        res.setHeader('x-request', String(++requests));
        next();
      });
      a.use(m);
      a.get('/again', (_req, res) => {
        const answer = answers.shift();
        if (answer === 'mismatched 304') return void res.status(304).set({ etag: '"b"', 'cache-control': 'max-age=10' }).end();
        res.set({ etag: answer === 'first' ? '"a"' : '"c"', 'cache-control': 'max-age=10' }).send(answer);
      });
    });
    try {
      assert.equal((await app.get('/again')).body, 'first');
      now += 20_000;
      const retried = await app.get('/again');
      assert.equal(retried.body, 'second', 'the unconditional request went through the server');
      assert.equal(retried.headers.get('x-request'), '2', "the client's own upstream header");
      assert.match(retried.cs, /stored/);
      const hit = await app.get('/again');
      assert.match(hit.cs, /; hit/);
      assert.equal(hit.headers.get('x-request'), '4', 'the upstream header of the hit, not the one the retry had');
    } finally {
      await app.close();
    }
  });

  it('answers 502 after a 304 that matches nothing stored when the request came through no server to fetch again', async () => {
    let now = Math.floor(Date.now() / 1000) * 1000;
    const middleware = cache({ store, namespace: `express-${namespaces++}`, now: () => now });
    // A request that came through no server (as an in-process test harness makes them): what
    // the middleware answers is read by a capture of its own around the response.
    const invoke = (handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Response> => {
      const req = new IncomingMessage(new Socket());
      Object.assign(req, { method: 'GET', url: '/mismatch', headers: { host: 'in-process.test' }, rawHeaders: ['Host', 'in-process.test'] });
      req.push(null);
      const res = new ServerResponse(req);
      const outer = new ResponseCapture(req, new RealResponse(res), { method: 'GET', abandonOnDisconnect: false });
      outer.install();
      middleware(req, res, () => handler(req, res));
      return outer.response;
    };
    try {
      const first = await invoke((_req, res) => {
        res.writeHead(200, { etag: '"a"', 'cache-control': 'max-age=10' });
        res.end('old');
      });
      assert.equal(await first.text(), 'old');
      await middleware.idle();
      now += 20_000;
      const second = await invoke((req, res) => {
        assert.equal(req.headers['if-none-match'], '"a"', 'the cache revalidates with its validator');
        res.writeHead(304, { etag: '"b"', 'cache-control': 'max-age=10' });
        res.end();
      });
      assert.equal(second.status, 502);
      assert.match(await second.text(), /304 that matches no stored response/);
      assert.match(second.headers.get('cache-status') ?? '', /fwd-status=502/);
    } finally {
      await middleware.close();
    }
  });
});

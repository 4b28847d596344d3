import assert from 'node:assert/strict';
import { Agent, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from '@upstash/redis';
import Valkey from 'iovalkey';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { BINARY_MARKER, decodeValue, encodeValue, upstashStore, type UpstashConnectionOptions, type UpstashStore } from '../../adapters/upstash/index.ts';
import { startBridge, type Bridge } from '../../products/bridge/index.ts';
import { createCache, type Cache } from '../../src/index.ts';
import { StoreRefusedError } from '../../src/store/index.ts';
import { spawnBridge, type BridgeProcess } from '../support/bridge-process.ts';
import { startRedis } from '../support/redis-server.ts';
import { bytes } from '../support/suite-api.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { describeStoreContract } from '../../src/store/testing/index.ts';

// The upstash store over real HTTP: @upstash/redis → the local bridge → redis-server.
describe.runIf(requireRedis())('upstash', () => {
  let bridge: Bridge | undefined;
  afterAll(async () => {
    await bridge?.close();
  });
  const endpoint = async () => {
    bridge ??= await startBridge({ redisUrl: redisUrl! });
    return { url: bridge.url, token: bridge.token };
  };
  const suite = { describe, it, beforeAll, afterAll };
  const withOptions = (extra: Partial<UpstashConnectionOptions>) => async () => upstashStore({ ...(await endpoint()), ...extra });

  describeStoreContract(suite, {
    name: 'upstash',
    open: withOptions({}),
    // What the contract does not cover, on the store it opened, checked by another client.
    additionalTests(context) {
      let direct: Valkey;
      beforeAll(() => {
        direct = new Valkey(redisUrl!);
      });
      afterAll(() => direct.disconnect());

      it('offers an @upstash/redis client on its endpoint for the commands the contract does not cover', async () => {
        await context.store.client.hset(context.key('h'), { f: 'v' });
        assert.equal(await direct.hget(context.key('h'), 'f'), 'v');
        assert.equal(context.store.client, context.store.client, 'built once');
      });
    },
  });
  describeStoreContract(suite, { name: 'upstash-no-autopipeline', open: withOptions({ autoPipelining: false }) });
  // A client built with the SDK's defaults (base64 replies decoded as UTF-8, then JSON-parsed):
  // the value encoding must survive both.
  describeStoreContract(suite, {
    name: 'upstash-sdk-defaults',
    open: async () => upstashStore(new Redis({ ...(await endpoint()), enableTelemetry: false })),
  });
});

// What the contract does not cover: the text encoding of values, option checks, what the
// server really holds, and how many HTTP requests each call makes.
describe('upstash value encoding', () => {
  it('keeps decimal integers as their digits, so INCRBY works on them', () => {
    for (const n of ['0', '42', '-8', '007', '-0', '123456789012345678901234567890']) assert.equal(encodeValue(bytes(n)), n);
  });

  it('stores everything else as the marker and base64', () => {
    for (const text of ['', '-', '--1', '1-', '1.5', ' 1', 'abc', '~', 'null', 'true']) {
      const stored = encodeValue(bytes(text));
      assert.ok(stored.startsWith(BINARY_MARKER), text);
      assert.deepEqual(decodeValue(stored), bytes(text), text);
    }
    const all = new Uint8Array(256).map((_, i) => i);
    assert.equal(encodeValue(all), BINARY_MARKER + Buffer.from(all).toString('base64'));
    assert.deepEqual([...decodeValue(encodeValue(all))!], [...all]);
  });

  it('reads nil as a miss and a number (from a JSON-parsing client) as its digits', () => {
    assert.equal(decodeValue(null), undefined);
    assert.equal(decodeValue(undefined), undefined);
    assert.deepEqual(decodeValue(-12), bytes('-12'));
  });

  it('reads text it did not write as UTF-8', () => {
    assert.deepEqual(decodeValue('héllo'), bytes('héllo'));
  });

  it('refuses a marked value that is not base64, and a reply that is not a string', () => {
    assert.throws(() => decodeValue(`${BINARY_MARKER}no base64!`));
    assert.throws(() => decodeValue(`${BINARY_MARKER}QUJD=`));
    assert.throws(() => decodeValue({ a: 1 }), /unexpected reply of type object/);
  });
});

describe('upstash store options', () => {
  it('refuses a missing or non-http URL, an empty token and bad retries', () => {
    assert.throws(() => upstashStore({ url: '', token: 't' }), /"url" must be an http\(s\) URL/);
    assert.throws(() => upstashStore({ url: 'redis://127.0.0.1:6379', token: 't' }), /"url" must be an http\(s\) URL/);
    assert.throws(() => upstashStore({ url: 'http://127.0.0.1:1', token: '' }), /"token" must be a non-empty string/);
    assert.throws(() => upstashStore({ url: 'http://127.0.0.1:1', token: 't', retries: -1 }), /"retries" must be a non-negative integer/);
    assert.throws(() => upstashStore(undefined as never), /"url" must be an http\(s\) URL/);
  });

  it('fails a call quickly with a clear error when nothing answers', async () => {
    const store = upstashStore({ url: 'http://127.0.0.1:1', token: 't', retries: 0 });
    await assert.rejects(store.get('k'), /fetch failed/);
  });
});

describe.runIf(requireRedis())('upstash store on the server', () => {
  let bridge: Bridge;
  let store: UpstashStore;
  let direct: Valkey;
  const run = `upstash-store:${Date.now().toString(36)}:`;
  let requests = 0;
  const realFetch = globalThis.fetch;

  beforeAll(async () => {
    bridge = await startBridge({ redisUrl: redisUrl! });
    store = upstashStore({ url: bridge.url, token: bridge.token });
    direct = new Valkey(redisUrl!);
    // Observe (not replace) the requests the SDK makes, to prove one request per call.
    globalThis.fetch = (input, init) => {
      if (String(input instanceof Request ? input.url : input).startsWith(bridge.url)) requests++;
      return realFetch(input, init);
    };
  });
  afterAll(async () => {
    globalThis.fetch = realFetch;
    await store.clear(run);
    await store.close();
    direct.disconnect();
    await bridge.close();
  });

  it('keeps counters as plain decimals and everything else as ~base64 on the server', async () => {
    await store.incr(run + 'c', 12);
    await store.set(run + 'v', new Uint8Array([0, 1, 255]));
    assert.equal(await direct.get(run + 'c'), '12');
    assert.equal(await direct.get(run + 'v'), '~AAH/');
  });

  it('reads a value another client wrote as plain text', async () => {
    await direct.set(run + 'foreign', 'plain ✓');
    assert.deepEqual(await store.get(run + 'foreign'), bytes('plain ✓'));
  });

  it('makes exactly one HTTP request per call', async () => {
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['get', () => store.get(run + 'a')],
      ['getMany', () => store.getMany([run + 'a', run + 'b', run + 'c'])],
      ['set', () => store.set(run + 'a', bytes('x'), 60_000)],
      [
        'setMany without TTLs',
        () =>
          store.setMany([
            { key: run + 'a', value: bytes('1') },
            { key: run + 'b', value: bytes('2') },
          ]),
      ],
      [
        'setMany with TTLs',
        () =>
          store.setMany([
            { key: run + 'a', value: bytes('1'), ttlMs: 60_000 },
            { key: run + 'b', value: bytes('2') },
          ]),
      ],
      ['incr', () => store.incr(run + 'n', 1)],
      ['incr with a TTL', () => store.incr(run + 'n', 1, 60_000)],
      ['add', () => store.add(run + 'lease', bytes('t'), 60_000)],
      ['compareAndDelete', () => store.compareAndDelete(run + 'lease', bytes('t'))],
      ['delete', () => store.delete([run + 'a', run + 'b'])],
    ];
    for (const [name, call] of calls) {
      const before = requests;
      await call();
      assert.equal(requests - before, 1, name);
    }
  });

  it('merges the calls made in one tick into one request, run in the order they were made', async () => {
    let before = requests;
    const got = await Promise.all([store.get(run + 'c'), store.get(run + 'v'), store.getMany([run + 'v', run + 'absent'])]);
    assert.deepEqual(
      got.flat().map((g) => (g ? [...g] : g)),
      [[...bytes('12')], [0, 1, 255], [0, 1, 255], undefined],
    );
    assert.equal(requests - before, 1);
    // Reads and writes share the request, in order: the read after the write sees it.
    before = requests;
    const [first, second, , read] = await Promise.all([store.incr(run + 'c', 1), store.incr(run + 'c', 1), store.set(run + 'w', bytes('w')), store.get(run + 'w')]);
    assert.deepEqual([first, second, [...read!]], [13, 14, [...bytes('w')]]);
    assert.equal(requests - before, 1);
  });

  it('a command the server refuses fails its own call only; the others of its request succeed', async () => {
    await direct.hset(run + 'hash', 'f', 'v');
    const [refused, fine] = await Promise.allSettled([store.get(run + 'hash'), store.get(run + 'c')]);
    assert.equal(refused.status, 'rejected');
    assert.ok((refused as PromiseRejectedResult).reason instanceof StoreRefusedError, String((refused as PromiseRejectedResult).reason));
    assert.match(String((refused as PromiseRejectedResult).reason), /WRONGTYPE/);
    assert.deepEqual([...(fine as PromiseFulfilledResult<Uint8Array>).value], [...bytes('14')]);
  });

  it('runs a script from its source once, then by SHA-1, and again from its source when the server forgot it', { timeout: 60_000 }, async () => {
    const bodies: string[] = [];
    const observe = globalThis.fetch;
    globalThis.fetch = (input, init) => {
      if (typeof init?.body === 'string') bodies.push(init.body);
      return observe(input, init);
    };
    // A server of its own: SCRIPT FLUSH would pull scripts from under the other files' stores.
    const own = await startRedis();
    const ownBridge = await startBridge({ redisUrl: own.url });
    try {
      const fresh = upstashStore({ url: ownBridge.url, token: ownBridge.token });
      const first = (from: number) => bodies.slice(from).map((b) => (JSON.parse(b) as string[][])[0]![0]);
      await fresh.incr('t1', 1, 60_000);
      assert.deepEqual(first(0), ['eval'], 'the source, the first time');
      // The SHA-1 is computed in the background (Web Crypto is asynchronous): from the call after
      // it is known on, the source no longer travels. Bounded: a few hundred calls at most.
      for (let i = 0; i < 300 && !first(1).includes('evalsha'); i++) await fresh.incr('t2', 1, 60_000);
      const known = first(1);
      assert.equal(known.at(-1), 'evalsha');
      assert.ok(known.slice(0, -1).every((name) => name === 'eval'));
      const admin = new Valkey(own.url);
      await admin.script('FLUSH');
      admin.disconnect();
      const mark = bodies.length;
      assert.equal(await fresh.incr('t3', 1, 60_000), 1);
      await fresh.incr('t4', 1, 60_000);
      assert.deepEqual(first(mark), ['evalsha', 'eval', 'evalsha'], 'NOSCRIPT: that call again from the source, then by SHA-1 again');
    } finally {
      globalThis.fetch = observe;
      await ownBridge.close();
      await own.stop();
    }
  });
});

/** An HTTP hop in front of the bridge that counts the requests passing through it (and forwards them unchanged). */
async function countingHop(target: string): Promise<{ url: string; requests(): number; bodies: string[]; close(): Promise<void> }> {
  const to = new URL(target);
  const agent = new Agent({ keepAlive: true });
  let requests = 0;
  const bodies: string[] = [];
  const hop = createServer((req, res) => {
    requests++;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      bodies.push(body.toString('utf8'));
      const forward = httpRequest({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers, agent }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.on('error', (error) => res.destroy(error));
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => hop.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(hop.address() as AddressInfo).port}`,
    requests: () => requests,
    bodies,
    close: async () => {
      agent.destroy();
      await new Promise((resolve) => hop.close(resolve));
    },
  };
}

// What a tick of the engine's calls costs over HTTP: one request, whatever the calls are. The
// bridge runs in its own process and every request to it is counted on the way (nothing mocked).
describe.runIf(requireRedis())('upstash: one HTTP request per tick through the cache', () => {
  let bridge: BridgeProcess;
  let hop: Awaited<ReturnType<typeof countingHop>>;
  let store: UpstashStore;
  let cache: Cache;
  const namespace = `upstash-tick-${Date.now().toString(36)}`;
  const N = 50;
  const keys = Array.from({ length: N }, (_, i) => `k${i}`);

  beforeAll(async () => {
    bridge = await spawnBridge(redisUrl!);
    hop = await countingHop(bridge.url);
    store = upstashStore({ url: hop.url, token: bridge.token });
    cache = createCache({ store, namespace });
    await cache.setMany(keys.map((key, i) => ({ key, value: { i } })));
    await Promise.all(keys.map((key, i) => cache.getOrSet(`tagged:${key}`, () => ({ i }), { tags: ['t'] })));
    // The fills' own writes and lease releases run in the background: none may land in a phase below.
    await cache.idle();
  }, 60_000);
  afterAll(async () => {
    await cache?.clear();
    await cache?.close();
    await hop?.close();
    await bridge?.stop();
  });

  /** Requests that reached the bridge while `calls` ran (all issued in one tick). */
  const requestsFor = async (calls: () => Array<Promise<unknown>>): Promise<number> => {
    const before = hop.requests();
    await Promise.all(calls());
    if (process.env.DEBUG_HOP) console.log(hop.bodies.slice(before).map((b) => b.slice(0, 200)));
    return hop.requests() - before;
  };

  const phases: Array<[string, () => Array<Promise<unknown>>]> = [
    ['get', () => keys.map((key) => cache.get(key))],
    ['getMany', () => keys.map((_, i) => cache.getMany(keys.slice(i, i + 10)))],
    ['set', () => keys.map((key, i) => cache.set(key, { i }))],
    [
      'setMany',
      () =>
        keys.map((key, i) =>
          cache.setMany([
            { key, value: { i } },
            { key: `${key}:b`, value: { i }, ttl: '1m' },
          ]),
        ),
    ],
    ['incr', () => keys.map((key) => cache.incr(`n:${key}`))],
    ['incr with a TTL', () => keys.map((key) => cache.incr(`nt:${key}`, 1, { ttl: '1m' }))],
    ['delete', () => keys.map((key) => cache.delete(`${key}:b`))],
    ['tagged reads', () => keys.map((key, i) => cache.getOrSet(`tagged:${key}`, () => ({ i }), { tags: ['t'] }))],
    [
      'a tick of everything',
      () => [cache.get('k1'), cache.getMany(['k2', 'k3']), cache.set('k4', { i: 4 }), cache.incr('n:mixed'), cache.delete('gone'), cache.getOrSet('tagged:k5', () => ({ i: 5 }), { tags: ['t'] })],
    ],
  ];
  for (const [name, calls] of phases) {
    it(`${name}: ${N} calls in one tick are one request`, async () => {
      assert.equal(await requestsFor(calls), 1);
    });
  }

  it('the values survive the trip: each caller gets its own slot of the shared reply', async () => {
    const got = await Promise.all([cache.get<{ i: number }>('k7'), cache.getMany<{ i: number }>(['k8', 'absent', 'k9']), cache.incr('n:slots'), cache.incr('n:slots')]);
    assert.deepEqual(got, [{ i: 7 }, [{ i: 8 }, undefined, { i: 9 }], 1, 2]);
  });
});

// The store's own REST client against an endpoint that answers badly: every answer is hostile
// until checked (a plain HTTP server on loopback stands in for a broken or foreign endpoint).
describe('upstash REST client: what the endpoint answers is checked', () => {
  type Answer = (body: string, headers: Record<string, string | string[] | undefined>, res: import('node:http').ServerResponse, req: import('node:http').IncomingMessage) => void;
  const withEndpoint = async (answer: Answer, run: (url: string) => Promise<void>) => {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => answer(Buffer.concat(chunks).toString('utf8'), req.headers, res, req));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  };
  const json = (res: import('node:http').ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };

  it('an HTTP error carries the status and the message the endpoint gave', async () => {
    await withEndpoint(
      (_, __, res) => json(res, 401, { error: 'Unauthorized' }),
      async (url) => {
        await assert.rejects(upstashStore({ url, token: 'bad' }).get('k'), (e: Error) => !(e instanceof StoreRefusedError) && /^upstash: HTTP 401: Unauthorized$/.test(e.message));
      },
    );
  });

  it('refuses an answer that is not JSON, or not one reply per command', async () => {
    await withEndpoint(
      (_, __, res) => json(res, 200, '<html>proxy error</html>'),
      async (url) => {
        await assert.rejects(upstashStore({ url, token: 't' }).get('k'), /not JSON: <html>proxy error/);
      },
    );
    for (const body of [[], [{ result: 1 }, { result: 2 }], { result: 'OK' }, [42], [{ error: 7 }]]) {
      await withEndpoint(
        (_, __, res) => json(res, 200, body),
        async (url) => {
          await assert.rejects(upstashStore({ url, token: 't' }).get('k'), /expected 1 replies/, JSON.stringify(body));
        },
      );
    }
  });

  it('retries a request the network dropped, and sends the sync token of the last answer (read-your-writes)', async () => {
    let seen = 0;
    const tokens: Array<string | undefined> = [];
    await withEndpoint(
      (_, headers, res, req) => {
        seen++;
        // The first request's connection is dropped before any answer.
        if (seen === 1) return void req.socket.destroy();
        tokens.push(headers['upstash-sync-token'] as string | undefined);
        json(res, 200, [{ result: null }], { 'upstash-sync-token': `token-${seen}` });
      },
      async (url) => {
        const store = upstashStore({ url, token: 't', retries: 1 });
        assert.equal(await store.get('a'), undefined);
        assert.equal(await store.get('b'), undefined);
        assert.equal(seen, 3, 'one dropped request, its retry, and the next call');
        assert.deepEqual(tokens, [undefined, 'token-2']);
      },
    );
  });
});

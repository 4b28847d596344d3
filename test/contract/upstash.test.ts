import assert from 'node:assert/strict';
import { Redis } from '@upstash/redis';
import Valkey from 'iovalkey';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { BINARY_MARKER, decodeValue, encodeValue, upstashStore, type UpstashConnectionOptions, type UpstashStore } from '../../adapters/upstash/index.ts';
import { startBridge, type Bridge } from '../../runtimes/node/bridge/index.ts';
import { bytes } from '../support/suite-api.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { storeContract } from './store-contract.ts';

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

  storeContract(suite, { name: 'upstash', open: withOptions({}) });
  storeContract(suite, { name: 'upstash-no-autopipeline', open: withOptions({ autoPipelining: false }) });
  // A client built with the SDK's defaults (base64 replies decoded as UTF-8, then JSON-parsed):
  // the value encoding must survive both.
  storeContract(suite, {
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

  it('merges the reads made in one tick into one request, and the writes into one (auto-pipelining)', async () => {
    let before = requests;
    const got = await Promise.all([store.get(run + 'c'), store.get(run + 'v'), store.getMany([run + 'v', run + 'absent'])]);
    assert.deepEqual(
      got.flat().map((g) => (g ? [...g] : g)),
      [[...bytes('12')], [0, 1, 255], [0, 1, 255], undefined],
    );
    assert.equal(requests - before, 1);
    // The SDK keeps reads and writes in separate pipelines, so only awaited calls are ordered —
    // as with any two HTTP requests in flight at once.
    before = requests;
    assert.deepEqual(await Promise.all([store.incr(run + 'c', 1), store.incr(run + 'c', 1), store.set(run + 'w', bytes('w'))]), [13, 14, undefined]);
    assert.equal(requests - before, 1);
  });
});

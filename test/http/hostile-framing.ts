/**
 * Stored entries whose framing lies (issue 23, item 4), planted where an attacker with access to
 * the store would put them, and the check every binding that writes bytes must pass: over one
 * keep-alive connection, the planted entry is a corrupt miss answered by the origin, and the
 * request after it gets its own response, not one forged inside the stored body.
 */
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { memoryStore } from '../../adapters/memory/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache } from '../../src/cache/create-cache.ts';
import type { Store } from '../../src/store/types.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { pipelinedGets, wireHeader } from './wire.ts';

const encoder = new TextEncoder();

/** A complete response an attacker hides in a stored body, for the connection's next request. */
const FORGED = 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 25\r\n\r\n<script>alert(1)</script>';

type Entry = Record<string, unknown> & { headers: Array<[string, string]>; body: Uint8Array };

/** What a planted entry changes in a sound one. */
export const HOSTILE_ENTRIES: ReadonlyArray<readonly [what: string, plant: (sound: Entry) => Entry]> = [
  ['a content-length shorter than the body, with a forged response after it', (e) => ({ ...e, headers: [...e.headers, ['content-length', '2']], body: encoder.encode(`ok${FORGED}`) })],
  ['a content-length longer than the body', (e) => ({ ...e, headers: [...e.headers, ['content-length', String(e.body.byteLength + 40)]] })],
  ['two content-lengths', (e) => ({ ...e, headers: [...e.headers, ['content-length', String(e.body.byteLength)], ['content-length', String(e.body.byteLength)]] })],
  ['a content-length that is no number', (e) => ({ ...e, headers: [...e.headers, ['content-length', `${e.body.byteLength}, 2`]] })],
  ['an upper-case Content-Length', (e) => ({ ...e, headers: [...e.headers, ['Content-Length', '2']], body: encoder.encode(`ok${FORGED}`) })],
  ['transfer-encoding: chunked over a body that ends early', (e) => ({ ...e, headers: [...e.headers, ['transfer-encoding', 'chunked']], body: encoder.encode(`2\r\nok\r\n0\r\n\r\n${FORGED}`) })],
  ['transfer-encoding: gzip', (e) => ({ ...e, headers: [...e.headers, ['transfer-encoding', 'gzip']], body: encoder.encode(`ok${FORGED}`) })],
  ['connection: close', (e) => ({ ...e, headers: [...e.headers, ['connection', 'close']] })],
  [
    'keep-alive, upgrade, trailer, te and proxy-connection',
    (e) => ({ ...e, headers: [...e.headers, ['keep-alive', 'timeout=1'], ['upgrade', 'h2c'], ['trailer', 'x-t'], ['te', 'trailers'], ['proxy-connection', 'close']] }),
  ],
];

/** How to reach one binding over raw sockets, and where its entries live. */
export interface FramingTarget {
  port: number;
  /** The Host the requests carry. */
  host: string;
  store: Store;
  /** The engine namespace the binding's HTTP cache uses. */
  namespace: string;
  /** Waits for the binding's background store writes. */
  idle(): Promise<void>;
  /** Origin calls so far for `path`. */
  originCalls(path: string): number;
}

/**
 * Stores `/framed` through the binding, replaces the entry by each hostile one in turn, and
 * checks that a client on a keep-alive connection gets the origin's `/framed` and then its own
 * `/innocent`, never a forged or truncated answer.
 */
export async function expectStoredFramingIgnored(target: FramingTarget): Promise<void> {
  const engine = createCache({ store: target.store, namespace: target.namespace, compression: false, closeStore: false });
  const key = `u:http://${target.host}/framed`;
  try {
    await pipelinedGets(target.port, target.host, ['/framed']);
    await target.idle();
    const sound = await engine.get<Entry>(key);
    assert.ok(sound && Array.isArray(sound.headers), 'the binding stored /framed');
    assert.equal(
      sound.headers.find(([name]) => name === 'content-length'),
      undefined,
      'no framing field is ever stored: the writer derives the length from the body',
    );
    for (const [what, plant] of HOSTILE_ENTRIES) {
      await engine.set(key, plant(sound), { ttl: 60_000 });
      const calls = target.originCalls('/framed');
      const { responses, rest } = await pipelinedGets(target.port, target.host, ['/framed', '/innocent']);
      await target.idle();
      assert.equal(responses.length, 2, `${what}: two answers on one connection, got ${JSON.stringify(responses.map((r) => r.body))} and ${JSON.stringify(rest.slice(0, 120))}`);
      const [framed, innocent] = responses as [(typeof responses)[0], (typeof responses)[0]];
      assert.equal(framed.status, 200, what);
      assert.equal(framed.body, 'body of /framed', `${what}: answered by the origin`);
      assert.match(wireHeader(framed, 'cache-status') ?? '', /fwd=uri-miss/, `${what}: a corrupt miss`);
      assert.equal(target.originCalls('/framed'), calls + 1, what);
      assert.equal(innocent.body, 'body of /innocent', `${what}: the next request got its own response`);
      assert.equal(rest, '', `${what}: nothing left over on the connection`);
    }
    // The origin's answer replaced the last planted entry, and is served with a length of its own.
    const { responses } = await pipelinedGets(target.port, target.host, ['/framed', '/framed']);
    assert.deepEqual(
      responses.map((r) => [r.body, wireHeader(r, 'content-length'), /hit/.test(wireHeader(r, 'cache-status') ?? '')]),
      [
        ['body of /framed', '15', true],
        ['body of /framed', '15', true],
      ],
    );
  } finally {
    await engine.close();
  }
}

/** Declares `check` as one test on a memory store and one on Valkey (when a server is there). */
export function onEveryStore(check: (store: Store) => Promise<void>): void {
  it('memory store', async () => {
    const store = memoryStore();
    await check(store);
    await store.close();
  });
  describe.runIf(requireRedis())('valkey store', () => {
    let store: Store;
    beforeAll(() => {
      store = valkeyStore(redisUrl!);
    });
    afterAll(() => store.close());
    it('valkey store', () => check(store));
  });
}

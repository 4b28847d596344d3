// The bun-redis store on Bun: the store contract unchanged, then what is particular to it.
// `bun test ./test/runtimes/bun/bun-redis.bun.ts` (REDIS_URL names the server; scripts/test sets it).
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'bun:test';
import { bunRedisStore, hasBunRedisClient, type BunRedisClient } from '../../../adapters/bun-redis/index.ts';
import { valkeyStore } from '../../../adapters/valkey/index.ts';
import { createCache } from '../../../src/index.ts';
import { StoreRefusedError, StoreUnavailableError } from '../../../src/store/index.ts';
import { describeStoreContract } from '../../../src/store/testing/index.ts';
import { startRedis, type RedisServer } from '../../support/redis-server.ts';
import { bytes, sleep, text } from '../../support/suite-api.ts';

const url = process.env.REDIS_URL;
if (!url) throw new Error('REDIS_URL is needed: scripts/test starts a redis-server and sets it');

// The store contract, and inside it what is particular to this store about the one it opened.
describeStoreContract(
  { describe, it, beforeAll, afterAll },
  {
    name: 'bun-redis',
    open: () => bunRedisStore(url),
    additionalTests(context) {
      it('is available on Bun', () => {
        assert.equal(hasBunRedisClient(), true);
      });

      it('declares what the valkey store declares for the same server: ordered calls, the same compression threshold', async () => {
        const io = valkeyStore(url);
        try {
          assert.equal(context.store.ordered, true);
          assert.equal(context.store.compressionThreshold, io.compressionThreshold);
          assert.equal(context.store.address, new URL(url).protocol + '//' + new URL(url).host);
        } finally {
          await io.close();
        }
      });
    },
  },
);

describe('bun-redis store on Bun', () => {
  const run = `bun-redis:${Date.now().toString(36)}:`;

  it('reads what the valkey store (iovalkey) wrote, byte for byte, and the other way round', async () => {
    const bun = bunRedisStore(url);
    const io = valkeyStore(url);
    try {
      const all = new Uint8Array(256).map((_, i) => i);
      const reversed = all.slice().reverse();
      await io.set(`${run}from-io`, all);
      await bun.set(`${run}from-bun`, reversed);
      assert.deepEqual([...((await bun.get(`${run}from-io`)) ?? [])], [...all]);
      assert.deepEqual([...((await io.get(`${run}from-bun`)) ?? [])], [...reversed]);
      const many = await bun.getMany([`${run}from-io`, `${run}absent`, `${run}from-bun`]);
      assert.deepEqual(
        many.map((v) => v && v.length),
        [256, undefined, 256],
      );
      assert.equal(await io.incr(`${run}counter`, 2), 2);
      assert.equal(await bun.incr(`${run}counter`, 3), 5, 'counters are the same plain integers for both');
      await bun.clear(run);
    } finally {
      await bun.close();
      await io.close();
    }
  });

  it('serves a cache: get, getMany, set and incr through createCache fold onto it', async () => {
    const store = bunRedisStore(url);
    const cache = createCache({ store, namespace: `${run}cache` });
    try {
      const value = { at: new Date(0), tags: new Set(['a']), big: 'x'.repeat(5000) };
      assert.equal(await cache.set('v', value), true);
      const [got, missing] = await Promise.all([cache.get('v'), cache.get('nothing')]);
      assert.deepEqual(got, value);
      assert.equal(missing, undefined);
      // Array.from: the engine's getMany leaves a miss as a hole of the array, which strict deepEqual tells from undefined.
      assert.deepEqual(Array.from(await cache.getMany(['v', 'nothing'])), [value, undefined]);
      assert.equal(await cache.incr('n'), 1);
    } finally {
      await store.clear(run);
      await cache.close(); // closes the store it was given
    }
  });

  it('an error reply about the command is a StoreRefusedError, and leaves the cache healthy', async () => {
    const store = bunRedisStore(url);
    const cache = createCache({ store, namespace: `${run}refused` });
    try {
      await store.set(`${run}text`, bytes('not a number'));
      await assert.rejects(store.incr(`${run}text`, 1), (e: Error) => e instanceof StoreRefusedError && /not an integer/.test(e.message));
      await assert.rejects(store.incr(`${run}text`, 1, 5000), (e: Error) => e instanceof StoreRefusedError, 'the scripted incr with a TTL too');
      await cache.set('fine', 1);
      assert.equal(await cache.get('fine'), 1, 'the store still serves');
    } finally {
      await store.clear(run);
      await cache.close(); // closes the store it was given
    }
  });

  it('refuses a URL it cannot open and something that is not a client', () => {
    for (const bad of ['localhost:6379', 'http://127.0.0.1:6379', 'redis://', 'not a url']) {
      assert.throws(
        () => bunRedisStore(bad),
        (e: Error) => e instanceof TypeError && /redis:\/\/, rediss:\/\/, valkey:\/\/ or valkeys:\/\/ URL/.test(e.message),
        bad,
      );
    }
    assert.throws(() => bunRedisStore({ connection: {} as BunRedisClient }), /must be a redis:\/\/ URL or a Bun.RedisClient/);
  });

  it('leaves a client passed in open, and refuses calls once closed', async () => {
    const own = bunRedisStore(url);
    await own.set(`${run}owned`, bytes('1'));
    const borrowed = bunRedisStore({ connection: own.client });
    assert.equal(text(await borrowed.get(`${run}owned`)), '1');
    await borrowed.close();
    assert.equal(text(await own.get(`${run}owned`)), '1', 'the owner still uses its client');
    await own.delete([`${run}owned`]);
    await own.close();
    await assert.rejects(own.get(`${run}owned`), /the store is closed/);
  });

  describe('while its server is away', () => {
    let server: RedisServer;
    beforeAll(async () => {
      server = await startRedis({ bin: process.env.REDIS_SERVER_BIN || undefined });
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('rejects calls naming the server instead of queueing them, then recovers by itself', async () => {
      const store = bunRedisStore(server.url);
      try {
        await store.set('k', bytes('before'));
        await server.stop();
        // The first call after the drop may fail with Bun's own "connection closed"; every
        // call after that fails at once with the store's error naming the server.
        await assert.rejects(store.get('k'));
        await assert.rejects(store.get('k'), (e: Error) => e instanceof StoreUnavailableError && e.message.includes(`cannot reach redis://127.0.0.1:${server.port}`));
        await assert.rejects(store.set('k', bytes('lost')), /cannot reach/);
        server = await startRedis({ bin: process.env.REDIS_SERVER_BIN || undefined, port: server.port });
        // Reconnection waits out a pause of at most 2 s: poll, bounded.
        let value: string | undefined = 'unreachable';
        for (let attempt = 0; attempt < 60 && value === 'unreachable'; attempt++) {
          value = await store.get('k').then(text, () => 'unreachable');
          if (value === 'unreachable') await sleep(100);
        }
        assert.equal(value, undefined, 'reconnected to the restarted (empty) server');
        await store.set('k', bytes('after'));
        assert.equal(text(await store.get('k')), 'after');
      } finally {
        await store.close();
      }
    });
  });
});

/**
 * Issue 30, item 4: a node-redis 5 client passed to valkeyStore, as an iovalkey one is — the
 * store contract over it (the store's commands through the client's sendCommand, CLIENT TRACKING
 * on its connection with the store's own subscriber), what the client sees of the store's
 * writes, and the client it refuses: one with node-redis's own client-side cache.
 */
import assert from 'node:assert/strict';
import { createClient, type RedisClientType } from 'redis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { valkeyStore, type ValkeyStore } from '../../adapters/valkey/index.ts';
import { createCache } from '../../src/index.ts';
import { describeStoreContract, type StoreTestContext } from '../../src/store/testing/index.ts';
import { uniqueNamespace } from '../cache/targets.ts';
import { eventually } from '../support/eventually.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { bytes, text } from '../support/suite-api.ts';
import { CountingStore } from '../support/wrapped-stores.ts';

const clients: RedisClientType[] = [];
/** A connected node-redis client on the test server, closed after the file. */
async function connected(options: Parameters<typeof createClient>[0] = {}): Promise<RedisClientType> {
  const client = createClient({ url: redisUrl!, ...options }) as RedisClientType;
  client.on('error', () => {});
  clients.push(client);
  await client.connect();
  return client;
}

describe.runIf(requireRedis())('valkey (node-redis client)', () => {
  let client: RedisClientType;
  beforeAll(async () => {
    client = await connected();
  });
  afterAll(async () => {
    for (const c of clients) if (c.isOpen) await c.close();
  });

  describeStoreContract(
    { describe, it, beforeAll, afterAll },
    {
      name: 'valkey (node-redis client)',
      open: () => valkeyStore({ connection: client }),
      additionalTests: (context: StoreTestContext<ValkeyStore<RedisClientType>>) => {
        context.runner.it('offers store.client (the node-redis client), which sees what the store wrote, and the store what it writes', async () => {
          const key = context.key('through-node-redis');
          await context.store.set(key, bytes('written by the store'), 60_000);
          assert.equal(await context.store.client.get(key), 'written by the store');
          const ttl = await context.store.client.pTTL(key);
          assert.ok(ttl > 0 && ttl <= 60_000, `pttl ${ttl}`);
          await context.store.client.set(key, 'written by the client');
          assert.equal(text(await context.store.get(key)), 'written by the client');
        });
      },
    },
  );

  it('keeps values as bytes through the client (not decoded as UTF-8)', async () => {
    const store = valkeyStore({ connection: client });
    const key = `node-redis-bytes-${process.pid}`;
    const value = new Uint8Array([0xff, 0xfe, 0x00, 0x80, 0xc3]);
    await store.set(key, value, 60_000);
    assert.deepEqual([...((await store.get(key)) ?? [])], [...value]);
    await store.close();
    assert.ok(client.isOpen, 'closing the store leaves the client open: its owner closes it');
  });

  it('runs an L1 in tracking mode: hits from memory, evicted by the server’s invalidation (CLIENT TRACKING on the client’s connection)', async () => {
    const namespace = uniqueNamespace('nrtrk');
    const counting = new CountingStore(valkeyStore({ connection: client }));
    const tracked = createCache({ store: counting, namespace, l1: { consistency: 'tracking' } });
    const other = createCache({ store: valkeyStore(redisUrl!), namespace });
    const fromMemory = async (key: string) => {
      await tracked.get(key);
      counting.reset();
      await tracked.get(key);
      return counting.calls.length === 0;
    };
    try {
      await other.set('hot', 'v1');
      await eventually(() => fromMemory('hot'), 'tracking live and the copy kept');
      await other.set('hot', 'v2');
      await eventually(async () => (await tracked.get('hot')) === 'v2', 'the invalidation evicted the copy');
    } finally {
      await tracked.clear();
      await tracked.close();
      await other.close();
    }
    assert.ok(client.isOpen, 'the client outlives the cache over it');
  });

  it('refuses a client with its own client-side cache, saying why', async () => {
    const cached = createClient({ url: redisUrl!, RESP: 3, clientSideCache: { ttl: 0, maxEntries: 0 } });
    assert.throws(() => valkeyStore({ connection: cached }), /clientSideCache/);
  });

  it('fails calls at once while the client is not open', async () => {
    const closed = createClient({ url: redisUrl! }) as RedisClientType;
    const store = valkeyStore({ connection: closed });
    await assert.rejects(store.get('k'), /not open/);
    await store.close();
  });
});

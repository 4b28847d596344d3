// The coherent L1 on Bun over the bun-redis store (issue 28): two processes' connections, as in
// test/cache/l1-coherent.test.ts, and its faults, as in test/cache/l1-coherent-faults.test.ts:
// the bus connection killed, the store's connection killed, the server restarted. No read that
// starts after a write returned gets the value from before it; no error reaches a caller.
// `bun test ./test/runtimes/bun/coherent.bun.ts` (REDIS_URL names the server; scripts/test sets it).
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'bun:test';
import { bunRedisStore } from '../../../adapters/bun-redis/index.ts';
import { valkeyStore } from '../../../adapters/valkey/index.ts';
import { createCache, type Cache, type Store } from '../../../src/index.ts';
import { startRedis, type RedisServer } from '../../support/redis-server.ts';
import { eventually, untilFromMemory } from '../../support/eventually.ts';

const url = process.env.REDIS_URL;
if (!url) throw new Error('REDIS_URL is needed: scripts/test starts a redis-server and sets it');

/** Every change of the cache's coherence, in order. */
function liveChanges(cache: Cache): boolean[] {
  const live: boolean[] = [];
  cache.events.addEventListener('coherence', (event) => live.push(event.detail.live));
  return live;
}

let runs = 0;
const namespaceOf = (what: string) => `bun-coherent:${Date.now().toString(36)}:${runs++}:${what}`;

// The reader on bun-redis; the writer on bun-redis, or on the valkey store (one bus, one wire format).
const writers: Array<{ name: string; open: (server: string) => Store }> = [
  { name: 'bun-redis', open: (server) => bunRedisStore(server) },
  { name: 'the valkey store', open: (server) => valkeyStore(server) },
];

for (const { name, open } of writers) {
  for (const confirm of ['lease', 'barrier'] as const) {
    describe(`coherent L1 (${confirm}) on bun-redis, the writer on ${name}`, () => {
      let reader: Cache;
      let writer: Cache;
      beforeAll(() => {
        const namespace = namespaceOf(confirm);
        reader = createCache({ store: bunRedisStore(url), namespace, l1: { consistency: 'coherent', confirm } });
        writer = createCache({ store: open(url), namespace, l1: { consistency: 'coherent', confirm } });
      });
      afterAll(async () => {
        await writer.clear();
        await reader.close();
        await writer.close();
      });

      it('serves from memory, and a read after the other process’s set or delete returned gets the new value', async () => {
        await writer.set('k', 'v1');
        assert.equal(await untilFromMemory(reader, 'k'), 'v1');
        for (let i = 2; i <= 20; i++) {
          await writer.set('k', `v${i}`);
          assert.equal(await reader.get('k'), `v${i}`);
        }
        await writer.delete('k');
        assert.equal(await reader.get('k'), undefined);
      });

      it('tags: a read after commit() or invalidateTags returned never gets the value from before the write', async () => {
        let version = 0;
        const load = () => reader.getOrSet('row', () => version, { tags: ['rows'] });
        assert.equal(await load(), 0);
        await untilFromMemory(reader, 'row');
        for (let i = 1; i <= 10; i++) {
          const fence = await writer.beginWrite(['rows']);
          version = i;
          await fence.commit();
          assert.equal(await load(), i);
          await writer.invalidateTags(['rows']);
          assert.equal(await load(), i);
        }
      });

      it('the reader’s own writes, expire and clear reach the other process before they return', async () => {
        await reader.set('mine', 'a');
        await untilFromMemory(writer, 'mine');
        await reader.set('mine', 'b');
        assert.equal(await writer.get('mine'), 'b');
        await writer.set('e', 'fresh', { ttl: '1m', grace: '1m' });
        await untilFromMemory(reader, 'e');
        await writer.expire('e');
        assert.equal(await reader.get('e'), undefined);
        await writer.set('c', 'there');
        await untilFromMemory(reader, 'c');
        await writer.clear();
        assert.equal(await reader.get('c'), undefined);
      });
    });
  }
}

describe('coherent L1 on bun-redis under faults, on a redis-server of its own', () => {
  let server: RedisServer;
  const bin = process.env.REDIS_SERVER_BIN || undefined;
  beforeAll(async () => {
    server = await startRedis({ bin });
  });
  afterAll(async () => {
    await server?.stop();
  });

  function pair(): { reader: Cache; writer: Cache; live: boolean[]; close(): Promise<void> } {
    const namespace = namespaceOf('faults');
    const reader = createCache({ store: bunRedisStore(server.url), namespace, timeout: 300, logger: false, l1: { consistency: 'coherent' } });
    const writer = createCache({ store: bunRedisStore(server.url), namespace, timeout: 300, logger: false, l1: { consistency: 'coherent' } });
    const live = liveChanges(reader);
    return {
      reader,
      writer,
      live,
      close: async () => {
        await reader.close();
        await writer.close();
      },
    };
  }

  /** Kills the server's connections of one type (the admin's own is spared). */
  async function kill(type: 'pubsub' | 'normal'): Promise<void> {
    const admin = bunRedisStore(server.url);
    try {
      await admin.client.connect();
      await admin.client.send('CLIENT', ['KILL', 'TYPE', type, 'SKIPME', 'yes']);
    } finally {
      await admin.close();
    }
  }

  for (const type of ['pubsub', 'normal'] as const) {
    it(`${type === 'pubsub' ? 'the bus connections' : 'the stores’ connections'} killed: memory flushed and bypassed (stats, event), writes seen meanwhile, served from memory once confirmed again`, async () => {
      const { reader, writer, live, close } = pair();
      try {
        await writer.set('k', 'v1');
        await untilFromMemory(reader, 'k');
        assert.equal(live.at(-1), true);
        await kill(type);
        await eventually(() => live.includes(false), 'coherence lost', 500);
        const bypassed = reader.stats().l1Bypassed;
        // The first write after a drop of its connection may fail (the cache says false, and nothing was written).
        await eventually(async () => await writer.set('k', 'v2'), 'a write after the drop', 500);
        assert.equal(await reader.get('k'), 'v2');
        assert.ok(reader.stats().l1Bypassed > bypassed, 'reads while bypassed are counted');
        await eventually(() => live.at(-1) === true, 'coherence back', 500);
        await untilFromMemory(reader, 'k');
        await writer.set('k', 'v3');
        assert.equal(await reader.get('k'), 'v3');
      } finally {
        await close();
      }
    });
  }

  it('the server restarted: no copy from before survives it, and memory serves again once the bus is back', async () => {
    const { reader, writer, live, close } = pair();
    try {
      await writer.set('k', 'v1');
      await untilFromMemory(reader, 'k');
      await server.stop();
      await eventually(() => live.includes(false), 'coherence lost', 500);
      // Away: reads miss (the copy is gone with the bus), and nothing throws.
      assert.equal(await reader.get('k'), undefined);
      server = await startRedis({ bin, port: server.port });
      // The restarted server is empty: the copy from before must not come back.
      await eventually(async () => (await writer.set('k', 'after')) && (await reader.get('k')) === 'after', 'both reconnected', 500);
      await eventually(() => live.at(-1) === true, 'coherence back', 500);
      await untilFromMemory(reader, 'k');
      await writer.set('k', 'later');
      assert.equal(await reader.get('k'), 'later');
    } finally {
      await close();
    }
  });
});

/**
 * CLIENT TRACKING (the L1 tier's `tracking` mode) on a valkey store over an iovalkey client
 * passed in: the same invalidation logic as on the store's own connection (test/cache/l1.test.ts),
 * on the client's connection and a duplicate of it for the invalidations.
 */
import Valkey from 'iovalkey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache, type Cache } from '../../src/index.ts';
import { uniqueNamespace } from '../cache/targets.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { CountingStore } from '../support/wrapped-stores.ts';
import { sleep } from '../support/suite-api.ts';

describe.runIf(requireRedis())('L1 tracking on a valkey store over an iovalkey client', () => {
  const name = `trk-${process.pid}-${Date.now().toString(36)}`;
  let client: Valkey;
  let counting: CountingStore;
  let cache: Cache;
  let writer: Cache;
  let admin: Valkey;
  beforeAll(() => {
    const namespace = uniqueNamespace('trk');
    client = new Valkey(redisUrl!, { connectionName: name });
    counting = new CountingStore(valkeyStore({ connection: client }));
    cache = createCache({ store: counting, namespace, l1: { consistency: 'tracking' } });
    writer = createCache({ store: valkeyStore(redisUrl!), namespace });
    admin = new Valkey(redisUrl!);
  });
  afterAll(async () => {
    await cache.clear();
    await cache.close();
    await writer.close();
    client.disconnect();
    admin.disconnect();
  });

  /** True once a read of `key` is served from memory (no store call). */
  async function servedFromMemory(key: string): Promise<boolean> {
    await cache.get(key);
    counting.reset();
    await cache.get(key);
    return counting.calls.length === 0;
  }

  async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
    for (let i = 0; i < 200; i++) {
      if (await check()) return;
      await sleep(10);
    }
    throw new Error(`never happened: ${what}`);
  }

  it('serves hits from memory and evicts on the server’s invalidation, on two connections', async () => {
    await writer.set('hot', 'v1');
    await eventually(() => servedFromMemory('hot'), 'tracking live and the copy kept');
    await writer.set('hot', 'v2');
    await eventually(async () => (await cache.get('hot')) === 'v2', 'the invalidation evicted the copy');
    const ours = String(await admin.call('CLIENT', 'LIST'))
      .split('\n')
      .filter((line) => line.includes(`name=${name} `));
    expect(ours).toHaveLength(2);
  });
});

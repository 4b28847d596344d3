/**
 * CLIENT TRACKING (the L1 tier's `tracking` mode) on a valkey store over an iovalkey client
 * passed in: the same invalidation logic as on the store's own connection (test/cache/l1.test.ts),
 * on the client's connection and a duplicate of it for the invalidations.
 */
import Valkey from 'iovalkey';
import { describe, expect, it } from 'vitest';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache } from '../../src/index.ts';
import { uniqueNamespace } from '../cache/targets.ts';
import { eventually } from '../support/eventually.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { CountingStore } from '../support/wrapped-stores.ts';

describe.runIf(requireRedis())('L1 tracking on a valkey store over an iovalkey client', () => {
  it('serves hits from memory and evicts on the server’s invalidation, on two connections', async () => {
    const name = `trk-${process.pid}-${Date.now().toString(36)}`;
    const namespace = uniqueNamespace('trk');
    const client = new Valkey(redisUrl!, { connectionName: name });
    const admin = new Valkey(redisUrl!);
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
      const ours = String(await admin.call('CLIENT', 'LIST'))
        .split('\n')
        .filter((line) => line.includes(`name=${name} `));
      expect(ours).toHaveLength(2);
    } finally {
      await tracked.clear();
      await tracked.close();
      await other.close();
      client.disconnect();
      admin.disconnect();
    }
  });
});

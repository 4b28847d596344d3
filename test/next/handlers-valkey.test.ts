/**
 * The handlers' suite (handler-suite.ts) over a real redis-server: each of the two instances has
 * its own connection, as two `next start` processes over one Redis, so a revalidation made
 * through one is seen by the other only through the server's tag generations.
 */
import { describe } from 'vitest';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import type { Store } from '../../src/store/types.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';
import { handlerSuite } from './handler-suite.ts';

describe.skipIf(!requireRedis())('cachette/next over a redis-server', () => {
  handlerSuite('Valkey (one connection per instance)', () => {
    const opened: Store[] = [];
    return {
      connect() {
        const store = valkeyStore(redisUrl!);
        opened.push(store);
        return store;
      },
      close: async () => void (await Promise.all(opened.map((store) => store.close()))),
    };
  });
});

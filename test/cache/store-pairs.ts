import { join } from 'node:path';
import { memoryStore } from '../../adapters/memory/index.ts';
import { sqliteStore } from '../../adapters/sqlite/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import type { Store } from '../../src/index.ts';
import { removeDir, tempDir } from '../adapters/sqlite-temp.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';

/**
 * Two stores over one backend, as two caches of a fleet each hold: memory (one store shared by
 * two caches in one process), SQLite (two connections to one file, as two processes open it) and
 * a real redis-server when the run has one (two connections).
 */
export interface StorePair {
  readonly name: string;
  open(): { stores: [Store, Store]; cleanup(): void };
}

export const storePairs: StorePair[] = [
  {
    name: 'memory',
    open: () => {
      const store = memoryStore();
      return { stores: [store, store], cleanup: () => {} };
    },
  },
  {
    name: 'sqlite',
    open: () => {
      const dir = tempDir('pair');
      const path = join(dir, 'cache.db');
      return { stores: [sqliteStore(path), sqliteStore(path)], cleanup: () => removeDir(dir) };
    },
  },
  ...(requireRedis() ? [{ name: 'valkey', open: () => ({ stores: [valkeyStore(redisUrl!), valkeyStore(redisUrl!)] as [Store, Store], cleanup: () => {} }) }] : []),
];

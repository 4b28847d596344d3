import { memoryStore } from '../../adapters/memory/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import type { Store } from '../../src/store/types.ts';
import { redisUrl, requireRedis } from '../support/redis-env.ts';

/** The real stores the engine tests run against: memory always, valkey when the server is there. */
export const engineTargets: Array<{ name: string; open: () => Store }> = [
  { name: 'memory', open: () => memoryStore() },
  ...(requireRedis() ? [{ name: 'valkey', open: () => valkeyStore(redisUrl!) }] : []),
];

/** A key namespace unique to one test run, so files sharing a server never collide. */
export const uniqueNamespace = (label: string): string => `${label}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

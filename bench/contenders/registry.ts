import { bentocacheSpec } from './bentocache.ts';
import { cacheManagerSpec } from './cache-manager.ts';
import { cachetteSpec } from './cachette.ts';
import { iovalkeySpec } from './iovalkey.ts';
import { naiveSpec } from './naive.ts';
import { nodeRedisSpec } from './node-redis.ts';
import type { ContenderSpec } from './types.ts';
import { unstorageSpec } from './unstorage.ts';
import { valkeyStoreSpec } from './valkey-store.ts';
import { compressionContenders, serializerContenders } from './variants.ts';

/** cachette over the valkey store with its defaults. */
export const cachetteValkey = cachetteSpec({ id: 'cachette-valkey', label: 'cachette (valkey, defaults)', store: 'valkey' });

/** Every contender of the main tables, cachette first, then raw clients, then peer libraries. */
export const mainContenders: readonly ContenderSpec[] = [
  cachetteValkey,
  cachetteSpec({ id: 'cachette-memory', label: 'cachette (memory store)', store: 'memory' }),
  iovalkeySpec(false),
  iovalkeySpec(true),
  nodeRedisSpec,
  bentocacheSpec(false),
  bentocacheSpec(true),
  cacheManagerSpec,
  unstorageSpec,
  naiveSpec,
];

/** Ids of the raw clients (the floor), as opposed to cache libraries. */
export const rawClientIds: ReadonlySet<string> = new Set(['iovalkey', 'iovalkey-autopipeline', 'node-redis']);

/**
 * Ids of the peer cache libraries whose every read goes to redis, as cachette's does; the
 * headline ratios use these. bentocache's tiered row answers reads from process memory and is
 * reported beside cachette's memory store instead.
 */
export const peerLibraryIds: ReadonlySet<string> = new Set(['bentocache-l2', 'cache-manager', 'unstorage']);

/** The contenders run behind the delay proxy: cachette, the raw clients and the redis-only peers. */
export const delayContenders: readonly ContenderSpec[] = mainContenders.filter((c) =>
  ['cachette-valkey', 'iovalkey', 'iovalkey-autopipeline', 'node-redis', 'bentocache-l2', 'cache-manager'].includes(c.id),
);

/** Every contender a benchmark child can be asked to run, by id. */
export function contenderById(id: string): ContenderSpec {
  const spec = [...mainContenders, ...serializerContenders, ...compressionContenders, valkeyStoreSpec].find((c) => c.id === id);
  if (!spec) throw new Error(`no contender "${id}"`);
  return spec;
}

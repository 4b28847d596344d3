/**
 * The patterns the race bench compares, each as one reader's read and one writer's steps
 * around its UPDATE. Every contender reads the row through its cache's get-or-set; the writer
 * runs `before`, the UPDATE (and its COMMIT), then `after`.
 */
import { BentoCache, bentostore } from 'bentocache';
import { memoryDriver } from 'bentocache/drivers/memory';
import { redisBusDriver, redisDriver } from 'bentocache/drivers/redis';
import { Redis } from 'ioredis';
import { postgresStore } from '../../adapters/postgres/index.ts';
import { sqliteStore } from '../../adapters/sqlite/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache, type Cache, type CacheOptions, type SetOptions, type Store, type WriteFence } from '../../src/index.ts';
import { DRIZZLE_CONTENDERS } from './drizzle-contenders.ts';
import type { RaceContender, RaceStores } from './race-contender.ts';

/** Which store a cachette contender reads through. */
type StoreKind = 'valkey' | 'cluster' | 'sqlite' | 'postgres';

function openStore(kind: StoreKind, redisUrl: string, pgUrl: string, stores: RaceStores): Store {
  if (kind === 'sqlite') return sqliteStore(stores.sqlitePath);
  // The PostgreSQL store on the model's own database (its table beside the row's), with its defaults.
  if (kind === 'postgres') return postgresStore(pgUrl);
  if (kind === 'cluster') return valkeyStore({ cluster: stores.clusterNodes!.split(',') });
  return valkeyStore(redisUrl);
}

const KEY = 'row:1';
const TAGS = ['rows'];
/** A tag the row also carries whose invalidations guard no write: soft ones (issue 21). */
const SOFT_TAG = 'catalog';

function cachette(
  id: string,
  label: string,
  options: Partial<CacheOptions>,
  write: 'delete-after' | 'delete-before' | 'fence' | 'fence-and-soft' | 'never',
  kind: StoreKind = 'valkey',
): RaceContender {
  return {
    id,
    label,
    needsCluster: kind === 'cluster',
    open(redisUrl, namespace, pgUrl, stores) {
      // No logger: a reader's stdout carries its figures, and a loaded machine makes the store slow enough to be reported.
      const cache: Cache = createCache({ store: openStore(kind, redisUrl, pgUrl, stores), namespace, logger: false, ...options });
      const fenced = write === 'fence' || write === 'fence-and-soft';
      // With soft invalidations the row carries a second tag, softly invalidated around every
      // write (before it begins and after it commits) without guarding it: readers may then be
      // served stale within the grace, but never a version older than a commit that returned.
      const tagged: SetOptions | undefined = write === 'fence' ? { tags: TAGS } : write === 'fence-and-soft' ? { tags: [...TAGS, SOFT_TAG], grace: 60_000 } : undefined;
      let fence: WriteFence | undefined;
      return {
        read: (load) => cache.getOrSet(KEY, load, tagged),
        async before() {
          if (write === 'delete-before') await cache.delete(KEY);
          if (write === 'fence-and-soft') await cache.invalidateTags([SOFT_TAG], { soft: true });
          if (fenced) fence = await cache.beginWrite(TAGS);
        },
        async after() {
          if (write === 'delete-after') await cache.delete(KEY);
          if (fenced) await fence!.commit();
          if (write === 'fence-and-soft') await cache.invalidateTags([SOFT_TAG], { soft: true });
        },
        close: () => cache.close(),
      };
    },
  };
}

function bentocache(id: string, label: string, tiered: boolean): RaceContender {
  return {
    id,
    label,
    open(redisUrl, namespace) {
      const connection = new Redis(redisUrl);
      const busConnection = tiered ? new Redis(redisUrl) : undefined;
      let store = tiered
        ? bentostore()
            .useL1Layer(memoryDriver({ maxItems: 1000 }))
            .useL2Layer(redisDriver({ connection, prefix: namespace }))
        : bentostore().useL2Layer(redisDriver({ connection, prefix: namespace }));
      if (busConnection) store = store.useBus(redisBusDriver({ connection: busConnection }));
      const bento = new BentoCache({ default: 'store', stores: { store } });
      return {
        read: (load) => bento.getOrSet({ key: KEY, factory: load }),
        before: async () => {},
        after: async () => void (await bento.delete({ key: KEY })),
        async close() {
          await bento.disconnect();
          for (const c of [connection, busConnection]) if (c && c.status !== 'end') await c.quit().catch(() => c.disconnect());
        },
      };
    },
  };
}

/** No cache at all: every read goes to PostgreSQL (self-check: 0 stale). */
const noCache: RaceContender = {
  id: 'no-cache',
  label: 'no cache (self-check: 0)',
  open: () => ({ read: (load) => load(), before: async () => {}, after: async () => {}, close: async () => {} }),
};

/** Every contender, in table order. */
export const CONTENDERS: RaceContender[] = [
  noCache,
  cachette('never', 'never invalidated (self-check: ~1,000)', {}, 'never'),
  cachette('delete-after', '`getOrSet` + `delete(key)` after COMMIT', {}, 'delete-after'),
  cachette('delete-before', '`delete(key)` before the UPDATE', {}, 'delete-before'),
  cachette('tags', 'tags + `beginWrite`/`commit`', {}, 'fence'),
  cachette('tags-soft', 'tags + `beginWrite`/`commit`, another tag invalidated `soft` around each write', {}, 'fence-and-soft'),
  cachette('l1-strict', 'L1 strict + tags + `beginWrite`/`commit`', { l1: { consistency: 'strict' } }, 'fence'),
  cachette('l1-tracking', 'L1 tracking + tags + `beginWrite`/`commit`', { l1: { consistency: 'tracking' } }, 'fence'),
  cachette('l1-coherent', 'L1 coherent + tags + `beginWrite`/`commit`', { l1: { consistency: 'coherent' } }, 'fence'),
  cachette('l1-coherent-barrier', 'L1 coherent, `confirm: barrier` + tags + `beginWrite`/`commit`', { l1: { consistency: 'coherent', confirm: 'barrier' } }, 'fence'),
  cachette('cluster-tags', 'cluster store: tags + `beginWrite`/`commit`', {}, 'fence', 'cluster'),
  cachette('cluster-l1-strict', 'cluster store: L1 strict + tags + `beginWrite`/`commit`', { l1: { consistency: 'strict' } }, 'fence', 'cluster'),
  cachette('cluster-l1-coherent', 'cluster store: L1 coherent + tags + `beginWrite`/`commit`', { l1: { consistency: 'coherent' } }, 'fence', 'cluster'),
  cachette('sqlite-tags', 'SQLite store: tags + `beginWrite`/`commit`', {}, 'fence', 'sqlite'),
  cachette('sqlite-l1-coherent', 'SQLite store: L1 coherent + tags + `beginWrite`/`commit`', { l1: { consistency: 'coherent' } }, 'fence', 'sqlite'),
  cachette('postgres-tags', 'PostgreSQL store: tags + `beginWrite`/`commit`', {}, 'fence', 'postgres'),
  cachette('postgres-l1-strict', 'PostgreSQL store: L1 strict + tags + `beginWrite`/`commit`', { l1: { consistency: 'strict' } }, 'fence', 'postgres'),
  bentocache('bento-l2', 'bentocache 1.6 L2, delete after COMMIT', false),
  bentocache('bento-tiered', 'bentocache 1.6 L1 + L2 + bus, delete after COMMIT', true),
  ...DRIZZLE_CONTENDERS,
];

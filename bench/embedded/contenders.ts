/**
 * The libraries the embedded benchmark compares, each through its public API only: what a
 * user of that library would get. Values are the same bytes everywhere; libraries that store
 * strings (Keyv) get the same characters as a string, converted before the clock starts.
 */
import { basename, join } from 'node:path';
import Keyv from 'keyv';
import { open as openLmdb } from 'lmdb';
import { LRUCache } from 'lru-cache';
import { memoryStore } from '../../adapters/memory/index.ts';
import { postgresStore } from '../../adapters/postgres/index.ts';
import { sqliteStore } from '../../adapters/sqlite/index.ts';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache } from '../../src/index.ts';
import { importBenchPeer } from '../support/bench-peers.ts';
import { freshDatabase } from './postgres-database.ts';
import { rawSqliteKv } from './raw-sqlite.ts';
import { storeKv, type EmbeddedKv } from './store-kv.ts';

/** How to open a contender, and what the report must say about it. */
export interface EmbeddedSpec {
  id: string;
  label: string;
  /** `string` when the library stores text, so the harness hands it the value as a string. */
  takes: 'bytes' | 'string';
  /** Keeps its data in files under the directory it is given (on-disk size is reported). */
  persistent: boolean;
  /** Several processes may open the same files at once (the concurrency section). */
  multiProcess: boolean;
  /**
   * Runs a fraction of every count (see `SLOW_SHARE`): a write costs it milliseconds (one
   * fsynced transaction each), and the counts would take it most of an hour. Its
   * rates stay comparable; the report says which rows are shortened.
   */
  slow?: boolean;
  /** The server it talks to, started by the run (a redis-server is always started). */
  server?: 'redis' | 'postgres';
  /** Opens it with its files under `dir`; `servers` for the ones that talk to a server. */
  open(dir: string, servers: EmbeddedServers): Promise<EmbeddedKv>;
}

/** The servers a run started, for the contenders that talk to one. */
export interface EmbeddedServers {
  redisUrl?: string;
  /** postgres:// URL of the throwaway cluster, when a contender of the run needs it. */
  postgresUrl?: string;
}

// The SQLite store's busy timeout here: on a shared machine a process holding the write lock can
// be descheduled for longer than the default 1 s, and a failed write would abort the section.
export const BENCH_TIMEOUT_MS = 10_000;

// Big enough that no in-memory contender evicts during a workload (the hit-ratio one holds 100,000 keys).
const MEMORY_BOUNDS = { maxEntries: 2_000_000, maxBytes: 4 * 1024 ** 3 };

/** The share of each count a `slow` contender runs. */
export const SLOW_SHARE = 0.1;

/** `n` for most contenders, its SLOW_SHARE (at least 10) for a slow one. */
export const countFor = (spec: EmbeddedSpec, n: number): number => (spec.slow ? Math.max(10, Math.round(n * SLOW_SHARE)) : n);

/** Every contender, in the report's row order. */
export const EMBEDDED_CONTENDERS: readonly EmbeddedSpec[] = [
  {
    id: 'sqlite',
    label: 'cachette sqliteStore (direct, defaults)',
    takes: 'bytes',
    persistent: true,
    multiProcess: true,
    open: async (dir) => storeKv(sqliteStore({ path: join(dir, 'cache.db'), timeoutMs: BENCH_TIMEOUT_MS })),
  },
  {
    id: 'raw-sqlite',
    label: 'raw better-sqlite3 (baseline: one WITHOUT ROWID table, WAL, NORMAL)',
    takes: 'bytes',
    persistent: true,
    multiProcess: true,
    open: async (dir) => rawSqliteKv(join(dir, 'raw.db'), BENCH_TIMEOUT_MS),
  },
  {
    id: 'sqlite-cache',
    label: 'cachette createCache + sqliteStore',
    takes: 'bytes',
    persistent: true,
    multiProcess: true,
    open: async (dir) => {
      const store = sqliteStore({ path: join(dir, 'cache.db'), timeoutMs: BENCH_TIMEOUT_MS });
      const cache = createCache({ store });
      return {
        get: (key) => cache.get(key),
        set: async (key, value) => {
          if (!(await cache.set(key, value))) throw new Error(`cache.set(${key}) failed`);
        },
        delete: async (key) => void (await cache.delete(key)),
        close: async () => {
          await cache.close();
          await store.close();
        },
      };
    },
  },
  {
    id: 'memory',
    label: 'cachette memoryStore',
    takes: 'bytes',
    persistent: false,
    multiProcess: false,
    open: async () => storeKv(memoryStore(MEMORY_BOUNDS)),
  },
  {
    id: 'valkey',
    label: 'cachette valkeyStore (loopback redis-server)',
    takes: 'bytes',
    persistent: false,
    multiProcess: false,
    server: 'redis',
    open: async (_dir, { redisUrl }) => {
      if (!redisUrl) throw new Error('the valkey contender needs a redis-server');
      return storeKv(valkeyStore(redisUrl));
    },
  },
  {
    id: 'postgres',
    label: 'cachette postgresStore (loopback PostgreSQL, UNLOGGED table, fsync off)',
    takes: 'bytes',
    persistent: false,
    multiProcess: false,
    server: 'postgres',
    open: async (dir, { postgresUrl }) => {
      if (!postgresUrl) throw new Error('the postgres contender needs a PostgreSQL server');
      // A database of its own per workload, dropped at close: every workload starts empty, as
      // the others do on a fresh directory or a flushed redis-server.
      const database = await freshDatabase(postgresUrl, basename(dir));
      const store = postgresStore(database.url);
      return {
        ...storeKv(store),
        close: async () => {
          await store.close();
          await database.drop();
        },
      };
    },
  },
  {
    id: 'keyv-sqlite',
    label: 'Keyv + @keyv/sqlite',
    takes: 'string',
    persistent: true,
    multiProcess: true,
    slow: true,
    open: async (dir) => {
      // @keyv/sqlite builds sqlite3 from source here: installed on first use, not by npm ci.
      const { default: KeyvSqlite } = await importBenchPeer<{ default: new (options: { uri: string; busyTimeout: number }) => ConstructorParameters<typeof Keyv>[0] }>('@keyv/sqlite', '4.0.8');
      const store = new KeyvSqlite({ uri: `sqlite://${join(dir, 'keyv.sqlite')}`, busyTimeout: 10_000 });
      const keyv = new Keyv({ store });
      keyv.on('error', () => {}); // failures surface as rejected calls, which abort the run
      return {
        get: (key) => keyv.get(key),
        set: async (key, value) => void (await keyv.set(key, value)),
        delete: async (key) => void (await keyv.delete(key)),
        close: () => keyv.disconnect(),
      };
    },
  },
  {
    id: 'lmdb',
    label: 'lmdb-js (binary encoding)',
    takes: 'bytes',
    persistent: true,
    multiProcess: true,
    open: async (dir) => {
      const db = openLmdb({ path: join(dir, 'lmdb'), encoding: 'binary' });
      return {
        get: async (key) => db.get(key),
        set: async (key, value) => void (await db.put(key, value as Uint8Array)),
        delete: async (key) => void (await db.remove(key)),
        close: () => db.close(),
      };
    },
  },
  {
    id: 'lru-cache',
    label: 'lru-cache (in-memory reference)',
    takes: 'bytes',
    persistent: false,
    multiProcess: false,
    open: async () => {
      const lru = new LRUCache<string, Uint8Array | string>({ max: MEMORY_BOUNDS.maxEntries });
      return {
        get: async (key) => lru.get(key),
        set: async (key, value) => void lru.set(key, value),
        delete: async (key) => void lru.delete(key),
        close: async () => lru.clear(),
      };
    },
  },
];

/** The contender with this id; throws on an unknown one. */
export function contender(id: string): EmbeddedSpec {
  const spec = EMBEDDED_CONTENDERS.find((c) => c.id === id);
  if (!spec) throw new RangeError(`unknown contender "${id}"; known: ${EMBEDDED_CONTENDERS.map((c) => c.id).join(', ')}`);
  return spec;
}

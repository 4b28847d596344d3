/**
 * The behaviour of cachette/drizzle on one database, over every engine target (memory, and a
 * real redis-server when the suite has one): caching and its opt-in and opt-out, invalidation
 * by the tables a write writes, named queries, TTLs, coalescing, the two races that Drizzle's
 * own cache loses (each with its control, Drizzle's documented cache, losing it), transactions,
 * batches, and the database's own errors.
 */
import { DrizzleQueryError } from 'drizzle-orm/errors';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache, type Cache } from '../../src/index.ts';
import { cachetteCache, withFencedWrites, type CachetteCache, type CachetteCacheOptions } from '../../src/drizzle/index.ts';
import type { Store } from '../../src/store/types.ts';
import { engineTargets, uniqueNamespace } from '../cache/targets.ts';
import { redisUrl } from '../support/redis-env.ts';
import type { Backend, BackendTarget, Client } from './databases.ts';
import { DocsCache } from './docs-cache.ts';

/** Runs the suite on the database of `database` (the tests its driver cannot show are left out). */
export function drizzleSuite(database: BackendTarget): void {
  describe(database.name, () => {
    let backend: Backend;
    beforeAll(async () => {
      backend = await database.open();
    }, 120_000);
    afterAll(() => backend?.close());

    describe.each(engineTargets)('over $name', (target) => {
      let store: Store;
      let cachette: Cache;
      let namespace: string;
      const owned: Array<{ close(): Promise<void> }> = [];
      let probes = 0;

      beforeEach(async () => {
        await backend.reset();
        store = target.open();
        namespace = uniqueNamespace('drizzle');
        cachette = createCache({ store, namespace });
      });
      afterEach(async () => {
        await backend.disconnect();
        await Promise.all(owned.splice(0).map((c) => c.close()));
        await cachette.idle();
        await cachette.clear().catch(() => undefined);
        await cachette.close();
      });

      /** A routed client with a cachette/drizzle cache over this test's cache. */
      const client = (options: Omit<CachetteCacheOptions, 'cache' | 'store'> = { global: true }, over: Cache = cachette): Client & { cache: CachetteCache } => {
        const cache = cachetteCache({ cache: over, ...options });
        const opened = backend.connect(cache);
        withFencedWrites(opened.db);
        return { ...opened, cache };
      };
      /** True while a write lease is held on `table`'s tag (a tagged set is refused then). */
      const fenced = async (table: string) => !(await cachette.set(`probe:${probes++}`, 1, { tags: [`drizzle:table:${table}`] }));

      describe('caching', () => {
        it('serves a select again without a database query; other parameters are other entries', async () => {
          const { queries, probe } = client();
          expect(await queries.version()).toBe(0);
          expect(await queries.version()).toBe(0);
          expect(probe.selects).toBe(1);
          expect(await queries.version(2)).toBe(0);
          expect(probe.selects).toBe(2);
        });

        it('caches only $withCache() selects unless global', async () => {
          const { queries, probe } = client({});
          await queries.version();
          await queries.version();
          expect(probe.selects).toBe(2);
          await queries.version(1, {});
          await queries.version(1, {});
          expect(probe.selects).toBe(3);
        });

        it('$withCache(false) opts one select out of global caching', async () => {
          const { queries, probe } = client();
          await queries.version(1, false);
          await queries.version(1, false);
          expect(probe.selects).toBe(2);
        });

        it('gives a hit the same rows as the miss that stored it', async () => {
          const { queries } = client();
          const fromDatabase = await queries.owner();
          expect(await queries.owner()).toBe(fromDatabase);
          expect(fromDatabase).toBe('ada@0');
        });
      });

      describe('invalidation by the tables written', () => {
        it('an update or an insert invalidates the selects of its table', async () => {
          const { queries, probe } = client();
          await queries.version();
          await queries.setVersion(1);
          expect(await queries.version()).toBe(1);
          expect(await queries.countItems()).toBe(2);
          await queries.insertItem(3);
          expect(await queries.countItems()).toBe(3);
          expect(probe.selects).toBe(4);
        });

        it('a write to another table leaves the entries of this one', async () => {
          const { queries, probe } = client();
          await queries.version();
          await queries.rename('bob');
          await queries.version();
          expect(probe.selects).toBe(1);
        });

        it('a join is invalidated by a write to either of its tables', async () => {
          const { queries } = client();
          expect(await queries.owner()).toBe('ada@0');
          await queries.rename('bob');
          expect(await queries.owner()).toBe('bob@0');
          await queries.setVersion(2);
          expect(await queries.owner()).toBe('bob@2');
        });

        it('db.$cache.invalidate({ tables }) takes Drizzle tables and table names', async () => {
          const { db, queries } = client();
          const invalidate = (db as { $cache: { invalidate(params: object): Promise<void> } }).$cache.invalidate;
          await queries.version();
          await backend.touch(5);
          expect(await queries.version()).toBe(0);
          await invalidate.call((db as { $cache: object }).$cache, { tables: queries.tables.items });
          expect(await queries.version()).toBe(5);
          await backend.touch(6);
          await invalidate.call((db as { $cache: object }).$cache, { tables: ['items'] });
          expect(await queries.version()).toBe(6);
        });

        it('a named query ($withCache({ tag })) without autoInvalidate waits for invalidate({ tags })', async () => {
          const { db, queries } = client();
          const named = { tag: 'item-1', autoInvalidate: false };
          expect(await queries.version(1, named)).toBe(0);
          await queries.setVersion(1);
          // Drizzle's meaning of autoInvalidate: false: writes to the table leave it alone.
          expect(await queries.version(1, named)).toBe(0);
          await (db as { $cache: { invalidate(params: object): Promise<void> } }).$cache.invalidate({ tags: 'item-1' });
          expect(await queries.version(1, named)).toBe(1);
        });

        it('mutate(tables, fn) fences a write Drizzle cannot see', async () => {
          const { cache, queries } = client();
          await queries.version();
          await cache.mutate(queries.tables.items as never, async () => {
            expect(await fenced('items')).toBe(true);
            await backend.touch(7);
          });
          expect(await fenced('items')).toBe(false);
          expect(await queries.version()).toBe(7);
        });
      });

      describe('tables read through subqueries (issue 27, item 6)', () => {
        it.each(['in', 'exists', 'cte'] as const)('a select that reads a table through %s is cached, and a fenced write to that table reaches it', async (through) => {
          const { queries, probe } = client();
          expect(await queries.owned(through)).toEqual([1]);
          const selects = probe.selects;
          expect(await queries.owned(through)).toEqual([1]);
          expect(probe.selects).toBe(selects);
          await queries.addOwner(2, 2); // an insert into owners only: the outer select is of items
          expect(await queries.owned(through)).toEqual([1, 2]);
        });

        it.each(['raw', 'view'] as const)('a select that names a table Drizzle cannot see (%s) goes to the database every time', async (through) => {
          const { queries, probe } = client();
          expect(await queries.owned(through)).toEqual([1]);
          expect(await queries.owned(through)).toEqual([1]);
          expect(probe.selects).toBe(2);
          await queries.addOwner(2, 2);
          expect(await queries.owned(through)).toEqual([1, 2]);
        });
      });

      describe('keys (issue 27, item 9)', () => {
        it('keys ±Infinity and NaN apart (JSON wrote each as null), and caches each', async () => {
          const { queries, probe } = client();
          expect(await queries.below(Infinity)).toBe(2);
          expect(await queries.below(-Infinity)).toBe(0);
          const nan = await queries.below(Number.NaN, false); // what the database says (NaN is NULL in SQLite)
          expect(await queries.below(Number.NaN)).toBe(nan);
          const selects = probe.selects;
          expect([await queries.below(Infinity), await queries.below(-Infinity), await queries.below(Number.NaN)]).toEqual([2, 0, nan]);
          expect(probe.selects).toBe(selects);
        });

        it('caches a select with a BigInt parameter, which Drizzle’s key threw on', async () => {
          const { queries, probe } = client();
          expect(await queries.version(1n)).toBe(0);
          expect(await queries.version(1n)).toBe(0);
          expect(probe.selects).toBe(1);
          await queries.setVersion(4);
          expect(await queries.version(1n)).toBe(4);
        });
      });

      describe('lifetimes', () => {
        let now = 0;
        const clocked = () => {
          const cache = createCache({ store: target.open(), namespace: uniqueNamespace('drizzle-ttl'), clock: { now: () => now } });
          owned.push(cache);
          return cache;
        };

        it('$withCache({ config: { ex } }) sets the entry’s lifetime, and ttl the default', async () => {
          now = Date.now();
          const { queries, probe } = client({ global: true, ttl: '1s' }, clocked());
          await queries.version(1, { config: { ex: 5 } });
          await queries.version(2);
          now += 1500;
          await queries.version(1, { config: { ex: 5 } });
          await queries.version(2);
          expect(probe.selects).toBe(3);
          now += 4000;
          await queries.version(1, { config: { ex: 5 } });
          expect(probe.selects).toBe(4);
        });

        it('an absolute expiry already past stores nothing', async () => {
          const { queries, probe } = client();
          await queries.version(1, { config: { exat: Math.floor(Date.now() / 1000) - 10 } });
          await queries.version(1, { config: { exat: Math.floor(Date.now() / 1000) - 10 } });
          expect(probe.selects).toBe(2);
        });
      });

      describe('coalescing', () => {
        it('concurrent identical selects share one database query', async () => {
          const { queries, probe } = client();
          const gate = probe.hold(/^select/i, 'after');
          const reads = Array.from({ length: 5 }, () => queries.version());
          await gate.reached;
          gate.release();
          expect(await Promise.all(reads)).toEqual([0, 0, 0, 0, 0]);
          expect(probe.selects).toBe(1);
        });

        if (target.name === 'valkey')
          it('two processes (two caches on one redis) share one database query', async () => {
            const secondStore = valkeyStore(redisUrl!);
            const second = createCache({ store: secondStore, namespace });
            owned.push(second);
            const first = client();
            const other = client({ global: true }, second);
            const gate = first.probe.hold(/^select/i, 'after');
            const leading = first.queries.version();
            await gate.reached;
            // The second cache finds the first one's fill lease and waits for its value.
            const following = other.queries.version();
            gate.release();
            expect([await leading, await following]).toEqual([0, 0]);
            expect(first.probe.selects + other.probe.selects).toBe(1);
          });
      });

      describe('a read racing a write', () => {
        /** Reader and writer on connections of their own, over one cache. */
        const pair = (drizzleCache?: object) => {
          if (drizzleCache) return { reader: backend.connect(undefined, { drizzleCache }), writer: backend.connect(undefined, { drizzleCache }) };
          const cache = cachetteCache({ cache: cachette, global: true });
          const [reader, writer] = [backend.connect(cache), backend.connect(cache)];
          withFencedWrites(reader.db);
          withFencedWrites(writer.db);
          return { reader, writer };
        };

        /** Read starts; its rows come back; the write runs and commits; then the read returns. */
        const readAcrossWrite = async ({ reader, writer }: ReturnType<typeof pair>) => {
          const gate = reader.probe.hold(/^select/i, 'after');
          const read = reader.queries.version();
          await gate.reached;
          await writer.queries.setVersion(1);
          gate.release();
          expect(await read).toBe(0); // it began before the write: the old row is its answer
          await cachette.idle();
          return reader.queries.version();
        };

        /** The write begins; a read runs before its statement reaches the database; then it commits. */
        const readInsideWrite = async ({ reader, writer }: ReturnType<typeof pair>) => {
          await reader.queries.version();
          const gate = writer.probe.hold(/^update/i, 'before');
          const write = writer.queries.setVersion(1);
          await gate.reached;
          expect(await reader.queries.version()).toBe(0); // the row is still 0 in the database
          await cachette.idle();
          const during = await reader.queries.version();
          gate.release();
          await write;
          return { during, after: await reader.queries.version() };
        };

        it('a read that began before the write and returns after its commit is not served again', async () => {
          const clients = pair();
          expect(await readAcrossWrite(clients)).toBe(1);
          expect(clients.reader.probe.selects).toBe(2);
        });

        it('a read inside the write’s window is served from the database, not stored', async () => {
          const fences: unknown[] = [];
          cachette.events.addEventListener('fenced', (event) => fences.push(event.detail));
          const clients = pair();
          expect(await readInsideWrite(clients)).toEqual({ during: 0, after: 1 });
          // warm-up, two reads inside the window (neither stored), one after the commit
          expect(clients.reader.probe.selects).toBe(4);
          expect(fences.length).toBeGreaterThanOrEqual(2);
        });

        it('control: Drizzle’s documented cache serves the old row after the commit in both orders (#5828)', async () => {
          expect(await readAcrossWrite(pair(new DocsCache()))).toBe(0);
          await backend.reset();
          expect((await readInsideWrite(pair(new DocsCache()))).after).toBe(0);
        });
      });

      describe('transactions', () => {
        it('the fences of a transaction’s writes hold until it commits', async () => {
          const { queries, probe } = client();
          await queries.version();
          await queries.transaction(async (tx) => {
            await tx.setVersion(1);
            expect(await fenced('items')).toBe(true);
            await tx.rename('bob');
            expect(await fenced('owners')).toBe(true);
          });
          expect([await fenced('items'), await fenced('owners')]).toEqual([false, false]);
          expect(await queries.version()).toBe(1);
          expect(probe.selects).toBe(2);
        });

        it('a rollback ends the fences and still invalidates', async () => {
          const { queries, probe } = client();
          await queries.version();
          await expect(
            queries.transaction(async (tx) => {
              await tx.setVersion(1);
              throw new Error('changed my mind');
            }),
          ).rejects.toThrow('changed my mind');
          expect(await fenced('items')).toBe(false);
          expect(await queries.version()).toBe(0);
          expect(probe.selects).toBe(2);
        });

        it('a nested transaction’s fences hold until the outer one ends', async () => {
          const { queries } = client();
          await queries.transaction(async (tx) => {
            await tx.transaction(async (inner) => inner.setVersion(1));
            expect(await fenced('items')).toBe(true);
          });
          expect(await fenced('items')).toBe(false);
          expect(await queries.version()).toBe(1);
        });

        it('selects inside a transaction go to the database and are not stored', async () => {
          const { queries, probe } = client();
          await queries.version();
          await queries.transaction(async (tx) => {
            expect(await tx.version()).toBe(0);
            await tx.setVersion(1);
            expect(await tx.version()).toBe(1); // its own write, which no cache holds
          });
          expect(probe.selects).toBe(3);
          expect(await queries.version()).toBe(1);
          expect(await queries.version()).toBe(1);
          expect(probe.selects).toBe(4);
        });

        it('mutate() inside a transaction, its statements on the transaction, holds its fence until the transaction ends (issue 27, item 7)', async () => {
          const { cache, queries } = client();
          await queries.version();
          await queries.transaction(async (tx) => {
            await cache.mutate(queries.tables.items as never, () => tx.rawSetVersion(3));
            expect(await fenced('items')).toBe(true); // mutate returned; the COMMIT has not happened yet
          });
          expect(await fenced('items')).toBe(false);
          expect(await queries.version()).toBe(3);
        });

        it('mutate() outside a transaction still releases its fence when its function settles, while another transaction is open', async () => {
          const cache = cachetteCache({ cache: cachette, global: true });
          const [outside, inside] = [backend.connect(cache), backend.connect(cache)];
          withFencedWrites(outside.db);
          withFencedWrites(inside.db);
          let release!: () => void;
          const held = new Promise<void>((resolve) => (release = resolve));
          let began!: () => void;
          const open = new Promise<void>((resolve) => (began = resolve));
          const transaction = inside.queries.transaction(async (tx) => {
            await tx.rename('bob');
            began();
            await held;
          });
          await open;
          // On one connection (PGlite, sqlite-proxy) a statement would wait for the transaction.
          await cache.mutate(outside.queries.tables.items as never, () => (database.concurrentTransactions ? outside.queries.rawSetVersion(2) : undefined));
          expect(await fenced('items')).toBe(false);
          release();
          await transaction;
        });

        // On one connection a read waits for the transaction (PGlite) or runs inside it (sqlite-proxy).
        if (database.concurrentTransactions)
          it('a read on another connection while the transaction is open is served, not stored', async () => {
            const cache = cachetteCache({ cache: cachette, global: true });
            const [reader, writer] = [backend.connect(cache), backend.connect(cache)];
            withFencedWrites(reader.db);
            withFencedWrites(writer.db);
            await reader.queries.version();
            await writer.queries.transaction(async (tx) => {
              await tx.setVersion(1);
              expect(await reader.queries.version()).toBe(0); // not committed yet
              await cachette.idle();
              expect(await reader.queries.version()).toBe(0);
            });
            expect(await reader.queries.version()).toBe(1);
            expect(reader.probe.selects).toBe(4);
          });

        if (database.concurrentTransactions)
          it('a reader with a cache of its own on the store, between mutate() and the COMMIT, stores no old rows (issue 27, item 7)', async () => {
            const second = createCache({ store: target.name === 'valkey' ? valkeyStore(redisUrl!) : store, namespace, closeStore: target.name === 'valkey' });
            owned.push(second);
            const writerCache = cachetteCache({ cache: cachette, global: true });
            const writer = backend.connect(writerCache);
            const reader = backend.connect(cachetteCache({ cache: second, global: true }));
            withFencedWrites(writer.db);
            withFencedWrites(reader.db);
            expect(await reader.queries.version()).toBe(0); // stored: mutate's fence makes it outdated
            await writer.queries.transaction(async (tx) => {
              await writerCache.mutate(writer.queries.tables.items as never, () => tx.rawSetVersion(8));
              expect(await reader.queries.version()).toBe(0); // not committed yet
              await second.idle();
            });
            expect(await reader.queries.version()).toBe(8);
          });
      });

      if (database.batch)
        describe('batches', () => {
          it('a batch that writes fences and invalidates its tables', async () => {
            const { queries } = client();
            await queries.version();
            await queries.batch!(3);
            expect(await queries.version()).toBe(3);
          });
        });

      describe('the database’s own errors', () => {
        it('a failing select rejects with DrizzleQueryError for every caller sharing it, and is not cached', async () => {
          const { queries, probe } = client();
          const gate = probe.hold(/missing_table/, 'after');
          let joined = 0;
          const bothJoined = new Promise<void>((resolve) => cachette.events.addEventListener('coalesced', () => ++joined === 2 && resolve()));
          const sharing = Promise.allSettled([queries.broken(), queries.broken(), queries.broken()]);
          await Promise.all([gate.reached, bothJoined]);
          gate.release();
          const results = await sharing;
          for (const result of results) {
            expect(result.status).toBe('rejected');
            expect((result as PromiseRejectedResult).reason).toBeInstanceOf(DrizzleQueryError);
          }
          await expect(queries.broken()).rejects.toBeInstanceOf(DrizzleQueryError);
          expect(probe.statements.filter((sql) => sql.includes('missing_table'))).toHaveLength(2);
        });

        it('a failing write rejects with DrizzleQueryError, and its fence still ends with an invalidation', async () => {
          const { queries, probe } = client();
          await queries.version();
          await expect(queries.insertItem(1)).rejects.toBeInstanceOf(DrizzleQueryError);
          expect(await fenced('items')).toBe(false);
          await queries.version();
          expect(probe.selects).toBe(2);
        });
      });

      describe('wiring', () => {
        it('without withFencedWrites(db) a cached select is refused with what to do; invalidate still works', async () => {
          const cache = cachetteCache({ cache: cachette, global: true });
          const { db, queries } = backend.connect(cache);
          await expect(queries.version()).rejects.toThrow(/withFencedWrites\(db\)/);
          await expect((db as { $cache: { invalidate(params: object): Promise<void> } }).$cache.invalidate({ tables: 'items' })).resolves.toBeUndefined();
        });

        it('withFencedWrites(db) twice routes once', async () => {
          const { db, queries, probe } = client();
          expect(withFencedWrites(db)).toBe(db);
          await queries.version();
          await queries.setVersion(1);
          expect(await queries.version()).toBe(1);
          expect(probe.selects).toBe(2);
        });
      });
    });
  });
}

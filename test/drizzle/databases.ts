/**
 * The databases the cachette/drizzle suite runs on, each behind the same small set of Drizzle
 * queries (`Queries`), so that one suite covers both dialects: PostgreSQL in PGlite (real
 * PostgreSQL compiled to WASM, through `drizzle-orm/pglite`), PostgreSQL servers through
 * `drizzle-orm/node-postgres`, and SQLite through `drizzle-orm/sqlite-proxy` over better-sqlite3
 * (Drizzle's better-sqlite3 driver itself is synchronous and never consults a cache).
 *
 * Two tables: `items (id, version)` with rows 1 and 2 at version 0, and `owners (id, item_id,
 * name)` with row 1 (item 1, "ada"); and a view `owned_items` of the owners' item ids, which
 * Drizzle knows only by name (`.existing()`). Every client counts and can hold its statements
 * (Probe).
 */
import { PGlite } from '@electric-sql/pglite';
import Database from 'better-sqlite3';
import { count, eq, exists, inArray, sql } from 'drizzle-orm';
import type { WithCacheConfig } from 'drizzle-orm/cache/core/types';
import { integer as pgInteger, pgTable, pgView, text as pgText, type PgDatabase, type PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { integer as sqliteInteger, sqliteTable, sqliteView, text as sqliteText, type BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import { drizzle as drizzleProxy } from 'drizzle-orm/sqlite-proxy';
import pg from 'pg';
import type { CachetteCache } from '../../src/drizzle/index.ts';
import { Probe } from './probe.ts';

/** How a select asks for the cache: as the strategy says (undefined), off (false), or `$withCache(config)`. */
export type CacheChoice = undefined | false | Omit<WithCacheConfig, 'enable'>;

/** How {@link Queries.owned} reads the owned items: through a subquery Drizzle builds, `exists`, a CTE, raw SQL text, or the existing view. */
export type OwnedThrough = 'in' | 'exists' | 'cte' | 'raw' | 'view';

/** The queries the suite runs, the same on every dialect. */
export interface Queries {
  /** `select version from items where id = ?`. */
  version(id?: number | bigint, cache?: CacheChoice): Promise<number | undefined>;
  /** The ids of the items that have an owner, in order: a select of `items` that reads `owners` too, `through` one way or another. */
  owned(through: OwnedThrough): Promise<number[]>;
  /** How many items have a version below `limit` (`cast(? as real)`: any number, ±Infinity and NaN included). */
  below(limit: number, cache?: CacheChoice): Promise<number>;
  /** Gives item `itemId` an owner (a Drizzle insert into `owners`: fenced). */
  addOwner(id: number, itemId: number): Promise<void>;
  /** Sets item 1's version by raw SQL through Drizzle (`db.execute`, or `db.run` on SQLite): a write Drizzle cannot see. */
  rawSetVersion(version: number): Promise<void>;
  /** `select owners.name, items.version from items join owners …`, as `name@version`. */
  owner(cache?: CacheChoice): Promise<string | undefined>;
  /** `select count(*) from items`. */
  countItems(): Promise<number>;
  setVersion(version: number, id?: number): Promise<void>;
  rename(name: string): Promise<void>;
  insertItem(id: number): Promise<void>;
  /** A select of a table that does not exist: the database's error. */
  broken(): Promise<unknown>;
  transaction(fn: (tx: Queries) => Promise<void>): Promise<void>;
  /** db.batch([...]) where the driver has it. */
  batch?(version: number): Promise<void>;
  /** The tables, for `db.$cache.invalidate({ tables })`. */
  readonly tables: { items: object; owners: object };
}

/** One client of the database, with its own cache and probe. */
export interface Client {
  /** The Drizzle database (before `withFencedWrites`, which the suite applies). */
  db: object;
  probe: Probe;
  queries: Queries;
}

/** A database the suite runs on. */
export interface Backend {
  /** A new client: a Drizzle database with `cache`, over its own probed connection. */
  connect(cache: CachetteCache | undefined, options?: { drizzleCache?: object }): Client;
  /** Puts the rows back as they were, behind Drizzle's back (the suite starts each test with a fresh cache). */
  reset(): Promise<void>;
  /** Sets item 1's version behind Drizzle's back (raw SQL on a connection of its own). */
  touch(version: number): Promise<void>;
  /** Ends the connections of the clients connected so far (after each test). */
  disconnect(): Promise<void>;
  close(): Promise<void>;
}

/** A database the suite runs on, and what its driver can show. */
export interface BackendTarget {
  name: string;
  open(): Promise<Backend>;
  /** Readers on other connections run while a transaction is open (false: one connection). */
  concurrentTransactions: boolean;
  /** The driver has `db.batch`. */
  batch: boolean;
}

const SCHEMA = [
  'create table items (id integer primary key, version integer not null)',
  'create table owners (id integer primary key, item_id integer not null, name text not null)',
  'create view owned_items as select item_id from owners',
];
const ROWS = ['delete from items', 'delete from owners', 'insert into items values (1, 0), (2, 0)', "insert into owners values (1, 1, 'ada')"];

const pgItems = pgTable('items', { id: pgInteger('id').primaryKey(), version: pgInteger('version').notNull() });
const pgOwners = pgTable('owners', { id: pgInteger('id').primaryKey(), itemId: pgInteger('item_id').notNull(), name: pgText('name').notNull() });
const pgMissing = pgTable('missing_table', { id: pgInteger('id') });
const pgOwnedView = pgView('owned_items', { itemId: pgInteger('item_id').notNull() }).existing();

/** `select` with the cache choice applied. */
function choose<Q extends { $withCache(config?: Omit<WithCacheConfig, 'enable'> | false): Q }>(query: Q, cache: CacheChoice): Q {
  return cache === undefined ? query : query.$withCache(cache);
}

const pgTables = { items: pgItems, owners: pgOwners, missing: pgMissing, ownedView: pgOwnedView };
type Tables = typeof pgTables;

/**
 * The suite's queries on `db`. The databases of both dialects take these builder calls alike;
 * SQLite's database and tables are typed as PostgreSQL's here so that one body serves both (a
 * stand-in for the types only: each database builds its own dialect's SQL from its own tables).
 */
function queriesOn(db: PgDatabase<PgQueryResultHKT>, t: Tables): Queries {
  const batchable = db as unknown as { batch?(queries: unknown[]): Promise<unknown> };
  return {
    tables: { items: t.items, owners: t.owners },
    version: async (id = 1, cache) =>
      (
        await choose(
          db
            .select({ version: t.items.version })
            .from(t.items)
            .where(eq(t.items.id, id as number))
            .$dynamic(),
          cache,
        )
      )[0]?.version,
    owned: async (through) => {
      const ids = (rows: Array<{ id: number }>) => rows.map((row) => Number(row.id));
      const owners = db.select({ itemId: t.owners.itemId }).from(t.owners);
      const items = db.select({ id: t.items.id }).from(t.items);
      switch (through) {
        case 'in':
          return ids(await items.where(inArray(t.items.id, owners)).orderBy(t.items.id));
        case 'exists':
          return ids(await items.where(exists(db.select({ one: sql`1` }).from(t.owners).where(eq(t.owners.itemId, t.items.id)))).orderBy(t.items.id));
        case 'cte': {
          const owned = db.$with('owned').as(owners);
          return ids(await db.with(owned).select({ id: owned.itemId }).from(owned).orderBy(owned.itemId));
        }
        case 'raw':
          return ids(await items.where(sql`${t.items.id} in (select item_id from owners)`).orderBy(t.items.id));
        case 'view':
          return ids(await db.select({ id: t.ownedView.itemId }).from(t.ownedView).orderBy(t.ownedView.itemId));
      }
    },
    below: async (limit, cache) => (await choose(db.select({ n: count() }).from(t.items).where(sql`${t.items.version} < cast(${limit} as real)`).$dynamic(), cache))[0]!.n,
    addOwner: async (id, itemId) => void (await db.insert(t.owners).values({ id, itemId, name: `owner ${id}` })),
    rawSetVersion: async (version) => {
      const raw = db as unknown as { execute?(query: unknown): Promise<unknown>; run?(query: unknown): Promise<unknown> };
      const statement = sql`update items set version = ${version} where id = 1`;
      await (raw.execute ? raw.execute(statement) : raw.run!(statement));
    },
    owner: async (cache) => {
      const rows = await choose(db.select({ name: t.owners.name, version: t.items.version }).from(t.items).innerJoin(t.owners, eq(t.owners.itemId, t.items.id)).$dynamic(), cache);
      return rows[0] && `${rows[0].name}@${rows[0].version}`;
    },
    countItems: async () => (await db.select({ n: count() }).from(t.items))[0]!.n,
    setVersion: async (version, id = 1) => void (await db.update(t.items).set({ version }).where(eq(t.items.id, id))),
    rename: async (name) => void (await db.update(t.owners).set({ name }).where(eq(t.owners.id, 1))),
    insertItem: async (id) => void (await db.insert(t.items).values({ id, version: 0 })),
    broken: () => db.select().from(t.missing),
    transaction: (fn) => db.transaction((tx) => fn(queriesOn(tx, t))),
    ...(typeof batchable.batch === 'function'
      ? { batch: async (version: number) => void (await batchable.batch!([db.update(t.items).set({ version }).where(eq(t.items.id, 1)), db.select().from(t.items)])) }
      : {}),
  };
}

/** PostgreSQL in WASM: one PGlite instance, each client a view of it whose queries go through its probe. */
export const pglite: BackendTarget = { name: 'PostgreSQL (PGlite, drizzle-orm/pglite)', open: pgliteBackend, concurrentTransactions: false, batch: false };

async function pgliteBackend(): Promise<Backend> {
  const database = new PGlite();
  await database.exec(`${SCHEMA.join(';\n')};\n${ROWS.join(';\n')};`);
  // Drizzle calls query() for statements and transaction() for transactions; inside one, the
  // transaction object's query() is the one used.
  const probed = <T extends object>(target: T, probe: Probe): T =>
    new Proxy(target, {
      get(object, name) {
        const value = Reflect.get(object, name, object) as unknown;
        if (name === 'query') return (sql: string, ...rest: unknown[]) => probe.around(sql, () => (value as (...a: unknown[]) => Promise<unknown>).call(object, sql, ...rest));
        if (name === 'transaction') return (fn: (tx: object) => Promise<unknown>) => (value as (f: typeof fn) => Promise<unknown>).call(object, (tx) => fn(probed(tx, probe)));
        return typeof value === 'function' ? value.bind(object) : value;
      },
    });
  return {
    connect(cache, options) {
      const probe = new Probe();
      const db = drizzlePglite(probed(database, probe), { cache: (options?.drizzleCache ?? cache) as CachetteCache });
      return { db, probe, queries: queriesOn(db, pgTables) };
    },
    reset: async () => void (await database.exec(`${ROWS.join(';\n')};`)),
    touch: async (version) => void (await database.query('update items set version = $1 where id = 1', [version])),
    disconnect: async () => {},
    close: () => database.close(),
  };
}

/** A PostgreSQL server through node-postgres: each client its own connection. */
export async function nodePostgresBackend(url: string): Promise<Backend> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(SCHEMA.join(';\n'));
  await admin.query(ROWS.join(';\n'));
  const clients: pg.Client[] = [];
  const disconnect = async () => void (await Promise.all(clients.splice(0).map((c) => c.end().catch(() => undefined))));
  return {
    connect(cache, options) {
      const probe = new Probe();
      const client = new pg.Client({ connectionString: url });
      clients.push(client);
      client.connect().catch(() => undefined);
      const query = client.query.bind(client) as (config: { text?: string } | string, ...rest: unknown[]) => Promise<unknown>;
      // Drizzle sends a query config ({ text, … }) or, for `db.execute`, a string.
      (client as unknown as { query: typeof query }).query = (config, ...rest) => probe.around(typeof config === 'string' ? config : (config.text ?? ''), () => query(config, ...rest));
      const db = drizzleNodePg(client, { cache: (options?.drizzleCache ?? cache) as CachetteCache });
      return { db, probe, queries: queriesOn(db, pgTables) };
    },
    reset: async () => void (await admin.query(ROWS.join(';\n'))),
    touch: async (version) => void (await admin.query('update items set version = $1 where id = 1', [version])),
    disconnect,
    async close() {
      await disconnect();
      await admin.end();
    },
  };
}

const sqliteItems = sqliteTable('items', { id: sqliteInteger('id').primaryKey(), version: sqliteInteger('version').notNull() });
const sqliteOwners = sqliteTable('owners', { id: sqliteInteger('id').primaryKey(), itemId: sqliteInteger('item_id').notNull(), name: sqliteText('name').notNull() });
const sqliteMissing = sqliteTable('missing_table', { id: sqliteInteger('id') });
const sqliteOwnedView = sqliteView('owned_items', { itemId: sqliteInteger('item_id').notNull() }).existing();

const sqliteTables = { items: sqliteItems, owners: sqliteOwners, missing: sqliteMissing, ownedView: sqliteOwnedView };
const sqliteQueries = (db: BaseSQLiteDatabase<'async', unknown>) => queriesOn(db as unknown as PgDatabase<PgQueryResultHKT>, sqliteTables as unknown as Tables);

/** SQLite through Drizzle's asynchronous proxy driver, over better-sqlite3; every client shares the one connection. */
export const sqliteProxy: BackendTarget = { name: 'SQLite (drizzle-orm/sqlite-proxy over better-sqlite3)', open: sqliteProxyBackend, concurrentTransactions: false, batch: true };

async function sqliteProxyBackend(): Promise<Backend> {
  const database = new Database(':memory:');
  for (const statement of SCHEMA) database.exec(statement);
  const reset = () => {
    for (const statement of ROWS) database.exec(statement);
  };
  reset();
  type Method = 'run' | 'all' | 'values' | 'get';
  const execute = (sql: string, params: unknown[], method: Method) => {
    const statement = database.prepare(sql);
    if (method === 'run') {
      statement.run(...params);
      return { rows: [] };
    }
    if (method === 'get') return { rows: statement.raw().get(...params) as unknown[] };
    return { rows: statement.raw().all(...params) as unknown[] };
  };
  return {
    connect(cache, options) {
      const probe = new Probe();
      const db = drizzleProxy(
        (sql, params, method) => probe.around(sql, async () => execute(sql, params, method)),
        (batch) => probe.around(batch.map((q) => q.sql).join('; '), async () => database.transaction(() => batch.map((q) => execute(q.sql, q.params, q.method)))()),
        { cache: (options?.drizzleCache ?? cache) as CachetteCache },
      );
      return { db, probe, queries: sqliteQueries(db) };
    },
    reset: async () => reset(),
    touch: async (version) => void database.prepare('update items set version = ? where id = 1').run(version),
    disconnect: async () => {},
    close: async () => void database.close(),
  };
}

/**
 * Drizzle ORM in the race bench: every read is a Drizzle select and every write a Drizzle
 * update (in a transaction when the scenario commits slowly), over node-postgres, with
 *
 * - Drizzle's own cache as its documentation configures it: `upstashCache({ url, token,
 *   global: true, config: { ex: 60 } })` (the `UpstashCache` class it returns, unchanged),
 *   through `@upstash/redis` and cachette's Upstash-compatible bridge in front of the bench's
 *   redis-server. One command is translated: Drizzle stores each entry with `HEXPIRE`, which
 *   Redis 7.0 lacks, so `EXPIRE` on the entry's hash stands in (the run is far shorter than
 *   the 60 s either would keep it). Its Lua scripts need the bridge's `allowEval`.
 * - `cachette/drizzle` (`cachetteCache` + `withFencedWrites`) over the valkey store.
 *
 * These contenders reach PostgreSQL themselves (`update`, `loads`); the write's commit time
 * is when its COMMIT returned at the database client, as for the others.
 */
import { readFileSync } from 'node:fs';
import { Redis } from '@upstash/redis';
import { eq } from 'drizzle-orm';
import type { Cache as DrizzleCache } from 'drizzle-orm/cache/core';
import { UpstashCache } from 'drizzle-orm/cache/upstash';
import { drizzle } from 'drizzle-orm/node-postgres';
import { integer, pgTable } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { startBridge } from '../../products/bridge/index.ts';
import { cachetteCache, withFencedWrites } from '../../src/drizzle/index.ts';
import { createCache } from '../../src/index.ts';
import type { RaceClient, RaceContender } from './race-contender.ts';

const race = pgTable('race', { id: integer('id').primaryKey(), version: integer('version').notNull() });
const now = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const DRIZZLE = (JSON.parse(readFileSync(new URL('../../node_modules/drizzle-orm/package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** A node-postgres client that counts the SELECTs reaching PostgreSQL and notes when each statement returned. */
async function countedClient(pgUrl: string): Promise<{ client: pg.Client; loads(): number; returnedAt(): number }> {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  let loads = 0;
  let returnedAt = 0;
  const query = client.query.bind(client) as (config: { text?: string } | string, values?: unknown) => Promise<unknown>;
  (client as unknown as { query: typeof query }).query = (config, values) => {
    if (/^\s*select/i.test(typeof config === 'string' ? config : (config.text ?? ''))) loads++;
    return query(config, values).then((result) => {
      returnedAt = now();
      return result;
    });
  };
  return { client, loads: () => loads, returnedAt: () => returnedAt };
}

/** One contender: how its process builds Drizzle's cache, and how it wraps the database. */
function drizzleContender(
  id: string,
  label: string,
  open: (redisUrl: string, namespace: string) => Promise<{ cache: DrizzleCache; wrap<D extends object>(db: D): D; close(): Promise<void> }>,
): RaceContender {
  return {
    id,
    label,
    async open(redisUrl, namespace, pgUrl): Promise<RaceClient> {
      const [counted, opened] = await Promise.all([countedClient(pgUrl), open(redisUrl, namespace)]);
      const db = opened.wrap(drizzle(counted.client, { cache: opened.cache }));
      return {
        read: async () => (await db.select({ version: race.version }).from(race).where(eq(race.id, 1)))[0]!.version,
        async update(version, slowCommitMs) {
          if (slowCommitMs > 0) {
            await db.transaction(async (tx) => {
              await tx.update(race).set({ version }).where(eq(race.id, 1));
              await sleep(slowCommitMs);
            });
          } else {
            await db.update(race).set({ version }).where(eq(race.id, 1));
          }
          return counted.returnedAt();
        },
        loads: counted.loads,
        before: async () => {},
        after: async () => {},
        async close() {
          await opened.close();
          await counted.client.end();
        },
      };
    },
  };
}

/** Drizzle's `upstashCache`, through the bridge (see the module comment). */
const drizzleUpstash = drizzleContender('drizzle-upstash', `Drizzle ${DRIZZLE}, its \`upstashCache\` (global, \`ex: 60\`), via the bridge`, async (redisUrl) => {
  const bridge = await startBridge({ redisUrl, allowEval: true });
  const redis = new Redis({ url: bridge.url, token: bridge.token });
  const pipeline = redis.pipeline.bind(redis);
  redis.pipeline = () => {
    const batch = pipeline();
    batch.hexpire = ((key: string, _fields: unknown, seconds: number) => batch.expire(key, seconds)) as unknown as typeof batch.hexpire;
    return batch;
  };
  // What upstashCache({ url, token, global: true, config: { ex: 60 } }) builds, over that client.
  const cache = new UpstashCache(redis, { ex: 60 }, true);
  // Each run starts from the row at version 0: the entries of an earlier run go, as Drizzle invalidates.
  await cache.onMutate({ tables: ['race'] });
  return { cache, wrap: (db) => db, close: () => bridge.close() };
});

/** `cachette/drizzle` over the valkey store. */
const drizzleCachette = drizzleContender('drizzle-cachette', `Drizzle ${DRIZZLE}, \`cachette/drizzle\` (global)`, async (redisUrl, namespace) => {
  const cache = cachetteCache({ cache: createCache({ store: valkeyStore(redisUrl), namespace }), global: true, ttl: '60s' });
  return { cache, wrap: withFencedWrites, close: () => cache.cache.close() };
});

/** The Drizzle contenders, in table order. */
export const DRIZZLE_CONTENDERS: RaceContender[] = [drizzleUpstash, drizzleCachette];

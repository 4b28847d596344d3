// A store that is down never fails a Drizzle query: reads and writes go to the database, in and
// out of transactions, with a lenient cache and with a strict one (which throws store errors at
// its own callers, never at Drizzle's).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { valkeyStore } from '../../adapters/valkey/index.ts';
import { createCache, type Cache } from '../../src/index.ts';
import { cachetteCache, withFencedWrites } from '../../src/drizzle/index.ts';
import { requireRedis } from '../support/redis-env.ts';
import { startRedis, type RedisServer } from '../support/redis-server.ts';
import { sleep } from '../support/suite-api.ts';
import { pglite, type Backend } from './databases.ts';

describe.runIf(requireRedis())('cachette/drizzle with a redis-server that goes away', () => {
  let backend: Backend;
  const servers: RedisServer[] = [];
  const caches: Cache[] = [];
  beforeAll(async () => {
    backend = await pglite.open();
  }, 120_000);
  afterAll(async () => {
    await Promise.all(caches.map((c) => c.close()));
    await Promise.all(servers.map((s) => s.stop()));
    await backend?.close();
  });

  it.each([
    ['a lenient cache', false],
    ['a strict cache', true],
  ])('%s: every query is answered by the database, and the errors are the cache’s events', async (_, strict) => {
    await backend.reset();
    const server = await startRedis({ bin: process.env.REDIS_SERVER_BIN });
    servers.push(server);
    const cache = createCache({ store: valkeyStore(server.url), strict, timeout: '60s', circuitBreaker: { threshold: 2, cooldownMs: 60_000 } });
    caches.push(cache);
    const errors: unknown[] = [];
    cache.events.addEventListener('error', (event) => errors.push(event.detail));
    const { db, queries, probe } = backend.connect(cachetteCache({ cache, global: true }));
    withFencedWrites(db);
    expect(await queries.version()).toBe(0);
    expect(await queries.version()).toBe(0);
    expect(probe.selects).toBe(1);

    await server.stop();
    await sleep(50); // the client notices the closed socket
    expect(await queries.version()).toBe(0);
    await queries.setVersion(1);
    expect(await queries.version()).toBe(1);
    await queries.transaction(async (tx) => {
      await tx.setVersion(2);
      await tx.rename('bob');
    });
    expect(await queries.owner()).toBe('bob@2');
    await (db as { $cache: { invalidate(params: object): Promise<void> } }).$cache.invalidate({ tables: 'items' });
    expect(probe.selects).toBe(4);
    expect(errors.length).toBeGreaterThan(0);
  });
});

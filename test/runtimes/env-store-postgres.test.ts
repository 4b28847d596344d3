// CACHETTE_STORE=postgres://… (and the `store` option's string): the choice, its one line with
// the password hidden, the refusal where the environment cannot open it, and the store it opens
// on a real PostgreSQL (a throwaway cluster) on Node.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { chooseStore, describeChoice, openStoreFromEnv } from '../../runtimes/shared/env-store.ts';
import { serverStoreFactories } from '../../runtimes/shared/server-stores.ts';
import { postgresInstalled, startPostgres, type Postgres } from '../adapters/postgres-server.ts';

describe('CACHETTE_STORE=postgres://…', () => {
  it('a postgres:// or postgresql:// URL picks the PostgreSQL store, ahead of the generic server variables', () => {
    assert.deepEqual(chooseStore({ CACHETTE_STORE: 'postgres://app@db:5432/app', REDIS_URL: 'redis://h:1' }), { kind: 'postgres', url: 'postgres://app@db:5432/app', variable: 'CACHETTE_STORE' });
    assert.deepEqual(chooseStore({ CACHETTE_STORE: ' postgresql://db/app ' }), { kind: 'postgres', url: 'postgresql://db/app', variable: 'CACHETTE_STORE' });
    assert.deepEqual(chooseStore({}, { store: 'postgres://db/app' }), { kind: 'postgres', url: 'postgres://db/app', variable: 'store' });
  });

  it('says which store once, never with the password', () => {
    const line = describeChoice(chooseStore({ CACHETTE_STORE: 'postgres://app:s3cret@db:5432/app' }));
    assert.equal(line, 'store: postgres (CACHETTE_STORE=postgres://app:***@db:5432/app; shared by every process that reaches the database)');
    assert.equal(describeChoice(chooseStore({}, { store: 'postgres://db/app' })), 'store: postgres (the store option postgres://db/app; shared by every process that reaches the database)');
  });

  it('a URL without a host is a clear error naming the variable, its password hidden', () => {
    for (const bad of ['postgres://', 'postgres:///app', 'postgres://app:s3cret@']) {
      assert.throws(
        () => chooseStore({ CACHETTE_STORE: bad }),
        (e: Error) => e instanceof TypeError && /CACHETTE_STORE must be .* or a postgres:\/\/ URL with a host/.test(e.message) && !e.message.includes('s3cret'),
        bad,
      );
    }
    assert.throws(() => chooseStore({}, { store: 'postgres:///app' }), /a string store must be a redis:\/\/ or valkey:\/\/ URL, a postgres:\/\/ URL/);
  });

  it('a runtime without the PostgreSQL factory (Workers, Bun, Deno) names the store to pass instead', async () => {
    await assert.rejects(
      openStoreFromEnv({ CACHETTE_STORE: 'postgres://db/app' }, {}, { log: false }),
      /is not available on this runtime: the PostgreSQL store is picked from the environment on Node only; pass postgresStore\(url\) from cachette\/adapters\/postgres/,
    );
  });

  describe.runIf(postgresInstalled)('on a real PostgreSQL', () => {
    let server: Postgres;
    beforeAll(async () => {
      server = await startPostgres();
    }, 60_000);
    afterAll(() => server?.stop());

    it('opens the PostgreSQL store on Node, which stores and reads back', async () => {
      const lines: string[] = [];
      const store = await openStoreFromEnv({ CACHETTE_STORE: server.url }, serverStoreFactories, { log: (line) => lines.push(line) });
      try {
        assert.equal(store.name, 'postgres');
        assert.deepEqual(lines, [`[cachette] store: postgres (CACHETTE_STORE=${server.url}; shared by every process that reaches the database)`]);
        await store.set('env:k', new Uint8Array([1, 2, 3]));
        assert.deepEqual([...((await store.get('env:k')) ?? [])], [1, 2, 3]);
      } finally {
        await store.close();
      }
    }, 30_000);
  });
});

// The PostgreSQL store on bad input and failures, on a real server: a database nobody listens
// on (the error names the store, never the password), connections the server ends and a
// server that stops mid-run, keys and values above the store's limits, table names that are no
// identifiers, a table of that name that is not the store's, and the sweep's bounded batches.
import assert from 'node:assert/strict';
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { MAX_KEY_BYTES, postgresStore } from '../../adapters/postgres/index.ts';
import { StoreRefusedError, StoreUnavailableError } from '../../src/store/errors.ts';
import { bytes, text } from '../support/suite-api.ts';
import { freePort } from '../support/redis-server.ts';
import { postgresInstalled, startPostgres, type Postgres } from './postgres-server.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('postgresStore options', () => {
  it('refuses a table or schema name that is not a plain identifier, before any connection', () => {
    for (const table of ['cache; DROP TABLE users', 'a"b', '1cache', '', 'x'.repeat(41)]) {
      assert.throws(
        () => postgresStore({ connection: 'postgres://127.0.0.1/db', table }),
        (error: Error) => error instanceof TypeError && /"table" must be a name/.test(error.message),
      );
    }
    assert.throws(() => postgresStore({ connection: 'postgres://127.0.0.1/db', schema: 'public.x' }), /"schema" must be a name/);
  });

  it('refuses what is no PostgreSQL URL nor pg connection, with the password redacted', () => {
    assert.throws(
      () => postgresStore('redis://user:hunter2@127.0.0.1:6379'),
      (error: Error) => error instanceof TypeError && /not PostgreSQL URLs/.test(error.message) && !error.message.includes('hunter2'),
    );
    assert.throws(() => postgresStore({ connection: 42 as never }), /"connection" must be a postgres:\/\/ URL or a pg Pool or Client/);
    assert.throws(() => postgresStore({ connection: 'postgres://127.0.0.1/db', sweepBatch: 0 }), /"sweepBatch" must be an integer ≥ 1/);
  });
});

describe.runIf(postgresInstalled)('with PostgreSQL installed', () => {
  let server: Postgres;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('fails every call on a database nobody listens on with a StoreUnavailableError naming the store, not its password', async () => {
    const port = await freePort();
    const store = postgresStore({ connection: `postgres://cache:s3cret-pw@127.0.0.1:${port}/app`, connectTimeoutMs: 2000, sweepIntervalMs: 0 });
    try {
      assert.equal(store.address, `127.0.0.1:${port}/app`);
      for (const call of [() => store.get('k'), () => store.set('k', bytes('v')), () => store.incr('n', 1)]) {
        await assert.rejects(call(), (error: Error) => {
          assert.ok(error instanceof StoreUnavailableError, `${error.name}: ${error.message}`);
          assert.match(error.message, new RegExp(`^postgres 127\\.0\\.0\\.1:${port}/app: `));
          assert.ok(!error.message.includes('s3cret-pw'));
          return true;
        });
      }
    } finally {
      await store.close();
    }
  });

  it('names the store in a server’s refusal (a missing database), the password redacted', async () => {
    // The throwaway cluster trusts every local user (the password is not checked): the server's refusal is the missing database.
    const store = postgresStore({ connection: `${server.url.replace('postgres@', 'postgres:wrong-pw@')}_missing`, sweepIntervalMs: 0 });
    try {
      await assert.rejects(store.get('k'), (error: Error) => {
        assert.match(error.message, /^postgres 127\.0\.0\.1:\d+\/postgres_missing: .*does not exist/);
        assert.ok(!error.message.includes('wrong-pw'));
        return true;
      });
    } finally {
      await store.close();
    }
  });

  it('recovers when the server ends its connections, and fails as unavailable once it is gone', async () => {
    const own = await startPostgres();
    const store = postgresStore({ connection: own.url, sweepIntervalMs: 0 });
    try {
      await store.set('a', bytes('1'));
      const admin = new pg.Client({ connectionString: own.url });
      await admin.connect();
      const ended = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'cachette'");
      assert.ok(ended.rowCount! >= 1);
      await admin.end();
      // The pool drops the ended connections; a call may fail on one once, then a new one serves.
      let value: string | undefined;
      for (let attempt = 0; attempt < 5 && value === undefined; attempt++) value = await store.get('a').then(text, () => sleep(50).then(() => undefined));
      assert.equal(value, '1');
      await own.stop();
      await assert.rejects(store.get('a'), (error: Error) => error instanceof StoreUnavailableError && /^postgres 127\.0\.0\.1:\d+\/postgres: /.test(error.message));
    } finally {
      await store.close();
      await own.stop();
    }
  });

  it('refuses a key above MAX_KEY_BYTES and a value above maxValueBytes before sending them, and takes both at the limit', async () => {
    const store = postgresStore({ connection: server.url, table: 'cachette_limits', maxValueBytes: 1024, sweepIntervalMs: 0 });
    try {
      const atLimit = 'k'.repeat(MAX_KEY_BYTES - 2) + 'é';
      await store.set(atLimit, bytes('v'));
      assert.equal(text(await store.get(atLimit)), 'v');
      const over = 'k'.repeat(MAX_KEY_BYTES - 1) + 'é';
      for (const call of [
        () => store.get(over),
        () => store.set(over, bytes('v')),
        () => store.getMany(['a', over]),
        () => store.setMany([{ key: over, value: bytes('v') }]),
        () => store.delete([over]),
      ]) {
        await assert.rejects(call(), (error: Error) => error instanceof StoreRefusedError && /a key of 2049 bytes is longer than the store's 2048/.test(error.message));
      }
      await store.set('big', new Uint8Array(1024));
      assert.equal((await store.get('big'))?.length, 1024);
      await assert.rejects(
        store.set('big', new Uint8Array(1025)),
        (error: Error) => error instanceof StoreRefusedError && /a value of 1025 bytes is larger than the store's maxValueBytes \(1024\)/.test(error.message),
      );
      assert.equal((await store.get('big'))?.length, 1024, 'the refused write changed nothing');
      // What PostgreSQL itself refuses (a NUL in text) is refused for that call only.
      await assert.rejects(store.set('nul\u0000key', bytes('v')), StoreRefusedError);
      assert.equal(text(await store.get(atLimit)), 'v');
    } finally {
      await store.close();
    }
  });

  it('leaves a table of the same name that is not its own alone, and refuses a table of the other kind', async () => {
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await admin.query('CREATE TABLE app_users (key text PRIMARY KEY, value bytea NOT NULL, expires_at bigint)');
    await admin.query("INSERT INTO app_users VALUES ('ada', '\\x01', NULL)");
    const foreign = postgresStore({ connection: server.url, table: 'app_users', sweepIntervalMs: 0 });
    const logged = postgresStore({ connection: server.url, table: 'cachette_kind', unlogged: false, sweepIntervalMs: 0 });
    const unlogged = postgresStore({ connection: server.url, table: 'cachette_kind', sweepIntervalMs: 0 });
    try {
      await assert.rejects(foreign.clear(''), (error: Error) => error instanceof StoreRefusedError && /"app_users" exists and is not a cachette store's/.test(error.message));
      assert.equal((await admin.query('SELECT count(*)::int AS n FROM app_users')).rows[0].n, 1);
      await logged.set('k', bytes('v'));
      assert.equal((await admin.query("SELECT relpersistence FROM pg_class WHERE relname = 'cachette_kind'")).rows[0].relpersistence, 'p');
      await assert.rejects(unlogged.get('k'), (error: Error) => error instanceof StoreRefusedError && /is logged, and the store was asked for a UNLOGGED one/.test(error.message));
    } finally {
      await Promise.all([foreign.close(), logged.close(), unlogged.close()]);
      await admin.end();
    }
  });

  it('sweeps expired rows in bounded batches: at most sweepBatches statements of sweepBatch rows per sweep', async () => {
    const store = postgresStore({ connection: server.url, table: 'cachette_sweep', sweepBatch: 10, sweepBatches: 2, sweepIntervalMs: 0 });
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    try {
      await store.setMany(Array.from({ length: 25 }, (_, i) => ({ key: `gone:${i}`, value: bytes('x'), ttlMs: 1 })));
      await store.set('kept', bytes('k'), 60_000);
      await store.set('forever', bytes('f'));
      await sleep(20);
      assert.equal(await store.sweep(), 20);
      assert.equal(await store.sweep(), 5);
      assert.equal(await store.sweep(), 0);
      const rows = await admin.query('SELECT key FROM cachette_sweep ORDER BY key');
      assert.deepEqual(
        rows.rows.map((row) => row.key),
        ['forever', 'kept'],
      );
    } finally {
      await store.close();
      await admin.end();
    }
  });
});

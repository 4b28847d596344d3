import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { sqliteStore } from '../../adapters/sqlite/index.ts';
import { APPLICATION_ID, SCHEMA_VERSION } from '../../adapters/sqlite/schema.ts';
import { CLEAR_BATCH } from '../../adapters/sqlite/statements.ts';
import { EVICTION_SAMPLE } from '../../adapters/sqlite/upkeep.ts';
import { createCache } from '../../src/index.ts';
import { StoreClosedError } from '../../src/store/errors.ts';
import { bytes, text } from '../support/suite-api.ts';
import { removeDir, tempDir, tempSqliteStore } from './sqlite-temp.ts';

let dir: string;
let count = 0;
beforeAll(() => {
  dir = tempDir('layout');
});
afterAll(() => removeDir(dir));
const freshPath = () => join(dir, `case-${count++}`, 'cache.db');

/** WAL frames appended since the file was last checkpointed: one per page a commit wrote. */
const walFrames = (path: string) => (existsSync(`${path}-wal`) ? Math.max(0, (statSync(`${path}-wal`).size - 32) / (4096 + 24)) : 0);

describe('the writes of a tick', () => {
  it('commit together, in one transaction: one WAL commit for twenty sets, against forty frames for twenty awaited ones', async () => {
    const path = freshPath();
    const store = sqliteStore(path);
    try {
      await store.set('warm', bytes('up'));
      const raw = new Database(path);
      raw.pragma('wal_checkpoint(TRUNCATE)');
      await Promise.all(Array.from({ length: 20 }, (_, i) => store.set(`k${i}`, bytes(`v${i}`))));
      const together = walFrames(path);
      raw.pragma('wal_checkpoint(TRUNCATE)');
      for (let i = 0; i < 20; i++) await store.set(`k${i}`, bytes(`w${i}!`));
      const apart = walFrames(path);
      raw.close();
      // The first set of the tick runs at once (its own commit), the other nineteen in one: each
      // commit writes the page of the rows and the page of the totals.
      assert.ok(together <= 4, `${together} frames for one tick`);
      assert.ok(apart >= 40, `${apart} frames for twenty awaited sets`);
      assert.deepEqual((await store.getMany(['k0', 'k19'])).map(text), ['w0!', 'w19!']);
    } finally {
      await store.close();
    }
  });

  it('keep the order they were issued in, are seen by a read issued after them, and fail one by one', async () => {
    const store = tempSqliteStore();
    try {
      await store.set('text', bytes('not a number'));
      const writes = [store.set('k', bytes('1')), store.set('k', bytes('2')), store.delete(['gone']), store.incr('text', 1), store.incr('n', 5), store.add('lease', bytes('me'), 1000)];
      // Not awaited: the read must still see every write issued before it.
      const read = store.getMany(['k', 'n', 'lease']);
      const outcomes = await Promise.allSettled(writes);
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
      );
      assert.match(String((outcomes[3] as PromiseRejectedResult).reason), /not an integer/);
      assert.deepEqual((await read).map(text), ['2', '5', 'me']);
      assert.equal(text(await store.get('text')), 'not a number', 'the failed incr changed nothing');
    } finally {
      await store.close();
    }
  });

  it('run as one transaction through pipeline, each op with its own result or error', async () => {
    const store = tempSqliteStore();
    try {
      await store.set('text', bytes('x'));
      const results = await store.pipeline([
        { kind: 'set', key: 'a', value: bytes('1') },
        { kind: 'incr', key: 'a', by: 2 },
        { kind: 'incr', key: 'text', by: 1 },
        { kind: 'get', key: 'a' },
        { kind: 'setMany', entries: [{ key: 'b', value: bytes('B') }] },
        { kind: 'getMany', keys: ['a', 'b', 'none'] },
        { kind: 'delete', keys: ['b', 'none'] },
      ]);
      assert.equal(results[0], undefined);
      assert.equal(results[1], 3);
      assert.ok(results[2] instanceof Error && /not an integer/.test(results[2].message));
      assert.equal(text(results[3] as Uint8Array), '3');
      assert.deepEqual((results[5] as Array<Uint8Array | undefined>).map(text), ['3', 'B', undefined]);
      assert.equal(results[6], 1);
      // The engine folds a tick into one pipeline when asked to batch.
      const cache = createCache({ store, batch: true, closeStore: false });
      await Promise.all([cache.set('x', 1), cache.set('y', 2)]);
      assert.deepEqual(await Promise.all([cache.get('x'), cache.get('y')]), [1, 2]);
      await cache.close();
    } finally {
      await store.close();
    }
  });

  it('getSync answers at once, with what the writes issued before it left', async () => {
    const store = tempSqliteStore();
    void store.set('k', bytes('now'));
    assert.equal(text(store.getSync('k')), 'now');
    assert.equal(store.getSync('absent'), undefined);
    await store.close();
    assert.throws(() => store.getSync('k'), StoreClosedError);
  });
});

describe('layout 2: a rowid table keyed by a seeded hash of the key', () => {
  it('a row under the id of a key but holding another key is never served for it; a write of the key takes the slot', async () => {
    const path = freshPath();
    const store = sqliteStore(path);
    try {
      await store.set('mine', bytes('mine'));
      const raw = new Database(path);
      // What a collision looks like: another key in the slot of "mine".
      raw.prepare("UPDATE cachette_entries SET key = 'theirs' WHERE key = 'mine'").run();
      raw.close();
      assert.equal(await store.get('mine'), undefined);
      assert.equal(await store.get('theirs'), undefined, 'theirs lives at another id');
      assert.equal(await store.delete(['mine']), 0);
      assert.equal(await store.compareAndDelete('mine', bytes('mine')), false);
      assert.equal(await store.incr('mine', 1), 1, 'a counter starts afresh');
      assert.equal(await store.add('mine', bytes('again')), false, 'the key is live now');
      assert.deepEqual(await store.usage(), { entries: 1, bytes: 'mine'.length + 1 }, 'the slot was taken over, not doubled');
    } finally {
      await store.close();
    }
  });

  it('the same keys get the same ids in every process: the seed is the file’s', async () => {
    const path = freshPath();
    const first = sqliteStore(path);
    const second = sqliteStore(path);
    try {
      await first.set('shared', bytes('one'));
      assert.equal(text(await second.get('shared')), 'one');
      const seeds = new Database(path, { readonly: true }).prepare("SELECT value FROM cachette_settings WHERE name = 'key_seed'").pluck().all();
      assert.equal(seeds.length, 1);
      const other = sqliteStore(freshPath());
      await other.set('shared', bytes('two'));
      const ids = [path, other.path].map((p) => new Database(p, { readonly: true }).prepare("SELECT id FROM cachette_entries WHERE key = 'shared'").pluck().get());
      assert.notEqual(ids[0], ids[1], 'another file, another seed');
      await other.close();
    } finally {
      await first.close();
      await second.close();
    }
  });

  it(`clear(prefix) walks the whole file, ${CLEAR_BATCH} rows per transaction: keys of a prefix are spread over it`, async () => {
    const store = tempSqliteStore();
    try {
      const keys = Array.from({ length: CLEAR_BATCH * 3 + 7 }, (_, i) => `${i % 2 ? 'a' : 'b'}:${i}`);
      await store.setMany(keys.map((key) => ({ key, value: bytes('v') })));
      await store.clear('a:');
      const values = await store.getMany(keys);
      for (const [i, key] of keys.entries()) assert.equal(values[i] !== undefined, key.startsWith('b:'), key);
      assert.equal((await store.usage()).entries, keys.filter((key) => key.startsWith('b:')).length);
    } finally {
      await store.close();
    }
  });

  it('a file of layout 1 is converted on open: its entries are dropped, its value files removed', async () => {
    const path = freshPath();
    mkdirSync(join(path, '..'), { recursive: true });
    mkdirSync(`${path}-values`);
    const old = '0123456789abcdef0123456789abcdef.bin';
    writeFileSync(join(`${path}-values`, old), new Uint8Array(4096));
    const raw = new Database(path);
    raw.pragma('journal_mode = WAL');
    raw.exec(`
      CREATE TABLE cachette_entries (key TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL, expires_at INTEGER, stored_at INTEGER NOT NULL,
        used_at INTEGER NOT NULL, uses INTEGER NOT NULL, size INTEGER NOT NULL, file TEXT);
      CREATE INDEX cachette_entries_expiry ON cachette_entries (expires_at) WHERE expires_at IS NOT NULL;
      CREATE TABLE cachette_totals (id INTEGER PRIMARY KEY CHECK (id = 0), entries INTEGER NOT NULL, bytes INTEGER NOT NULL);
      INSERT INTO cachette_totals VALUES (0, 2, 4103);
      CREATE TABLE cachette_garbage (file TEXT NOT NULL);
      INSERT INTO cachette_entries VALUES ('inline', x'01', NULL, 1, 1, 0, 7, NULL), ('big', x'', NULL, 1, 1, 0, 4099, '${old}');
      PRAGMA application_id = ${APPLICATION_ID};
      PRAGMA user_version = 1;`);
    raw.close();
    const store = sqliteStore(path);
    try {
      assert.deepEqual(await store.getMany(['inline', 'big']), [undefined, undefined]);
      await store.set('new', bytes('v'));
      assert.deepEqual(readdirSync(store.valuesDir), [], 'the old value file went with the first write');
      assert.deepEqual(await store.usage(), { entries: 1, bytes: 4 });
      const check = new Database(path, { readonly: true });
      assert.equal(check.pragma('user_version', { simple: true }), SCHEMA_VERSION);
      check.close();
    } finally {
      await store.close();
    }
  });
});

describe('a delete', () => {
  it('expires an inline entry in place: one page per delete, gone for every read at once, its row left to the sweep', async () => {
    const path = freshPath();
    const store = sqliteStore(path);
    try {
      await store.setMany(Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, value: bytes(`value ${i}`) })));
      const raw = new Database(path);
      raw.pragma('wal_checkpoint(TRUNCATE)');
      for (let i = 0; i < 5; i++) assert.equal(await store.delete([`k${i}`]), 1);
      assert.equal(walFrames(path), 5, 'each delete wrote the page of its row, and not the totals');
      assert.deepEqual((await store.getMany(['k0', 'k4', 'k5'])).map(text), [undefined, undefined, 'value 5']);
      assert.equal(await store.delete(['k0']), 0, 'a deleted entry does not count twice');
      assert.equal(raw.prepare("SELECT length(value) FROM cachette_entries WHERE key = 'k0'").pluck().get(), 0, 'its bytes are gone from the row');
      raw.close();
      assert.equal((await store.usage()).entries, 10, 'counted until the sweep, as expired entries are');
      await store.clear('');
      assert.deepEqual(await store.usage(), { entries: 0, bytes: 0 });
    } finally {
      await store.close();
    }
  });
});

describe('sampled eviction', () => {
  it(`keeps the bound and evicts the oldest of each sample of ${EVICTION_SAMPLE}: what survives is mostly what was written last`, async () => {
    const store = tempSqliteStore({ maxEntries: 500 });
    try {
      for (let i = 0; i < 2000; i++) await store.set(`k${i}`, bytes(String(i)));
      assert.equal((await store.usage()).entries, 500);
      const alive = (await store.getMany(Array.from({ length: 2000 }, (_, i) => `k${i}`))).flatMap((v, i) => (v ? [i] : []));
      assert.equal(alive.length, 500);
      const recent = alive.filter((i) => i >= 1000).length;
      const oldest = alive.filter((i) => i < 500).length;
      assert.ok(recent >= 475, `${recent} of the 500 survivors are among the last 1,000 written`);
      assert.ok(oldest <= 5, `${oldest} survivors are among the first 500 written`);
    } finally {
      await store.close();
    }
  });

  it("rejects a synchronous level that is not SQLite's, and runs with synchronous 'off'", async () => {
    assert.throws(() => sqliteStore({ path: freshPath(), synchronous: 'extra' as never }), /synchronous must be one of normal, off, full, got "extra"/);
    const store = tempSqliteStore({ synchronous: 'off' });
    try {
      assert.equal(store.synchronous, 'off');
      await store.set('k', bytes('v'));
      assert.equal(text(await store.get('k')), 'v');
    } finally {
      await store.close();
    }
  });
});

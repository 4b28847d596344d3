import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, it, vi } from 'vitest';
import { sqliteStore, SqliteStoreError, type SqliteStore } from '../../adapters/sqlite/index.ts';
import { MAX_SPARES } from '../../adapters/sqlite/pending-files.ts';
import { SCHEMA_VERSION } from '../../adapters/sqlite/schema.ts';
import { SWEEP_EVERY } from '../../adapters/sqlite/upkeep.ts';
import { createCache, type Cache } from '../../src/index.ts';
import { StoreClosedError } from '../../src/store/errors.ts';
import { mustRunAll } from '../support/redis-env.ts';
import { bytes, sleep, text } from '../support/suite-api.ts';
import { removeDir, tempDir, tempSqliteStore } from './sqlite-temp.ts';

let dir: string;
beforeAll(() => {
  dir = tempDir('unit');
});
afterAll(() => removeDir(dir));

const errorsOf = (cache: Cache) => {
  const seen: unknown[] = [];
  cache.events.addEventListener('error', (e) => seen.push((e as CustomEvent<{ error: unknown }>).detail.error));
  return seen;
};

/** Mounting a tmpfs needs root; under CI (which runs as root) its absence is a failure, not a skip. */
function canMount(): boolean {
  if (process.getuid?.() === 0) return true;
  if (mustRunAll) throw new Error('the full-disk test mounts a tmpfs and needs root, and CI forbids skipping it');
  return false;
}

const keysOf = async (store: SqliteStore, keys: string[]) => (await store.getMany(keys)).map((v, i) => (v ? keys[i] : undefined)).filter(Boolean);

describe('sqliteStore options', () => {
  it('rejects bad options at creation, naming them', () => {
    assert.throws(() => sqliteStore(''), /"path" must be a non-empty file path/);
    assert.throws(() => sqliteStore({ path: 42 as unknown as string }), /"path" must be a non-empty file path, got 42/);
    assert.throws(() => sqliteStore({ path: 'a\0b' }), /NUL/);
    assert.throws(
      () => sqliteStore({ path: 'x.db', maxBytes: 0 }),
      (e: Error) => e instanceof RangeError && /maxBytes must be a positive number, got 0/.test(e.message),
    );
    assert.throws(
      () => sqliteStore({ path: 'x.db', maxEntries: 1.5 }),
      (e: Error) => e instanceof RangeError && /maxEntries must be a positive integer/.test(e.message),
    );
    assert.throws(() => sqliteStore({ path: 'x.db', policy: 'fifo' as never }), /policy must be one of least-recently-stored, least-recently-used, least-frequently-used, got "fifo"/);
    assert.throws(() => sqliteStore({ path: 'x.db', timeoutMs: -1 }), /timeoutMs must be a finite number ≥ 0/);
    assert.throws(() => sqliteStore({ path: 'x.db', binding: 'sqlite3' as never }), /binding must be one of better-sqlite3, bun:sqlite, node:sqlite/);
  });

  it('a binding this runtime cannot load is a TypeError at creation', () => {
    assert.throws(
      () => sqliteStore({ path: join(dir, 'bun.db'), binding: 'bun:sqlite' }),
      (e: Error) => e instanceof TypeError && /cannot load the SQLite binding "bun:sqlite" on this runtime \(bun:sqlite exists only on Bun\)/.test(e.message),
    );
  });

  it('creates the missing directories of its path and runs on better-sqlite3 by default on Node', async () => {
    const store = sqliteStore(join(dir, 'deep', 'er', 'cache.db'));
    try {
      assert.equal(store.binding, 'better-sqlite3');
      assert.equal(store.local, true);
      await store.set('k', bytes('v'));
      assert.equal(text(await store.get('k')), 'v');
    } finally {
      await store.close();
    }
  });
});

describe('the file', () => {
  it('keeps entries and their TTLs across a reopen, and is in WAL mode', async () => {
    const path = join(dir, 'persist.db');
    const first = sqliteStore(path);
    await first.set('forever', bytes('f'));
    // Long enough that the reopen and the first read come before it, on a loaded machine too.
    const shortMs = 2_000;
    const setAt = Date.now();
    await first.set('short', bytes('s'), shortMs);
    await first.incr('count', 3);
    await first.close();
    const second = sqliteStore(path);
    try {
      assert.deepEqual((await second.getMany(['forever', 'short', 'count'])).map(text), ['f', 's', '3']);
      await sleep(Math.max(0, setAt + shortMs + 50 - Date.now()));
      assert.equal(await second.get('short'), undefined, 'the TTL survived the reopen');
      const raw = new Database(path, { readonly: true });
      assert.equal(raw.pragma('journal_mode', { simple: true }), 'wal');
      assert.equal(raw.pragma('application_id', { simple: true }), 0x63616368);
      raw.close();
    } finally {
      await second.close();
    }
  });

  it('refuses to write into a database it did not create, and leaves it alone', async () => {
    const path = join(dir, 'app.db');
    const app = new Database(path);
    app.exec("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users VALUES (1, 'ada')");
    app.close();
    const store = sqliteStore(path);
    await assert.rejects(
      store.set('k', bytes('v')),
      (e: unknown) => e instanceof SqliteStoreError && e.code === 'FOREIGN' && e.path === path && /did not create; refusing to write into it/.test(e.message),
    );
    await assert.rejects(store.get('k'), (e: unknown) => e instanceof SqliteStoreError && e.code === 'FOREIGN');
    await store.close();
    const check = new Database(path, { readonly: true });
    assert.deepEqual(check.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all(), ['users']);
    check.close();
  });

  it('refuses a file written by a newer layout', async () => {
    const path = join(dir, 'newer.db');
    await sqliteStore(path).close();
    const raw = new Database(path);
    raw.pragma('user_version = 99');
    raw.close();
    const store = sqliteStore(path);
    await assert.rejects(store.get('k'), (e: unknown) => e instanceof SqliteStoreError && e.code === 'TOONEW' && e.message.includes(`newer cachette (layout 99, this one reads ${SCHEMA_VERSION})`));
    await store.close();
  });
});

describe('size bounds and eviction', () => {
  it('least-recently-stored (default): the oldest writes go first; reads change nothing', async () => {
    const store = tempSqliteStore({ maxEntries: 3 });
    try {
      for (const k of ['a', 'b', 'c']) await store.set(k, bytes(k));
      await store.get('a');
      await store.set('d', bytes('d'));
      assert.deepEqual(await keysOf(store, ['a', 'b', 'c', 'd']), ['b', 'c', 'd']);
      assert.deepEqual(await store.usage(), { entries: 3, bytes: 6 });
    } finally {
      await store.close();
    }
  });

  it('least-recently-used: a hit keeps an entry', async () => {
    const store = tempSqliteStore({ maxEntries: 3, policy: 'least-recently-used' });
    try {
      for (const k of ['a', 'b', 'c']) {
        await store.set(k, bytes(k));
        await sleep(2); // distinct timestamps: the order is by milliseconds
      }
      await store.get('a');
      await store.set('d', bytes('d'));
      assert.deepEqual(await keysOf(store, ['a', 'b', 'c', 'd']), ['a', 'c', 'd']);
    } finally {
      await store.close();
    }
  });

  it('least-frequently-used: the entry with the fewest hits goes', async () => {
    const store = tempSqliteStore({ maxEntries: 3, policy: 'least-frequently-used' });
    try {
      for (const k of ['a', 'b', 'c']) await store.set(k, bytes(k));
      await store.getMany(['a', 'a', 'c']);
      await store.get('b');
      await store.get('b');
      await sleep(2);
      await store.set('d', bytes('d')); // c (1 hit) goes before a and b (2 each); d, just stored, stays
      assert.deepEqual(await keysOf(store, ['a', 'b', 'c', 'd']), ['a', 'b', 'd']);
    } finally {
      await store.close();
    }
  });

  it('maxBytes counts values plus keys; a value that can never fit is not stored and drops the old one', async () => {
    const store = tempSqliteStore({ maxBytes: 100 });
    try {
      await store.set('k1', new Uint8Array(40));
      await store.set('k2', new Uint8Array(40));
      assert.deepEqual(await store.usage(), { entries: 2, bytes: 84 });
      await store.set('k3', new Uint8Array(40)); // 126 > 100: k1 goes
      assert.deepEqual(await keysOf(store, ['k1', 'k2', 'k3']), ['k2', 'k3']);
      await store.set('k2', new Uint8Array(10)); // shrinking updates the total in place
      assert.deepEqual(await store.usage(), { entries: 2, bytes: 54 });
      await store.set('k2', new Uint8Array(200));
      assert.deepEqual(await keysOf(store, ['k2', 'k3']), ['k3']);
      assert.equal(await store.add('big', new Uint8Array(200)), false);
      assert.deepEqual(await store.usage(), { entries: 1, bytes: 42 });
    } finally {
      await store.close();
    }
  });

  it(`expired entries go with the sweep of the hand, within ${SWEEP_EVERY} writes, with no timer`, async () => {
    const store = tempSqliteStore();
    // The store reads Date.now(): faking only Date makes "expired" exact on a loaded machine,
    // where real writes could outlast a short TTL; real timers keep running, so the wait below
    // still shows that nothing sweeps between writes.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      await store.setMany(Array.from({ length: 20 }, (_, i) => ({ key: `t${i}`, value: bytes('x'), ttlMs: 20 })));
      await store.set('live', bytes('y'));
      assert.equal((await store.usage()).entries, 21);
      vi.setSystemTime(Date.now() + 40);
      await sleep(40);
      assert.equal((await store.usage()).entries, 21, 'nothing runs between writes');
      assert.equal(await store.get('t1'), undefined, 'an expired entry is invisible before the sweep');
      assert.equal(await store.delete(['t1', 't2']), 0, 'an expired entry does not count as deleted');
      // One key written over and over: the file stays smaller than a sweep, so one sweep visits all of it.
      let writes = 0;
      while ((await store.usage()).entries > 2 && writes < SWEEP_EVERY) {
        await store.set('w', bytes('z'));
        writes++;
      }
      assert.deepEqual(await store.usage(), { entries: 2, bytes: 'live'.length + 1 + 'w'.length + 1 }, `after ${writes} writes`);
      assert.equal(text(await store.get('live')), 'y');
    } finally {
      vi.useRealTimers();
      await store.close();
    }
  });
});

describe('large values in files beside the database', () => {
  const big = (fill: number) => new Uint8Array(2048).fill(fill);
  const filesOf = (store: SqliteStore) => (existsSync(store.valuesDir) ? readdirSync(store.valuesDir) : []);

  it('a value at or above fileThreshold gets its own file; replacing or deleting it removes the file', async () => {
    const store = tempSqliteStore({ fileThreshold: 1024 });
    try {
      assert.equal(store.valuesDir, `${store.path}-values`);
      await store.set('small', new Uint8Array(1023));
      assert.deepEqual(filesOf(store), []);
      await store.set('big', big(1));
      assert.equal(filesOf(store).length, 1);
      assert.deepEqual(new Uint8Array((await store.get('big'))!), big(1));
      // The write that named the file reserved the next one's name: its bytes count until it is used or released.
      assert.deepEqual(await store.usage(), { entries: 2, bytes: 1023 + 5 + 2048 + 3 + 2048 });
      await store.set('big', big(2));
      assert.equal(filesOf(store).length, 1, 'the old file went with the commit that replaced it');
      assert.deepEqual(
        (await store.getMany(['big', 'small'])).map((v) => v?.length),
        [2048, 1023],
      );
      await store.set('big', bytes('now small'));
      assert.deepEqual(filesOf(store), []);
      await store.set('big', big(3));
      assert.equal(await store.delete(['big']), 1);
      await store.set('other', bytes('any write claims what earlier deletes left'));
      assert.deepEqual(filesOf(store), []);
    } finally {
      await store.close();
    }
  });

  it('the spare name a large write reserved for the next one is used by it, and released on close', async () => {
    const dir = tempDir('spare');
    const path = join(dir, 'cache.db');
    try {
      const store = sqliteStore({ path, fileThreshold: 1024 });
      await store.set('a', big(1));
      const spare = 2048;
      assert.deepEqual(await store.usage(), { entries: 1, bytes: 2048 + 1 + spare });
      // Four at once: one takes the spare and folds with the tick; the others reserve first. Spares are left for the next ones.
      await Promise.all(['b', 'c', 'd', 'e'].map((key, i) => store.set(key, big(i + 2))));
      const { entries, bytes: counted } = await store.usage();
      const spares = (counted - 5 * (2048 + 1)) / spare;
      assert.equal(entries, 5);
      assert.ok(Number.isInteger(spares) && spares >= 1 && spares <= MAX_SPARES, `${spares} spares counted`);
      assert.equal(filesOf(store).length, 5, 'a spare has no file until a value is written under it');
      await store.close();
      const again = sqliteStore({ path, fileThreshold: 1024 });
      assert.deepEqual(await again.usage(), { entries: 5, bytes: 5 * (2048 + 1) }, 'close released the spares');
      assert.deepEqual(new Uint8Array((await again.get('e'))!), big(5));
      await again.close();
    } finally {
      removeDir(dir);
    }
  });

  it('culled, evicted and cleared entries take their files with them', async () => {
    const store = tempSqliteStore({ fileThreshold: 1024, maxEntries: 3 });
    try {
      await store.set('expiring', big(1), 20);
      await store.set('a', big(2));
      await store.set('b', big(3));
      await sleep(40);
      await store.set('c', big(4)); // culls 'expiring'
      assert.equal(filesOf(store).length, 3);
      await store.set('d', big(5)); // evicts 'a'
      assert.deepEqual(await keysOf(store, ['expiring', 'a', 'b', 'c', 'd']), ['b', 'c', 'd']);
      assert.equal(filesOf(store).length, 3);
      await store.clear('');
      assert.deepEqual(filesOf(store), []);
    } finally {
      await store.close();
    }
  });

  it('a value file removed by hand is a miss, not an error; fileThreshold Infinity keeps everything inline', async () => {
    const store = tempSqliteStore({ fileThreshold: 1024 });
    const inline = tempSqliteStore({ fileThreshold: Infinity });
    try {
      await store.set('big', big(1));
      for (const f of filesOf(store)) rmSync(join(store.valuesDir, f));
      assert.equal(await store.get('big'), undefined);
      await inline.set('big', new Uint8Array(4 * 1024 * 1024));
      assert.equal(existsSync(inline.valuesDir), false);
      assert.equal((await inline.get('big'))?.length, 4 * 1024 * 1024);
    } finally {
      await store.close();
      await inline.close();
    }
  });

  it('rejects a fileThreshold that is not a positive size', () => {
    assert.throws(() => sqliteStore({ path: join(dir, 'x.db'), fileThreshold: 0 }), /fileThreshold must be a positive number of bytes \(Infinity: never\), got 0/);
  });
});

describe('failure: a miss or a failed write plus an error, never a crash', () => {
  it('a truncated file (a crash mid-copy) is reported, not thrown', async () => {
    const path = join(dir, 'truncated.db');
    const good = sqliteStore(path);
    await good.setMany(Array.from({ length: 200 }, (_, i) => ({ key: `k${i}`, value: new Uint8Array(500).fill(i) })));
    await good.close();
    const whole = readFileSync(path);
    writeFileSync(path, whole.subarray(0, 4096 + 100)); // the header page survives, the tree does not
    const store = sqliteStore(path);
    try {
      const outcome = await store.get('k150').then(
        (v) => ({ value: v }),
        (error: unknown) => ({ error }),
      );
      if ('error' in outcome) assert.ok(outcome.error instanceof SqliteStoreError && ['CORRUPT', 'NOTADB', 'IOERR'].includes(outcome.error.code), String(outcome.error));
      else assert.equal(outcome.value, undefined);
    } finally {
      await store.close();
    }
  });

  // A real full disk: a 256 KiB tmpfs. Mounting needs root, which this machine and CI have.
  it.runIf(canMount())('a full disk fails writes with FULL while reads go on; the cache reports set → false', async () => {
    const mount = join(dir, 'small-disk');
    execFileSync('mkdir', ['-p', mount]);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mount]);
    const store = sqliteStore({ path: join(mount, 'cache.db'), timeoutMs: 50 });
    const cache = createCache({ store });
    const errors = errorsOf(cache);
    try {
      await store.set('first', bytes('kept'));
      let failure: unknown;
      for (let i = 0; i < 64 && failure === undefined; i++) await store.set(`fill${i}`, new Uint8Array(16 * 1024).fill(i)).catch((e: unknown) => (failure = e));
      assert.ok(failure instanceof SqliteStoreError && failure.code === 'FULL' && /database or disk is full/.test(failure.message), String(failure));
      assert.equal(text(await store.get('first')), 'kept');
      // Random bytes: zeros would compress to almost nothing and fit.
      assert.equal(await cache.set('more', crypto.getRandomValues(new Uint8Array(64 * 1024))), false);
      assert.ok(errors.some((e) => e instanceof SqliteStoreError && e.code === 'FULL'));
    } finally {
      await store.close();
      execFileSync('umount', [mount]);
    }
  });

  it('a closed store rejects every call with a StoreClosedError; close twice is fine', async () => {
    const store = tempSqliteStore();
    await store.close();
    await store.close();
    await assert.rejects(store.get('k'), StoreClosedError);
    await assert.rejects(store.set('k', bytes('v')), StoreClosedError);
  });
});

import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultBinding, openConnection } from '../../adapters/sqlite/binding.ts';
import { sqliteStore, SqliteStoreError } from '../../adapters/sqlite/index.ts';
import { createCache, type Cache } from '../../src/index.ts';
import { StoreBusyError } from '../../src/store/index.ts';
import { bytes, sleep, text, type SuiteApi } from '../support/suite-api.ts';
import { sqliteSecuritySuite } from './sqlite-security-suite.ts';
import { removeDir, tempDir } from './sqlite-temp.ts';

const errorsOf = (cache: Cache) => {
  const seen: unknown[] = [];
  cache.events.addEventListener('error', (e) => seen.push((e as CustomEvent<{ error: unknown }>).detail.error));
  return seen;
};

const isStoreError = (code: string) => (e: unknown) => e instanceof SqliteStoreError && e.code === code;

/**
 * A corrupt or locked file on each runtime's own binding (the three word their errors
 * differently): a miss or a failed write plus an error event, never a crash; SQLITE_BUSY
 * retried on the event loop within the store's timeout; then hostile rows and files
 * (sqlite-security-suite.ts). Runner-neutral: vitest, bun test, Deno.test.
 */
export function sqliteFailureSuite(t: SuiteApi, runtime: string): void {
  t.describe(`sqlite store failures on ${runtime} (${defaultBinding()})`, () => {
    let dir: string;
    t.beforeAll(() => {
      dir = tempDir(`failure-${runtime}`);
    });
    t.afterAll(() => removeDir(dir));

    t.it('a corrupt file: the store opens, every call rejects with NOTADB, the cache misses; a replaced file is picked up again', async () => {
      const path = join(dir, 'corrupt.db');
      writeFileSync(path, 'this is not a database, only some text '.repeat(200));
      const store = sqliteStore({ path, timeoutMs: 50 });
      const cache = createCache({ store });
      const errors = errorsOf(cache);
      try {
        await assert.rejects(
          store.get('k'),
          (e: unknown) => isStoreError('NOTADB')(e) && (e as SqliteStoreError).path === path && /cannot open the database: file is not a database/.test((e as Error).message),
        );
        assert.equal(await cache.get('k'), undefined);
        assert.equal(await cache.set('k', 1), false);
        assert.equal(await cache.getOrSet('k', () => 'computed'), 'computed');
        assert.ok(errors.length >= 3 && errors.every(isStoreError('NOTADB')), String(errors));
        // Someone removes the bad file: after timeoutMs the store opens a fresh one.
        rmSync(path);
        await sleep(60);
        assert.equal(await cache.set('k', 2), true);
        assert.equal(await cache.get('k'), 2);
      } finally {
        await store.close();
      }
    });

    // POSIX record locks belong to the process and go when it closes *any* descriptor of the file:
    // a store that opened and closed the database, -wal or -shm itself once SQLite had them open
    // would drop SQLite's locks, and another process would then reset the -shm under it (SIGBUS).
    const heldLocks = (path: string) => {
      const inodes = new Map(['', '-wal', '-shm'].filter((s) => existsSync(path + s)).map((s) => [statSync(path + s).ino, s || 'db']));
      return readFileSync('/proc/locks', 'utf8')
        .split('\n')
        .filter((line) => line.split(/\s+/)[4] === String(process.pid))
        .map((line) => inodes.get(Number(line.split(/\s+/)[5]?.split(':')[2])))
        .filter(Boolean)
        .sort();
    };
    if (existsSync('/proc/locks'))
      t.it("keeps SQLite's locks on the database and -shm: opening a store (or a second one on the same file) closes no descriptor of theirs", async () => {
        const path = join(dir, 'locks.db');
        const first = sqliteStore(path);
        await first.set('k', bytes('v'));
        const held = heldLocks(path);
        assert.ok(held.includes('-shm'), `the -shm lock every connection holds: ${held.join(', ')}`);
        const second = sqliteStore(path);
        await second.get('k');
        assert.deepEqual(heldLocks(path), held, 'the second store took nothing from the first');
        await second.close();
        await first.set('k', bytes('w'));
        assert.ok(heldLocks(path).includes('-shm'));
        await first.close();
      });

    t.it('SQLITE_BUSY is retried without blocking the event loop: a lock released in time lets the write through', async () => {
      const path = join(dir, 'busy.db');
      const store = sqliteStore({ path, timeoutMs: 2000 });
      await store.set('k', bytes('before'));
      const other = openConnection(path, store.binding);
      other.exec('PRAGMA busy_timeout = 0');
      other.exec('BEGIN IMMEDIATE');
      let released = false;
      // This timer can only fire while the write waits if the store's retries yield to the event loop.
      setTimeout(() => {
        other.exec('COMMIT');
        released = true;
      }, 50);
      await store.set('k', bytes('after'));
      assert.equal(released, true);
      assert.equal(text(await store.get('k')), 'after');
      other.close();
      await store.close();
    });

    t.it('a synchronous read the lock would make wait throws StoreBusyError; the cache reads again asynchronously, waits, and reports nothing', async () => {
      const path = join(dir, 'busy-sync.db');
      const store = sqliteStore({ path, timeoutMs: 2000 });
      const cache = createCache({ store });
      const errors = errorsOf(cache);
      const other = openConnection(path, store.binding);
      try {
        other.exec('PRAGMA busy_timeout = 0');
        other.exec('BEGIN IMMEDIATE');
        // The tag's counter is missing: reading it creates it, which takes the write lock.
        const read = { keys: [], tags: [{ generation: 'g', fence: 'f', soft: 's' }], epoch: 2 ** 40 };
        assert.throws(
          () => store.readWithGenerationsSync(read),
          (e: unknown) => e instanceof StoreBusyError && isStoreError('BUSY')((e as Error).cause),
        );
        let released = false;
        setTimeout(() => {
          other.exec('COMMIT');
          released = true;
        }, 50);
        assert.equal(await cache.getOrSet('k', () => 'computed', { tags: ['t'] }), 'computed');
        assert.equal(released, true);
        assert.equal(await cache.getOrSet('k', () => 'again', { tags: ['t'] }), 'computed');
        assert.deepEqual(errors, []);
      } finally {
        other.close();
        await cache.close();
        await store.close();
      }
    });

    t.it('writes issued while another connection holds the lock wait behind the first and commit in the order issued', async () => {
      const path = join(dir, 'queued.db');
      const store = sqliteStore({ path, timeoutMs: 5000 });
      await store.set('k', bytes('0'));
      const other = openConnection(path, store.binding);
      other.exec('PRAGMA busy_timeout = 0');
      other.exec('BEGIN IMMEDIATE');
      try {
        const first = store.set('k', bytes('1'));
        await sleep(5); // later ticks: these queue behind the first, which waits for the lock
        const later = [store.set('k', bytes('2')), store.incr('n', 1), store.set('k', bytes('3'))];
        await sleep(5);
        const read = store.get('k'); // a read does not wait for them: WAL readers never do
        other.exec('COMMIT');
        await Promise.all([first, ...later]);
        assert.equal(text(await read), '0');
        assert.equal(text(await store.get('k')), '3');
        assert.equal(text(await store.get('n')), '1');
      } finally {
        other.close();
        await store.close();
      }
    });

    t.it('a lock held past the timeout fails the write (code BUSY) while reads go on; the cache reports set → false', async () => {
      const path = join(dir, 'locked.db');
      const store = sqliteStore({ path, timeoutMs: 100 });
      const cache = createCache({ store });
      const errors = errorsOf(cache);
      await store.set('k', bytes('v'));
      const other = openConnection(path, store.binding);
      other.exec('PRAGMA busy_timeout = 0');
      other.exec('BEGIN IMMEDIATE');
      try {
        const started = Date.now();
        await assert.rejects(store.set('k', bytes('w')), (e: unknown) => isStoreError('BUSY')(e) && /stayed locked by another connection for 100 ms/.test((e as Error).message));
        assert.ok(Date.now() - started >= 100);
        assert.equal(text(await store.get('k')), 'v', 'WAL: readers never wait for the writer');
        assert.equal(await cache.set('c', 1), false);
        assert.ok(errors.some(isStoreError('BUSY')));
      } finally {
        other.exec('ROLLBACK');
        other.close();
        await store.close();
      }
    });
  });
  sqliteSecuritySuite(t, runtime);
}

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultBinding, openConnection, type SqliteConnection } from '../../adapters/sqlite/binding.ts';
import { sqliteStore, SqliteStoreError, type SqliteStore } from '../../adapters/sqlite/index.ts';
import { SWEEP_EVERY } from '../../adapters/sqlite/upkeep.ts';
import { createCache } from '../../src/index.ts';
import { bytes, text, type SuiteApi } from '../support/suite-api.ts';
import { removeDir, tempDir } from './sqlite-temp.ts';

const isCode = (code: string) => (e: unknown) => e instanceof SqliteStoreError && e.code === code;
const modeOf = (path: string) => statSync(path).mode & 0o777;
const big = (fill: number) => new Uint8Array(2048).fill(fill);
const SECRET = 'top secret: never served, never removed';

/** Runs SQL on the store's file through this runtime's own binding, as another process would. */
function withRaw<T>(path: string, body: (db: SqliteConnection) => T): T {
  const db = openConnection(path, defaultBinding());
  try {
    db.exec('PRAGMA busy_timeout = 2000');
    return body(db);
  } finally {
    db.close();
  }
}

/** Every file beside the database (the folder may hold other stores' files too). */
const siblings = (path: string) => readdirSync(join(path, '..')).filter((name) => name.startsWith(path.split('/').pop()!));

/**
 * The file is shared by every process of the machine, so its rows and its folder are as hostile
 * as any stored bytes: a file name the store did not write is never opened or removed, its files
 * are private to the user that runs it, and another program's database is never written to.
 * Runner-neutral (vitest, bun test, Deno.test): each runtime's binding and file system calls.
 */
export function sqliteSecuritySuite(t: SuiteApi, runtime: string): void {
  t.describe(`sqlite store against hostile rows and files on ${runtime} (${defaultBinding()})`, () => {
    let dir: string;
    let count = 0;
    t.beforeAll(() => {
      dir = tempDir(`security-${runtime}`);
    });
    t.afterAll(() => removeDir(dir));

    /** A fresh folder with a secret file next to the store's folder, and a store that wrote `k` to a value file. */
    async function planted(): Promise<{ root: string; path: string; secret: string; store: SqliteStore }> {
      const root = join(dir, `case-${count++}`);
      const secret = join(root, 'secret.txt');
      mkdirSync(root, { recursive: true });
      writeFileSync(secret, SECRET);
      const path = join(root, 'cache', 'cache.db');
      const store = sqliteStore({ path, fileThreshold: 1024 });
      await store.set('k', big(1));
      return { root, path, secret, store };
    }

    t.it('an entry naming a file outside the values folder is a CORRUPT miss: the file is never read, served or removed', async () => {
      const { path, secret, store } = await planted();
      const valid = readdirSync(store.valuesDir)[0]!;
      const hostile = [
        '../../secret.txt',
        secret,
        `${valid}/../../../secret.txt`,
        `../${valid}`,
        'sub/0123456789abcdef0123456789abcdef.bin',
        '..',
        '.',
        '',
        valid.toUpperCase(),
        valid.replace('.bin', '.txt'),
        ` ${valid}`,
      ];
      try {
        for (const name of hostile) {
          withRaw(path, (db) => db.prepare('UPDATE cachette_entries SET file = ? WHERE key = ?').run(name, 'k'));
          for (const call of [() => store.get('k'), () => store.getMany(['k', 'other']), () => store.incr('k', 1), () => store.compareAndDelete('k', bytes(SECRET))]) {
            await assert.rejects(call(), (e: unknown) => isCode('CORRUPT')(e) && /not a name this store writes/.test((e as Error).message), `file ${JSON.stringify(name)}`);
          }
        }
        assert.equal(readFileSync(secret, 'utf8'), SECRET);
        // A write replaces the hostile row; what it named is still never removed.
        await store.set('k', bytes('fresh')).catch(() => undefined);
        await store.set('again', big(2)).catch(() => undefined);
        assert.equal(text(await store.get('k')), 'fresh');
        assert.equal(readFileSync(secret, 'utf8'), SECRET);
      } finally {
        await store.close();
      }
    });

    t.it('through the cache, such an entry is a miss with an error event, never the bytes it names', async () => {
      const { path, secret, store } = await planted();
      const cache = createCache({ store });
      const errors: unknown[] = [];
      cache.events.addEventListener('error', (e) => errors.push(e.detail.error));
      try {
        await cache.set('page', 'cached');
        withRaw(path, (db) => db.prepare("UPDATE cachette_entries SET value = x'', file = ? WHERE key = 'cachette:page'").run(secret));
        assert.equal(await cache.get('page'), undefined);
        assert.ok(errors.some(isCode('CORRUPT')), String(errors));
      } finally {
        await cache.close();
      }
    });

    t.it('a symbolic link, a folder, a FIFO or a file of the wrong length under a valid name in the values folder is a CORRUPT miss', async () => {
      const { secret, store } = await planted();
      const valid = readdirSync(store.valuesDir)[0]!;
      const target = join(store.valuesDir, valid);
      const replace = (make: () => void) => {
        execFileSync('rm', ['-rf', target]);
        make();
      };
      try {
        const cases: Array<[string, () => void]> = [
          ['a symbolic link to a secret', () => symlinkSync(secret, target)],
          ['a folder', () => mkdirSync(target)],
          // Opening a FIFO for reading would block the event loop until a writer came.
          ['a FIFO', () => execFileSync('mkfifo', [target])],
          ['a shorter file', () => writeFileSync(target, big(1).subarray(1))],
          ['a longer file', () => writeFileSync(target, new Uint8Array(4 * 1024 * 1024))],
        ];
        for (const [what, make] of cases) {
          replace(make);
          await assert.rejects(store.get('k'), isCode('CORRUPT'), what);
        }
        replace(() => writeFileSync(target, big(1)));
        assert.deepEqual(new Uint8Array((await store.get('k'))!), big(1), 'the real file, put back, is served again');
        assert.equal(readFileSync(secret, 'utf8'), SECRET);
      } finally {
        await store.close();
      }
    });

    t.it(`a hostile name in the garbage table is dropped, never removed: the write that claims it (within ${SWEEP_EVERY} writes) is stored and reports CORRUPT`, async () => {
      const { path, secret, store } = await planted();
      try {
        withRaw(path, (db) => {
          for (const name of ['../../secret.txt', secret, '../cache/cache.db', '..', `${readdirSync(store.valuesDir)[0]}/../../secret.txt`])
            db.prepare('INSERT INTO cachette_garbage (file) VALUES (?)').run(name);
        });
        let failure: unknown;
        let writes = 0;
        while (failure === undefined && writes <= SWEEP_EVERY) await store.set('x', bytes(`write ${++writes}`)).catch((e: unknown) => (failure = e));
        assert.ok(isCode('CORRUPT')(failure) && /garbage table/.test((failure as Error).message), String(failure));
        assert.equal(readFileSync(secret, 'utf8'), SECRET);
        assert.ok(existsSync(path), 'the database itself is still there');
        assert.equal(text(await store.get('x')), `write ${writes}`, 'the write that reported it was stored');
        assert.equal(
          withRaw(path, (db) => Number(db.prepare('SELECT count(*) AS n FROM cachette_garbage').get()?.n)),
          0,
          'the hostile rows are gone',
        );
        for (let i = 0; i <= SWEEP_EVERY; i++) await store.set('y', bytes('next'));
        assert.equal(readFileSync(secret, 'utf8'), SECRET);
      } finally {
        await store.close();
      }
    });

    t.it('a valid name that is a symbolic link in the values folder: the link is removed, never what it points to', async () => {
      const { path, secret, store } = await planted();
      const link = join(store.valuesDir, '0123456789abcdef0123456789abcdef.bin');
      try {
        symlinkSync(secret, link);
        withRaw(path, (db) => db.prepare('INSERT INTO cachette_garbage (file) VALUES (?)').run('0123456789abcdef0123456789abcdef.bin'));
        for (let i = 0; i <= SWEEP_EVERY && existsSync(link); i++) await store.set('x', bytes('small'));
        assert.equal(existsSync(link), false);
        assert.equal(readFileSync(secret, 'utf8'), SECRET);
      } finally {
        await store.close();
      }
    });

    t.it('a values folder replaced by a symbolic link is never read from or removed from', async () => {
      const { root, path, store } = await planted();
      const elsewhere = join(root, 'elsewhere');
      const name = readdirSync(store.valuesDir)[0]!;
      try {
        renameSync(store.valuesDir, elsewhere);
        symlinkSync(elsewhere, store.valuesDir);
        await assert.rejects(store.get('k'), isCode('CORRUPT'));
        withRaw(path, (db) => db.prepare('INSERT INTO cachette_garbage (file) VALUES (?)').run(name));
        await store.delete(['k']).catch(() => undefined);
        for (let i = 0; i <= SWEEP_EVERY; i++) await store.set('x', bytes('small')).catch(() => undefined);
        assert.equal(existsSync(join(elsewhere, name)), true, 'the file behind the link is still there');
        await assert.rejects(store.set('big', big(3)), isCode('CORRUPT'), 'no new value file is written through the link');
        assert.deepEqual(readdirSync(elsewhere), [name]);
      } finally {
        await store.close();
      }
    });

    t.it('creates its folder 0700 and its database, -wal, -shm and value files 0600, whatever the umask', async () => {
      const root = join(dir, `modes-${count++}`);
      mkdirSync(root, { mode: 0o755 });
      chmodSync(root, 0o755);
      const path = join(root, 'a', 'b', 'cache.db');
      const store = sqliteStore({ path, fileThreshold: 1024 });
      try {
        await store.set('k', big(1));
        assert.equal(modeOf(join(root, 'a')).toString(8), '700');
        assert.equal(modeOf(join(root, 'a', 'b')).toString(8), '700');
        assert.equal(modeOf(root).toString(8), '755', 'a folder it did not create is left as it was');
        for (const file of [path, `${path}-wal`, `${path}-shm`]) assert.equal(modeOf(file).toString(8), '600', file);
        assert.equal(modeOf(store.valuesDir).toString(8), '700');
        for (const file of readdirSync(store.valuesDir)) assert.equal(modeOf(join(store.valuesDir, file)).toString(8), '600');
      } finally {
        await store.close();
      }
    });

    t.it('an existing store file or values folder readable by others is made private on open', async () => {
      const root = join(dir, `wide-${count++}`);
      const path = join(root, 'cache.db');
      const first = sqliteStore({ path, fileThreshold: 1024 });
      await first.set('k', big(1));
      // Files as an earlier version left them under umask 022, while another process holds them open.
      const files = [path, `${path}-wal`, `${path}-shm`, ...readdirSync(first.valuesDir).map((f) => join(first.valuesDir, f))];
      for (const file of files) chmodSync(file, 0o644);
      chmodSync(first.valuesDir, 0o755);
      const second = sqliteStore({ path, fileThreshold: 1024 });
      try {
        assert.deepEqual(new Uint8Array((await second.get('k'))!), big(1));
        for (const file of [path, `${path}-wal`, `${path}-shm`]) assert.equal(modeOf(file).toString(8), '600', file);
        assert.equal(modeOf(second.valuesDir).toString(8), '700');
      } finally {
        await first.close();
        await second.close();
      }
    });

    t.it("another program's database is never modified: same bytes, no -wal or -shm, still in its own journal mode", async () => {
      const root = join(dir, `foreign-${count++}`);
      mkdirSync(root);
      const path = join(root, 'app.db');
      withRaw(path, (db) => db.exec("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users VALUES (1, 'ada')"));
      const before = readFileSync(path);
      const store = sqliteStore({ path, timeoutMs: 10 });
      try {
        await assert.rejects(store.set('k', bytes('v')), isCode('FOREIGN'));
        await assert.rejects(store.get('k'), isCode('FOREIGN'));
      } finally {
        await store.close();
      }
      assert.deepEqual(readFileSync(path), before);
      assert.deepEqual(siblings(path), ['app.db']);
      assert.equal(
        withRaw(path, (db) => String(Object.values(db.prepare('PRAGMA journal_mode').get() ?? {})[0])),
        'delete',
      );
    });

    t.it('a database path that is a symbolic link is refused before anything is opened through it', async () => {
      const root = join(dir, `symlink-${count++}`);
      mkdirSync(root);
      // To another program's database, to a store of its own, and to a file that does not exist yet.
      const foreign = join(root, 'app.db');
      withRaw(foreign, (db) => db.exec('CREATE TABLE t (x)'));
      const real = join(root, 'real.db');
      await sqliteStore(real).close();
      const missing = join(root, 'victim', 'would-be-created.db');
      mkdirSync(join(root, 'victim'));
      for (const target of [foreign, real, missing]) {
        const link = join(root, `link-${count++}.db`);
        symlinkSync(target, link);
        const before = existsSync(target) ? readFileSync(target) : undefined;
        const beside = readdirSync(join(target, '..')).sort();
        const store = sqliteStore({ path: link, timeoutMs: 10 });
        try {
          await assert.rejects(store.get('k'), (e: unknown) => isCode('FOREIGN')(e) && /symbolic link/.test((e as Error).message), target);
          await assert.rejects(store.set('k', bytes('v')), isCode('FOREIGN'));
        } finally {
          await store.close();
        }
        if (before) assert.deepEqual(readFileSync(target), before, target);
        else assert.equal(existsSync(target), false, 'nothing was created through the link');
        assert.deepEqual(readdirSync(join(target, '..')).sort(), beside, 'no -wal or -shm appeared beside the target');
      }
    });
  });
}

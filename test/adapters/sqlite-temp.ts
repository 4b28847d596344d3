import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore, type SqliteStoreOptions } from '../../adapters/sqlite/index.ts';

/** A fresh directory for database files under the system's temporary directory. */
export function tempDir(label: string): string {
  return mkdtempSync(join(tmpdir(), `cachette-sqlite-${label}-`));
}

/** Removes a directory made by {@link tempDir}, with every database, -wal and -shm file in it. */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * The SQLite store on a file in its own temporary directory, which `close()` removes: the
 * store under test is the real one, only tidier (no runner here fires 'exit' reliably).
 */
export function tempSqliteStore(options: Omit<SqliteStoreOptions, 'path'> = {}): SqliteStore {
  const dir = tempDir('store');
  return new (class extends SqliteStore {
    override async close(): Promise<void> {
      try {
        await super.close();
      } finally {
        removeDir(dir);
      }
    }
  })({ ...options, path: join(dir, 'cache.db') });
}

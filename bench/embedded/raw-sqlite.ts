/**
 * The baseline the SQLite store is measured against (issue 19): better-sqlite3 used directly,
 * as a competent user would write a cache on it. One table `key TEXT PRIMARY KEY, value BLOB,
 * expires_at INTEGER` WITHOUT ROWID, WAL, `synchronous = NORMAL`, three prepared statements;
 * no bounds, no eviction, no expiry sweep, no value files, no multi-process retry policy other
 * than SQLite's own busy handler. What the store does beyond this is what its ratio costs.
 */
import Database from 'better-sqlite3';
import type { EmbeddedKv } from './store-kv.ts';

/** Opens (creating when missing) the baseline table at `path`; `busyTimeoutMs` for processes sharing it. */
export function rawSqliteKv(path: string, busyTimeoutMs: number): EmbeddedKv {
  const db = new Database(path, { timeout: busyTimeoutMs });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value BLOB, expires_at INTEGER) WITHOUT ROWID');
  const get = db.prepare('SELECT value FROM kv WHERE key = ? AND (expires_at IS NULL OR expires_at > ?)').pluck();
  const set = db.prepare('INSERT OR REPLACE INTO kv (key, value, expires_at) VALUES (?, ?, NULL)');
  const remove = db.prepare('DELETE FROM kv WHERE key = ?');
  return {
    get: async (key) => get.get(key, Date.now()),
    set: async (key, value) => void set.run(key, value),
    delete: async (key) => void remove.run(key),
    close: async () => void db.close(),
  };
}

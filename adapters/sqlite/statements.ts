/**
 * Every statement the store runs, prepared once per connection. Parameters are positional and
 * documented beside each one; `now` is milliseconds since the epoch, so an entry whose
 * `expires_at` is not after `now` is treated as absent everywhere, whether or not it has been
 * culled yet.
 */
import type { SqliteConnection, SqliteStatement } from './binding.ts';
import { ORDER_COLUMN } from './schema.ts';
import type { EvictionPolicy } from './options.ts';

/** Rows removed per write when nothing is over a bound: expired ones, oldest expiry first. */
export const CULL_PER_WRITE = 8;
/** Keys read per step of `clear(prefix)`: each step is its own short write transaction. */
export const CLEAR_BATCH = 256;

const LIVE = '(expires_at IS NULL OR expires_at > ?)';
const COLUMNS = '(key, value, expires_at, stored_at, used_at, uses, size, file) VALUES (?, ?, ?, ?, ?, 0, ?, ?)';
const REPLACE = 'value = excluded.value, expires_at = excluded.expires_at, stored_at = excluded.stored_at, used_at = excluded.used_at, size = excluded.size, file = excluded.file';

/** The prepared statements of one connection. */
export class Statements {
  /** (key, now) → { value, file, size } of a live entry. */
  readonly get: SqliteStatement;
  /** (now, key, now) → { value, file, size }: a hit that also records the use (least-recently/frequently-used). */
  readonly touch: SqliteStatement;
  /** (key, now) → { value, file, size, expires_at } of a live entry, for read-modify-write. */
  readonly readLive: SqliteStatement;
  /** (key, value, expiresAt, now, now, size, file): insert or replace. */
  readonly upsert: SqliteStatement;
  /** (key, value, expiresAt, now, now, size, file, now): insert unless a live entry exists; changes = 1 when it did. */
  readonly add: SqliteStatement;
  /** () → { file } of every value file no row names any more, claimed by this transaction. */
  readonly claimGarbage: SqliteStatement;
  /** (key) → { expires_at } of the row removed, if any. */
  readonly remove: SqliteStatement;
  /** (key): removes the row. */
  readonly removeQuietly: SqliteStatement;
  /** (now): removes up to CULL_PER_WRITE expired rows. */
  readonly cullExpired: SqliteStatement;
  /** () → { entries, bytes } of the whole file. */
  readonly totals: SqliteStatement;
  /**
   * (now, n): removes the first n entries in the policy's eviction order among those not
   * written in this millisecond: what a write just stored must not be the first to go (under
   * least-frequently-used it would be, with no hits yet).
   */
  readonly evictOlder: SqliteStatement;
  /** (n): the same among all entries, for when everything was written in this millisecond. */
  readonly evict: SqliteStatement;
  /** (prefix) → { key } of up to CLEAR_BATCH keys from `prefix` on, in key order. */
  readonly keysFrom: SqliteStatement;
  /** (): removes every entry. */
  readonly removeAll: SqliteStatement;
  readonly begin: SqliteStatement;
  readonly beginImmediate: SqliteStatement;
  readonly commit: SqliteStatement;

  constructor(db: SqliteConnection, policy: EvictionPolicy) {
    const p = (sql: string) => db.prepare(sql);
    this.get = p(`SELECT value, file, size FROM cachette_entries WHERE key = ? AND ${LIVE}`);
    this.touch = p(`UPDATE cachette_entries SET used_at = ?, uses = uses + 1 WHERE key = ? AND ${LIVE} RETURNING value, file, size`);
    this.readLive = p(`SELECT value, file, size, expires_at FROM cachette_entries WHERE key = ? AND ${LIVE}`);
    this.upsert = p(`INSERT INTO cachette_entries ${COLUMNS} ON CONFLICT (key) DO UPDATE SET ${REPLACE}`);
    this.add = p(`INSERT INTO cachette_entries ${COLUMNS} ON CONFLICT (key) DO UPDATE SET ${REPLACE}, uses = 0 WHERE cachette_entries.expires_at <= ?`);
    this.remove = p('DELETE FROM cachette_entries WHERE key = ? RETURNING expires_at');
    this.removeQuietly = p('DELETE FROM cachette_entries WHERE key = ?');
    this.claimGarbage = p('DELETE FROM cachette_garbage RETURNING file');
    this.cullExpired = p(`DELETE FROM cachette_entries WHERE rowid IN (SELECT rowid FROM cachette_entries WHERE expires_at <= ? ORDER BY expires_at LIMIT ${CULL_PER_WRITE})`);
    this.totals = p('SELECT entries, bytes FROM cachette_totals WHERE id = 0');
    this.evictOlder = p(`DELETE FROM cachette_entries WHERE rowid IN (SELECT rowid FROM cachette_entries WHERE stored_at < ? ORDER BY ${ORDER_COLUMN[policy]} LIMIT ?)`);
    this.evict = p(`DELETE FROM cachette_entries WHERE rowid IN (SELECT rowid FROM cachette_entries ORDER BY ${ORDER_COLUMN[policy]} LIMIT ?)`);
    this.keysFrom = p(`SELECT key FROM cachette_entries WHERE key >= ? ORDER BY key LIMIT ${CLEAR_BATCH}`);
    this.removeAll = p('DELETE FROM cachette_entries');
    this.begin = p('BEGIN');
    this.beginImmediate = p('BEGIN IMMEDIATE');
    this.commit = p('COMMIT');
  }
}

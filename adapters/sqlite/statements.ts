/**
 * Every statement the store runs, prepared once per connection. Parameters are positional and
 * documented beside each one; `id` is keyHash(key), and every statement that reads or writes
 * one key also matches the key itself, so two keys sharing an id never see each other's value.
 * `now` is milliseconds since the epoch: an entry whose `expires_at` is not after `now` is
 * treated as absent everywhere, whether or not the sweep has removed it yet.
 */
import type { SqliteConnection, SqliteStatement } from './binding.ts';

/** Keys read per step of `clear(prefix)`: each step is its own short write transaction. */
export const CLEAR_BATCH = 256;

const LIVE = '(expires_at IS NULL OR expires_at > ?)';
const ONE = `id = ? AND key = ?`;
const UPSERT = `INSERT INTO cachette_entries (id, key, expires_at, stored_at, used_at, uses, size, file, value) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)
  ON CONFLICT (id) DO UPDATE SET key = excluded.key, expires_at = excluded.expires_at, stored_at = excluded.stored_at, used_at = excluded.used_at,
  uses = CASE WHEN key = excluded.key THEN uses ELSE 0 END, size = excluded.size, file = excluded.file, value = excluded.value`;

/** The prepared statements of one connection. */
export class Statements {
  /** (id, key, now) → the value (bytes) or the name of its file (text) of a live entry. */
  readonly get: (...params: [number, string, number]) => unknown;
  /** (id, key, now) → { value, file, size, expires_at } of a live entry. */
  readonly readLive: SqliteStatement;
  /** (id, key, expiresAt, stamp, stamp, size, file, value): insert or replace (taking the slot of another key with this id). */
  readonly upsert: SqliteStatement;
  /** (id, key, expiresAt, stamp, stamp, size, file, value, now): insert unless the key is live; changes = 1 when it did. */
  readonly add: SqliteStatement;
  /**
   * (id, key, now): expires the key when live and inline, and drops its bytes; changes = 1 when
   * it did. The row stays for the sweep, like any expired one: no totals to update, one page.
   */
  readonly expireLive: SqliteStatement;
  /** (id, key, now): removes the key when live; changes = 1 when it was. */
  readonly removeLive: SqliteStatement;
  /** (id, key): removes the key, live or not. */
  readonly remove: SqliteStatement;
  /** (id): removes the row (one the caller has just read, in the same transaction). */
  readonly removeRow: SqliteStatement;
  /** (after, n) → { id, expires_at, stored_at, used_at, uses, size } of the n rows after id `after`, in id order. */
  readonly window: SqliteStatement;
  /** (upTo, n) → the same, from the first row, up to id `upTo`: the window's wrap-around. */
  readonly windowFromStart: SqliteStatement;
  /** (after, n - 1) → the id of the n-th row after id `after`, or undefined when fewer follow. */
  readonly nth: (...params: [number, number]) => unknown;
  /** (after, last, now): removes the expired rows with ids in (after, last]. */
  readonly removeExpired: SqliteStatement;
  /** (usedAtStamp, hits, id, key): records hits counted in memory (least-recently/frequently-used). */
  readonly touch: SqliteStatement;
  /** () → 1 when some value file waits to be removed, else undefined (cheaper than claiming nothing). */
  readonly anyGarbage: () => unknown;
  /** () → the last rowid of the garbage table (0 when empty): read as a write transaction begins, every name after it is that transaction's own. */
  readonly garbageMark: () => unknown;
  /** (mark) → { file } of the names queued up to rowid `mark` (by commits before this transaction), claimed by this transaction. */
  readonly claimGarbage: SqliteStatement;
  /** (mark) → { file } of the names queued after rowid `mark`: by this transaction, left in the table. */
  readonly newGarbage: SqliteStatement;
  /** (file): queues a value file to be removed. */
  readonly addGarbage: SqliteStatement;
  /** (file, size, until): reserves a value file before it is written (pending-files.ts). */
  readonly reserve: SqliteStatement;
  /** (file): takes a reservation for the row that names the file, or releases it; changes = 1 when it was still there. */
  readonly unreserve: SqliteStatement;
  /** (file, size, until, taken file): takes a reservation and makes it another one, in one statement; changes = 1 when it was still there. */
  readonly renew: SqliteStatement;
  /** (now, n) → { file } of up to n reservations whose time ran out (their writer died first), removed by this transaction. */
  readonly collectPending: SqliteStatement;
  /** () → { entries, bytes } of the whole file. */
  readonly totals: SqliteStatement;
  /** (after) → { id, key } of up to CLEAR_BATCH rows after id `after`, in id order. */
  readonly keysAfter: SqliteStatement;
  /** () → the connection's data version: it moves whenever another connection committed (the coherent L1's bus). */
  readonly dataVersion: () => unknown;
  readonly begin: SqliteStatement;
  readonly beginImmediate: SqliteStatement;
  readonly commit: SqliteStatement;

  constructor(db: SqliteConnection) {
    const prepare = (sql: string) => db.prepare(sql);
    // The hottest statement: one column, no row object (pluck where the binding can).
    this.get = db.prepareValue(`SELECT coalesce(file, value) FROM cachette_entries WHERE ${ONE} AND ${LIVE}`) as Statements['get'];
    this.readLive = prepare(`SELECT value, file, size, expires_at FROM cachette_entries WHERE ${ONE} AND ${LIVE}`);
    this.upsert = prepare(UPSERT);
    this.add = prepare(`${UPSERT} WHERE cachette_entries.expires_at <= ? OR cachette_entries.key <> excluded.key`);
    this.expireLive = prepare(`UPDATE cachette_entries SET expires_at = 0, value = x'' WHERE ${ONE} AND ${LIVE} AND file IS NULL`);
    this.removeLive = prepare(`DELETE FROM cachette_entries WHERE ${ONE} AND ${LIVE}`);
    this.remove = prepare(`DELETE FROM cachette_entries WHERE ${ONE}`);
    this.removeRow = prepare('DELETE FROM cachette_entries WHERE id = ?');
    const columns = 'id, expires_at, stored_at, used_at, uses, size';
    this.window = prepare(`SELECT ${columns} FROM cachette_entries WHERE id > ? ORDER BY id LIMIT ?`);
    this.windowFromStart = prepare(`SELECT ${columns} FROM cachette_entries WHERE id <= ? ORDER BY id LIMIT ?`);
    this.nth = db.prepareValue('SELECT id FROM cachette_entries WHERE id > ? ORDER BY id LIMIT 1 OFFSET ?') as Statements['nth'];
    this.removeExpired = prepare('DELETE FROM cachette_entries WHERE id > ? AND id <= ? AND expires_at <= ?');
    this.touch = prepare(`UPDATE cachette_entries SET used_at = max(used_at, ?), uses = uses + ? WHERE ${ONE}`);
    this.anyGarbage = db.prepareValue('SELECT 1 FROM cachette_garbage LIMIT 1') as Statements['anyGarbage'];
    this.garbageMark = db.prepareValue('SELECT coalesce(max(rowid), 0) FROM cachette_garbage') as Statements['garbageMark'];
    this.claimGarbage = prepare('DELETE FROM cachette_garbage WHERE rowid <= ? RETURNING file');
    this.newGarbage = prepare('SELECT file FROM cachette_garbage WHERE rowid > ?');
    this.addGarbage = prepare('INSERT INTO cachette_garbage (file) VALUES (?)');
    this.reserve = prepare('INSERT INTO cachette_pending (file, size, until) VALUES (?, ?, ?)');
    this.unreserve = prepare('DELETE FROM cachette_pending WHERE file = ?');
    this.renew = prepare('UPDATE cachette_pending SET file = ?, size = ?, until = ? WHERE file = ?');
    this.collectPending = prepare('DELETE FROM cachette_pending WHERE file IN (SELECT file FROM cachette_pending WHERE until <= ? LIMIT ?) RETURNING file');
    this.totals = prepare('SELECT entries, bytes FROM cachette_totals WHERE id = 0');
    this.keysAfter = prepare(`SELECT id, key FROM cachette_entries WHERE id > ? ORDER BY id LIMIT ${CLEAR_BATCH}`);
    this.dataVersion = db.prepareValue('PRAGMA data_version');
    this.begin = prepare('BEGIN');
    this.beginImmediate = prepare('BEGIN IMMEDIATE');
    this.commit = prepare('COMMIT');
  }
}

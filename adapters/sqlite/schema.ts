/**
 * The file's layout (version 2). One rowid table of entries keyed by a seeded hash of the key
 * (key-hash.ts): a write changes one B-tree, with no key index and no eviction or expiry index
 * beside it, and rows of any size keep the rowid layout (a WITHOUT ROWID table would keep up to
 * a kilobyte of every row in its interior pages and spill 1–4 KB rows to overflow pages; measured:
 * 2.2× the disk and 3× slower gets for 2 KB values). The small columns come before the value,
 * so reading them never touches a value's overflow pages. A one-row totals table kept by
 * triggers gives every process the exact entries and bytes of the whole file, so bounds are
 * checked without counting and hold across processes. A large value lives in its own file,
 * named by the row's `file`; whenever such a row goes or stops naming its file (delete,
 * overwrite, sweep, eviction, clear, by any process), a trigger records the name in
 * `cachette_garbage` (only a name in the form the store writes), and a later write transaction
 * of any process claims the names and removes the files (the transaction that removed the row
 * removes its file once it commits, never before: store.ts, #maintain). A value file is reserved in
 * `cachette_pending` (its name, its bytes, and until when its writer may still name it) before
 * its first byte is written, and the row that names it takes the reservation in the same
 * transaction: a writer killed in between leaves a reservation, counted in the totals like an
 * entry, which the sweep of any process collects with its file once that time has passed
 * (pending-files.ts).
 */
import type { SqliteConnection } from './binding.ts';
import { newKeySeed } from './key-hash.ts';
import type { SqliteSynchronous } from './options.ts';

/** "cach": marks a file as a cachette store, so the store never writes into someone else's database. */
export const APPLICATION_ID = 0x63616368;
/** Layout version in `PRAGMA user_version`; a file from a newer layout is refused, not rewritten. */
export const SCHEMA_VERSION = 2;

/** A value-file name as the store writes it (value-files.ts), as a GLOB pattern for the triggers. */
const VALUE_FILE_GLOB = `'${'[0-9a-f]'.repeat(32)}.bin'`;

/** The layout, with a fresh key seed for the file being created. */
const create = () => `
CREATE TABLE cachette_entries (
  id INTEGER PRIMARY KEY,      -- keyHash(key) under the file's seed
  key TEXT NOT NULL,
  expires_at INTEGER,          -- ms since the epoch; NULL: no expiry
  stored_at INTEGER NOT NULL,  -- last write: ms × 1000 + the writer's sequence within that ms
  used_at INTEGER NOT NULL,    -- the same, of the last write or (least-recently-used) hit
  uses INTEGER NOT NULL,       -- hits (counted with least-frequently-used)
  size INTEGER NOT NULL,       -- bytes of value plus key, what maxBytes counts
  file TEXT,                   -- the value's file in <path>-values/ (value is then empty); NULL: inline
  value BLOB NOT NULL
);
CREATE TABLE cachette_totals (id INTEGER PRIMARY KEY CHECK (id = 0), entries INTEGER NOT NULL, bytes INTEGER NOT NULL);
INSERT INTO cachette_totals VALUES (0, 0, 0);
CREATE TABLE IF NOT EXISTS cachette_garbage (file TEXT NOT NULL);
CREATE TABLE cachette_settings (name TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL);
INSERT INTO cachette_settings VALUES ('key_seed', ${newKeySeed()});
CREATE TRIGGER cachette_entries_insert AFTER INSERT ON cachette_entries BEGIN
  UPDATE cachette_totals SET entries = entries + 1, bytes = bytes + NEW.size WHERE id = 0;
END;
CREATE TRIGGER cachette_entries_delete AFTER DELETE ON cachette_entries BEGIN
  UPDATE cachette_totals SET entries = entries - 1, bytes = bytes - OLD.size WHERE id = 0;
END;
CREATE TRIGGER cachette_entries_unfile AFTER DELETE ON cachette_entries WHEN OLD.file GLOB ${VALUE_FILE_GLOB} BEGIN
  INSERT INTO cachette_garbage (file) VALUES (OLD.file);
END;
CREATE TRIGGER cachette_entries_refile AFTER UPDATE OF file ON cachette_entries WHEN OLD.file IS NOT NEW.file AND OLD.file GLOB ${VALUE_FILE_GLOB} BEGIN
  INSERT INTO cachette_garbage (file) VALUES (OLD.file);
END;
CREATE TRIGGER cachette_entries_resize AFTER UPDATE OF size ON cachette_entries WHEN OLD.size <> NEW.size BEGIN
  UPDATE cachette_totals SET bytes = bytes + NEW.size - OLD.size WHERE id = 0;
END;
PRAGMA application_id = ${APPLICATION_ID};
PRAGMA user_version = ${SCHEMA_VERSION};
`;

/**
 * The value files reserved and not yet named by a row, with their bytes in the totals: a few
 * rows per process, in one B-tree keyed by the name (one page a commit touches). Added to
 * layout 2 in place (a cachette that predates it ignores the table and never reserves): created
 * whenever a store opens a file that lacks it.
 */
const PENDING = `
CREATE TABLE IF NOT EXISTS cachette_pending (
  file TEXT PRIMARY KEY NOT NULL,  -- the value file's name
  size INTEGER NOT NULL,           -- bytes counted in the totals while it is reserved
  until INTEGER NOT NULL           -- ms since the epoch (this machine's clock): past it, an orphan
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS cachette_pending_insert AFTER INSERT ON cachette_pending BEGIN
  UPDATE cachette_totals SET bytes = bytes + NEW.size WHERE id = 0;
END;
CREATE TRIGGER IF NOT EXISTS cachette_pending_delete AFTER DELETE ON cachette_pending BEGIN
  UPDATE cachette_totals SET bytes = bytes - OLD.size WHERE id = 0;
END;
CREATE TRIGGER IF NOT EXISTS cachette_pending_resize AFTER UPDATE OF size ON cachette_pending WHEN OLD.size <> NEW.size BEGIN
  UPDATE cachette_totals SET bytes = bytes + NEW.size - OLD.size WHERE id = 0;
END;
`;

// Layout 1 (a TEXT-keyed table with expiry and eviction indexes): its entries are dropped (a
// cache refills), the names of their value files queued as garbage, so the files go too.
const FROM_LAYOUT_1 = `
INSERT INTO cachette_garbage (file) SELECT file FROM cachette_entries WHERE file GLOB ${VALUE_FILE_GLOB};
DROP TABLE cachette_entries;
DROP TABLE cachette_totals;
`;

/** Why a file cannot be used; the store reports it as an error with this code. */
export class SchemaMismatch extends Error {
  constructor(
    readonly code: 'FOREIGN' | 'TOONEW' | 'CORRUPT',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Prepares an open connection and returns the file's key seed. First, without writing anything,
 * it checks that the file is empty or a cachette store of a layout it reads (another program's
 * database is refused before a single byte of it changes, even its journal mode). Then WAL
 * (readers never wait for the writer, and several processes share the file), the connection's
 * `synchronous` level, and the layout on a new file (or in place of layout 1), inside one write
 * transaction so that processes starting together create it once. Throws SQLite's BUSY when
 * another connection holds the lock (the caller retries), and {@link SchemaMismatch} for a file
 * that is not a cachette store.
 */
export function setupSchema(db: SqliteConnection, synchronous: SqliteSynchronous): number {
  db.exec('PRAGMA busy_timeout = 0');
  // One read transaction, so that the header and the table list come from one snapshot: read
  // apart, another process's creation committing between them looked like a foreign database.
  db.exec('BEGIN');
  try {
    checkOwnership(db);
    db.exec('COMMIT');
  } catch (error) {
    rollbackQuietly(db);
    throw error;
  }
  db.exec('PRAGMA journal_mode = WAL');
  db.exec(`PRAGMA synchronous = ${synchronous.toUpperCase()}`);
  db.exec('BEGIN IMMEDIATE');
  try {
    // Again under the write lock: another process may have created the layout meanwhile.
    const found = checkOwnership(db);
    if (found === 1) db.exec(FROM_LAYOUT_1);
    if (found !== SCHEMA_VERSION) db.exec(create());
    db.exec(PENDING);
    const seed = Number(db.prepare("SELECT value FROM cachette_settings WHERE name = 'key_seed'").get()?.value);
    if (!(Number.isSafeInteger(seed) && seed >= 0)) throw new SchemaMismatch('CORRUPT', `the file's key seed is ${String(seed)}, not a 53-bit integer`);
    db.exec('COMMIT');
    return seed;
  } catch (error) {
    rollbackQuietly(db);
    throw error;
  }
}

/**
 * Reads (never writes) which layout the file has: 0 for an empty file, else its layout version;
 * throws {@link SchemaMismatch} for another program's database or a newer layout.
 */
function checkOwnership(db: SqliteConnection): number {
  const pragma = (name: string) => Number(Object.values(db.prepare(`PRAGMA ${name}`).get() ?? {})[0] ?? 0);
  const applicationId = pragma('application_id');
  if (applicationId === 0) {
    const objects = db.prepare('SELECT count(*) AS n FROM sqlite_master').get();
    if (Number(objects?.n) > 0) throw new SchemaMismatch('FOREIGN', 'the file is a SQLite database that cachette did not create; refusing to write into it (point the store at its own file)');
    return 0;
  }
  if (applicationId !== APPLICATION_ID) throw new SchemaMismatch('FOREIGN', `the file belongs to another application (application_id ${applicationId}); refusing to write into it`);
  const version = pragma('user_version');
  if (version > SCHEMA_VERSION) throw new SchemaMismatch('TOONEW', `the file was written by a newer cachette (layout ${version}, this one reads ${SCHEMA_VERSION})`);
  return version;
}

/** Ends the transaction in progress, if any; a failed ROLLBACK has nothing more to undo. */
export function rollbackQuietly(db: SqliteConnection): void {
  try {
    db.exec('ROLLBACK');
  } catch {
    // "no transaction is active": SQLite already rolled back (it does on some errors).
  }
}

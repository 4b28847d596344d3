/**
 * The file's layout. One rowid table of entries (a rowid table rather than WITHOUT ROWID:
 * values up to megabytes would make a clustered key index mostly overflow pages), an index
 * on expiry for the cull, one index for the eviction order of each policy in use, and a
 * one-row totals table kept by triggers, so that bounds are checked without counting rows
 * and hold across every process writing the file. A large value lives in its own file, named
 * by the row's `file`; whenever such a row goes or stops naming its file (delete, overwrite,
 * cull, eviction, clear, by any process), a trigger records the name in `cachette_garbage`,
 * and the next write transaction of any process claims the names and removes the files.
 */
import type { SqliteConnection } from './binding.ts';
import type { EvictionPolicy } from './options.ts';

/** "cach": marks a file as a cachette store, so the store never writes into someone else's database. */
export const APPLICATION_ID = 0x63616368;
/** Layout version in `PRAGMA user_version`; a file from a newer layout is refused, not rewritten. */
export const SCHEMA_VERSION = 1;

/** The column that orders eviction for each policy. */
export const ORDER_COLUMN: Record<EvictionPolicy, 'stored_at' | 'used_at' | 'uses'> = {
  'least-recently-stored': 'stored_at',
  'least-recently-used': 'used_at',
  'least-frequently-used': 'uses',
};

const CREATE = `
CREATE TABLE cachette_entries (
  key TEXT PRIMARY KEY NOT NULL,
  value BLOB NOT NULL,
  expires_at INTEGER,          -- ms since the epoch; NULL: no expiry
  stored_at INTEGER NOT NULL,  -- ms, last write
  used_at INTEGER NOT NULL,    -- ms, last write or (with least-recently-used) hit
  uses INTEGER NOT NULL,       -- hits (counted with least-frequently-used)
  size INTEGER NOT NULL,       -- bytes of value plus key, what maxBytes counts
  file TEXT                    -- the value's file in <path>-values/ (value is then empty); NULL: inline
);
CREATE INDEX cachette_entries_expiry ON cachette_entries (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE cachette_totals (id INTEGER PRIMARY KEY CHECK (id = 0), entries INTEGER NOT NULL, bytes INTEGER NOT NULL);
INSERT INTO cachette_totals VALUES (0, 0, 0);
CREATE TABLE cachette_garbage (file TEXT NOT NULL);
CREATE TRIGGER cachette_entries_insert AFTER INSERT ON cachette_entries BEGIN
  UPDATE cachette_totals SET entries = entries + 1, bytes = bytes + NEW.size WHERE id = 0;
END;
CREATE TRIGGER cachette_entries_delete AFTER DELETE ON cachette_entries BEGIN
  UPDATE cachette_totals SET entries = entries - 1, bytes = bytes - OLD.size WHERE id = 0;
  INSERT INTO cachette_garbage (file) SELECT OLD.file WHERE OLD.file IS NOT NULL;
END;
CREATE TRIGGER cachette_entries_refile AFTER UPDATE OF file ON cachette_entries WHEN OLD.file IS NOT NULL AND OLD.file IS NOT NEW.file BEGIN
  INSERT INTO cachette_garbage (file) VALUES (OLD.file);
END;
CREATE TRIGGER cachette_entries_resize AFTER UPDATE OF size ON cachette_entries WHEN OLD.size <> NEW.size BEGIN
  UPDATE cachette_totals SET bytes = bytes + NEW.size - OLD.size WHERE id = 0;
END;
PRAGMA application_id = ${APPLICATION_ID};
PRAGMA user_version = ${SCHEMA_VERSION};
`;

/** Why a file cannot be used; the store reports it as an error with this code. */
export class SchemaMismatch extends Error {
  constructor(
    readonly code: 'FOREIGN' | 'TOONEW',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Prepares an open connection. First, without writing anything, it checks that the file is
 * empty or a cachette store of a layout it reads (another program's database is refused before
 * a single byte of it changes, even its journal mode). Then WAL (readers never wait for the
 * writer, and several processes share the file), `synchronous = NORMAL` (a commit is not
 * fsynced: a power cut may lose the last writes, never corrupt the file, which suits a cache),
 * and the layout on a new file, created inside one write transaction so that processes starting
 * together create it once. Throws SQLite's BUSY when another connection holds the lock (the
 * caller retries), and {@link SchemaMismatch} for a file that is not a cachette store.
 */
export function setupSchema(db: SqliteConnection, policy: EvictionPolicy): void {
  db.exec('PRAGMA busy_timeout = 0');
  checkOwnership(db);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('BEGIN IMMEDIATE');
  try {
    // Again under the write lock: another process may have created the layout meanwhile.
    if (checkOwnership(db) === 'empty') db.exec(CREATE);
    const column = ORDER_COLUMN[policy];
    db.exec(`CREATE INDEX IF NOT EXISTS cachette_entries_by_${column} ON cachette_entries (${column})`);
    db.exec('COMMIT');
  } catch (error) {
    rollbackQuietly(db);
    throw error;
  }
}

/** Reads (never writes) whether the file is empty or the store's own; throws {@link SchemaMismatch} otherwise. */
function checkOwnership(db: SqliteConnection): 'empty' | 'ours' {
  const pragma = (name: string) => Number(Object.values(db.prepare(`PRAGMA ${name}`).get() ?? {})[0] ?? 0);
  const applicationId = pragma('application_id');
  if (applicationId === 0) {
    const objects = db.prepare('SELECT count(*) AS n FROM sqlite_master').get();
    if (Number(objects?.n) > 0) throw new SchemaMismatch('FOREIGN', 'the file is a SQLite database that cachette did not create; refusing to write into it (point the store at its own file)');
    return 'empty';
  }
  if (applicationId !== APPLICATION_ID) throw new SchemaMismatch('FOREIGN', `the file belongs to another application (application_id ${applicationId}); refusing to write into it`);
  if (pragma('user_version') > SCHEMA_VERSION) throw new SchemaMismatch('TOONEW', `the file was written by a newer cachette (layout ${pragma('user_version')}, this one reads ${SCHEMA_VERSION})`);
  return 'ours';
}

/** Ends the transaction in progress, if any; a failed ROLLBACK has nothing more to undo. */
export function rollbackQuietly(db: SqliteConnection): void {
  try {
    db.exec('ROLLBACK');
  } catch {
    // "no transaction is active": SQLite already rolled back (it does on some errors).
  }
}

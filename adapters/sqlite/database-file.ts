/**
 * The database file itself, before SQLite sees it. SQLite would follow a symbolic link at the
 * path (and create whatever it points to), and creates files 0644 under the usual umask; so the
 * store makes the missing folders of the path itself (0700), refuses a link at the path, and
 * creates the file (0600) when it is missing. SQLite gives `-wal` and `-shm` the mode of the
 * database, so they are private too. A descriptor of an existing database is never opened here:
 * another store of this process may have it open, and closing any descriptor of a file drops
 * the process's record locks on it (SQLite's included).
 */
import { closeSync, constants, lstatSync, mkdirSync, openSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { PRIVATE_DIR, PRIVATE_FILE, tightenMode } from './file-modes.ts';
import { SchemaMismatch } from './schema.ts';

/** The file as it stood when it was prepared, to check that SQLite opened that one. */
export interface PreparedFile {
  readonly dev: number;
  readonly ino: number;
}

/**
 * Prepares `path` for SQLite. Throws {@link SchemaMismatch} (FOREIGN) when a symbolic link or
 * anything but a plain file stands there, and the file system's own error when it cannot be made.
 */
export function prepareDatabaseFile(path: string): PreparedFile {
  mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIR });
  let stat = inspect(path);
  if (!stat) {
    try {
      // Exclusive and no-follow: nothing that appears under the name meanwhile is opened.
      closeSync(openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, PRIVATE_FILE));
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') throw error;
    }
    stat = inspect(path);
    if (!stat) throw new SchemaMismatch('FOREIGN', 'the database file vanished while it was created');
  }
  return { dev: stat.dev, ino: stat.ino };
}

/**
 * Throws {@link SchemaMismatch} (FOREIGN) unless `path` is still the plain file it was when
 * prepared: SQLite opened it by name, so a link swapped in meanwhile would have been followed.
 */
export function checkDatabaseFile(path: string, prepared: PreparedFile): void {
  const stat = inspect(path);
  if (!stat || stat.dev !== prepared.dev || stat.ino !== prepared.ino) throw new SchemaMismatch('FOREIGN', 'the database file was replaced while it was opened; refusing to use what was opened');
}

/** Makes the database, `-wal` and `-shm` private (0600) when this user owns them; called once the file is known to be the store's own. */
export function tightenDatabaseFiles(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) tightenMode(file, PRIVATE_FILE);
}

/** The plain file at `path`, or undefined when there is none; throws FOREIGN for anything else. */
function inspect(path: string): Stats | undefined {
  let stat: Stats;
  try {
    stat = lstatSync(path);
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw error;
  }
  if (stat.isSymbolicLink()) throw new SchemaMismatch('FOREIGN', 'the path is a symbolic link; refusing to open a database through it (point the store at the file itself)');
  if (!stat.isFile()) throw new SchemaMismatch('FOREIGN', 'the path is not a plain file; refusing to open it as a database');
  return stat;
}

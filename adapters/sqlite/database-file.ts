/**
 * The database file itself, before SQLite sees it. SQLite would follow a symbolic link at the
 * path (and create whatever it points to), and creates files 0644 under the usual umask; so the
 * store makes the missing folders of the path itself (0700), refuses a link at the path, and
 * creates the file (0600) when it is missing. SQLite gives `-wal` and `-shm` the mode of the
 * database, so they are private too.
 */
import { closeSync, constants, fstatSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { PRIVATE_DIR, PRIVATE_FILE, tightenMode } from './file-modes.ts';
import { SchemaMismatch } from './schema.ts';

/**
 * Prepares `path` for SQLite. Throws {@link SchemaMismatch} (FOREIGN) when a symbolic link or
 * anything but a plain file stands there, and the file system's own error when it cannot be made.
 */
export function prepareDatabaseFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIR });
  let fd: number;
  try {
    // No-follow makes the kernel refuse a link even if one is swapped in after any check of ours.
    fd = openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW | (constants.O_NONBLOCK ?? 0), PRIVATE_FILE);
  } catch (error) {
    if ((error as { code?: string }).code === 'ELOOP') throw new SchemaMismatch('FOREIGN', 'the path is a symbolic link; refusing to open a database through it (point the store at the file itself)');
    throw error;
  }
  try {
    if (!fstatSync(fd).isFile()) throw new SchemaMismatch('FOREIGN', 'the path is not a plain file; refusing to open it as a database');
  } finally {
    closeSync(fd);
  }
}

/** Makes the database, `-wal` and `-shm` private (0600) when this user owns them; called once the file is known to be the store's own. */
export function tightenDatabaseFiles(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) tightenMode(file, PRIVATE_FILE);
}

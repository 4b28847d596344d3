/**
 * The store's files are private to the user that runs it: what a cache holds (sessions,
 * personalised pages) is nobody else's to read. New folders are made 0700 and new files 0600,
 * whatever the umask; an existing database, `-wal`, `-shm` or values folder of the store that
 * others may read is tightened to the same on open, when this user owns it. A folder the store
 * did not create (the one its path names, say /tmp) is never changed.
 */
import { chmodSync, lstatSync } from 'node:fs';

/** Mode of the folders the store creates. */
export const PRIVATE_DIR = 0o700;
/** Mode of the files the store creates. */
export const PRIVATE_FILE = 0o600;

/**
 * Removes every permission bit outside `mode` from the file or folder at `path`, when it exists,
 * is not a symbolic link and belongs to this user. By path, never through a descriptor of its
 * own: POSIX record locks belong to the process and go when it closes any descriptor of the
 * file, so opening and closing the database, `-wal` or `-shm` would drop the locks SQLite holds
 * on them (another process would then reset the `-shm` under this one). A link swapped in
 * between the check and the chmod needs write access to the folder, which is the user's own.
 * Best effort: what cannot be changed stays.
 */
export function tightenMode(path: string, mode: number): void {
  try {
    const stat = lstatSync(path);
    const uid = process.getuid?.();
    if (stat.isSymbolicLink() || (uid !== undefined && stat.uid !== uid) || (stat.mode & 0o777 & ~mode) === 0) return;
    chmodSync(path, stat.mode & 0o777 & mode);
  } catch {
    // Absent, or a file system without modes: nothing more this store can do.
  }
}

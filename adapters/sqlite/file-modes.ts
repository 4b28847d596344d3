/**
 * The store's files are private to the user that runs it: what a cache holds (sessions,
 * personalised pages) is nobody else's to read. New folders are made 0700 and new files 0600,
 * whatever the umask; an existing database, `-wal`, `-shm` or values folder of the store that
 * others may read is tightened to the same on open, when this user owns it. A folder the store
 * did not create (the one its path names, say /tmp) is never changed.
 */
import { closeSync, constants, fchmodSync, fstatSync, openSync } from 'node:fs';

/** Mode of the folders the store creates. */
export const PRIVATE_DIR = 0o700;
/** Mode of the files the store creates. */
export const PRIVATE_FILE = 0o600;

/**
 * Removes every permission bit outside `mode` from the file or folder at `path`, when it exists,
 * is not a symbolic link (it is opened without following one, so a link swapped in meanwhile is
 * refused by the kernel) and belongs to this user. Best effort: what cannot be changed stays.
 */
export function tightenMode(path: string, mode: number): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | (constants.O_NONBLOCK ?? 0));
  } catch {
    return; // absent, a link, or not ours to open: nothing to tighten
  }
  try {
    const stat = fstatSync(fd);
    const uid = process.getuid?.();
    if ((uid === undefined || stat.uid === uid) && (stat.mode & 0o777 & ~mode) !== 0) fchmodSync(fd, stat.mode & mode);
  } catch {
    // A file system without modes: nothing more this store can do.
  } finally {
    closeSync(fd);
  }
}

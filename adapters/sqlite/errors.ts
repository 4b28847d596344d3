/**
 * Errors of the SQLite store: one class with a stable code, the database path and the
 * binding's own error as `cause`, whatever binding raised it.
 */

/** What went wrong, named after SQLite's primary result codes (a closed store throws StoreClosedError instead, as every store does). */
export type SqliteErrorCode = 'BUSY' | 'LOCKED' | 'CORRUPT' | 'NOTADB' | 'FULL' | 'IOERR' | 'CANTOPEN' | 'READONLY' | 'PERM' | 'FOREIGN' | 'TOONEW' | 'ERROR';

/** An error of the SQLite store; the cache turns it into a miss (or a failed write) and an error event. */
export class SqliteStoreError extends Error {
  override readonly name = 'SqliteStoreError';
  /** Stable code; `BUSY` and `LOCKED` are the ones retried until the store's timeout. */
  readonly code: SqliteErrorCode;
  /** The database file. */
  readonly path: string;

  constructor(code: SqliteErrorCode, path: string, message: string, options?: { cause?: unknown }) {
    super(`sqlite store (${path}): ${message}`, options);
    this.code = code;
    this.path = path;
  }
}

// SQLite's primary result codes (sqlite3.h) for the cases the store tells apart.
const BY_NUMBER: Record<number, SqliteErrorCode> = { 3: 'PERM', 5: 'BUSY', 6: 'LOCKED', 8: 'READONLY', 10: 'IOERR', 11: 'CORRUPT', 13: 'FULL', 14: 'CANTOPEN', 26: 'NOTADB' };

// sqlite3_errstr() texts: node:sqlite on Deno sometimes gives no number, only the message.
const BY_MESSAGE: Array<[RegExp, SqliteErrorCode]> = [
  [/^database is locked/, 'BUSY'],
  [/^database table is locked/, 'LOCKED'],
  [/^file is not a database/, 'NOTADB'],
  [/^database disk image is malformed/, 'CORRUPT'],
  [/^database or disk is full/, 'FULL'],
  [/^disk I\/O error/, 'IOERR'],
  [/^unable to open database file/, 'CANTOPEN'],
  [/^attempt to write a readonly database/, 'READONLY'],
];

/**
 * The code of an error thrown by any of the three bindings, or undefined when it is not a
 * SQLite error at all (a counter that is not an integer, a bug): those pass through unwrapped.
 * better-sqlite3 and bun:sqlite name it (`code: "SQLITE_BUSY"`), node:sqlite numbers it
 * (`errcode`, extended codes carry the primary one in the low byte) or only words it.
 */
export function sqliteErrorCode(error: unknown): SqliteErrorCode | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
  if (typeof code === 'string' && code.startsWith('SQLITE_')) {
    const name = code.slice('SQLITE_'.length).split('_')[0]!;
    return (Object.values(BY_NUMBER) as string[]).includes(name) ? (name as SqliteErrorCode) : 'ERROR';
  }
  if (code !== 'ERR_SQLITE_ERROR') return undefined;
  if (typeof errcode === 'number' && BY_NUMBER[errcode & 0xff]) return BY_NUMBER[errcode & 0xff];
  return BY_MESSAGE.find(([pattern]) => pattern.test(error.message))?.[1] ?? 'ERROR';
}

/** True for the codes that mean "another connection holds the lock: try again shortly". */
export function isBusy(code: SqliteErrorCode | undefined): boolean {
  return code === 'BUSY' || code === 'LOCKED';
}

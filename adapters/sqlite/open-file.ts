/**
 * The SQLite store's connection to its file: opened at once, and again after a failure once
 * `timeoutMs` has passed (a corrupt, foreign or locked file makes every call fail until then,
 * never crash), the key ids that depend on the file's seed, and the errors of the binding as
 * {@link SqliteStoreError}s, with a busy file retried as retry.ts says.
 */
import { StoreBusyError, StoreClosedError } from '../../src/store/errors.ts';
import { openConnection, type SqliteBindingName, type SqliteConnection } from './binding.ts';
import { checkDatabaseFile, prepareDatabaseFile, tightenDatabaseFiles } from './database-file.ts';
import { isBusy, SqliteStoreError, sqliteErrorCode, type SqliteErrorCode } from './errors.ts';
import { keyHash, splitKeySeed, type KeySeed } from './key-hash.ts';
import type { SqliteSynchronous } from './options.ts';
import { retryWhileBusy } from './retry.ts';
import { SchemaMismatch, setupSchema } from './schema.ts';
import { Statements } from './statements.ts';

/** How the file is opened, and what to do once it is. */
export interface OpenFileSetup {
  path: string;
  binding: SqliteBindingName;
  synchronous: SqliteSynchronous;
  timeoutMs: number;
  /** Tightens the value files' folder to the file's own mode, after the file was. */
  tightenValues(): void;
  /** Runs once the file is open on disk (collecting what killed processes left). */
  opened(): void;
}

/** The open connection (or why there is none); see the module comment. */
export class OpenFile {
  /** The statements of the open connection; undefined until it is open (use {@link statements}). */
  s: Statements | undefined;
  db: SqliteConnection | undefined;
  closed = false;
  readonly #setup: OpenFileSetup;
  #seed: KeySeed = { high: 0, low: 0 };
  #openError: unknown;
  #nextOpenAt = 0;

  constructor(setup: OpenFileSetup) {
    this.#setup = setup;
    // A binding that cannot load is a setup mistake: say so now, not on the first call.
    openConnection(':memory:', setup.binding).close();
  }

  /** Opens the file now; a failure is kept, and thrown by the calls that need the file until a retry succeeds. */
  open(): void {
    this.#tryOpen();
  }

  /** The id of `key` in the open file (ids depend on its seed: open it first, or use {@link openId}). */
  id(key: string): number {
    return keyHash(key, this.#seed);
  }

  /** The id of `key`, the file opened first. */
  openId(key: string): number {
    if (this.s === undefined) this.statements();
    return keyHash(key, this.#seed);
  }

  /** The statements of the open connection, opening it (again) first if it is not open. */
  statements(): Statements {
    if (this.s) return this.s;
    if (this.closed) throw new StoreClosedError(`sqlite store (${this.#setup.path})`);
    if (Date.now() < this.#nextOpenAt) throw this.#openError;
    this.#tryOpen();
    if (!this.s) throw this.#openError;
    return this.s;
  }

  /** Closes the connection; every later call fails as closed. */
  close(): void {
    this.closed = true;
    this.s = undefined;
    try {
      this.db?.close();
    } finally {
      this.db = undefined;
    }
  }

  /** Runs `op` now; when the database is busy, retries it as {@link retryWhileBusy} says. */
  run<T>(op: () => T): T | Promise<T> {
    try {
      return op();
    } catch (error) {
      return this.retry(error, op);
    }
  }

  /** Retries `op`, which failed with `error`, while the file is busy; any other failure as {@link wrap} says. */
  retry<T>(error: unknown, op: () => T): Promise<T> {
    const { path, timeoutMs } = this.#setup;
    return retryWhileBusy(error, op, {
      timeoutMs,
      isBusy: (e) => this.isBusy(e),
      fail: (e) => this.wrap(e),
      timedOut: (e) => new SqliteStoreError('BUSY', path, `the database stayed locked by another connection for ${timeoutMs} ms`, { cause: e }),
    });
  }

  /** True when `error` says another connection holds the file's lock (and this one is still open). */
  isBusy(error: unknown): boolean {
    return isBusy(codeOf(error)) && !this.closed;
  }

  /**
   * What a synchronous read throws: a busy file (another connection holds the lock) as a
   * {@link StoreBusyError}, so that the engine asks the asynchronous read, which waits for it;
   * anything else as the asynchronous call would reject with it.
   */
  syncFailure(error: unknown): unknown {
    if (this.isBusy(error)) return new StoreBusyError(`sqlite store (${this.#setup.path}): the database is locked by another connection`, { cause: this.wrap(error) });
    return this.wrap(error);
  }

  /** A failure as the store reports it: SQLite's as a {@link SqliteStoreError}, the caller's own (a counter that is not an integer) as it is. */
  wrap(error: unknown, context?: string): unknown {
    const { path } = this.#setup;
    if (error instanceof SqliteStoreError) return error;
    const prefix = context ? `${context}: ` : '';
    if (error instanceof SchemaMismatch) return new SqliteStoreError(error.code, path, prefix + error.message);
    const code = sqliteErrorCode(error);
    if (code) return new SqliteStoreError(code, path, `${prefix}${(error as Error).message}`, { cause: error });
    if (context) return new SqliteStoreError('CANTOPEN', path, `${prefix}${error instanceof Error ? error.message : String(error)}`, { cause: error });
    // Not SQLite's: a counter that is not an integer, an overflow. The caller's error, as it is.
    return error;
  }

  #tryOpen(): void {
    const { path, binding, synchronous, timeoutMs } = this.#setup;
    let db: SqliteConnection | undefined;
    try {
      const onDisk = path !== ':memory:';
      const prepared = onDisk ? prepareDatabaseFile(path) : undefined;
      db = openConnection(path, binding);
      if (prepared) checkDatabaseFile(path, prepared);
      const seed = setupSchema(db, synchronous);
      if (onDisk) {
        tightenDatabaseFiles(path);
        this.#setup.tightenValues();
      }
      this.s = new Statements(db);
      this.#seed = splitKeySeed(seed);
      this.db = db;
      this.#openError = undefined;
      if (onDisk) this.#setup.opened();
    } catch (error) {
      try {
        db?.close();
      } catch {
        // The connection never worked; closing it is only tidying up.
      }
      this.#openError = this.wrap(error, 'cannot open the database');
      // Busy means another process is setting the file up: the call's own retries try again
      // at once. Anything else waits a while, so a corrupt file is not reopened on every call.
      this.#nextOpenAt = isBusy(codeOf(error)) ? 0 : Date.now() + timeoutMs;
    }
  }
}

/** The code of a binding's error or of one of ours (a failed open is kept as ours). */
function codeOf(error: unknown): SqliteErrorCode | undefined {
  return error instanceof SqliteStoreError ? error.code : sqliteErrorCode(error);
}

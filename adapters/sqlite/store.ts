import type { GenerationRead, GenerationReadResult, GenerationWrite, Store, StoreEntry } from '../../src/store/types.ts';
import { formatCounter, parseCounter } from '../shared/counter.ts';
import { missingGeneration, readGenerationsIn, writeGenerationsIn, type Cells } from '../shared/generation-cells.ts';
import { sameBytes } from '../shared/same-bytes.ts';
import { openConnection, type SqliteBindingName, type SqliteConnection, type SqliteRow } from './binding.ts';
import { prepareDatabaseFile, tightenDatabaseFiles } from './database-file.ts';
import { isBusy, SqliteStoreError, sqliteErrorCode, type SqliteErrorCode } from './errors.ts';
import { resolveOptions, type EvictionPolicy, type SqliteStoreOptions } from './options.ts';
import { rollbackQuietly, SchemaMismatch, setupSchema } from './schema.ts';
import { CLEAR_BATCH, Statements } from './statements.ts';
import { ValueFiles } from './value-files.ts';

/** Entries and bytes in the whole file (every process's writes), as the bounds count them. */
export interface SqliteUsage {
  entries: number;
  bytes: number;
}

// Retries of a busy call: the first few on the next turn of the event loop (a writer holds the
// lock for microseconds), then on timers growing to this many ms.
const IMMEDIATE_RETRIES = 4;
const MAX_RETRY_PAUSE_MS = 16;

/**
 * The embedded store on one SQLite file in WAL mode, shared by every process that opens it.
 * Calls run synchronously inside the binding (no thread hop: a hit is a B-tree lookup in the
 * page cache), behind the async store contract; `local` tells the engine so. Errors reject the
 * call with a {@link SqliteStoreError} — never a crash — and a file that cannot be opened
 * (corrupt, foreign, locked) makes every call fail until a retry after `timeoutMs` succeeds.
 */
export class SqliteStore implements Store {
  readonly name = 'sqlite';
  readonly local = true;
  /** The database file. */
  readonly path: string;
  readonly maxBytes: number;
  readonly maxEntries: number;
  readonly policy: EvictionPolicy;
  readonly timeoutMs: number;
  readonly binding: SqliteBindingName;
  /** Values of at least this many bytes live in their own file (see SqliteStoreOptions). */
  readonly fileThreshold: number;
  /** Where those files live: `<path>-values/`. */
  readonly valuesDir: string;
  readonly #bounded: boolean;
  readonly #files: ValueFiles;
  #db: SqliteConnection | undefined;
  #s: Statements | undefined;
  #read: (key: string, now: number) => SqliteRow | undefined = () => undefined;
  #openError: unknown;
  #nextOpenAt = 0;
  #closed = false;

  constructor(options: SqliteStoreOptions | string) {
    const o = resolveOptions(options);
    this.path = o.path;
    this.maxBytes = o.maxBytes;
    this.maxEntries = o.maxEntries;
    this.policy = o.policy;
    this.timeoutMs = o.timeoutMs;
    this.binding = o.binding;
    this.fileThreshold = o.fileThreshold;
    this.#files = new ValueFiles(o.path);
    this.valuesDir = this.#files.dir;
    this.#bounded = o.maxEntries !== Infinity || o.maxBytes !== Infinity;
    // A binding that cannot load is a setup mistake: say so now, not on the first call.
    openConnection(':memory:', this.binding).close();
    this.#tryOpen();
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    // Spelled out rather than through #run: no closure allocated on the hottest path.
    try {
      return this.#getNow(key);
    } catch (error) {
      return this.#retry(error, () => this.#getNow(key));
    }
  }

  async getMany(keys: readonly string[]): Promise<Array<Uint8Array | undefined>> {
    const op = () => {
      if (keys.length < 2) return keys.map((k) => this.#getNow(k));
      // One read transaction: one lock round and one consistent snapshot for the whole batch.
      return this.#transaction(this.policy !== 'least-recently-stored', () => keys.map((k) => this.#getNow(k)));
    };
    return this.#run(op);
  }

  async set(key: string, value: Uint8Array, ttlMs?: number): Promise<void> {
    // A large value is written to its own file before the transaction, so the write lock is
    // never held during that I/O; the row that names it publishes it whole.
    const file = this.#spill(key, value, ttlMs);
    const op = () => this.#write((now) => this.#put(key, value, ttlMs, now, file));
    try {
      await this.#run(op);
    } catch (error) {
      if (file) this.#unlink(file);
      throw error;
    }
  }

  async setMany(entries: readonly StoreEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const files: Array<string | undefined> = [];
    const op = () =>
      this.#write((now) => {
        entries.forEach((e, i) => this.#put(e.key, e.value, e.ttlMs, now, files[i]));
      });
    try {
      for (const e of entries) files.push(this.#spill(e.key, e.value, e.ttlMs));
      await this.#run(op);
    } catch (error) {
      for (const file of files) if (file) this.#unlink(file);
      throw error;
    }
  }

  async delete(keys: readonly string[]): Promise<number> {
    if (keys.length === 0) return 0;
    const op = () => {
      const s = this.#statements();
      const now = Date.now();
      const removeOne = (key: string) => {
        const row = s.remove.get(key);
        return row !== undefined && (row.expires_at === null || Number(row.expires_at) > now) ? 1 : 0;
      };
      if (keys.length === 1) return removeOne(keys[0]!);
      return this.#transaction(true, () => keys.reduce((n, k) => n + removeOne(k), 0));
    };
    return this.#run(op);
  }

  async incr(key: string, by: number, ttlMs?: number): Promise<number> {
    const op = () =>
      this.#write((now) => {
        const row = this.#statements().readLive.get(key, now);
        const next = (row ? parseCounter(this.#valueOf(row, key), key) : 0) + by;
        if (!Number.isSafeInteger(next)) throw new RangeError(`increment or decrement would overflow for key "${key}"`);
        // The TTL applies only when this call creates the counter, as INCRBY + PEXPIRE NX would.
        const expiresIn = row ? (row.expires_at === null ? undefined : Number(row.expires_at) - now) : ttlMs;
        this.#put(key, formatCounter(next), expiresIn, now);
        return next;
      });
    return this.#run(op);
  }

  async add(key: string, value: Uint8Array, ttlMs?: number): Promise<boolean> {
    const op = () =>
      this.#write((now) => {
        const s = this.#statements();
        if (ttlMs !== undefined && !(ttlMs > 0)) return !s.readLive.get(key, now);
        const size = value.length + key.length;
        if (size > this.maxBytes) return false;
        // Leases and tokens are small: add keeps its value inline whatever its size.
        return Number(s.add.run(key, value, expiryOf(ttlMs, now), now, now, size, null, now).changes) > 0;
      });
    return this.#run(op);
  }

  async compareAndDelete(key: string, expected: Uint8Array): Promise<boolean> {
    // Read, compare and delete in one write transaction: the value may be in a file.
    const op = () =>
      this.#transaction(true, () => {
        const s = this.#statements();
        const row = s.readLive.get(key, Date.now());
        if (!row || !sameBytes(this.#valueOf(row, key), expected)) return false;
        s.removeQuietly.run(key);
        return true;
      });
    return this.#run(op);
  }

  async clear(prefix: string): Promise<void> {
    // Keys sharing a prefix are contiguous in the key index (SQLite compares TEXT as UTF-8
    // bytes), so walk it from the prefix in small write transactions until a key no longer
    // matches: other writers wait for one batch at a time, never for the whole clear.
    const step = (): boolean =>
      this.#transaction(true, () => {
        const s = this.#statements();
        if (prefix === '') {
          s.removeAll.run();
          return false;
        }
        const rows = s.keysFrom.all(prefix);
        for (const { key } of rows) {
          if (!(key as string).startsWith(prefix)) return false;
          s.removeQuietly.run(key as string);
        }
        return rows.length === CLEAR_BATCH;
      });
    for (let more = true; more; ) more = await this.#run(step);
  }

  /**
   * Entries and tag states in one read transaction (one consistent snapshot), or in one write
   * transaction when a generation counter has to be created first.
   */
  async readWithGenerations(read: GenerationRead): Promise<GenerationReadResult> {
    const op = () => {
      const now = Date.now();
      const cells = this.#cells(now);
      const snapshot = this.#transaction(false, () => (missingGeneration(cells, read.tags) ? undefined : readGenerationsIn(cells, read, now)));
      return snapshot ?? this.#write((at) => readGenerationsIn(this.#cells(at), read, at));
    };
    return this.#run(op);
  }

  /** Bumps, holds or releases in one write transaction. */
  async writeGenerations(write: GenerationWrite): Promise<void> {
    const op = () => this.#write((now) => writeGenerationsIn(this.#cells(now), write, now));
    return this.#run(op);
  }

  /** Entries and bytes held by the file (expired entries not yet culled included). */
  async usage(): Promise<SqliteUsage> {
    const op = () => {
      const row = this.#statements().totals.get();
      return { entries: Number(row?.entries ?? 0), bytes: Number(row?.bytes ?? 0) };
    };
    return this.#run(op);
  }

  /** Closes this process's connection; the file and other processes' connections stay. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#s = undefined;
    try {
      this.#db?.close();
    } finally {
      this.#db = undefined;
    }
  }

  /** The file's entries as generation-cells.ts sees them, for use inside one transaction. */
  #cells(now: number): Cells {
    const s = this.#statements();
    return {
      read: (key) => {
        const row = s.readLive.get(key, now);
        // Inside a read transaction another process may have removed the value file: a miss then.
        if (!row) return undefined;
        return row.file === null ? (row.value as Uint8Array) : this.#readFile(row, key);
      },
      write: (key, value, ttlMs) => this.#put(key, value, ttlMs, now),
      remove: (key) => void s.removeQuietly.run(key),
    };
  }

  #getNow(key: string): Uint8Array | undefined {
    if (this.#s === undefined) this.#statements();
    const row = this.#read(key, Date.now());
    if (row === undefined) return undefined;
    if (row.file === null) return row.value as Uint8Array;
    const value = this.#readFile(row, key);
    if (value) return value;
    // Another process replaced or removed the entry (and its file) since the row was read:
    // read the row again, once; a file missing for the current row too is a miss.
    const again = this.#read(key, Date.now());
    if (again === undefined || again.file === null) return again?.value as Uint8Array | undefined;
    return again.file === row.file ? undefined : this.#readFile(again, key);
  }

  /** The bytes of a row read inside a write transaction (so its file cannot go meanwhile). */
  #valueOf(row: SqliteRow, key: string): Uint8Array {
    return row.file === null ? (row.value as Uint8Array) : (this.#readFile(row, key) ?? EMPTY);
  }

  /** The bytes of the file a row of `key` names (as long as its size says), or undefined when it is gone. */
  #readFile(row: SqliteRow, key: string): Uint8Array | undefined {
    return this.#files.read(row.file, Number(row.size) - key.length, key);
  }

  /**
   * Writes `value` to a new file when it is large enough and would be stored at all; returns
   * its name. A random name: a file, once named by a row, is never written again.
   */
  #spill(key: string, value: Uint8Array, ttlMs: number | undefined): string | undefined {
    if (value.length < this.fileThreshold || value.length + key.length > this.maxBytes || (ttlMs !== undefined && !(ttlMs > 0))) return undefined;
    if (this.#closed) throw new SqliteStoreError('CLOSED', this.path, 'the store is closed');
    return this.#files.write(value);
  }

  #unlink(file: string): void {
    this.#files.remove(file);
  }

  /**
   * A write: its rows, then the bounded cull, in one write transaction (one WAL commit). One
   * clock reading for both, so the cull can tell what this write stored (`stored_at = now`).
   */
  #write<T>(body: (now: number) => T): T {
    return this.#transaction(true, () => {
      const now = Date.now();
      const result = body(now);
      this.#cull(now);
      return result;
    });
  }

  #put(key: string, value: Uint8Array, ttlMs: number | undefined, now: number, file?: string): void {
    const s = this.#statements();
    const size = value.length + key.length;
    // A zero or negative TTL means "already expired", as PX would refuse and EXPIRE would
    // delete; a value that could never fit is served by the caller and not stored.
    if ((ttlMs !== undefined && !(ttlMs > 0)) || size > this.maxBytes) s.removeQuietly.run(key);
    else if (file) s.upsert.run(key, EMPTY, expiryOf(ttlMs, now), now, now, size, file);
    else s.upsert.run(key, value, expiryOf(ttlMs, now), now, now, size, null);
  }

  /**
   * A few expired rows go on every write (no timer keeps a process alive); then, while the file
   * is over a bound, the policy's first entries go, as many as it takes.
   */
  #cull(now: number): void {
    const s = this.#statements();
    s.cullExpired.run(now);
    if (!this.#bounded) return;
    for (;;) {
      const totals = s.totals.get();
      const entries = Number(totals?.entries ?? 0);
      const over = entries - this.maxEntries;
      if (over <= 0 && Number(totals?.bytes ?? 0) <= this.maxBytes) return;
      const n = Math.max(over, 1);
      if (Number(s.evictOlder.run(now, n).changes) === 0 && Number(s.evict.run(n).changes) === 0) return;
    }
  }

  #transaction<T>(write: boolean, body: () => T): T {
    const s = this.#statements();
    (write ? s.beginImmediate : s.begin).run();
    try {
      const result = body();
      // Value files whose rows went (in this transaction or in an earlier one of any process)
      // are claimed and removed before the commit: if it fails, the names come back and a
      // later write removes them again (a file already gone is fine), so none is ever leaked.
      // A name the store did not write is dropped from the table and never touched; the call
      // reports it once its own write is committed.
      const hostile = write ? s.claimGarbage.all().filter(({ file }) => !this.#files.remove(file)) : [];
      s.commit.run();
      if (hostile.length > 0) {
        const names = hostile.map(({ file }) => JSON.stringify(file)).join(', ');
        throw new SqliteStoreError('CORRUPT', this.path, `the garbage table named ${names}, not names this store writes: dropped, never removed (this call's own write was stored)`);
      }
      return result;
    } catch (error) {
      rollbackQuietly(this.#db!);
      throw error;
    }
  }

  /** The statements of the open connection, opening it (again) first if it is not open. */
  #statements(): Statements {
    if (this.#s) return this.#s;
    if (this.#closed) throw new SqliteStoreError('CLOSED', this.path, 'the store is closed');
    if (Date.now() < this.#nextOpenAt) throw this.#openError;
    this.#tryOpen();
    if (!this.#s) throw this.#openError;
    return this.#s;
  }

  #tryOpen(): void {
    let db: SqliteConnection | undefined;
    try {
      const onDisk = this.path !== ':memory:';
      if (onDisk) prepareDatabaseFile(this.path);
      db = openConnection(this.path, this.binding);
      setupSchema(db, this.policy);
      if (onDisk) {
        tightenDatabaseFiles(this.path);
        this.#files.tighten();
      }
      const s = new Statements(db, this.policy);
      this.#read = this.policy === 'least-recently-stored' ? (key, now) => s.get.get(key, now) : (key, now) => s.touch.get(now, key, now);
      this.#db = db;
      this.#s = s;
      this.#openError = undefined;
    } catch (error) {
      try {
        db?.close();
      } catch {
        // The connection never worked; closing it is only tidying up.
      }
      this.#openError = this.#wrap(error, 'cannot open the database');
      // Busy means another process is setting the file up: the call's own retries try again
      // at once. Anything else waits a while, so a corrupt file is not reopened on every call.
      this.#nextOpenAt = isBusy(codeOf(error)) ? 0 : Date.now() + this.timeoutMs;
    }
  }

  /** Runs `op` now; when the database is busy, retries it as {@link #retry} says. */
  #run<T>(op: () => T): T | Promise<T> {
    try {
      return op();
    } catch (error) {
      return this.#retry(error, op);
    }
  }

  /**
   * Retries `op` while the database is busy, on the event loop (never blocking it), until the
   * store's timeout; any other error, or the timeout, rejects with a {@link SqliteStoreError}.
   */
  async #retry<T>(error: unknown, op: () => T): Promise<T> {
    const deadline = Date.now() + this.timeoutMs;
    for (let attempt = 0; ; attempt++) {
      if (!isBusy(codeOf(error)) || this.#closed) throw this.#wrap(error);
      if (Date.now() >= deadline) throw new SqliteStoreError('BUSY', this.path, `the database stayed locked by another connection for ${this.timeoutMs} ms`, { cause: error });
      await pause(attempt);
      try {
        return op();
      } catch (next) {
        error = next;
      }
    }
  }

  #wrap(error: unknown, context?: string): unknown {
    if (error instanceof SqliteStoreError) return error;
    const prefix = context ? `${context}: ` : '';
    if (error instanceof SchemaMismatch) return new SqliteStoreError(error.code, this.path, prefix + error.message);
    const code = sqliteErrorCode(error);
    if (code) return new SqliteStoreError(code, this.path, `${prefix}${(error as Error).message}`, { cause: error });
    if (context) return new SqliteStoreError('CANTOPEN', this.path, `${prefix}${error instanceof Error ? error.message : String(error)}`, { cause: error });
    // Not SQLite's: a counter that is not an integer, an overflow. The caller's error, as it is.
    return error;
  }
}

/** The code of a binding's error or of one of ours (a failed open is kept as ours). */
function codeOf(error: unknown): SqliteErrorCode | undefined {
  return error instanceof SqliteStoreError ? error.code : sqliteErrorCode(error);
}

const EMPTY = new Uint8Array(0);

function expiryOf(ttlMs: number | undefined, now: number): number | null {
  return ttlMs === undefined || ttlMs === Infinity ? null : now + ttlMs;
}

const nextTurn: (resume: () => void) => void = typeof setImmediate === 'function' ? (resume) => setImmediate(resume) : (resume) => setTimeout(resume, 0);

function pause(attempt: number): Promise<void> {
  if (attempt < IMMEDIATE_RETRIES) return new Promise(nextTurn);
  return new Promise((resume) => setTimeout(resume, Math.min(2 ** (attempt - IMMEDIATE_RETRIES), MAX_RETRY_PAUSE_MS)));
}

import { defaultBinding, type SqliteBindingName } from './binding.ts';
import { checkKnownOptions } from '../../src/util/known-options.ts';

/** Which entries go first when the store is over `maxEntries` or `maxBytes`. */
export type EvictionPolicy = 'least-recently-stored' | 'least-recently-used' | 'least-frequently-used';

/**
 * When SQLite waits for the disk (its `PRAGMA synchronous`, per connection). The WAL is what is
 * synced, at checkpoints with `normal` and at every commit with `full`.
 */
export type SqliteSynchronous = 'normal' | 'off' | 'full';

/** Options of {@link sqliteStore}. */
export interface SqliteStoreOptions {
  /** The database file; its directory is created when missing. `-wal` and `-shm` files live beside it. */
  path: string;
  /** Most bytes of values plus keys kept; the policy's first entries go beyond it. Default 1 GiB. */
  maxBytes?: number;
  /** Most entries kept. Default: no bound other than `maxBytes`. */
  maxEntries?: number;
  /**
   * Eviction order: `least-recently-stored`, `least-recently-used` or `least-frequently-used`.
   * Default `least-recently-stored`. Eviction is sampled, as Redis does it: when the file is
   * over a bound, the store walks it (in the random order of its row ids) 16 entries at a time
   * and removes the expired ones, then the policy's first among the rest, so what goes is among
   * the oldest (least used, least often used) few percent, not exactly the oldest. Hits of the
   * last two policies are counted in memory and written with the process's next write
   * transaction (at the latest every 1,024 hits), so reads stay reads.
   */
  policy?: EvictionPolicy;
  /**
   * How long a call keeps retrying while another connection holds the write lock
   * (SQLITE_BUSY) before it fails; retries wait on timers, never block the event loop.
   * Also the pause before a store whose file could not be opened tries again. Default 1000 ms.
   */
  timeoutMs?: number;
  /** SQLite binding; default: bun:sqlite on Bun, node:sqlite on Deno, better-sqlite3 elsewhere. */
  binding?: SqliteBindingName;
  /**
   * Values of at least this many bytes go to their own file in `<path>-values/`, with a row
   * naming it: SQLite writes a 1 MB value 5–10× slower than a plain file (bench/EMBEDDED.md),
   * while at 64 KB it keeps up. `Infinity` keeps every value inside the database. Default 128 KiB.
   */
  fileThreshold?: number;
  /**
   * When commits wait for the disk (SQLite's `PRAGMA synchronous`). Default `normal`: a commit
   * is not synced, the WAL is at each checkpoint; an application crash loses nothing, a power
   * loss or OS crash may lose the last writes but leaves the file consistent. `off` never syncs
   * (checkpoints cost no fsync; a write itself costs the same): an application crash still
   * loses nothing, but a power loss or OS crash may lose writes *and corrupt the file*, which
   * the store then reports (CORRUPT, NOTADB) on every call until the file is removed: a cache
   * to refill. `full` syncs the WAL at every commit.
   */
  synchronous?: SqliteSynchronous;
}

/** Options after validation, with defaults applied. */
export interface ResolvedSqliteOptions {
  path: string;
  maxBytes: number;
  maxEntries: number;
  policy: EvictionPolicy;
  timeoutMs: number;
  binding: SqliteBindingName;
  fileThreshold: number;
  synchronous: SqliteSynchronous;
}

const SYNCHRONOUS: readonly SqliteSynchronous[] = ['normal', 'off', 'full'];
const POLICIES: readonly EvictionPolicy[] = ['least-recently-stored', 'least-recently-used', 'least-frequently-used'];
const BINDINGS: readonly SqliteBindingName[] = ['better-sqlite3', 'bun:sqlite', 'node:sqlite'];

/** Validates the options once, at creation; a bad one is a TypeError or RangeError naming it. */
export function resolveOptions(input: SqliteStoreOptions | string): ResolvedSqliteOptions {
  const options = typeof input === 'string' ? { path: input } : input;
  if (options === null || typeof options !== 'object') throw new TypeError('sqliteStore: pass a file path or { path, … }');
  checkKnownOptions(options, ['path', 'maxBytes', 'maxEntries', 'policy', 'timeoutMs', 'binding', 'fileThreshold', 'synchronous'] satisfies ReadonlyArray<keyof SqliteStoreOptions>, 'sqliteStore()');
  const { path, maxBytes = 1024 ** 3, maxEntries = Infinity, policy = 'least-recently-stored', timeoutMs = 1000, fileThreshold = 128 * 1024, synchronous = 'normal' } = options;
  if (typeof path !== 'string' || path.trim() === '') throw new TypeError(`sqliteStore: "path" must be a non-empty file path, got ${JSON.stringify(path)}`);
  if (path.includes('\0')) throw new TypeError('sqliteStore: "path" must not contain a NUL character');
  if (typeof maxBytes !== 'number' || !(maxBytes >= 1)) throw new RangeError(`sqliteStore: maxBytes must be a positive number, got ${String(maxBytes)}`);
  if (maxEntries !== Infinity && (!Number.isInteger(maxEntries) || maxEntries < 1)) throw new RangeError(`sqliteStore: maxEntries must be a positive integer, got ${String(maxEntries)}`);
  if (!POLICIES.includes(policy)) throw new TypeError(`sqliteStore: policy must be one of ${POLICIES.join(', ')}, got ${JSON.stringify(policy)}`);
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs < 0) throw new RangeError(`sqliteStore: timeoutMs must be a finite number ≥ 0, got ${String(timeoutMs)}`);
  if (typeof fileThreshold !== 'number' || !(fileThreshold >= 1)) throw new RangeError(`sqliteStore: fileThreshold must be a positive number of bytes (Infinity: never), got ${String(fileThreshold)}`);
  if (!SYNCHRONOUS.includes(synchronous)) throw new TypeError(`sqliteStore: synchronous must be one of ${SYNCHRONOUS.join(', ')}, got ${JSON.stringify(synchronous)}`);
  const binding = options.binding ?? defaultBinding();
  if (!BINDINGS.includes(binding)) throw new TypeError(`sqliteStore: binding must be one of ${BINDINGS.join(', ')}, got ${JSON.stringify(binding)}`);
  return { path, maxBytes, maxEntries, policy, timeoutMs, binding, fileThreshold, synchronous };
}

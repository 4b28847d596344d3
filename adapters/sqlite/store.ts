import { StoreBusyError, StoreClosedError } from '../../src/store/errors.ts';
import type { Coherence, CoherenceListener, ExpireRequest, GenerationRead, GenerationReadResult, GenerationWrite, KeyPage, Store, StoreEntry, StoreOp, StoreOpResult } from '../../src/store/types.ts';
import { formatCounter, parseCounter } from '../shared/counter.ts';
import { expireEntriesIn, missingGeneration, readGenerationsIn, writeGenerationsIn, type Cells } from '../shared/generation-cells.ts';
import { sameBytes } from '../shared/same-bytes.ts';
import { openConnection, type SqliteBindingName, type SqliteConnection, type SqliteRow } from './binding.ts';
import { DataVersionBus } from './coherence.ts';
import { checkDatabaseFile, prepareDatabaseFile, tightenDatabaseFiles } from './database-file.ts';
import { isBusy, SqliteStoreError, sqliteErrorCode, type SqliteErrorCode } from './errors.ts';
import { Hand, isOver, type Bounds, type Totals } from './hand.ts';
import { keyHash, splitKeySeed, type KeySeed } from './key-hash.ts';
import { resolveOptions, type EvictionPolicy, type SqliteStoreOptions, type SqliteSynchronous } from './options.ts';
import { ORPHANS_PER_SWEEP, PENDING_GRACE_MS, Reservations, type PendingFile } from './pending-files.ts';
import { PendingUses } from './pending-uses.ts';
import { retryWhileBusy } from './retry.ts';
import { rollbackQuietly, SchemaMismatch, setupSchema } from './schema.ts';
import { CLEAR_BATCH, Statements } from './statements.ts';
import { TickWrites, type Outcome } from './tick-writes.ts';
import { isValueFileName, ValueFiles } from './value-files.ts';

/**
 * Entries and bytes in the whole file (every process's writes), as the bounds count them:
 * expired and deleted entries count until the sweep (or an eviction) removes their rows.
 */
export interface SqliteUsage {
  entries: number;
  bytes: number;
}

/** Writes of this process between two sweeps of the hand over the file (hand.ts). */
export const SWEEP_EVERY = 64;
/** Rows a sweep visits: on average one row per write, so every entry is visited once per `entries` writes. */
export const SWEEP_ROWS = 64;
/** Rows one eviction step samples; the policy's first of them goes. */
export const EVICTION_SAMPLE = 16;
/** Rows one write transaction evicts at most: a bound lowered a lot is met over the next writes, not in one long lock. */
export const EVICTIONS_PER_WRITE = 256;
// A process checks the shared totals again once its own writes have used this share of the
// headroom it last saw: N processes writing at once overshoot a bound only if N exceeds it.
const HEADROOM_SHARE = 16;
// Keys whose value file this process wrote, so that the write replacing or removing one
// removes the file in the same transaction; beyond this many, only the sweeps do (every 64 writes).
const OWN_FILES_MAX = 16_384;

const EMPTY = new Uint8Array(0);
const NO_FILES: ReadonlyArray<string | undefined> = [];
// Settled promises shared by every lone write that succeeds at once: nothing to allocate.
const DONE: Promise<undefined> = Promise.resolve(undefined);
const ZERO: Promise<number> = Promise.resolve(0);
const ONE: Promise<number> = Promise.resolve(1);

/**
 * The embedded store on one SQLite file in WAL mode, shared by every process that opens it.
 * Calls run synchronously inside the binding (no thread hop: a hit is a B-tree lookup in the
 * page cache), behind the async store contract; `local` tells the engine so, and the store
 * folds the writes of a tick into one transaction itself (tick-writes.ts). A write that stays
 * within the bounds, with nothing to sweep or to remove, is one statement; the triggers keep
 * the file's totals. Errors reject the call with a {@link SqliteStoreError} — never a crash —
 * and a file that cannot be opened (corrupt, foreign, locked) makes every call fail until a
 * retry after `timeoutMs` succeeds.
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
  readonly synchronous: SqliteSynchronous;
  /** Values of at least this many bytes live in their own file (see SqliteStoreOptions). */
  readonly fileThreshold: number;
  /** Where those files live: `<path>-values/`. */
  readonly valuesDir: string;
  readonly #bounds: Bounds;
  readonly #files: ValueFiles;
  readonly #reservations: Reservations;
  readonly #writes: TickWrites;
  readonly #hand: Hand;
  /** Hits waiting to be written (least-recently/frequently-used only). */
  readonly #uses: PendingUses | undefined;
  readonly #ownFiles = new Set<number>();
  #db: SqliteConnection | undefined;
  #s: Statements | undefined;
  /** The coherence bus of coherent L1 tiers (adapters/sqlite/coherence.ts), made by the first {@link coherence}. */
  #bus: DataVersionBus | undefined;
  #seed: KeySeed = { high: 0, low: 0 };
  #openError: unknown;
  #nextOpenAt = 0;
  #closed = false;
  #inTransaction = false;
  // Bookkeeping between maintenance steps (#maintain): what this process may still write before
  // it reads the shared totals again (-1: at once), writes left before the next sweep, and
  // whether the transaction under way must claim value files.
  #budgetBytes = -1;
  #budgetEntries = -1;
  #writesToSweep = SWEEP_EVERY;
  #claimDue = false;
  #hostile: unknown[] = [];
  // The garbage table's last rowid when the write transaction under way began, and the files
  // of the names it queued itself, removed once it commits (#maintain says why).
  #garbageMark = 0;
  #removeAfterCommit: string[] = [];
  #stampMs = 0;
  #stampSeq = 0;

  constructor(options: SqliteStoreOptions | string) {
    const o = resolveOptions(options);
    this.path = o.path;
    this.maxBytes = o.maxBytes;
    this.maxEntries = o.maxEntries;
    this.policy = o.policy;
    this.timeoutMs = o.timeoutMs;
    this.binding = o.binding;
    this.synchronous = o.synchronous;
    this.fileThreshold = o.fileThreshold;
    this.#bounds = { maxEntries: o.maxEntries, maxBytes: o.maxBytes };
    this.#files = new ValueFiles(o.path);
    this.#reservations = new Reservations(this.#files);
    this.valuesDir = this.#files.dir;
    this.#hand = new Hand(o.policy);
    this.#uses = o.policy === 'least-recently-stored' ? undefined : new PendingUses();
    this.#writes = new TickWrites({
      batch: (runs) => this.#batch(runs),
      retry: (error, op) => this.#retry(error, op),
      isBusy: (error) => isBusy(codeOf(error)) && !this.#closed,
      fail: (error) => this.#wrap(error),
    });
    // A binding that cannot load is a setup mistake: say so now, not on the first call.
    openConnection(':memory:', this.binding).close();
    this.#tryOpen();
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    this.#writes.drain();
    // Spelled out rather than through #run: no closure allocated on the hottest path.
    try {
      return this.#getNow(key);
    } catch (error) {
      return this.#retry(error, () => this.#getNow(key));
    }
  }

  /**
   * The bytes under `key` right now, synchronously (the cheapest read there is, for an engine
   * that serves `local` stores without a promise). Throws a {@link SqliteStoreError} where
   * {@link get} would reject, and a {@link StoreBusyError} while another connection holds the
   * file's lock: {@link get} waits for it, a synchronous read cannot.
   */
  getSync(key: string): Uint8Array | undefined {
    this.#writes.drain();
    try {
      return this.#getNow(key);
    } catch (error) {
      throw this.#syncFailure(error);
    }
  }

  async getMany(keys: readonly string[]): Promise<Array<Uint8Array | undefined>> {
    this.#writes.drain();
    return this.#run(() => this.#getManyNow(keys));
  }

  /** {@link getMany} synchronously, on the terms of {@link getSync}. */
  getManySync(keys: readonly string[]): Array<Uint8Array | undefined> {
    this.#writes.drain();
    try {
      return this.#getManyNow(keys);
    } catch (error) {
      throw this.#syncFailure(error);
    }
  }

  #getManyNow(keys: readonly string[]): Array<Uint8Array | undefined> {
    if (keys.length < 2) return keys.map((key) => this.#getNow(key));
    // One read transaction: one lock round and one consistent snapshot for the whole batch.
    return this.#transaction(false, () => keys.map((key) => this.#getNow(key)));
  }

  set(key: string, value: Uint8Array, ttlMs?: number): Promise<void> {
    // A large value goes to its own file, reserved and written before the row's transaction
    // (pending-files.ts); the row that names it publishes it whole.
    if (this.#spills(key, value, ttlMs)) return this.#withFiles([value], (now, [file]) => this.#put(this.#id(key), key, value, ttlMs, now, file));
    if (this.#writes.mayLead()) {
      // The lone set of a tick: one statement, no closure, and a promise shared by every such call.
      try {
        this.#setAlone(key, value, ttlMs);
        return DONE;
      } catch (error) {
        return this.#writes.recover(error, () => this.#setAlone(key, value, ttlMs));
      }
    }
    return this.#writes.submit<undefined>({
      alone: () => this.#setAlone(key, value, ttlMs),
      within: (now) => this.#put(this.#id(key), key, value, ttlMs, now),
    });
  }

  async setMany(entries: readonly StoreEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const spilled = entries.map((e) => (this.#spills(e.key, e.value, e.ttlMs) ? e.value : undefined));
    if (spilled.some((value) => value !== undefined)) return this.#withFiles(spilled, (now, files) => this.#putAll(entries, now, files));
    const within = (now: number) => this.#putAll(entries, now, NO_FILES);
    await this.#writes.submit<void>({ alone: () => this.#writeTransaction(within), within });
  }

  delete(keys: readonly string[]): Promise<number> {
    if (keys.length === 0) return Promise.resolve(0);
    const within = (now: number) => keys.reduce((n, key) => n + this.#remove(this.#id(key), key, now), 0);
    if (keys.length > 1) return this.#writes.submit({ alone: () => this.#writeTransaction(within), within });
    const key = keys[0]!;
    if (this.#writes.mayLead()) {
      try {
        return this.#deleteAlone(key) === 1 ? ONE : ZERO;
      } catch (error) {
        return this.#writes.recover(error, () => this.#deleteAlone(key));
      }
    }
    return this.#writes.enqueue({ alone: () => this.#deleteAlone(key), within });
  }

  incr(key: string, by: number, ttlMs?: number): Promise<number> {
    const within = (now: number) => {
      const id = this.#id(key);
      const row = this.#statements().readLive.get(id, key, now);
      const next = (row ? parseCounter(this.#valueOf(row, key), key) : 0) + by;
      if (!Number.isSafeInteger(next)) throw new RangeError(`increment or decrement would overflow for key "${key}"`);
      // The TTL applies only when this call creates the counter, as INCRBY + PEXPIRE NX would.
      const expiresIn = row ? (row.expires_at === null ? undefined : Number(row.expires_at) - now) : ttlMs;
      this.#put(id, key, formatCounter(next), expiresIn, now);
      return next;
    };
    return this.#writes.submit({ alone: () => this.#writeTransaction(within), within });
  }

  add(key: string, value: Uint8Array, ttlMs?: number): Promise<boolean> {
    const insert = (now: number, id: number) => {
      const s = this.#statements();
      if (ttlMs !== undefined && !(ttlMs > 0)) return !s.readLive.get(id, key, now);
      const size = value.length + key.length;
      if (size > this.maxBytes) return false;
      // Leases and tokens are small: add keeps its value inline whatever its size.
      const stamp = this.#stamp(now);
      const added = Number(s.add.run(id, key, expiryOf(ttlMs, now), stamp, stamp, size, null, value, now).changes) > 0;
      if (added) this.#spend(size);
      return added;
    };
    return this.#writes.submit({
      alone: () => {
        const id = this.#openId(key);
        return this.#due(id, value.length + key.length) ? this.#writeTransaction((now) => insert(now, id)) : insert(Date.now(), id);
      },
      within: (now) => insert(now, this.#id(key)),
    });
  }

  compareAndDelete(key: string, expected: Uint8Array): Promise<boolean> {
    // Read, compare and delete in one write transaction: the value may be in a file.
    const within = (now: number) => {
      const id = this.#id(key);
      const row = this.#statements().readLive.get(id, key, now);
      if (!row || !sameBytes(this.#valueOf(row, key), expected)) return false;
      this.#remove(id, key, now);
      return true;
    };
    return this.#writes.submit({ alone: () => this.#writeTransaction(within), within });
  }

  /**
   * The ops in order in one write transaction; an op that fails for a reason of its own (a
   * counter that is not an integer) puts its Error in its slot, a failure of the file fails all.
   */
  pipeline(ops: readonly StoreOp[]): Promise<StoreOpResult[]> {
    // The values of its sets, in order, those that go to files among them (the rest undefined).
    const written = ops.flatMap((op) => (op.kind === 'set' ? [op] : op.kind === 'setMany' ? op.entries : []));
    const spilled = written.map((e) => (this.#spills(e.key, e.value, e.ttlMs) ? e.value : undefined));
    const all = (now: number, files: ReadonlyArray<string | undefined>) => {
      let at = 0;
      return ops.map((op): StoreOpResult => {
        const count = op.kind === 'set' ? 1 : op.kind === 'setMany' ? op.entries.length : 0;
        const own = files.slice(at, (at += count));
        const outcome = outcomeOf((time) => this.#runOp(op, time, own), now);
        return outcome.ok ? (outcome.value as StoreOpResult) : outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error));
      });
    };
    if (spilled.some((value) => value !== undefined)) return this.#withFiles(spilled, all);
    return this.#writes.submit({ alone: () => this.#writeTransaction((now) => all(now, NO_FILES)) });
  }

  async clear(prefix: string): Promise<void> {
    // Ids are hashes: keys sharing a prefix are spread over the whole file, so walk all of it,
    // in small write transactions (other writers wait for one batch at a time, never the clear).
    let after = -1;
    const step = () =>
      this.#writeTransaction((now) => {
        const rows = this.#statements().keysAfter.all(after);
        for (const { id, key } of rows) if ((key as string).startsWith(prefix)) this.#remove(Number(id), key as string, now, true);
        this.#claimDue = true; // other processes' value files among them: the trigger queued their names
        // Where the next batch starts, or undefined once this one reached the end of the file.
        return rows.length === CLEAR_BATCH ? Number(rows[rows.length - 1]!.id) : undefined;
      });
    this.#writes.drain();
    // The walk moves on only once a step committed: a step retried after BUSY redoes its batch.
    for (let last = await this.#run(step); last !== undefined; last = await this.#run(step)) after = last;
  }

  /** One step of a walk over the keys: a batch of rows in id order (ids are hashes: a prefix is spread over the whole file). */
  async keys(prefix: string, cursor?: string): Promise<KeyPage> {
    const after = cursor === undefined ? -1 : Number(cursor);
    if (!Number.isSafeInteger(after)) throw new TypeError(`sqlite store: keys() was given a cursor it never returned (${String(cursor)})`);
    this.#writes.drain();
    return this.#run(() => {
      const rows = this.#statements().keysAfter.all(after);
      const keys: string[] = [];
      for (const { key } of rows) if ((key as string).startsWith(prefix)) keys.push(key as string);
      return rows.length === CLEAR_BATCH ? { keys, cursor: String(rows[rows.length - 1]!.id) } : { keys };
    });
  }

  /**
   * Entries and tag states in one read transaction (one consistent snapshot), or in one write
   * transaction when a generation counter has to be created first.
   */
  async readWithGenerations(read: GenerationRead): Promise<GenerationReadResult> {
    this.#writes.drain();
    return this.#run(() => this.#readGenerationsNow(read));
  }

  /** {@link readWithGenerations} synchronously, on the terms of {@link getSync}. */
  readWithGenerationsSync(read: GenerationRead): GenerationReadResult {
    this.#writes.drain();
    try {
      return this.#readGenerationsNow(read);
    } catch (error) {
      throw this.#syncFailure(error);
    }
  }

  #readGenerationsNow(read: GenerationRead): GenerationReadResult {
    const snapshot = this.#transaction(false, (now) => {
      const cells = this.#cells(now);
      return missingGeneration(cells, read.tags) ? undefined : readGenerationsIn(cells, read, now);
    });
    return snapshot ?? this.#writeTransaction((now) => readGenerationsIn(this.#cells(now), read, now));
  }

  /** Bumps, holds or releases in one write transaction, in order with the writes issued before it. */
  writeGenerations(write: GenerationWrite): Promise<void> {
    return this.#writes.submit({ alone: () => this.#writeTransaction((now) => writeGenerationsIn(this.#cells(now), write, now)) });
  }

  /** Rewrites the fresh entries in one write transaction (several processes may share the file), in order with the writes issued before it. */
  expireEntries(request: ExpireRequest): Promise<number> {
    return this.#writes.submit({ alone: () => this.#writeTransaction((now) => expireEntriesIn(this.#cells(now), request)) });
  }

  /** The database's change counter as the bus of coherent L1 tiers (adapters/sqlite/coherence.ts). */
  coherence(listener: CoherenceListener): Coherence {
    this.#bus ??= new DataVersionBus(() => {
      try {
        const s = this.#statements();
        return { connection: this.#db, version: s.dataVersion() };
      } catch {
        return undefined;
      }
    });
    return this.#bus.register(listener);
  }

  /** Entries and bytes held by the file, expired and deleted entries the sweep has not removed yet included. */
  async usage(): Promise<SqliteUsage> {
    this.#writes.drain();
    return this.#run(() => readTotals(this.#statements()));
  }

  /** Closes this process's connection once its waiting writes ran; the file and other processes' connections stay. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#writes.drain();
    if ((this.#uses?.waiting || this.#reservations.holding) && this.#s) {
      // Hits not yet written and spare reservations: once more, quietly (a locked file only
      // loses the hits, and leaves the reservations to run out for a sweep to collect).
      try {
        this.#writeTransaction(() => this.#reservations.releaseAll(this.#s!));
      } catch {
        // They only made entries look more used, and keep counting a little longer.
      }
    }
    this.#closed = true;
    this.#s = undefined;
    try {
      this.#db?.close();
    } finally {
      this.#db = undefined;
    }
  }

  #id(key: string): number {
    return keyHash(key, this.#seed);
  }

  /**
   * When an entry was stored or used, for the eviction order: `now` in ms × 1000 plus this
   * process's count of stamps within that ms, so that its writes of one ms keep their order.
   */
  #stamp(now: number): number {
    if (now !== this.#stampMs) {
      this.#stampMs = now;
      this.#stampSeq = 0;
    } else if (this.#stampSeq < 999) this.#stampSeq++;
    return now * 1000 + this.#stampSeq;
  }

  #getNow(key: string): Uint8Array | undefined {
    const s = this.#s ?? this.#statements();
    const id = keyHash(key, this.#seed);
    const now = Date.now();
    const found = s.get(id, key, now);
    if (found === undefined || found === null) return undefined;
    if (this.#uses?.record(id, key, this.#stamp(now))) this.#writeUses();
    if (found instanceof Uint8Array) return found;
    if (typeof found !== 'string') throw new SqliteStoreError('CORRUPT', this.path, `the entry "${key}" holds a ${typeof found}, not bytes: not served`);
    // The value lives in a file: read its row whole (the file's length is in it).
    const row = s.readLive.get(id, key, now);
    if (row === undefined || row.file === null) return row?.value as Uint8Array | undefined;
    const value = this.#readFile(row, key);
    if (value) return value;
    // Another process replaced or removed the entry (and its file) since the row was read:
    // read the row again, once; a file missing for the current row too is a miss.
    const again = s.readLive.get(id, key, Date.now());
    if (again === undefined || again.file === null) return again?.value as Uint8Array | undefined;
    return again.file === row.file ? undefined : this.#readFile(again, key);
  }

  /** Writes the hits counted so far, in a transaction of their own, unless one is under way (or the file is busy: they wait). */
  #writeUses(): void {
    if (this.#inTransaction) return;
    try {
      // #transaction, not #writeTransaction: a hostile garbage name found here is reported by the next write.
      this.#transaction(true, () => undefined);
    } catch {
      // Busy or failing: the hits wait for the next write transaction.
    }
  }

  /** The bytes of a row read inside a transaction (so its file cannot go meanwhile). */
  #valueOf(row: SqliteRow, key: string): Uint8Array {
    return row.file === null ? (row.value as Uint8Array) : (this.#readFile(row, key) ?? EMPTY);
  }

  /** The bytes of the file a row of `key` names (as long as its size says), or undefined when it is gone. */
  #readFile(row: SqliteRow, key: string): Uint8Array | undefined {
    return this.#files.read(row.file, Number(row.size) - key.length, key);
  }

  /** The file's entries as generation-cells.ts sees them, for use inside one transaction. */
  #cells(now: number): Cells {
    const s = this.#statements();
    return {
      read: (key) => {
        const row = s.readLive.get(this.#id(key), key, now);
        // Inside a read transaction another process may have removed the value file: a miss then.
        if (!row) return undefined;
        return row.file === null ? (row.value as Uint8Array) : this.#readFile(row, key);
      },
      write: (key, value, ttlMs) => this.#put(this.#id(key), key, value, ttlMs, now),
      remove: (key) => void this.#remove(this.#id(key), key, now, true),
    };
  }

  /** One op of a pipeline, inside its transaction, with the value files written for it. */
  #runOp(op: StoreOp, now: number, files: ReadonlyArray<string | undefined>): StoreOpResult {
    switch (op.kind) {
      case 'get':
        return this.#getNow(op.key);
      case 'getMany':
        return op.keys.map((key) => this.#getNow(key));
      case 'set':
        return this.#put(this.#id(op.key), op.key, op.value, op.ttlMs, now, files[0]);
      case 'setMany':
        return this.#putAll(op.entries, now, files);
      case 'delete':
        return op.keys.reduce((n, key) => n + this.#remove(this.#id(key), key, now), 0);
      case 'incr': {
        const row = this.#statements().readLive.get(this.#id(op.key), op.key, now);
        const next = (row ? parseCounter(this.#valueOf(row, op.key), op.key) : 0) + op.by;
        if (!Number.isSafeInteger(next)) throw new RangeError(`increment or decrement would overflow for key "${op.key}"`);
        this.#put(this.#id(op.key), op.key, formatCounter(next), row ? (row.expires_at === null ? undefined : Number(row.expires_at) - now) : op.ttlMs, now);
        return next;
      }
    }
  }

  /** True when `value` goes to a file of its own: it is large enough, and would be stored at all. */
  #spills(key: string, value: Uint8Array, ttlMs: number | undefined): boolean {
    return value.length >= this.fileThreshold && value.length + key.length <= this.maxBytes && (ttlMs === undefined || ttlMs > 0);
  }

  /**
   * A write whose `values` (undefined: kept inline) go to files of their own, each under a
   * reserved name (pending-files.ts), then named by the rows `body` writes. With a spare
   * reservation for each, the files are written now and the rows fold with the tick's other
   * writes; otherwise the write runs alone, after a short transaction that reserves the names.
   */
  #withFiles<T>(values: ReadonlyArray<Uint8Array | undefined>, body: (now: number, files: ReadonlyArray<string | undefined>) => T): Promise<T> {
    // A closed store writes no file: nothing would ever name it.
    if (this.#closed) return Promise.reject(new StoreClosedError(`sqlite store (${this.path})`));
    const now = Date.now();
    const files = values.map((value) => (value === undefined ? undefined : this.#reservations.take(value.length, now)));
    let written = 0;
    const write = () => {
      for (; written < files.length; written++) if (files[written]) this.#files.write(files[written]!.name, values[written]!);
    };
    const within = (at: number) => body(at, this.#namesOf(files, at));
    const abandon = (error: unknown): never => {
      this.#reservations.abandon(files);
      throw error;
    };
    if (files.every((file, i) => file !== undefined || values[i] === undefined)) {
      try {
        write();
      } catch (error) {
        this.#reservations.abandon(files);
        return Promise.reject(error);
      }
      return this.#writes.submit({ alone: () => this.#writeTransaction(within), within }).catch(abandon);
    }
    let needed = false;
    const alone = (): T => {
      if (!needed) for (let i = 0; i < values.length; i++) if (values[i] !== undefined && files[i] === undefined) this.#reservations.need(values[i]!.length);
      needed = true;
      if (files.some((file, i) => file === undefined && values[i] !== undefined)) {
        this.#transaction(true, () => undefined);
        const at = Date.now();
        for (let i = 0; i < values.length; i++) if (values[i] !== undefined) files[i] ??= this.#reservations.take(values[i]!.length, at);
      }
      write();
      return this.#writeTransaction(within);
    };
    return this.#writes.submit({ alone }).catch(abandon);
  }

  /**
   * Inside the rows' transaction: the name of each file, undefined for one whose reservation was
   * collected meanwhile (its value is stored inline, and its file queued as garbage: claimed now).
   */
  #namesOf(files: ReadonlyArray<PendingFile | undefined>, now: number): Array<string | undefined> {
    const s = this.#statements();
    return files.map((file) => {
      if (file === undefined) return undefined;
      const name = this.#reservations.name(file, s, now, now + this.timeoutMs + PENDING_GRACE_MS);
      if (name === undefined) this.#claimDue = true;
      return name;
    });
  }

  /**
   * Inside a write transaction: the reservations whose time ran out (their writer died before
   * naming their files) go, a bounded number at a time, their names queued as garbage by this
   * transaction, so their files are removed once it commits (#maintain). Not before: a rollback
   * (a kill, a failed commit) would bring back a reservation whose file is gone, and a writer
   * stalled past its time, finding it there, would name that file in a row.
   */
  #collectOrphans(s: Statements, now: number): void {
    for (const { file } of s.collectPending.all(now, ORPHANS_PER_SWEEP)) {
      if (isValueFileName(file)) s.addGarbage.run(file);
      else this.#hostile.push(file);
    }
    this.#claimDue = true;
  }

  #put(id: number, key: string, value: Uint8Array, ttlMs: number | undefined, now: number, file?: string): undefined {
    const s = this.#statements();
    const size = value.length + key.length;
    // A zero or negative TTL means "already expired", as PX would refuse and EXPIRE would
    // delete; a value that could never fit is served by the caller and not stored.
    if ((ttlMs !== undefined && !(ttlMs > 0)) || size > this.maxBytes) {
      this.#remove(id, key, now, true);
      return undefined;
    }
    const stamp = this.#stamp(now);
    if (file) {
      s.upsert.run(id, key, expiryOf(ttlMs, now), stamp, stamp, size, file, EMPTY);
      this.#ownFile(id);
    } else {
      this.#releaseFile(id);
      s.upsert.run(id, key, expiryOf(ttlMs, now), stamp, stamp, size, null, value);
    }
    this.#spend(size);
    return undefined;
  }

  #putAll(entries: readonly StoreEntry[], now: number, files: ReadonlyArray<string | undefined>): undefined {
    for (let i = 0; i < entries.length; i++) this.#put(this.#id(entries[i]!.key), entries[i]!.key, entries[i]!.value, entries[i]!.ttlMs, now, files[i]);
    return undefined;
  }

  /** Removes `key` (only when live unless `any`); 1 when a live entry went. */
  #remove(id: number, key: string, now: number, any = false): number {
    const s = this.#statements();
    this.#releaseFile(id);
    this.#writesToSweep--;
    if (any) return Number(s.remove.run(id, key).changes) > 0 ? 1 : 0;
    // A deleted inline entry is expired in place (its bytes dropped) and goes with the sweep,
    // as expired entries do: the write changes its own page only, not the shared totals. An
    // entry with a value file goes now, so that its file does too.
    if (Number(s.expireLive.run(id, key, now).changes) > 0) return 1;
    return Number(s.removeLive.run(id, key, now).changes);
  }

  /** Counts a write of `size` bytes against the headroom and the sweep. */
  #spend(size: number): void {
    this.#budgetBytes -= size;
    this.#budgetEntries -= 1;
    this.#writesToSweep--;
  }

  /** This process wrote a file for `id`: the write that replaces or removes it claims the file. */
  #ownFile(id: number): void {
    if (this.#ownFiles.has(id)) this.#claimDue = true;
    else if (this.#ownFiles.size >= OWN_FILES_MAX) this.#ownFiles.clear();
    this.#ownFiles.add(id);
  }

  #releaseFile(id: number): void {
    if (this.#ownFiles.delete(id)) this.#claimDue = true;
  }

  /** The id of `key`, the file opened first (ids depend on its seed). */
  #openId(key: string): number {
    if (this.#s === undefined) this.#statements();
    return keyHash(key, this.#seed);
  }

  /**
   * True when a lone write of `id` needs a transaction for the maintenance due with it (its
   * share of the headroom is used, a sweep is due, a value file is to be claimed); else it is
   * one statement. `adds`: bytes it may add (-1: none).
   */
  #due(id: number, adds: number): boolean {
    return this.#claimDue || this.#writesToSweep <= 1 || this.#ownFiles.has(id) || (adds >= 0 && (this.#budgetBytes < adds || this.#budgetEntries < 1));
  }

  /** A set issued alone: one statement, or one transaction with the maintenance due. */
  #setAlone(key: string, value: Uint8Array, ttlMs: number | undefined): undefined {
    const id = this.#openId(key);
    if (this.#due(id, value.length + key.length)) return this.#writeTransaction((now) => this.#put(id, key, value, ttlMs, now));
    return this.#put(id, key, value, ttlMs, Date.now());
  }

  /** A delete of one key issued alone; 1 when a live entry went. */
  #deleteAlone(key: string): number {
    const id = this.#openId(key);
    if (this.#due(id, -1)) return this.#writeTransaction((now) => this.#remove(id, key, now));
    return this.#remove(id, key, Date.now());
  }

  /** `body` and the maintenance due in one write transaction; reports hostile garbage after the commit. */
  #writeTransaction<T>(body: (now: number) => T): T {
    const result = this.#transaction(true, body);
    const hostile = this.#takeHostile();
    if (hostile) throw hostile;
    return result;
  }

  /** The folded writes of a tick in one transaction, each with its own outcome. */
  #batch(runs: ReadonlyArray<(now: number) => unknown>): Outcome[] {
    const outcomes = this.#transaction(true, (now) => runs.map((run) => outcomeOf(run, now)));
    const hostile = this.#takeHostile();
    // One report per transaction: on its first write, which was stored like the others.
    if (hostile) outcomes[0] = { ok: false, error: hostile };
    return outcomes;
  }

  /**
   * Inside a write transaction, after its writes: the hits counted in memory, then, when this
   * process has used its share of the headroom or a sweep is due, the shared totals and as many
   * visits of the hand as bring them under the bounds, and the claim of value files.
   */
  #maintain(s: Statements, now: number): void {
    this.#uses?.writeWith(s.touch);
    // Counted at once: the totals include them, and what follows makes room for them.
    this.#budgetBytes -= this.#reservations.maintain(s, now, now + this.timeoutMs + PENDING_GRACE_MS);
    const sweep = this.#writesToSweep <= 0;
    let claim = this.#claimDue;
    if (sweep || this.#budgetBytes < 0 || this.#budgetEntries < 0) {
      if (sweep) this.#collectOrphans(s, now);
      const totals = readTotals(s);
      // The sweep's removals are in the totals the triggers keep, not yet in this copy: read again.
      if (sweep && this.#hand.sweep(s, now, SWEEP_ROWS) > 0) Object.assign(totals, readTotals(s));
      for (let removed = 0; removed < EVICTIONS_PER_WRITE && isOver(totals, this.#bounds); ) {
        const visit = this.#hand.visit(s, now, EVICTION_SAMPLE, totals, this.#bounds);
        if (visit.examined === 0) break;
        removed += visit.removed;
      }
      this.#writesToSweep = SWEEP_EVERY;
      this.#setBudget(totals);
      claim = true;
    }
    this.#claimDue = false;
    if (!claim || s.anyGarbage() === undefined) return;
    // Value files whose rows went. Those queued by earlier commits (of any process) are claimed
    // and removed before this commit: their rows are gone for good, and if the commit fails the
    // names come back and a later write removes them again (a file already gone is fine). Those
    // this transaction queued (its overwrites, deletes, evictions, collected reservations) are
    // removed only once it commits, and their names stay queued for a later claim: removed
    // before, a rollback (a kill, a failed commit) would bring back rows naming files that are
    // gone; unqueued, a kill between the commit and the removal would leak the files. So no
    // file is ever leaked, and no row names a file that was removed. A name the store did not
    // write is dropped from the table and never touched; the call reports it once its own write
    // is committed.
    const hostile = s.claimGarbage.all(this.#garbageMark).filter(({ file }) => !this.#files.remove(file));
    this.#hostile.push(...hostile.map(({ file }) => file));
    for (const { file } of s.newGarbage.all(this.#garbageMark)) this.#removeAfterCommit.push(file as string);
  }

  #setBudget(totals: Totals): void {
    const share = (headroom: number) => (headroom > 0 ? Math.floor(headroom / HEADROOM_SHARE) : isOver(totals, this.#bounds) ? -1 : 0);
    this.#budgetBytes = share(this.maxBytes - totals.bytes);
    this.#budgetEntries = share(this.maxEntries - totals.entries);
  }

  #takeHostile(): SqliteStoreError | undefined {
    if (this.#hostile.length === 0) return undefined;
    const names = this.#hostile.map((file) => JSON.stringify(file)).join(', ');
    this.#hostile = [];
    return new SqliteStoreError('CORRUPT', this.path, `the garbage table named ${names}, not names this store writes: dropped, never removed (this call's own write was stored)`);
  }

  #transaction<T>(write: boolean, body: (now: number) => T): T {
    const s = this.#statements();
    (write ? s.beginImmediate : s.begin).run();
    this.#inTransaction = true;
    try {
      const now = Date.now();
      // Under the write lock: every garbage name after this rowid is this transaction's (a new
      // row's rowid is one past the largest, the claim deleting rows comes after every insert).
      if (write) this.#garbageMark = Number(s.garbageMark());
      const result = body(now);
      if (write) this.#maintain(s, now);
      s.commit.run();
      if (write) this.#committed();
      return result;
    } catch (error) {
      rollbackQuietly(this.#db!);
      this.#hostile = [];
      this.#removeAfterCommit = [];
      if (write) this.#reservations.rolledBack();
      throw error;
    } finally {
      this.#inTransaction = false;
    }
  }

  /** A write transaction committed: what it reserved and took stands, and the files of the rows it removed go. */
  #committed(): void {
    this.#reservations.committed();
    for (const file of this.#removeAfterCommit) this.#files.remove(file);
    this.#removeAfterCommit = [];
  }

  /** The statements of the open connection, opening it (again) first if it is not open. */
  #statements(): Statements {
    if (this.#s) return this.#s;
    if (this.#closed) throw new StoreClosedError(`sqlite store (${this.path})`);
    if (Date.now() < this.#nextOpenAt) throw this.#openError;
    this.#tryOpen();
    if (!this.#s) throw this.#openError;
    return this.#s;
  }

  #tryOpen(): void {
    let db: SqliteConnection | undefined;
    try {
      const onDisk = this.path !== ':memory:';
      const prepared = onDisk ? prepareDatabaseFile(this.path) : undefined;
      db = openConnection(this.path, this.binding);
      if (prepared) checkDatabaseFile(this.path, prepared);
      const seed = setupSchema(db, this.synchronous);
      if (onDisk) {
        tightenDatabaseFiles(this.path);
        this.#files.tighten();
      }
      this.#s = new Statements(db);
      this.#seed = splitKeySeed(seed);
      this.#db = db;
      this.#openError = undefined;
      if (onDisk) this.#collectOnOpen();
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

  /**
   * Once open: one write transaction that collects the orphans of processes killed while
   * writing a value file, and claims the garbage others left; skipped when the file is busy
   * (the sweeps of this process do it then).
   */
  #collectOnOpen(): void {
    try {
      this.#transaction(true, (now) => this.#collectOrphans(this.#s!, now));
    } catch {
      // Busy or failing: every sweep collects orphans too.
    }
  }

  /** Runs `op` now; when the database is busy, retries it as {@link retryWhileBusy} says. */
  #run<T>(op: () => T): T | Promise<T> {
    try {
      return op();
    } catch (error) {
      return this.#retry(error, op);
    }
  }

  #retry<T>(error: unknown, op: () => T): Promise<T> {
    return retryWhileBusy(error, op, {
      timeoutMs: this.timeoutMs,
      isBusy: (e) => isBusy(codeOf(e)) && !this.#closed,
      fail: (e) => this.#wrap(e),
      timedOut: (e) => new SqliteStoreError('BUSY', this.path, `the database stayed locked by another connection for ${this.timeoutMs} ms`, { cause: e }),
    });
  }

  /**
   * What a synchronous read throws: a busy file (another connection holds the lock) as a
   * {@link StoreBusyError}, so that the engine asks the asynchronous read, which waits for it;
   * anything else as {@link get} would reject with it.
   */
  #syncFailure(error: unknown): unknown {
    if (isBusy(codeOf(error)) && !this.#closed) return new StoreBusyError(`sqlite store (${this.path}): the database is locked by another connection`, { cause: this.#wrap(error) });
    return this.#wrap(error);
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

/** The whole file's entries and bytes, as the triggers keep them. */
function readTotals(s: Statements): Totals {
  const row = s.totals.get();
  return { entries: Number(row?.entries ?? 0), bytes: Number(row?.bytes ?? 0) };
}

/** The code of a binding's error or of one of ours (a failed open is kept as ours). */
function codeOf(error: unknown): SqliteErrorCode | undefined {
  return error instanceof SqliteStoreError ? error.code : sqliteErrorCode(error);
}

/**
 * Runs one folded write: its own failure (not the file's) becomes its outcome; a failure of
 * SQLite's is thrown, so that the transaction rolls back (and is retried when busy).
 */
function outcomeOf(run: (now: number) => unknown, now: number): Outcome {
  try {
    return { ok: true, value: run(now) };
  } catch (error) {
    if (error instanceof SqliteStoreError || sqliteErrorCode(error)) throw error;
    return { ok: false, error };
  }
}

function expiryOf(ttlMs: number | undefined, now: number): number | null {
  return ttlMs === undefined || ttlMs === Infinity ? null : now + ttlMs;
}

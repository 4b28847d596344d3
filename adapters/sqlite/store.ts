import type { Coherence, CoherenceListener, ExpireRequest, GenerationRead, GenerationReadResult, GenerationWrite, KeyPage, Store, StoreEntry, StoreOp, StoreOpResult } from '../../src/store/types.ts';
import type { CoherenceOptions } from '../../src/store/types.ts';
import { formatCounter, parseCounter } from '../../src/store/layout/counter.ts';
import { expireEntriesIn, missingGeneration, readGenerationsIn, writeGenerationsIn, type Cells } from '../shared/generation-cells.ts';
import { sameBytes } from '../shared/same-bytes.ts';
import type { SqliteBindingName, SqliteRow } from './binding.ts';
import { DataVersionBus } from './coherence.ts';
import { SqliteStoreError } from './errors.ts';
import { OpenFile } from './open-file.ts';
import { SpilledWrites } from './spilled-writes.ts';
import { resolveOptions, type EvictionPolicy, type SqliteStoreOptions, type SqliteSynchronous } from './options.ts';
import { Reservations } from './pending-files.ts';
import { CLEAR_BATCH } from './statements.ts';
import { TickWrites } from './tick-writes.ts';
import { outcomeOf, Transactions } from './transactions.ts';
import { readTotals, Upkeep } from './upkeep.ts';
import { ValueFiles } from './value-files.ts';

/**
 * Entries and bytes in the whole file (every process's writes), as the bounds count them:
 * expired and deleted entries count until the sweep (or an eviction) removes their rows.
 */
export interface SqliteUsage {
  entries: number;
  bytes: number;
}

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
  readonly #files: ValueFiles;
  readonly #reservations: Reservations;
  readonly #writes: TickWrites;
  readonly #upkeep: Upkeep;
  readonly #file: OpenFile;
  readonly #tx: Transactions;
  readonly #spilled: SpilledWrites;
  /** The coherence bus of coherent L1 tiers (adapters/sqlite/coherence.ts), made by the first {@link coherence}. */
  #bus: DataVersionBus | undefined;
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
    this.#files = new ValueFiles(o.path);
    this.#reservations = new Reservations(this.#files);
    this.valuesDir = this.#files.dir;
    this.#upkeep = new Upkeep({
      path: o.path,
      bounds: { maxEntries: o.maxEntries, maxBytes: o.maxBytes },
      policy: o.policy,
      timeoutMs: o.timeoutMs,
      files: this.#files,
      reservations: this.#reservations,
    });
    this.#file = new OpenFile({
      path: o.path,
      binding: o.binding,
      synchronous: o.synchronous,
      timeoutMs: o.timeoutMs,
      tightenValues: () => this.#files.tighten(),
      opened: () => this.#tx.collectOnOpen(),
    });
    this.#tx = new Transactions(this.#file, this.#upkeep);
    this.#writes = new TickWrites({
      batch: (runs) => this.#tx.batch(runs),
      retry: (error, op) => this.#file.retry(error, op),
      isBusy: (error) => this.#file.isBusy(error),
      fail: (error) => this.#file.wrap(error),
    });
    this.#spilled = new SpilledWrites({ ...o, file: this.#file, files: this.#files, reservations: this.#reservations, upkeep: this.#upkeep, tx: this.#tx, writes: this.#writes });
    this.#file.open();
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    this.#writes.drain();
    // Spelled out rather than through #run: no closure allocated on the hottest path.
    try {
      return this.#getNow(key);
    } catch (error) {
      return this.#file.retry(error, () => this.#getNow(key));
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
      throw this.#file.syncFailure(error);
    }
  }

  async getMany(keys: readonly string[]): Promise<Array<Uint8Array | undefined>> {
    this.#writes.drain();
    return this.#file.run(() => this.#getManyNow(keys));
  }

  /** {@link getMany} synchronously, on the terms of {@link getSync}. */
  getManySync(keys: readonly string[]): Array<Uint8Array | undefined> {
    this.#writes.drain();
    try {
      return this.#getManyNow(keys);
    } catch (error) {
      throw this.#file.syncFailure(error);
    }
  }

  #getManyNow(keys: readonly string[]): Array<Uint8Array | undefined> {
    if (keys.length < 2) return keys.map((key) => this.#getNow(key));
    // One read transaction: one lock round and one consistent snapshot for the whole batch.
    return this.#tx.run(false, () => keys.map((key) => this.#getNow(key)));
  }

  set(key: string, value: Uint8Array, ttlMs?: number): Promise<void> {
    // A large value goes to its own file, reserved and written before the row's transaction
    // (pending-files.ts); the row that names it publishes it whole.
    if (this.#spilled.spills(key, value, ttlMs)) return this.#spilled.write([value], (now, [file]) => this.#put(this.#file.id(key), key, value, ttlMs, now, file));
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
      within: (now) => this.#put(this.#file.id(key), key, value, ttlMs, now),
    });
  }

  async setMany(entries: readonly StoreEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const spilled = entries.map((e) => (this.#spilled.spills(e.key, e.value, e.ttlMs) ? e.value : undefined));
    if (spilled.some((value) => value !== undefined)) return this.#spilled.write(spilled, (now, files) => this.#putAll(entries, now, files));
    const within = (now: number) => this.#putAll(entries, now, NO_FILES);
    await this.#writes.submit<void>({ alone: () => this.#tx.write(within), within });
  }

  delete(keys: readonly string[]): Promise<number> {
    if (keys.length === 0) return Promise.resolve(0);
    const within = (now: number) => keys.reduce((n, key) => n + this.#remove(this.#file.id(key), key, now), 0);
    if (keys.length > 1) return this.#writes.submit({ alone: () => this.#tx.write(within), within });
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
    const within = (now: number) => this.#incrNow(key, by, ttlMs, now);
    return this.#writes.submit({ alone: () => this.#tx.write(within), within });
  }

  add(key: string, value: Uint8Array, ttlMs?: number): Promise<boolean> {
    const insert = (now: number, id: number) => {
      const s = this.#file.statements();
      if (ttlMs !== undefined && !(ttlMs > 0)) return !s.readLive.get(id, key, now);
      const size = value.length + key.length;
      if (size > this.maxBytes) return false;
      // Leases and tokens are small: add keeps its value inline whatever its size.
      const stamp = this.#stamp(now);
      const added = Number(s.add.run(id, key, expiryOf(ttlMs, now), stamp, stamp, size, null, value, now).changes) > 0;
      if (added) this.#upkeep.spent(size);
      return added;
    };
    return this.#writes.submit({
      alone: () => {
        const id = this.#file.openId(key);
        return this.#upkeep.due(id, value.length + key.length) ? this.#tx.write((now) => insert(now, id)) : insert(Date.now(), id);
      },
      within: (now) => insert(now, this.#file.id(key)),
    });
  }

  compareAndDelete(key: string, expected: Uint8Array): Promise<boolean> {
    // Read, compare and delete in one write transaction: the value may be in a file.
    const within = (now: number) => {
      const id = this.#file.id(key);
      const row = this.#file.statements().readLive.get(id, key, now);
      if (!row || !sameBytes(this.#valueOf(row, key), expected)) return false;
      this.#remove(id, key, now);
      return true;
    };
    return this.#writes.submit({ alone: () => this.#tx.write(within), within });
  }

  /**
   * The ops in order in one write transaction; an op that fails for a reason of its own (a
   * counter that is not an integer) puts its Error in its slot, a failure of the file fails all.
   */
  pipeline(ops: readonly StoreOp[]): Promise<StoreOpResult[]> {
    // The values of its sets, in order, those that go to files among them (the rest undefined).
    const written = ops.flatMap((op) => (op.kind === 'set' ? [op] : op.kind === 'setMany' ? op.entries : []));
    const spilled = written.map((e) => (this.#spilled.spills(e.key, e.value, e.ttlMs) ? e.value : undefined));
    const all = (now: number, files: ReadonlyArray<string | undefined>) => {
      let at = 0;
      return ops.map((op): StoreOpResult => {
        const count = op.kind === 'set' ? 1 : op.kind === 'setMany' ? op.entries.length : 0;
        const own = files.slice(at, (at += count));
        const outcome = outcomeOf((time) => this.#runOp(op, time, own), now);
        return outcome.ok ? (outcome.value as StoreOpResult) : outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error));
      });
    };
    if (spilled.some((value) => value !== undefined)) return this.#spilled.write(spilled, all);
    return this.#writes.submit({ alone: () => this.#tx.write((now) => all(now, NO_FILES)) });
  }

  async clear(prefix: string): Promise<void> {
    // Ids are hashes: keys sharing a prefix are spread over the whole file, so walk all of it,
    // in small write transactions (other writers wait for one batch at a time, never the clear).
    let after = -1;
    const step = () =>
      this.#tx.write((now) => {
        const rows = this.#file.statements().keysAfter.all(after);
        for (const { id, key } of rows) if ((key as string).startsWith(prefix)) this.#remove(Number(id), key as string, now, true);
        this.#upkeep.claimFiles(); // other processes' value files among them: the trigger queued their names
        // Where the next batch starts, or undefined once this one reached the end of the file.
        return rows.length === CLEAR_BATCH ? Number(rows[rows.length - 1]!.id) : undefined;
      });
    this.#writes.drain();
    // The walk moves on only once a step committed: a step retried after BUSY redoes its batch.
    for (let last = await this.#file.run(step); last !== undefined; last = await this.#file.run(step)) after = last;
  }

  /** One step of a walk over the keys: a batch of rows in id order (ids are hashes: a prefix is spread over the whole file). */
  async keys(prefix: string, cursor?: string): Promise<KeyPage> {
    const after = cursor === undefined ? -1 : Number(cursor);
    if (!Number.isSafeInteger(after)) throw new TypeError(`sqlite store: keys() was given a cursor it never returned (${String(cursor)})`);
    this.#writes.drain();
    return this.#file.run(() => {
      const rows = this.#file.statements().keysAfter.all(after);
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
    return this.#file.run(() => this.#readGenerationsNow(read));
  }

  /** {@link readWithGenerations} synchronously, on the terms of {@link getSync}. */
  readWithGenerationsSync(read: GenerationRead): GenerationReadResult {
    this.#writes.drain();
    try {
      return this.#readGenerationsNow(read);
    } catch (error) {
      throw this.#file.syncFailure(error);
    }
  }

  #readGenerationsNow(read: GenerationRead): GenerationReadResult {
    const snapshot = this.#tx.run(false, (now) => {
      const cells = this.#cells(now);
      return missingGeneration(cells, read.tags) ? undefined : readGenerationsIn(cells, read, now);
    });
    return snapshot ?? this.#tx.write((now) => readGenerationsIn(this.#cells(now), read, now));
  }

  /** Bumps, holds or releases in one write transaction, in order with the writes issued before it. */
  writeGenerations(write: GenerationWrite): Promise<void> {
    return this.#writes.submit({ alone: () => this.#tx.write((now) => writeGenerationsIn(this.#cells(now), write, now)) });
  }

  /** Rewrites the fresh entries in one write transaction (several processes may share the file), in order with the writes issued before it. */
  expireEntries(request: ExpireRequest): Promise<number> {
    return this.#writes.submit({ alone: () => this.#tx.write((now) => expireEntriesIn(this.#cells(now), request)) });
  }

  /** The database's change counter as the bus of coherent L1 tiers (adapters/sqlite/coherence.ts). */
  coherence(listener: CoherenceListener, options?: CoherenceOptions): Coherence {
    this.#bus ??= new DataVersionBus(() => {
      try {
        const s = this.#file.statements();
        return { connection: this.#file.db, version: s.dataVersion() };
      } catch {
        return undefined;
      }
    });
    return this.#bus.register(listener, options);
  }

  /** Entries and bytes held by the file, expired and deleted entries the sweep has not removed yet included. */
  async usage(): Promise<SqliteUsage> {
    this.#writes.drain();
    return this.#file.run(() => readTotals(this.#file.statements()));
  }

  /** Closes this process's connection once its waiting writes ran; the file and other processes' connections stay. */
  async close(): Promise<void> {
    if (this.#file.closed) return;
    this.#writes.drain();
    if ((this.#upkeep.uses?.waiting || this.#reservations.holding) && this.#file.s) {
      // Hits not yet written and spare reservations: once more, quietly (a locked file only
      // loses the hits, and leaves the reservations to run out for a sweep to collect).
      try {
        const s = this.#file.s;
        this.#tx.write(() => this.#reservations.releaseAll(s));
      } catch {
        // They only made entries look more used, and keep counting a little longer.
      }
    }
    this.#file.close();
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
    const s = this.#file.s ?? this.#file.statements();
    const id = this.#file.id(key);
    const now = Date.now();
    const found = s.get(id, key, now);
    if (found === undefined || found === null) return undefined;
    if (this.#upkeep.uses?.record(id, key, this.#stamp(now))) this.#tx.writeUses();
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
    const s = this.#file.statements();
    return {
      read: (key) => {
        const row = s.readLive.get(this.#file.id(key), key, now);
        // Inside a read transaction another process may have removed the value file: a miss then.
        if (!row) return undefined;
        return row.file === null ? (row.value as Uint8Array) : this.#readFile(row, key);
      },
      write: (key, value, ttlMs) => this.#put(this.#file.id(key), key, value, ttlMs, now),
      remove: (key) => void this.#remove(this.#file.id(key), key, now, true),
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
        return this.#put(this.#file.id(op.key), op.key, op.value, op.ttlMs, now, files[0]);
      case 'setMany':
        return this.#putAll(op.entries, now, files);
      case 'delete':
        return op.keys.reduce((n, key) => n + this.#remove(this.#file.id(key), key, now), 0);
      case 'incr':
        return this.#incrNow(op.key, op.by, op.ttlMs, now);
    }
  }

  /** Adds `by` to the counter under `key`, inside a write transaction. */
  #incrNow(key: string, by: number, ttlMs: number | undefined, now: number): number {
    const id = this.#file.id(key);
    const row = this.#file.statements().readLive.get(id, key, now);
    const next = (row ? parseCounter(this.#valueOf(row, key), key) : 0) + by;
    if (!Number.isSafeInteger(next)) throw new RangeError(`increment or decrement would overflow for key "${key}"`);
    // The TTL applies only when this call creates the counter, as INCRBY + PEXPIRE NX would.
    const expiresIn = row ? (row.expires_at === null ? undefined : Number(row.expires_at) - now) : ttlMs;
    this.#put(id, key, formatCounter(next), expiresIn, now);
    return next;
  }

  #put(id: number, key: string, value: Uint8Array, ttlMs: number | undefined, now: number, file?: string): undefined {
    const s = this.#file.statements();
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
      this.#upkeep.ownFile(id);
    } else {
      this.#upkeep.released(id);
      s.upsert.run(id, key, expiryOf(ttlMs, now), stamp, stamp, size, null, value);
    }
    this.#upkeep.spent(size);
    return undefined;
  }

  #putAll(entries: readonly StoreEntry[], now: number, files: ReadonlyArray<string | undefined>): undefined {
    for (let i = 0; i < entries.length; i++) this.#put(this.#file.id(entries[i]!.key), entries[i]!.key, entries[i]!.value, entries[i]!.ttlMs, now, files[i]);
    return undefined;
  }

  /** Removes `key` (only when live unless `any`); 1 when a live entry went. */
  #remove(id: number, key: string, now: number, any = false): number {
    const s = this.#file.statements();
    this.#upkeep.removed(id);
    if (any) return Number(s.remove.run(id, key).changes) > 0 ? 1 : 0;
    // A deleted inline entry is expired in place (its bytes dropped) and goes with the sweep,
    // as expired entries do: the write changes its own page only, not the shared totals. An
    // entry with a value file goes now, so that its file does too.
    if (Number(s.expireLive.run(id, key, now).changes) > 0) return 1;
    return Number(s.removeLive.run(id, key, now).changes);
  }

  /** A set issued alone: one statement, or one transaction with the maintenance due. */
  #setAlone(key: string, value: Uint8Array, ttlMs: number | undefined): undefined {
    const id = this.#file.openId(key);
    if (this.#upkeep.due(id, value.length + key.length)) return this.#tx.write((now) => this.#put(id, key, value, ttlMs, now));
    return this.#put(id, key, value, ttlMs, Date.now());
  }

  /** A delete of one key issued alone; 1 when a live entry went. */
  #deleteAlone(key: string): number {
    const id = this.#file.openId(key);
    if (this.#upkeep.due(id, -1)) return this.#tx.write((now) => this.#remove(id, key, now));
    return this.#remove(id, key, Date.now());
  }
}

function expiryOf(ttlMs: number | undefined, now: number): number | null {
  return ttlMs === undefined || ttlMs === Infinity ? null : now + ttlMs;
}

import { StoreClosedError, StoreRefusedError } from '../../src/store/errors.ts';
import type { ExpireRequest, GenerationRead, GenerationReadResult, GenerationWrite, KeyPage, Store, StoreEntry } from '../../src/store/types.ts';
import { copyBytes } from '../../src/util/bytes.ts';
import { parseCounter, formatCounter } from '../../src/store/layout/counter.ts';
import { expireEntriesIn, readGenerationsIn, writeGenerationsIn, type Cells } from '../shared/generation-cells.ts';
import { sameBytes } from '../shared/same-bytes.ts';
import { checkKnownOptions, checkOptionsObject } from '../../src/util/known-options.ts';

/** Options of {@link memoryStore}. */
export interface MemoryStoreOptions {
  /** Most entries kept; the least recently used go first. Default 10,000. */
  maxEntries?: number;
  /** Most bytes of values (plus keys) kept. Default 64 MiB. */
  maxBytes?: number;
  /**
   * Where the store reads the time for its TTLs. Default the system clock. A test passes the
   * same clock as `createCache({ clock })` (`fakeClock()` from `cachette/testing`) so that
   * moving it ages the store's entries together with the engine's view of them.
   */
  clock?: { now(): number };
}

interface Slot {
  value: Uint8Array;
  /** Absolute expiry in ms since the epoch; Infinity when none. */
  expiresAt: number;
  size: number;
}

// How many of the oldest entries a write inspects for expiry: enough to keep dead entries
// from piling up, bounded so that a write never pays for a full scan.
const SWEEP_PER_WRITE = 4;

/**
 * The embedded store: an LRU bounded by entry count and by bytes, in this process only.
 * TTLs are checked on read and swept lazily on write — no timer per key, nothing that keeps
 * a process or an isolate alive.
 */
export class MemoryStore implements Store {
  readonly name = 'memory';
  readonly local = true;
  readonly maxEntries: number;
  readonly maxBytes: number;
  #map = new Map<string, Slot>();
  #bytes = 0;
  #closed = false;
  readonly #now: () => number;

  constructor(options: MemoryStoreOptions = {}) {
    checkOptionsObject(options, 'memoryStore()');
    checkKnownOptions(options, ['maxEntries', 'maxBytes', 'clock'] satisfies ReadonlyArray<keyof MemoryStoreOptions>, 'memoryStore()');
    this.maxEntries = options.maxEntries ?? 10_000;
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    if (!Number.isInteger(this.maxEntries) || this.maxEntries < 1) throw new RangeError(`memoryStore: maxEntries must be a positive integer, got ${this.maxEntries}`);
    if (!(this.maxBytes >= 1)) throw new RangeError(`memoryStore: maxBytes must be a positive number, got ${this.maxBytes}`);
    const clock = options.clock;
    if (clock !== undefined && typeof clock?.now !== 'function') throw new TypeError('memoryStore: "clock" must have a now() method');
    // Date.now itself when no clock is given: the hot path pays no extra call.
    this.#now = clock === undefined ? Date.now : () => clock.now();
  }

  /** Entries currently held (expired ones not yet swept included). */
  get size(): number {
    return this.#map.size;
  }

  /** Bytes currently held. */
  get bytes(): number {
    return this.#bytes;
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    this.#check();
    return this.#read(key, this.#now());
  }

  async getMany(keys: readonly string[]): Promise<Array<Uint8Array | undefined>> {
    this.#check();
    return this.#readMany(keys);
  }

  /** {@link get} without the promise: every call of this store takes effect when it is made. */
  getSync(key: string): Uint8Array | undefined {
    this.#check();
    return this.#read(key, this.#now());
  }

  /** {@link getMany} without the promise. */
  getManySync(keys: readonly string[]): Array<Uint8Array | undefined> {
    this.#check();
    return this.#readMany(keys);
  }

  #readMany(keys: readonly string[]): Array<Uint8Array | undefined> {
    const now = this.#now();
    const values = new Array<Uint8Array | undefined>(keys.length);
    for (let i = 0; i < keys.length; i++) values[i] = this.#read(keys[i]!, now);
    return values;
  }

  async set(key: string, value: Uint8Array, ttlMs?: number): Promise<void> {
    this.#check();
    this.#write(key, value, ttlMs, this.#now());
  }

  async setMany(entries: readonly StoreEntry[]): Promise<void> {
    this.#check();
    const now = this.#now();
    let refused: StoreRefusedError | undefined;
    for (const entry of entries) {
      // One entry too large must not cost the others their place.
      try {
        this.#write(entry.key, entry.value, entry.ttlMs, now);
      } catch (error) {
        if (!(error instanceof StoreRefusedError)) throw error;
        refused ??= error;
      }
    }
    if (refused) throw refused;
  }

  async delete(keys: readonly string[]): Promise<number> {
    this.#check();
    const now = this.#now();
    let existed = 0;
    for (const key of keys) {
      // #live, not #read: refreshing the LRU position of a key about to go is wasted work.
      if (this.#live(key, now)) existed++;
      this.#drop(key);
    }
    return existed;
  }

  async incr(key: string, by: number, ttlMs?: number): Promise<number> {
    this.#check();
    const now = this.#now();
    const slot = this.#live(key, now);
    const next = (slot ? parseCounter(slot.value, key) : 0) + by;
    if (!Number.isSafeInteger(next)) throw new RangeError(`increment or decrement would overflow for key "${key}"`);
    // The TTL is set only when this call creates the counter, as INCRBY + PEXPIRE NX would.
    const expiresIn = slot ? (slot.expiresAt === Infinity ? undefined : slot.expiresAt - now) : ttlMs;
    this.#write(key, formatCounter(next), expiresIn, now);
    return next;
  }

  async add(key: string, value: Uint8Array, ttlMs?: number): Promise<boolean> {
    this.#check();
    const now = this.#now();
    if (this.#live(key, now)) return false;
    this.#write(key, value, ttlMs, now);
    return true;
  }

  async compareAndDelete(key: string, expected: Uint8Array): Promise<boolean> {
    this.#check();
    const slot = this.#live(key, this.#now());
    if (!slot || !sameBytes(slot.value, expected)) return false;
    this.#drop(key);
    return true;
  }

  async clear(prefix: string): Promise<void> {
    this.#check();
    for (const key of [...this.#map.keys()]) if (key.startsWith(prefix)) this.#drop(key);
  }

  /** The whole walk in one step: the keys live now (at most `maxEntries` of them). */
  async keys(prefix: string): Promise<KeyPage> {
    this.#check();
    const now = this.#now();
    const keys: string[] = [];
    for (const [key, slot] of this.#map) if (slot.expiresAt > now && key.startsWith(prefix)) keys.push(key);
    return { keys };
  }

  async readWithGenerations(read: GenerationRead): Promise<GenerationReadResult> {
    this.#check();
    return this.#readGenerations(read);
  }

  /** {@link readWithGenerations} without the promise. */
  readWithGenerationsSync(read: GenerationRead): GenerationReadResult {
    this.#check();
    return this.#readGenerations(read);
  }

  #readGenerations(read: GenerationRead): GenerationReadResult {
    const now = this.#now();
    return readGenerationsIn(this.#cells(now), read, now);
  }

  async writeGenerations(write: GenerationWrite): Promise<void> {
    this.#check();
    const now = this.#now();
    writeGenerationsIn(this.#cells(now), write, now);
  }

  async expireEntries(request: ExpireRequest): Promise<number> {
    this.#check();
    return expireEntriesIn(this.#cells(this.#now()), request);
  }

  /** Drops every entry; every later call rejects with a {@link StoreClosedError} (close() again does nothing). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#map.clear();
    this.#bytes = 0;
  }

  /** Throws once the store is closed: a closed store answering would hide the caller's mistake. */
  #check(): void {
    if (this.#closed) throw new StoreClosedError(this.name);
  }

  /** This store's entries as generation-cells.ts sees them; everything runs in one synchronous step. */
  #cells(now: number): Cells {
    return {
      read: (key) => this.#read(key, now),
      write: (key, value, ttlMs) => this.#write(key, value, ttlMs, now),
      remove: (key) => this.#drop(key),
    };
  }

  #live(key: string, now: number): Slot | undefined {
    const slot = this.#map.get(key);
    if (!slot) return undefined;
    if (slot.expiresAt <= now) {
      this.#drop(key);
      return undefined;
    }
    return slot;
  }

  #read(key: string, now: number): Uint8Array | undefined {
    const slot = this.#live(key, now);
    if (!slot) return undefined;
    // Re-inserting moves the key to the young end of the Map's insertion order: that order is the LRU.
    this.#map.delete(key);
    this.#map.set(key, slot);
    return slot.value;
  }

  #write(key: string, value: Uint8Array, ttlMs: number | undefined, now: number): void {
    if (ttlMs !== undefined && !(ttlMs > 0)) {
      // A zero or negative TTL means "already expired", as PX would refuse and EXPIRE would delete.
      this.#drop(key);
      return;
    }
    const size = value.length + key.length * 2;
    this.#drop(key);
    // Too large to ever fit: refused, so that the caller learns it was not stored.
    if (size > this.maxBytes) throw new StoreRefusedError(`memory: the entry for "${key}" takes ${size} bytes, above the store's maxBytes (${this.maxBytes})`);
    // Copy so that a caller reusing its buffer can never change what is stored.
    this.#map.set(key, { value: copyBytes(value), expiresAt: ttlMs === undefined ? Infinity : now + ttlMs, size });
    this.#bytes += size;
    this.#sweep(now);
  }

  #sweep(now: number): void {
    let inspected = 0;
    for (const [key, slot] of this.#map) {
      if (this.#map.size <= this.maxEntries && this.#bytes <= this.maxBytes && inspected >= SWEEP_PER_WRITE) break;
      inspected++;
      // Over budget, the oldest entry goes whether or not it expired; within budget only expired ones do.
      if (slot.expiresAt <= now || this.#map.size > this.maxEntries || this.#bytes > this.maxBytes) this.#drop(key);
    }
  }

  #drop(key: string): void {
    const slot = this.#map.get(key);
    if (!slot) return;
    this.#map.delete(key);
    this.#bytes -= slot.size;
  }
}

/** Creates the embedded in-process store. */
export function memoryStore(options?: MemoryStoreOptions): MemoryStore {
  return new MemoryStore(options);
}
